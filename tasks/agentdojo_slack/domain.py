"""The ``agentdojo_slack``  task domain: AgentDojo's slack suite as sandbox tools.

Built from the installed ``agentdojo`` package (MIT) by
:func:`evalkit.suite.importers.agentdojo.build_domain`; imported pairs
(``evalkit suite import agentdojo``) use it.
"""

from evalkit.suite.importers.agentdojo import build_domain

DOMAIN = build_domain("slack")
