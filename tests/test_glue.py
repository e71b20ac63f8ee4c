"""lmnotes.report.glue: each value glued once, by its name, in order; sentences as Markdown."""

from IPython.display import Markdown

from lmnotes.report import glue as G


def test_glue_all_in_order_with_prose_and_named_markdown(monkeypatch):
    calls = []
    monkeypatch.setattr(G, "glue", lambda name, value, display: calls.append((name, value, display)))
    G.glue_all({"n": 3, "sentence": G.Prose("*most* runs"), "note": G.Prose("a `code` note"), "pct": "5%"})
    assert [c[0] for c in calls] == ["n", "sentence", "note", "pct"]
    assert not any(c[2] for c in calls)  # glued for the prose, never displayed
    kinds = {name: type(value) for name, value, _ in calls}
    assert kinds == {"n": int, "sentence": Markdown, "note": Markdown, "pct": str}
    assert calls[1][1].data == "*most* runs" and type(calls[1][1].data) is str
