"""Sentence splitting and word tokenization. Used by every chapter.

- Sentences: ``pysbd`` (Sadvilkar & Neumann 2020), a rule-based splitter that passes the
  "Golden Rules" test set of English sentence-boundary cases (abbreviations, initials,
  numbers, quotations), needs no trained model or download, and is deterministic. It is
  slower than the regex splitter of the Moses scripts, which is why splits are cached.
- Words: Moses tokenization with ``sacremoses`` (no HTML escaping), lower-cased; the view of
  text that the tendencies study (Meister & Cotterell 2021, §5) uses. Its length unit is the
  number of whitespace-separated tokens of this view.
"""

from __future__ import annotations

from functools import lru_cache

import pysbd
from sacremoses import MosesTokenizer


@lru_cache(maxsize=None)
def _segmenter(language: str) -> pysbd.Segmenter:
    return pysbd.Segmenter(language=language, clean=False)


@lru_cache(maxsize=None)
def _moses(language: str) -> MosesTokenizer:
    return MosesTokenizer(lang=language)


def split_sentences(paragraph: str, language: str = "en") -> list[str]:
    """Split a paragraph into sentences (pysbd), stripped, empty ones dropped."""
    return [s.strip() for s in _segmenter(language).segment(paragraph) if s.strip()]


def moses_words(text: str, language: str = "en", lower: bool = True) -> list[str]:
    """Moses-tokenize ``text`` (sacremoses, ``escape=False``), lower-cased by default."""
    if lower:
        text = text.lower()
    return _moses(language).tokenize(text, escape=False)
