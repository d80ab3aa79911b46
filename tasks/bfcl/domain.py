"""The ``bfcl`` task domain: BFCL's multi-turn simulator classes as sandbox tools.

Built from the installed ``bfcl-eval`` package (Apache-2.0) by
:func:`evalkit.suite.importers.bfcl.build_domain`; imported pairs
(``evalkit suite import bfcl``) use it. Loading it without the package fails with a
message that says how to install it.
"""

from evalkit.suite.importers.bfcl import build_domain

DOMAIN = build_domain()
