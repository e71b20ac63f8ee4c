"""What a chapter shows, the same in every chapter: one table formatter (:mod:`.tables`), one
figure style with one colour per model (:mod:`.plots`), and the claims table with the one
rule that turns evidence into a verdict (:mod:`.claims`). Imports only :mod:`lmnotes.core`.
"""
