"""The rendered book as a reader at 1280 px sees it, in headless Chromium with the network
off (lmnotes.book.screens): no table or code line cut off, no NaN, no raw TeX, no plumbing code,
one search box. Skipped where Chromium is not installed (`make screenshots` installs it)."""

import shutil

import pytest

from lmnotes.book import run as book, screens

pytestmark = pytest.mark.skipif(
    not (shutil.which("chromium") and shutil.which("chromedriver")),
    reason="Debian's chromium and chromium-driver are not installed (`make screenshots` installs them)")


@pytest.fixture(scope="module")
def html():
    if not (book.io.ROOT / "_vendor" / "mathjax" / "tex-mml-chtml.js").is_file():
        pytest.fail("MathJax is missing from _vendor/mathjax: run `make setup`")
    return book.build().parent


def test_every_page_reads_cleanly(html):
    report = screens.check(html)
    gpu = {f"gpu-{p.stem}" for p in book.editions.pages(book.gpu_folder())}
    assert set(report) == set(book.notebook_names()) | gpu
    problems = {page: found for page, found in report.items() if found}
    assert not problems, problems


def test_the_check_sees_what_it_must(tmp_path):
    """A page with each fault is reported for each (the check is not blind)."""
    page = tmp_path / "book" / "bad.html"
    page.parent.mkdir()
    page.write_text("""<html><body style="width:1280px"><article class="bd-article" style="width:600px">
      <table><tr><td style="min-width:900px">wide</td></tr></table>
      <div class="cell_input"><pre style="overflow:auto">glue("x", 1, display=False) """ + "x" * 200 + """</pre></div>
      <p>NaN</p><span class="math">\\(x^2\\)</span>
      </article></body></html>""")
    found = {f["check"] for f in screens.check(tmp_path)["bad"]}
    assert found == {"cut-off table", "cut-off code line", "NaN", "raw TeX", "plumbing"}
