"""Text: Wikipedia dumps to prose (:mod:`.wiki`), sentence splitting and Moses tokenization
(:mod:`.tokenize`), the corpora with their deterministic splits (:mod:`.corpus`), and the
segmentations of the self-trained models (:mod:`.segment`). Imports only :mod:`lmnotes.core`.
"""
