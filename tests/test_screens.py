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
    page.write_text("""<html><body style="width:1280px; margin:0"><article class="bd-article" style="width:600px">
      <table><tr><td style="min-width:900px">wide</td></tr></table>
      <div class="cell_input"><pre style="overflow:auto">glue("x", 1, display=False) """ + "x" * 200 + """</pre></div>
      <p>NaN</p><span class="math">\\(x^2\\)</span>
      </article></body></html>""")
    found = {f["check"] for f in screens.check(tmp_path)["bad"]}
    assert found == {"cut-off table", "cut-off code line", "NaN", "raw TeX", "plumbing"}


def test_the_phone_check_sees_what_it_must(tmp_path):
    """At 390 px: a page wider than the screen, a stretched figure and inline code past the
    column are reported; a wide table in a scrolling box is not, except on the first page."""
    (tmp_path / "book").mkdir()
    (tmp_path / "book" / "fig.svg").write_text(
        '<svg xmlns="http://www.w3.org/2000/svg" width="200" height="100"><rect width="200" height="100"/></svg>')
    body = """<article class="bd-article" style="width:370px">
      <img src="fig.svg" style="width:100px; height:100px">
      <p><code>""" + "a_long_file_name_" * 8 + """</code></p>
      <div style="overflow-x:auto"><table><tr><td style="min-width:900px">wide</td></tr></table></div>
      </article><div style="width:800px">wider than the screen</div>"""
    for name in ("bad", "intro"):
        (tmp_path / "book" / f"{name}.html").write_text(
            '<html><head><meta name="viewport" content="width=device-width, initial-scale=1"></head>'
            f'<body style="margin:0">{body}</body></html>')
    report = screens.check(tmp_path, width=390)
    assert {f["check"] for f in report["bad"]} == {"page wider than the screen", "stretched figure",
                                                     "cut-off inline code"}
    assert "cut-off table" in {f["check"] for f in report["intro"]}


def test_a_long_page_is_reported_with_its_sections_folded_and_checked_open(tmp_path):
    """A page longer than MAX_SCREENS screens is reported; the same page with its long
    section folded is not, and a fault inside the fold is still found (the check opens it)."""
    (tmp_path / "book").mkdir()
    tall = f'<div style="height:{screens.MAX_SCREENS * screens.SCREEN + 500}px">long</div>'
    article = '<html><body style="margin:0"><article class="bd-article" style="width:600px">{}</article></body></html>'
    (tmp_path / "book" / "long.html").write_text(article.format(tall))
    (tmp_path / "book" / "folded.html").write_text(article.format(
        f'<details class="lmnotes-fold"><summary>Show this section</summary>{tall}<p>NaN</p></details>'))
    lengths = {}
    report = screens.check(tmp_path, lengths=lengths)
    assert [f["check"] for f in report["long"]] == ["long page"]
    assert [f["check"] for f in report["folded"]] == ["NaN"]
    assert lengths["folded"] < 2 < screens.MAX_SCREENS < lengths["long"]  # a window is 1,600 px
