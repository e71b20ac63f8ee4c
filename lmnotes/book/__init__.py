"""The book's machinery: the runner that syncs, executes and builds the chapters
(:mod:`.run`, ``python -m lmnotes.book``), the checks of their parameters (:mod:`.params`),
the records of their wall times (:mod:`.timing`),
the editions (:mod:`.editions`: the GPU edition's folder, stamp, banner and staleness), the
check that a change kept every output (:mod:`.compare`) and the rendered pages' check in
headless Chromium (:mod:`.screens`). The top layer: it may import every other.
"""
