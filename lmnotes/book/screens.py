"""Every page of the built book as a reader sees it at 1280 px, or on a 390 px phone, in
headless Chromium, with a check of what a reader must never see. ``make screenshots`` runs
it at both widths; so does a test, where Chromium is installed. Used for the whole book.

``python -m lmnotes.book.screens _build/html OUT [--width PX]`` writes, for each page,
screenshots of the page from top to bottom (``OUT/<page>-NN.png``) and ``OUT/report.json``,
and exits with 1 if a page shows any of:

- a *cut-off table*: a table wider than the column that holds it (some of its columns are
  out of view until the reader scrolls it sideways); on a phone, a wide table may scroll
  within its own box, and so may a wide formula, except on the first page, whose tables of
  verdicts must fit the screen whole;
- a *hidden scroll*: a table or figure wider than the box it scrolls in, whose box does not
  show that it scrolls (the "scroll sideways" line of ``_static/lmnotes.css``, which
  ``_static/lmnotes.js`` shows on a box whose content is wider than it);
- *small figure text*: a figure shown so much narrower than its own width that its smallest
  text, the style's smallest font (:func:`figure_font_px`, in px at the figure's own width),
  comes out below :data:`MIN_FIGURE_TEXT` px;
- a *cut-off code line*: a code block whose lines run past the column;
- *cut-off inline code*: inline code (a file name) that runs past the column;
- a *page wider than the screen*, which scrolls sideways as a whole;
- a *stretched figure*: one shown at an aspect more than 3 % from its own;
- *NaN* in the text of the page;
- *raw TeX*: a formula that MathJax did not typeset (it ships with the book, so this is
  checked with the network off), or TeX's ``\\(...\\)`` left in the text where MathJax does
  not look (a table's cell), or a *cut-off formula* wider than the column;
- *plumbing*: visible code (not folded away) that only glues numbers into the prose,
  imports, or styles a table;
- *raw MyST*: a role or directive left in the text of the page (a glue that does not parse
  MyST, say);
- a *horizontal overflow* at 1280 px: code or an output (in a folded cell or an exercise's
  solution too, which are opened for it) wider than its box, which would draw a scrollbar;
- more than one search box;
- a *long page*: at 1280 px, a page longer than :data:`MAX_SCREENS` screens of
  :data:`SCREEN` px with its folded sections closed (:mod:`lmnotes.book.fold`), as a reader
  first sees it. The other checks look inside the folds too: they are opened first, and
  the screenshots show them open.

Overlapping labels inside a figure are not something the page's HTML can show: the
screenshots are for looking at them.
"""

from __future__ import annotations

import json
import re
import sys
import time
from pathlib import Path

WIDTH, HEIGHT = 1280, 1600
#: A screen, as a reader at 1280 px counts them: what a browser window on a laptop shows
#: (the measure of the issue that asked for shorter pages: chapter 02 was 35,452 px, "32
#: screens"). A chapter should read in about 15; longer than this fails the check.
SCREEN, MAX_SCREENS = 1100, 18
#: The smallest size, in CSS px, a figure's text may be shown at (a phone included).
MIN_FIGURE_TEXT = 9.0
#: The font sizes of a figure's text that matplotlib's rcParams set.
_FONT_KEYS = (
    "font.size",
    "axes.labelsize",
    "axes.titlesize",
    "xtick.labelsize",
    "ytick.labelsize",
    "legend.fontsize",
    "legend.title_fontsize",
    "figure.titlesize",
    "figure.labelsize",
)


def figure_font_px() -> float:
    """The smallest text of the book's figures, in px at a figure's own width: the smallest
    font size of the plot style (:func:`lmnotes.report.plots.use_style`, e.g. its legends'
    "small"), at the style's ``figure.dpi`` (a figure's own width in px is its width in inches
    times that dpi; its PNG has twice as many pixels, for sharp screens, and is shown at half)."""
    import matplotlib as mpl
    from matplotlib.font_manager import FontProperties

    from lmnotes.report import plots

    with mpl.rc_context():
        plots.use_style()
        points = min(FontProperties(size=mpl.rcParams[k]).get_size_in_points() for k in _FONT_KEYS)
        return points * mpl.rcParams["figure.dpi"] / 72


