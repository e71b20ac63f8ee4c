"""lmnotes: the helper package of the report *Evaluating language models beyond perplexity*.

Every chapter of the book (``notebooks/NN_*.py``) imports this package; the notebooks hold
narrative, parameters, calls, figures and tables, and all shared logic lives here where the
unit tests in ``tests/`` reach it.

Layers, each importing only the ones below it (``ARCHITECTURE.md``; import-linter checks
the contracts in ``pyproject.toml``):

- :mod:`lmnotes.book`     the runner, the parameters' checks, the rendered pages' check
- :mod:`lmnotes.studies`  one subpackage per study chapter (02–06): analysis and claim rules
- :mod:`lmnotes.report`   tables, figures and claims tables, the same in every chapter
- :mod:`lmnotes.models`   the LanguageModel interface, the models, training, decoding, caching
- :mod:`lmnotes.stats`    intervals, tests, distances, rates and laws shared by the chapters
- :mod:`lmnotes.text`     the corpus, tokenization and segmentations
- :mod:`lmnotes.core`     atomic files, the shared cache, reproducible arithmetic, progress
"""

from lmnotes.core import numerics as _numerics

_numerics.pin_environment()  # before NumPy and PyTorch load (see lmnotes.core.numerics)

__version__ = "0.1.0"
