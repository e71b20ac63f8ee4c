"""lmnotes: the helper package of the report *Evaluating language models beyond perplexity*.

Every chapter of the book (``notebooks/NN_*.py``) imports this package; the notebooks hold
narrative, parameters, calls, figures and tables, and all shared logic lives here where the
unit tests in ``tests/`` reach it.

Modules
-------
- :mod:`lmnotes.numerics` the same arithmetic on every machine (set up on import, every chapter)
- :mod:`lmnotes.io`      atomic writes (every chapter)
- :mod:`lmnotes.wiki`    Wikipedia dump reading and wikitext cleaning (corpus chapter)
- :mod:`lmnotes.text`    sentence splitting and Moses tokenization (every chapter)
- :mod:`lmnotes.corpus`  corpora, deterministic splits, raw and tokenized views (every chapter)
- :mod:`lmnotes.laws`    rank–frequency and type–token statistics (corpus, tendencies)
- :mod:`lmnotes.segment` word, character, byte and BPE segmentations (self-trained models)
- :mod:`lmnotes.sampling` decoding strategies as logit transformations (every sampling chapter)
- :mod:`lmnotes.models`  the LanguageModel interface, pretrained and self-trained models, registry
- :mod:`lmnotes.train`   seeded training with early stopping (self-trained models)
- :mod:`lmnotes.plots`   the shared figure style and one colour per model (every chapter)
- :mod:`lmnotes.tables`  the one table formatter of the book (every chapter)
- :mod:`lmnotes.claims`  the study chapters' claims tables and their summary (intro)
- :mod:`lmnotes.params`  parameters cells: types, ranges, paths (the runner)
- :mod:`lmnotes.progress` progress lines on the console, never in a notebook
- :mod:`lmnotes.book`    the papermill runner and the book build
- :mod:`lmnotes.screens` the rendered pages in headless Chromium, and their check
"""

from . import numerics as _numerics

_numerics.pin_environment()  # before NumPy and PyTorch load (see lmnotes.numerics)

__version__ = "0.1.0"
