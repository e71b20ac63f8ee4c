"""The rendered book as a reader at 1280 px sees it, in headless Chromium with the network
off (lmnotes.book.screens): no table or code line cut off, no NaN, no raw TeX, no plumbing code,
one search box. Skipped where Chromium is not installed (`make screenshots` installs it)."""

import shutil

import pytest

from lmnotes.book import run as book, screens

pytestmark = pytest.mark.skipif(
    not (shutil.which("chromium") and shutil.which("chromedriver")),
    reason="Debian's chromium and chromium-driver are not installed (`make screenshots` installs them)",
)


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


def test_every_page_reads_cleanly_on_a_phone(html):
    """At 390 px: the page never scrolls sideways, figures keep their aspect, inline code and
    code wrap, a wide table scrolls in its own box, and the first page's tables fit whole."""
    report = screens.check(html, width=390)
    problems = {page: found for page, found in report.items() if found}
    assert not problems, problems


def test_the_check_sees_what_it_must(tmp_path):
    """A page with each fault is reported for each (the check is not blind)."""
    page = tmp_path / "book" / "bad.html"
    page.parent.mkdir()
    page.write_text(
        """<html><body style="width:1280px; margin:0"><article class="bd-article" style="width:600px">
      <table><tr><td style="min-width:900px">wide</td></tr></table>
      <div class="cell_input"><pre style="overflow:auto">glue("x", 1, display=False) """
        + "x" * 200
        + """</pre></div>
      <p>NaN</p><span class="math">\\(x^2\\)</span>
      </article></body></html>"""
    )
    found = {f["check"] for f in screens.check(tmp_path)["bad"]}
    assert found == {"cut-off table", "cut-off code line", "NaN", "raw TeX", "plumbing"}  # the line once


def test_the_check_sees_raw_myst_and_a_one_pixel_overflow_in_a_closed_solution(tmp_path):
    """The Summary of every study chapter showed ({doc}`at_scale`) as text, and exercise
    solutions and parameter cells ran past their boxes (by 1 to 137 px) with scrollbars that the
    screenshots hid: a role left as text, one parsed as Markdown without roles (the role's name
    before a code element), a directive's fence, and a 1-px overflow of a solution that is
    closed (sphinx-togglebutton's toggle-hidden) are each reported; the same page without them
    is clean."""
    (tmp_path / "book").mkdir()
    overflow = (
        '<div class="highlight"><pre style="overflow:auto; width:300px; margin:0; font: 10px monospace">'
    )
    page = (
        """<html><body style="width:1280px; margin:0"><article class="bd-article" style="width:600px">
      <p>See the GPU edition ({doc}`at_scale`).</p><p>Or {ref}<code>claims-02</code>.</p><p>```{note}</p>
      <div class="solution dropdown"><div class="toggle-hidden">"""
        + overflow
        + """<span style="display:inline-block; width:301px">x</span></pre></div></div></div>
      </article></body></html>"""
    )
    (tmp_path / "book" / "bad.html").write_text(page)
    clean = page.replace("{doc}`at_scale`", "the GPU edition").replace("{ref}", "").replace("```{note}", "")
    (tmp_path / "book" / "good.html").write_text(clean.replace("width:301px", "width:290px"))
    report = screens.check(tmp_path)
    assert [f["check"] for f in report["bad"]] == ["raw MyST", "raw MyST", "raw MyST", "horizontal overflow"]
    assert report["bad"][-1]["width"] == 301 and report["bad"][-1]["room"] == 300
    assert report["good"] == []


