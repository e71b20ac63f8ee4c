"""Wikipedia dumps to prose: page extraction and wikitext cleaning. Used by the corpus chapter.

Pages are read from a MediaWiki XML dump with gensim's :func:`extract_pages` (main namespace
only) and their wikitext is parsed with ``mwparserfromhell``. What is not running prose is
dropped: redirects, references (``<ref>…</ref>`` with their content), templates, tables,
files and images, categories, interlanguage and interwiki links, headings, lists, bare URLs,
comments and math. Links keep their visible text, bold and italics lose their quotes, and HTML
entities are unescaped. A paragraph is kept only if it reads as prose (enough words and a
sentence-final punctuation mark), which also drops the link lists of "See also" sections.
"""

from __future__ import annotations

import bz2
import html
import re
from dataclasses import dataclass
from typing import BinaryIO, Iterator

import mwparserfromhell as mwp
from mwparserfromhell.nodes import Argument, Comment, Heading, Template

#: Tags whose whole content is not prose.
DROP_TAGS = frozenset(
    "ref references table gallery math chem ce hiero score timeline imagemap graph syntaxhighlight"
    " source pre code poem mapframe templatedata inputbox categorytree noinclude".split()
)
#: List items (``*``, ``#``) and definition lists / indents (``;``, ``:``).
LIST_MARKUP = frozenset("*#;:")
#: Link prefixes that are not article links: files, categories, other wikis and languages.
NON_ARTICLE_LINK = re.compile(
    r"^\s*:?\s*(file|image|media|category|wikipedia|wp|wiktionary|wikt|wikiquote|q|wikisource|s"
    r"|commons|meta|simple|special|template|help|portal|user|talk|[a-z]{2,3}(?:-[a-z]{2,8})*)\s*:",
    re.IGNORECASE,
)
#: Pages that are not articles even in the main namespace.
NON_ARTICLE_TITLE = re.compile(r"^(wikipedia|help|portal|template|category|file):", re.IGNORECASE)
# Residue that survives malformed markup (unbalanced tags the parser leaves as text); removed
# after parsing. No library cleans what the parser itself could not parse, so these are ours.
_RESIDUE = [
    (re.compile(r"<ref[^>]*/>|<ref[^>]*>.*?(</ref>|$)", re.IGNORECASE | re.DOTALL), " "),
    (re.compile(r"\{\{.*?(\}\}|$)", re.DOTALL), " "),
    (re.compile(r"</?[a-zA-Z][a-zA-Z0-9]*(\s[^<>]*)?/?>"), " "),  # stray HTML tags
    (re.compile(r"'{2,}"), ""),  # bold/italic quotes left by unbalanced markup
    (re.compile(r"\[\[|\]\]"), ""),
    (re.compile(r"\(\s*[,;:.\s]*\)"), ""),  # parentheses emptied by removed templates
    (re.compile(r"\s*[,;:]\s*\)"), ")"),  # "(born X; {{IPA}})" -> "(born X)"
    (re.compile(r"\(\s*[,;:]\s*"), "("),
    (re.compile(r"\s+([,;:.!?)])"), r"\1"),
    (re.compile(r"([(])\s+"), r"\1"),
    (re.compile(r"\s+"), " "),
]
_TERMINAL = re.compile(r"[.!?][\"'”’)\]]*$")
_LIST_SENTINEL = "\ue000"  # a private-use character (the parser drops NUL)


@dataclass(frozen=True)
class Page:
    """One article: its title and its prose paragraphs."""

    title: str
    paragraphs: tuple[str, ...]


def is_redirect(wikitext: str) -> bool:
    """True for a redirect page (``#REDIRECT [[Target]]``)."""
    return wikitext.lstrip()[:9].lower() == "#redirect"


def _remove(code: mwp.wikicode.Wikicode, node) -> None:
    try:
        code.remove(node)
    except ValueError:  # already gone with an enclosing node
        pass


def clean_wikitext(wikitext: str, min_words: int = 6) -> list[str]:
    """Return the prose paragraphs of a page's wikitext, cleaned of all markup.

    Parameters
    ----------
    wikitext : the page source.
    min_words : a paragraph with fewer whitespace-separated words is not prose.
    """
    code = mwp.parse(wikitext)
    for node in code.filter(recursive=True, forcetype=(Comment, Template, Argument, Heading)):
        _remove(code, node)
    for node in code.filter_tags(recursive=True):
        if node.wiki_markup and str(node.wiki_markup) in LIST_MARKUP:
            # A list marker is a childless tag; the item's text follows it up to the newline.
            # Mark the line so that the whole item is dropped after strip_code().
            try:
                code.replace(node, _LIST_SENTINEL)
            except ValueError:
                pass
        elif str(node.tag).strip().lower() in DROP_TAGS:
            _remove(code, node)
    for node in code.filter_wikilinks(recursive=True):
        if NON_ARTICLE_LINK.match(str(node.title)):
            _remove(code, node)
    for node in code.filter_external_links(recursive=True):
        if node.title is None or not str(node.title).strip():
            _remove(code, node)  # a bare URL
    text = html.unescape(code.strip_code(normalize=True, collapse=True))
    paragraphs = []
    for line in text.split("\n"):
        s = line.strip()
        if not s or _LIST_SENTINEL in s or s[0] in "|!{=" or "|" in s:
            continue  # list items and table residue
        for pattern, repl in _RESIDUE:
            s = pattern.sub(repl, s)
        s = s.strip()
        if len(s.split()) >= min_words and _TERMINAL.search(s):
            paragraphs.append(s)
    return paragraphs


def iter_pages(stream: BinaryIO, min_words: int = 6) -> Iterator[Page]:
    """Yield the cleaned articles of a MediaWiki XML dump (``.xml`` or ``.xml.bz2`` stream).

    Redirects, non-article pages and pages with no prose left after cleaning are skipped.
    """
    from gensim.corpora.wikicorpus import extract_pages

    head = stream.peek(3)[:3] if hasattr(stream, "peek") else b""
    if head == b"BZh":
        stream = bz2.BZ2File(stream)
    for title, wikitext, _pageid in extract_pages(stream, filter_namespaces=("0",)):
        if is_redirect(wikitext) or NON_ARTICLE_TITLE.match(title):
            continue
        paragraphs = clean_wikitext(wikitext, min_words=min_words)
        if paragraphs:
            yield Page(title=title, paragraphs=tuple(paragraphs))
