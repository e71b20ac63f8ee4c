"""Wikitext cleaning (lmnotes.text.wiki) on hand-written markup with a known answer."""

import bz2
import io

from lmnotes.text.wiki import clean_wikitext, is_redirect, iter_pages

WIKITEXT = """{{Infobox person|name=Ada|birth_date={{birth date|1815|12|10}}}}
'''Ada Lovelace''' (born '''Augusta Ada Byron'''; {{IPAc-en|ˈ|l|ʌ|v|l|eɪ|s}}) was an English [[mathematician]] and [[Writer|writer]].<ref name="x">{{cite web|url=http://example.org|title=X}}</ref> She is known for work on the [[Analytical Engine]].<ref>Toole, Betty. ''Ada''. 1992.</ref> It was built by Babbage &amp; others in 1837&nbsp;AD.
[[File:Ada_Lovelace.jpg|thumb|right|Portrait of [[Ada Lovelace]] in 1840.]]
== Early life ==
Her father was Lord Byron, the poet, and her mother Anne Isabella Milbanke.<!-- a comment --> See http://example.com for more.
* List item that is not prose but has enough words to pass.
# Numbered list item that is also not running prose at all.
: An indented remark that should not be kept as prose here.
{| class="wikitable"
|-
! Year !! Event
|-
| 1843 || Notes on the Analytical Engine were published in full.
|}
She wrote [http://example.org/notes her notes] in a famous year and they were read widely.
Short line.
<math>x^2 + y^2</math>
[[Category:English mathematicians]]
[[de:Ada Lovelace]]
"""


def test_clean_wikitext_keeps_prose_and_drops_markup():
    paragraphs = clean_wikitext(WIKITEXT)
    assert paragraphs == [
        "Ada Lovelace (born Augusta Ada Byron) was an English mathematician and writer. She is "
        "known for work on the Analytical Engine. It was built by Babbage & others in 1837 AD.",
        "Her father was Lord Byron, the poet, and her mother Anne Isabella Milbanke. See for more.",
        "She wrote her notes in a famous year and they were read widely.",
    ]
    text = "\n".join(paragraphs)
    for residue in [
        "<ref",
        "{{",
        "}}",
        "[[",
        "]]",
        "|-",
        "&amp;",
        "&nbsp;",
        "http",
        "''",
        "Infobox",
        "Category",
        "Early life",
        "List item",
        "Numbered",
        "indented",
        "1843",
        "x^2",
        "Portrait",
        "de:",
    ]:
        assert residue not in text, residue


def test_redirects():
    assert is_redirect("#REDIRECT [[Anarchism]]")
    assert is_redirect("  #redirect [[Anarchism]] {{R from CamelCase}}")
    assert not is_redirect("Anarchism is a political philosophy.")


def _dump(pages):
    body = "".join(
        f"<page><title>{t}</title><ns>{ns}</ns><id>{i}</id><revision><id>{i}</id>"
        f'<text xml:space="preserve">{text}</text></revision></page>'
        for i, (t, ns, text) in enumerate(pages, 1)
    )
    xml = (
        '<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.10/" version="0.10">'
        f"<siteinfo><sitename>W</sitename></siteinfo>{body}</mediawiki>"
    )
    return xml.encode()


def test_iter_pages_skips_redirects_talk_and_empty_pages():
    pages = [
        ("Alpha", "0", "Alpha is the first letter of the Greek alphabet, as all know."),
        ("Beta", "0", "#REDIRECT [[Alpha]]"),
        ("Talk:Alpha", "1", "This is a talk page with enough words in it to count."),
        ("Gamma", "0", "{{stub}}\n* only a list item here, not prose at all."),
        ("Wikipedia:About", "0", "This is a project page with enough words in it to count."),
    ]
    raw = _dump(pages)
    for stream in (io.BufferedReader(io.BytesIO(raw)), io.BufferedReader(io.BytesIO(bz2.compress(raw)))):
        got = list(iter_pages(stream))
        assert [p.title for p in got] == ["Alpha"]
        assert got[0].paragraphs == ("Alpha is the first letter of the Greek alphabet, as all know.",)
