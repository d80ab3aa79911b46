"""External agents evaluated over MCP (the Model Context Protocol).

``evalkit run --agent "cmd:COMMAND ..."`` evaluates an agent harness instead of a model: for
each episode evalkit serves the episode's world over MCP — the task tools with their JSON
schemas, the condition's channel (nothing more under ``nl``, the plain decision tools under
``tool``, the ``meta_request`` tool under ``meta``) and a ``final_answer`` tool — and runs the
command. Every tool call goes through the reference runtime (controller, autonomy gate,
approvals, budgets, meta-request protocol) into the episode's event log, and the episode is
scored like a model's.

Modules: :mod:`~evalkit.agents.spec` (the spec, placeholders and environment),
:mod:`~evalkit.agents.session` (one call → one turn of the runtime),
:mod:`~evalkit.agents.server` (the per-episode MCP server and the agent's process, its limits
and faults), :mod:`~evalkit.agents.stdio_bridge` (the same episode over stdio).
"""