def test_the_phone_check_sees_what_it_must(tmp_path):
    """At 390 px: a page wider than the screen, a stretched figure and inline code past the
    column are reported; a wide table in a scrolling box that says it scrolls is not, except on
    the first page; one whose box does not say so is."""
    (tmp_path / "book").mkdir()
    (tmp_path / "book" / "fig.svg").write_text(
        '<svg xmlns="http://www.w3.org/2000/svg" width="200" height="100"><rect width="200" height="100"/></svg>'
    )
    body = (
        """<style>.cue::before { content: "scroll sideways for more"; display: block; }</style>
      <article class="bd-article" style="width:370px">
      <img src="fig.svg" style="width:100px; height:100px">
      <p><code>"""
        + "a_long_file_name_" * 8
        + """</code></p>
      <div class="cue" style="overflow-x:auto"><table><tr><td style="min-width:900px">wide</td></tr></table></div>
      </article><div style="width:800px">wider than the screen</div>"""
    )
    for name in ("bad", "intro"):
        (tmp_path / "book" / f"{name}.html").write_text(
            '<html><head><meta name="viewport" content="width=device-width, initial-scale=1"></head>'
            f'<body style="margin:0">{body}</body></html>'
        )
    (tmp_path / "book" / "uncued.html").write_text(
        '<html><body style="margin:0"><article class="bd-article" style="width:370px">'
        '<div style="overflow-x:auto"><table><tr><td style="min-width:900px">wide</td></tr></table></div>'
        '<div style="overflow-x:auto"><img src="fig.svg" style="width:200px; height:100px; min-width:600px"></div>'
        "</article></body></html>"
    )
    report = screens.check(tmp_path, width=390)
    assert {f["check"] for f in report["bad"]} == {
        "page wider than the screen",
        "stretched figure",
        "cut-off inline code",
    }
    assert "cut-off table" in {f["check"] for f in report["intro"]}
    assert [f["what"].split(":")[0] for f in report["uncued"] if f["check"] == "hidden scroll"] == [
        "a table",
        "a figure",
    ]


def test_the_check_reads_a_figure_s_text_at_the_size_it_is_shown(tmp_path):
    """A figure shown at a third of its own width has text of a third of the style's smallest
    font (about 4 px): reported; at its own width it is not."""
    (tmp_path / "book").mkdir()
    (tmp_path / "book" / "fig.svg").write_text(
        '<svg xmlns="http://www.w3.org/2000/svg" width="600" height="300"><rect width="600" height="300"/></svg>'
    )
    (tmp_path / "book" / "page.html").write_text(
        '<html><body style="margin:0"><article class="bd-article" style="width:700px">'
        '<div style="width:200px"><img src="fig.svg" style="width:600px; max-width:100%; height:auto"></div>'
        '<img src="fig.svg" style="width:600px; height:auto"></article></body></html>'
    )
    found = [f for f in screens.check(tmp_path)["page"] if f["check"] == "small figure text"]
    assert len(found) == 1 and "shown 200 px wide of its 600" in found[0]["what"]
    assert 4 < 200 / 600 * screens.figure_font_px() < 5 and screens.figure_font_px() > 12


def test_exercises_are_numbered_per_chapter(html):
    """Each chapter's exercises are Exercise 1, 2, ... (lmnotes.book.exercises), not numbered
    across the book (chapter 06's read 9 and 10)."""
    import re

    pages = sorted((html / "book").glob("0*.html"))
    numbered = {
        p.stem: re.findall(r'<span class="caption-number">Exercise (\d+) </span>', p.read_text())
        for p in pages
    }
    with_exercises = {page: numbers for page, numbers in numbered.items() if numbers}
    assert len(with_exercises) >= 5, numbered
    for page, numbers in with_exercises.items():
        assert numbers == [str(i + 1) for i in range(len(numbers))], (page, numbers)
        solutions = re.findall(
            r"Solution to<a [^>]*> Exercise (\d+)</a>", (html / "book" / f"{page}.html").read_text()
        )
        assert solutions == numbers, (page, solutions)  # each exercise's solution names it by its number


def test_a_long_page_is_reported_with_its_sections_folded_and_checked_open(tmp_path):
    """A page longer than MAX_SCREENS screens is reported; the same page with its long
    section folded is not, and a fault inside the fold is still found (the check opens it)."""
    (tmp_path / "book").mkdir()
    tall = f'<div style="height:{screens.MAX_SCREENS * screens.SCREEN + 500}px">long</div>'
    article = '<html><body style="margin:0"><article class="bd-article" style="width:600px">{}</article></body></html>'
    (tmp_path / "book" / "long.html").write_text(article.format(tall))
    (tmp_path / "book" / "folded.html").write_text(
        article.format(
            f'<details class="lmnotes-fold"><summary>Show this section</summary>{tall}<p>NaN</p></details>'
        )
    )
    lengths = {}
    report = screens.check(tmp_path, lengths=lengths)
    assert [f["check"] for f in report["long"]] == ["long page"]
    assert [f["check"] for f in report["folded"]] == ["NaN"]
    assert lengths["folded"] < 2 < screens.MAX_SCREENS < lengths["long"]  # a window is 1,600 px
