"""The foundation every layer above stands on: atomic files and content digests (:mod:`.io`),
the shared cache of derived files (:mod:`.cache`) and the version of the code that made an
entry (:mod:`.codeversion`), the same arithmetic on every x86-64 CPU (:mod:`.numerics`, :mod:`.kernels`),
progress on the console, never in a notebook (:mod:`.progress`), and the checks of parameter
values (:mod:`.checks`). Imports nothing else of the package.
"""
