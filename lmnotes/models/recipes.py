"""A Transformer recipe by the name of its segmentation: the family of one architecture over
several segmentations that chapters 03, 05 and 06 train (``"char"``, ``"byte"``, ``"word"``,
``"bpe8000"``: byte-level BPE with 8,000 types)."""

from __future__ import annotations

from lmnotes.models.trained import Recipe


def transformer(spec: str) -> Recipe:
    """'char', 'byte', 'word' or 'bpe<types>' -> the Transformer recipe."""
    if spec.startswith("bpe"):
        return Recipe("transformer", "bpe", int(spec[3:]))
    return Recipe("transformer", spec)