# Run in the page: the findings of every check but the screenshots (JavaScript, since only
# the browser knows where things are laid out).
_CHECKS = r"""
const done = arguments[arguments.length - 1];
const [width, screen, maxScreens, fontPx, minText] = arguments;
// a phone's width: a wide table may scroll in its own box, except on the first page, whose
// tables of verdicts must fit whole
const phone = width < 600 && !location.pathname.endsWith('/intro.html');
const visible = el => { const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0 &&
  getComputedStyle(el).visibility !== 'hidden' && !el.closest('details:not([open])'); };
const found = [];
const ready = (window.MathJax && MathJax.startup && MathJax.startup.promise) || Promise.resolve();
// a box that scrolls sideways shows that it does (a hint in its ::before, lmnotes.css)
const cued = box => /scroll/.test(getComputedStyle(box, '::before').content || '');
// the nearest box that clips what overflows ``el`` (a scrolling output area), else the article
const clipper = (el, article) => {
  let box = el.parentElement;
  while (box && box !== article && !['auto', 'scroll', 'hidden'].includes(getComputedStyle(box).overflowX))
    box = box.parentElement;
  return box || article;
};
ready.then(async () => {
  // the page's length as a reader first sees it; then every fold is opened for the checks
  const folded = document.documentElement.scrollHeight;
  for (const d of document.querySelectorAll('details.lmnotes-fold')) d.open = true;
  // the page reacts to what the folds show (lmnotes.js marks the boxes that scroll) before
  // the next frames
  await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(r, 50))));
  if (width >= 1000 && folded > maxScreens * screen)
    found.push({check: 'long page', what: (folded / screen).toFixed(1) + ' screens of ' + screen +
                ' px with its sections folded (at most ' + maxScreens + ')'});
  const article = document.querySelector('article.bd-article') || document.body;
  for (const t of article.querySelectorAll('table')) {
    if (!visible(t)) continue;
    const box = clipper(t, article);
    // nothing may reach past the article either: the page's contents panel floats beside it
    const right = t.getBoundingClientRect().right,
          limit = Math.min(box.getBoundingClientRect().right, article.getBoundingClientRect().right);
    const scrolls = ['auto', 'scroll'].includes(getComputedStyle(box).overflowX) &&
                    box.getBoundingClientRect().right <= article.getBoundingClientRect().right + 1;
    if (right > limit + 1 && !(phone && scrolls && box !== article)) {
      const head = Array.from(t.querySelectorAll('th')).slice(0, 4).map(h => h.innerText.trim()).join(' | ');
      found.push({check: 'cut-off table', what: (t.caption ? t.caption.innerText + ': ' : '') + head,
                  width: Math.round(t.getBoundingClientRect().width), room: Math.round(box.getBoundingClientRect().width)});
    } else if (right > limit + 1 && !cued(box)) {
      const head = Array.from(t.querySelectorAll('th')).slice(0, 4).map(h => h.innerText.trim()).join(' | ');
      found.push({check: 'hidden scroll', what: 'a table: ' + (t.caption ? t.caption.innerText + ': ' : '') + head,
                  width: Math.round(t.getBoundingClientRect().width), room: Math.round(box.getBoundingClientRect().width)});
    }
  }
  const reported = new Set();
  for (const pre of article.querySelectorAll('div.cell_input pre, div.highlight pre')) {
    if (visible(pre) && pre.scrollWidth > pre.clientWidth + 1) {
      reported.add(pre);
      const line = pre.innerText.split('\n').reduce((a, b) => b.length > a.length ? b : a, '');
      found.push({check: 'cut-off code line', what: line.slice(0, 120)});
    }
  }
  for (const m of article.querySelectorAll('mjx-container[display="true"]')) {
    const box = m.closest('.math') || m.parentElement;
    const math = m.querySelector('mjx-math') || m;  // the container is the column's width
    const scrolls = phone && ['auto', 'scroll'].includes(getComputedStyle(m).overflowX);
    if (visible(m) && !scrolls && math.getBoundingClientRect().right > article.getBoundingClientRect().right + 1)
      found.push({check: 'cut-off formula', what: (box.textContent || '').slice(0, 80)});
  }
  if (/\bNaN\b/.test(article.innerText)) found.push({check: 'NaN', what: article.innerText.match(/.{0,60}\bNaN\b.{0,20}/)[0]});
  for (const m of article.querySelectorAll('.math')) {
    if (!m.querySelector('mjx-container') && !m.closest('mjx-container')) {
      found.push({check: 'raw TeX', what: m.innerText.slice(0, 80)}); }
  }
  // TeX's inline delimiters left in the text outside code: a formula MathJax never saw (in a
  // table's cell, say, outside the elements MathJax processes)
  const texts = document.createTreeWalker(article, NodeFilter.SHOW_TEXT);
  while (texts.nextNode()) {
    const node = texts.currentNode;
    if (/\\\(.*?\\\)/.test(node.data) && !node.parentElement.closest('pre, code, script, style, .math, mjx-container'))
      found.push({check: 'raw TeX', what: node.data.trim().slice(0, 80)});
  }
  for (const cell of article.querySelectorAll('div.cell_input')) {
    if (!visible(cell)) continue;
    const code = cell.innerText;
    if (/\bglue\(|^\s*(import|from)\s|\.style\b|tables\.show\(/m.test(code))
      found.push({check: 'plumbing',
                  what: code.split('\n').find(l => /glue\(|import|\.style|tables\.show/.test(l)).slice(0, 100)});
  }
  // MyST that reached the page as text: a role (``{doc}`x` ``, or ``{doc}`` before a code
  // element, where the text was parsed as Markdown without roles) or a directive's fence
  const raw = /\{[a-z][\w:.-]*\}`|(?:```|:::)\{[a-z][\w:.-]*\}/, open = /\{[a-z][\w:.-]*\}$/;
  const words = document.createTreeWalker(article, NodeFilter.SHOW_TEXT);
  while (words.nextNode()) {
    const node = words.currentNode;
    if (node.parentElement.closest('pre, code, script, style, .math, mjx-container')) continue;
    const next = node.nextSibling;
    if (raw.test(node.data) || (open.test(node.data) && next && next.nodeName === 'CODE'))
      found.push({check: 'raw MyST',
                  what: (node.data + (next && next.nodeName === 'CODE' ? '`' + next.textContent + '`' : ''))
                        .trim().slice(-100)});
  }
  // every fold, folded cell and exercise solution open: at 1280 px no code or output may run
  // past its box (a box that scrolls sideways draws a scrollbar, which --hide-scrollbars hides
  // from the screenshots)
  if (width >= 1000) {
    const closed = Array.from(article.querySelectorAll('details')).filter(d => !d.open);
    const hidden = Array.from(article.querySelectorAll('.toggle-hidden'));
    for (const d of closed) d.open = true;
    for (const h of hidden) h.classList.remove('toggle-hidden');
    await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(r, 50))));
    for (const el of Array.from(article.querySelectorAll('pre, div.cell_output, div.output, div.highlight')).reverse()) {
      const sx = getComputedStyle(el).overflowX;
      // one finding per overflow: the innermost box, and not a code line reported above
      if (reported.has(el) || Array.from(reported).some(r => el.contains(r))) continue;
      if (visible(el) && el.scrollWidth > el.clientWidth && (el.tagName === 'PRE' || ['auto', 'scroll'].includes(sx))) {
        reported.add(el);
        const where = el.closest('.solution') ? 'an exercise solution: '
                    : el.closest('.cell_output, .output') ? 'an output: ' : 'code: ';
        const line = (el.innerText || '').split('\n').reduce((a, b) => b.length > a.length ? b : a, '');
        found.push({check: 'horizontal overflow', what: where + line.slice(0, 100), width: el.scrollWidth, room: el.clientWidth});
      }
    }
    for (const d of closed) d.open = false;  // the screenshots show the page as before
    for (const h of hidden) h.classList.add('toggle-hidden');
    await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(r, 50))));
  }
  // a page wider than the screen scrolls sideways as a whole
  if (document.documentElement.scrollWidth > window.innerWidth + 1)
    found.push({check: 'page wider than the screen', what: document.documentElement.scrollWidth + ' px',
                width: document.documentElement.scrollWidth, room: window.innerWidth});
  // a figure shown with another aspect than its own (a fixed height in a narrower column)
  for (const img of article.querySelectorAll('img')) {
    if (!visible(img) || !img.naturalWidth || !img.naturalHeight) continue;
    const r = img.getBoundingClientRect();
    const ratio = (r.width / r.height) / (img.naturalWidth / img.naturalHeight);
    const name = (img.alt || img.src.split('/').pop()).split('/').pop().slice(0, 60);
    if (Math.abs(ratio - 1) > 0.03)
      found.push({check: 'stretched figure', what: name + ': shown at ' + ratio.toFixed(2) + ' of its aspect'});
    // its own width: the one the page gives it (a retina PNG's half), else its pixels'
    const own = parseFloat(img.style.width) || parseFloat(img.getAttribute('width')) || img.naturalWidth;
    const text = r.width / own * fontPx;
    if (text < minText)
      found.push({check: 'small figure text', what: name + ': text of ' + text.toFixed(1) + ' px (at least ' +
                  minText + '), shown ' + Math.round(r.width) + ' px wide of its ' + Math.round(own)});
    // a figure wider than its box scrolls in it, and the box says so
    const box = clipper(img, article);
    if (r.right > box.getBoundingClientRect().right + 1 && box !== article && !cued(box))
      found.push({check: 'hidden scroll', what: 'a figure: ' + name, width: Math.round(r.width),
                  room: Math.round(box.getBoundingClientRect().width)});
  }
  // inline code that runs past the column (a long file name that cannot wrap)
  for (const code of article.querySelectorAll('p code, li code, td code')) {
    if (visible(code) && code.getBoundingClientRect().right > article.getBoundingClientRect().right + 1)
      found.push({check: 'cut-off inline code', what: code.innerText.slice(0, 80)});
  }
  const searches = Array.from(document.querySelectorAll('input[type=search], .search-button-field')).filter(visible);
  if (searches.length > 1) found.push({check: 'more than one search box', what: searches.length + ' visible'});
  done({found: found, height: document.documentElement.scrollHeight, folded: folded});
}).catch(e => done({found: [{check: 'script error', what: String(e)}], height: 0}));
"""


