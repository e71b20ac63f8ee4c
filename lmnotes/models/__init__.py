"""Language models behind one interface (:class:`LanguageModel`) and their registry.

``from lmnotes.models import load; lm = load("smollm2-135m")``. See :mod:`.base` for the
operations (score, next-token distributions, sampling), :mod:`.hf` for transformers models,
:mod:`.zoo` for the registry.
"""

import os
import warnings

# tqdm.auto (imported by huggingface_hub) warns in kernels without ipywidgets; progress bars
# are off in notebooks anyway.
warnings.filterwarnings("ignore", message="IProgress not found")

# Library chatter would make notebook outputs depend on what is cached (a conversion progress
# bar on a cold cache, none on a warm one): keep transformers to errors and no progress bars.
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
try:
    from transformers.utils import logging as _hf_logging

    _hf_logging.set_verbosity_error()
    _hf_logging.disable_progress_bar()
except ImportError:  # transformers is a pinned dependency; this only guards partial installs
    pass

from lmnotes.core import numerics as _numerics

_numerics.configure_torch()  # threads and deterministic algorithms (see lmnotes.core.numerics)

from lmnotes.models.base import LanguageModel, ModelError, Samples, Scores, resolve_device
from lmnotes.models.zoo import chosen, load, names, register
from lmnotes.models import trained  # noqa: E402,F401  (registers the wiki/... models)

__all__ = [
    "LanguageModel",
    "ModelError",
    "Samples",
    "Scores",
    "chosen",
    "load",
    "names",
    "register",
    "resolve_device",
]
