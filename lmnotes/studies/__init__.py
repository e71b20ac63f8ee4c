"""One subpackage per study, each holding what only its chapter needs: its analysis, its
claim rules and its parameters' ranges (``PARAMETERS``). A study imports the layers below
(:mod:`lmnotes.report`, :mod:`lmnotes.models`, :mod:`lmnotes.stats`, :mod:`lmnotes.text`,
:mod:`lmnotes.core`), never another study.

- :mod:`.tendencies` statistical tendencies of generated text (chapter 02)
- :mod:`.segmentation` perplexity across segmentations (chapter 03)
- :mod:`.importance` importance-sampled perplexity of latent LMs (chapter 04)
- :mod:`.words` word-level prediction diversity (chapter 05)
- :mod:`.distortion` distributional distortion (chapter 06)
"""
