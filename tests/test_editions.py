"""The editions of the book (lmnotes.book.editions): the GPU edition's folder, stamp, banner and
staleness, its part of the table of contents, and the verdicts of both editions side by side.
Tested on the CPU with the throwaway `smoke` profile, written to a temporary folder."""

import json

import nbformat
import pandas as pd
import pytest

from lmnotes.book import editions, run as book
from lmnotes.book.run import BookError
from lmnotes.report import claims


def _book_bytes():
    return {p: p.read_bytes() for p in sorted(book.BOOK.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def smoke_page(tmp_path_factory):
    """Chapter 00 executed at the smoke profile into a temporary folder (about 7 s)."""
    before = _book_bytes()
    where = tmp_path_factory.mktemp("smoke")
    book.run(["00_corpus"], profile="smoke", into=where)
    assert _book_bytes() == before, "a smoke run changed book/"
    return where / "00_corpus.ipynb"


def test_a_smoke_run_is_stamped_with_its_run_and_a_banner(smoke_page):
    nb = nbformat.read(smoke_page, as_version=4)
    meta = nb.metadata["lmnotes"]["edition"]
    assert meta["profile"] == "smoke" and meta["seconds"] > 0 and meta["device"] and meta["machine"]
    assert meta["source_sha256"] == editions.source_hash(book.NOTEBOOKS / "00_corpus.py")
    assert meta["parameters_sha256"] == editions.values_hash(book.profile_values("00_corpus", "smoke"))
    assert meta["commit"] != "" and (smoke_page.parent / "claims").is_dir()
    assert nb.cells[0].source.startswith("# The corpus (profile smoke)\n")
    banner = nb.cells[1]
    assert banner.metadata["tags"] == [editions.BANNER_TAG]
    assert banner.source.startswith(":::{admonition} profile smoke\n:class: note\n")
    assert f"at commit `{meta['commit']}`" in banner.source and "{doc}`../00_corpus`" in banner.source
    assert "stale" not in banner.source
    # the parameters used are written into the page, as in the CPU edition
    assert "n_samples = 2  #" in next(
        c.source for c in nb.cells if "parameters" in c.metadata.get("tags", [])
    )


def test_a_page_whose_source_or_parameters_changed_says_it_is_stale(smoke_page, tmp_path):
    copy = tmp_path / "00_corpus.ipynb"
    nb = nbformat.read(smoke_page, as_version=4)
    nb.metadata["lmnotes"]["edition"]["source_sha256"] = "0" * 64
    nbformat.write(nb, copy)
    assert book.refresh(tmp_path) == [copy]
    banner = nbformat.read(copy, as_version=4).cells[1].source
    assert banner.startswith(":::{admonition} profile smoke: stale\n:class: warning\n")
    assert "notebooks/00_corpus.py changed since" in banner and "its parameters differ" not in banner
    assert book.refresh(tmp_path) == []  # renewed once, then unchanged

    nb = nbformat.read(smoke_page, as_version=4)
    nb.metadata["lmnotes"]["edition"]["parameters_sha256"] = editions.values_hash({"n_samples": 3})
    nbformat.write(nb, copy)
    book.refresh(tmp_path)
    banner = nbformat.read(copy, as_version=4).cells[1].source
    assert "its parameters differ from params/smoke.yaml's" in banner and "changed since" not in banner
    fresh, why = editions.status(
        nbformat.read(smoke_page, as_version=4),
        book.NOTEBOOKS / "00_corpus.py",
        book.profile_values("00_corpus", "smoke"),
    )
    assert fresh and why == []


def test_a_profile_that_is_not_published_needs_a_folder(capsys, tmp_path):
    assert book.main(["run", "00_corpus", "--profile", "smoke"]) == 2
    assert "profile 'smoke' is not published" in capsys.readouterr().err
    assert book.main(["run", "00_corpus", "--profile", "smoke", "--into", str(book.BOOK)]) == 2
    assert "book/ holds the CPU edition" in capsys.readouterr().err
    with pytest.raises(BookError, match="summarise the CPU edition"):
        book.run(["intro"], profile="smoke", into=tmp_path)
    assert editions.folder("gpu", None, book.BOOK) == book.BOOK / "gpu"
    assert editions.folder("default", None, book.BOOK) == book.BOOK


def test_the_gpu_editions_pages_ran_on_an_accelerator_and_say_whether_they_are_stale():
    """Each page in book/gpu/ was executed at the gpu profile on a GPU, and its banner is the
    one its record and the current source and profile give: a page executed from another
    source or other parameters says it is stale (`python -m lmnotes.book sync` renews it)."""
    for path in editions.pages(book.gpu_folder()):
        nb = nbformat.read(path, as_version=4)
        meta = nb.metadata["lmnotes"]["edition"]
        assert meta["profile"] == "gpu", path
        assert editions.ran_on_gpu(meta), f"{path}: not executed on a GPU"
        expected = editions.banner(
            nb, book.NOTEBOOKS / f"{path.stem}.py", book.profile_values(path.stem, "gpu")
        )
        banner = [c.source for c in nb.cells if editions.BANNER_TAG in c.metadata.get("tags", [])]
        assert banner == [expected], (
            f"{path.name}: its banner is out of date; run `python -m lmnotes.book sync`"
        )


def test_the_table_of_contents_lists_the_gpu_pages():
    toc = (book.io.ROOT / "_toc.yml").read_text()
    assert toc == book.toc_text(), "run `python -m lmnotes.book sync`"
    for path in editions.pages(book.gpu_folder()):
        assert f"- file: book/gpu/{path.stem}\n" in toc
    assert "caption: At scale (GPU edition)" in toc and "- file: book/at_scale\n" in toc


def test_labels_get_the_editions_prefix_and_links_point_at_the_cpu_pages():
    text = (
        "```{glue:figure} fig\n:name: fig-zipf\n```\nSee {numref}`fig-zipf`, {numref}`Figure %s "
        "<fig-zipf>`, {ref}`other`, {doc}`01_models` and {doc}`the models <01_models>`."
    )
    out = editions.relabel(text, {"fig-zipf"}, "gpu-")
    assert ":name: gpu-fig-zipf\n" in out and "{numref}`gpu-fig-zipf`" in out
    assert "{numref}`Figure %s <gpu-fig-zipf>`" in out and "{ref}`other`" in out
    assert "{doc}`../01_models`" in out and "{doc}`the models <../01_models>`" in out
    assert editions.relabel(out, {"fig-zipf"}, "gpu-").count("../") == 2  # links are not nested twice
    exercise = "```{exercise}\n:label: ex-1\nDo it.\n```\n```{solution-start} ex-1\n:class: dropdown\n```"
    assert editions.relabel(exercise, {"ex-1"}, "gpu-") == exercise.replace("ex-1", "gpu-ex-1")
    target = "(claims-02_x)=\n## The claims\nSee {ref}`the table <claims-02_x>`."
    assert (
        editions.relabel(target, {"claims-02_x"}, "gpu-")
        == "(gpu-claims-02_x)=\n## The claims\nSee {ref}`the table <gpu-claims-02_x>`."
    )


def test_side_by_side_says_not_run_for_a_chapter_without_a_gpu_table():
    def table(chapter, verdicts):
        return pd.DataFrame(
            {
                "chapter": chapter,
                "claim": [f"{i + 1}. c" for i in range(len(verdicts))],
                "verdict": verdicts,
                "measured": [f"{chapter} {v}" for v in verdicts],
            }
        )

    cpu = pd.concat([table("02_a", ["reproduced", "inconclusive"]), table("03_b", ["differs"])])
    gpu = table("02_a", ["reproduced"])  # one claim fewer at gpu
    both = claims.side_by_side(cpu, gpu, {"02_a": "A"})
    assert list(both["chapter"]) == ["A", "A", "03_b"]
    assert list(both["verdict (GPU)"]) == ["reproduced", "not in the table", claims.NOT_RUN]
    assert list(both["changed"]) == ["no", "yes", ""]
    assert (
        both["measured (GPU)"].iloc[2] == claims.NOT_RUN and both["measured (CPU)"].iloc[2] == "03_b differs"
    )


def test_the_at_scale_page_counts_what_book_gpu_holds():
    nb = nbformat.read(book.BOOK / "at_scale.ipynb", as_version=4)
    text = json.dumps([c.get("outputs", []) for c in nb.cells])
    held = len(editions.pages(book.gpu_folder()))
    flat = text.replace("\\n", " ")
    assert (
        f"**{held} of the {len(book.chapter_names())} chapters {'has' if held == 1 else 'have'} run at `gpu`**"
        in flat
    )
    # the side-by-side tables hold the chapters that ran, and no row says "not run"
    assert claims.NOT_RUN not in flat.replace("not run at `gpu`", "")


def test_stamping_relabels_what_the_prose_glues():
    """A chapter's findings are glued Markdown (papermill's record mime type) that refer to its
    claims section: on a GPU page both the target and the reference get the prefix."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell("# Title\n\n(claims-02_x)=\n## Claims"),
        nbformat.v4.new_code_cell(
            "glue",
            outputs=[
                nbformat.v4.new_output(
                    "display_data",
                    data={
                        "application/papermill.record/text/markdown": "- see {ref}`the table <claims-02_x>`"
                    },
                )
            ],
        ),
    ]
    editions.stamp(nb, book.NOTEBOOKS / "00_corpus.py", "gpu", {}, 1.0)
    assert "(gpu-claims-02_x)=" in nb.cells[0].source
    assert "<gpu-claims-02_x>" in nb.cells[1].outputs[0]["data"]["application/papermill.record/text/markdown"]


def test_a_page_run_without_cuda_is_not_a_gpu_page():
    """ "the CPU (no GPU)" holds the letters GPU: a substring test took it for one."""
    assert not editions.ran_on_gpu({"device": editions.CPU_DEVICE})
    assert not editions.ran_on_gpu({}) and editions.ran_on_gpu({"device": "NVIDIA H200"})
