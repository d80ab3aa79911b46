"""The reference agent runtime evalkit measures models through (DESIGN §2–§4).

One turn is ``R_t --S_B--> M_t --model--> D_t --C--> a_t --gate--> env --> O_t --U--> R_{t+1}``:

* :mod:`~evalkit.runtime.events` — the append-only event log ``L_t``;
* :mod:`~evalkit.runtime.view` — the effective view ``V_t``, a pure fold of the log;
* :mod:`~evalkit.runtime.context` — the pure context builder ``S_B``;
* :mod:`~evalkit.runtime.controller` — the controller ``C`` and the episode :class:`Limits`;
* :mod:`~evalkit.runtime.gate` — the autonomy gate and its stopping-rule protocol;
* :mod:`~evalkit.runtime.meta` — the meta-request protocol (with
  :mod:`~evalkit.runtime.provenance` for untrusted justifications);
* :mod:`~evalkit.runtime.approvals`, :mod:`~evalkit.runtime.policy` — approvals, budgets
  and the runtime policy file;
* :mod:`~evalkit.runtime.executor` — the sandbox executor and its disturbances;
* :mod:`~evalkit.runtime.loop` — :func:`run_episode`, which ties them together.
"""

from __future__ import annotations

from evalkit.runtime.approvals import ApprovalPolicy
from evalkit.runtime.context import ModelContext, build_context
from evalkit.runtime.controller import Action, Controller, Limits
from evalkit.runtime.events import EventLog
from evalkit.runtime.executor import Fault, SandboxExecutor
from evalkit.runtime.gate import AutonomyGate, GateVerdict, RuleHit, Situation, StoppingRules
from evalkit.runtime.loop import EpisodeRun, Recorder, run_episode
from evalkit.runtime.matching import ArgTest, CallPattern
from evalkit.runtime.meta import ContextDoc, MetaEnvironment, MetaPolicy, MetaProtocol
from evalkit.runtime.model_io import Model, ModelOutput, ToolCall
from evalkit.runtime.policy import Budgets, RuntimePolicy, load_policy
from evalkit.runtime.tools import Domain, ToolFailure, ToolResult, ToolSpec
from evalkit.runtime.view import View, fold

__all__ = [
    "Action",
    "ApprovalPolicy",
    "ArgTest",
    "AutonomyGate",
    "Budgets",
    "CallPattern",
    "ContextDoc",
    "Controller",
    "Domain",
    "EpisodeRun",
    "EventLog",
    "Fault",
    "GateVerdict",
    "Limits",
    "MetaEnvironment",
    "MetaPolicy",
    "MetaProtocol",
    "Model",
    "ModelContext",
    "ModelOutput",
    "Recorder",
    "RuleHit",
    "RuntimePolicy",
    "SandboxExecutor",
    "Situation",
    "StoppingRules",
    "ToolCall",
    "ToolFailure",
    "ToolResult",
    "ToolSpec",
    "View",
    "build_context",
    "fold",
    "load_policy",
    "run_episode",
]
