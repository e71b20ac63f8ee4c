"""Language models behind one interface (:class:`LanguageModel`) and their registry.

``from lmnotes.models import load; lm = load("smollm2-135m")``. See :mod:`.base` for the
operations (score, next-token distributions, sampling), :mod:`.hf` for transformers models,
:mod:`.zoo` for the registry.
"""

from .base import LanguageModel, ModelError, Samples, Scores, resolve_device
from .zoo import load, names, register

__all__ = ["LanguageModel", "ModelError", "Samples", "Scores", "load", "names", "register",
           "resolve_device"]