def _driver(width: int = WIDTH):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--hide-scrollbars",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--force-device-scale-factor=1",
        # no network: MathJax and every other asset must come with the book
        "--host-resolver-rules=MAP * ~NOTFOUND",
        "--proxy-server=127.0.0.1:9",
    ):
        options.add_argument(flag)
    options.add_argument(f"--window-size={width},{HEIGHT}")
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    driver.set_script_timeout(60)
    if width < 600:  # a window is at least 500 px wide: a screen this narrow is emulated (not
        # as a mobile browser, which would widen its layout to fit a page that overflows)
        driver.execute_cdp_cmd(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": HEIGHT, "deviceScaleFactor": 1, "mobile": False},
        )
    return driver


def pages(html: Path) -> list[Path]:
    """The book's pages, the GPU edition's among them (``index.html`` only redirects to the
    first of them)."""
    return sorted((html / "book").glob("*.html")) + sorted((html / "book" / "gpu").glob("*.html"))


def check(
    html: str | Path,
    out: str | Path | None = None,
    width: int = WIDTH,
    lengths: dict[str, float] | None = None,
) -> dict[str, list[dict]]:
    """The findings on each page (see the module's docstring) at ``width`` px; with ``out``,
    its screenshots; with ``lengths``, each page's length in screens, its sections folded."""
    html = Path(html).resolve()
    if out is not None:
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        for old in out.glob("*.png"):
            old.unlink()
    font_px = figure_font_px()
    driver = _driver(width)
    report = {}
    try:
        for page in pages(html):
            driver.get(page.as_uri())
            shown = driver.execute_script("return window.innerWidth")
            if shown != width:
                raise RuntimeError(f"the page is {shown} px wide, not {width}")
            result = driver.execute_async_script(
                _CHECKS, width, SCREEN, MAX_SCREENS, font_px, MIN_FIGURE_TEXT
            )
            name = "-".join(page.relative_to(html / "book").with_suffix("").parts)  # gpu-00_corpus
            report[name] = result["found"]
            if lengths is not None:
                lengths[name] = result["folded"] / SCREEN
            if out is not None:
                for i, top in enumerate(range(0, result["height"], HEIGHT)):
                    driver.execute_script(f"window.scrollTo(0, {top});")
                    time.sleep(0.6)  # the theme animates the contents panel after a scroll
                    driver.save_screenshot(str(out / f"{name}-{i:02d}.png"))
    finally:
        driver.quit()
    return report


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    width = WIDTH
    if len(argv) == 4 and argv[2] == "--width" and argv[3].isdigit():
        width, argv = int(argv[3]), argv[:2]
    if len(argv) != 2:
        print(
            "usage: python -m lmnotes.book.screens BUILT_HTML_FOLDER OUT_FOLDER [--width PX]", file=sys.stderr
        )
        return 2
    lengths: dict[str, float] = {}
    report = check(argv[0], argv[1], width, lengths)
    Path(argv[1], "report.json").write_text(json.dumps(report, indent=1, ensure_ascii=False))
    bad = {page: found for page, found in report.items() if found}
    for page, found in report.items():
        print(
            f"{page}: "
            + ("ok" if not found else f"{len(found)} problem(s)")
            + (f", {lengths[page]:.1f} screens folded" if width >= 1000 else "")
        )
        for f in found:
            what = re.sub(r"\s+", " ", f["what"])
            print(
                f"  {f['check']}: {what}" + (f" ({f['width']} px in {f['room']} px)" if "width" in f else "")
            )
    print(f"screenshots at {width} px in {argv[1]}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
