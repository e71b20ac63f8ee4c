"""The book's machinery: the runner that syncs, executes and builds the chapters
(:mod:`.run`, ``python -m lmnotes.book``), the checks of their parameters (:mod:`.params`)
and the rendered pages' check in headless Chromium (:mod:`.screens`). The top layer: it may
import every other.
"""
