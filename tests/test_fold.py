"""Sections folded away (lmnotes.book.fold): a section labelled fold-... (or the GPU
edition's gpu-fold-...) keeps its heading, and its body goes into a closed <details> whose
summary counts its tables and figures; other sections and other builders are untouched."""

from types import SimpleNamespace

from docutils import nodes

from lmnotes.book import fold


def _section(label: str) -> nodes.section:
    section = nodes.section(ids=[label], names=[label])
    section += nodes.title(text="Samples")
    section += nodes.paragraph(text="prose")
    section += nodes.raw("", "<div><table></table></div>", format="html")
    section += nodes.image(uri="fig.png")
    return section


def _fold(doc: nodes.document, fmt: str = "html") -> None:
    fold.fold(SimpleNamespace(builder=SimpleNamespace(format=fmt)), doc, "page")


def test_a_labelled_section_folds_below_its_heading():
    doc = nodes.document(None, None)
    doc += [_section("fold-02-samples"), _section("gpu-fold-02-power"), _section("the-claims")]
    _fold(doc)
    first, gpu, other = doc.children
    for section in (first, gpu):
        assert isinstance(section[0], nodes.title)
        assert section[1].astext() == (
            '<details class="lmnotes-fold"><summary>Show this section (1 table, 1 figure)</summary>'
        )
        assert section[-1].astext() == "</details>" and len(section) == 6
    assert len(other) == 4 and not fold.folded(other)


def test_other_builders_are_left_alone():
    doc = nodes.document(None, None)
    doc += _section("fold-02-samples")
    _fold(doc, "latex")
    assert len(doc[0]) == 4
