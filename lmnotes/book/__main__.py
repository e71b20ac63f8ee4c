"""``python -m lmnotes.book``: the runner's command line (:func:`lmnotes.book.run.main`)."""

import sys

from lmnotes.book.run import main

sys.exit(main())
