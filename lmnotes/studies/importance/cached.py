"""The importance-sampling chapter's (04) heavy arithmetic kept in the shared cache (kind
``latent``, :class:`lmnotes.core.remember.Store`): the repeated runs, the curves to
K = 10⁴, the particle filters, the tempered divergences and the law of the best temperature
draw hundreds of millions of latent paths in numpy, which took 584 of the chapter's 632 warm
seconds. Each is decorated with :data:`remembered`; its value is computed once for the same
inputs and the same code (:data:`MODULES`, and numpy's and scipy's versions).
"""

from __future__ import annotations

from lmnotes.core import remember

#: The modules whose code decides the cached values: this study's, but for its claims (which
#: read the values and compute none) and this one, and the statistics and numerics they use.
MODULES = (
    remember.package_modules("lmnotes.studies.importance", ("cached", "claims"))
    + remember.package_modules("lmnotes.stats")
    + ("lmnotes.core.numerics", "lmnotes.core.kernels")
)

remembered = remember.Store("latent", MODULES)
