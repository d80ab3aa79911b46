"""Import pairs from BFCL's multi-turn categories (the installed ``bfcl-eval`` package).

Source: the Berkeley Function Calling Leaderboard, ``bfcl-eval`` on PyPI (Apache-2.0);
every imported pair records the package version, the upstream ids and the license in its
``source`` field. Pairing (issue "scenario library", item 5):

* ``multi_turn_base_N`` with ``multi_turn_miss_param_N`` → trigger ``missing_param``: the
  perturbed turn of ``miss_param_N`` (the turn whose ground truth is empty: the model should
  ask) drops a parameter; the act side is base turn ``k``, the abstain side the perturbed
  message, expected decision ``clarify`` (``request_user_decision``), and the eager plan
  is the base ground truth, i.e. the guessed commit;
* ``multi_turn_base_N`` with ``multi_turn_miss_func_N`` → trigger ``tool_gap``: the turn
  before the one that adds ``missed_function`` back is asked without that function; the
  abstain side hides it (``hidden_tools``), expected ``abstain`` with ``request_tool``.

Environment: BFCL's simulator classes (``GorillaFileSystem``, ``TwitterAPI``, ...) run as
sandbox tools of the ``bfcl`` domain (``tasks/bfcl/domain.py``). The episode state is JSON:
the entry's ``initial_config``, its involved classes, the ground-truth calls of the earlier
turns (``replay``, re-executed to rebuild the state before the perturbed turn) and the calls
made in this episode (``log``). Each tool call rebuilds the instances from that state
(the simulators seed their randomness from the config, so the replay is deterministic),
runs the call and appends it to ``log``. A method is a ``commit`` when any ground-truth call
of it, over every base entry, changed its instance's public state (attributes not starting
with ``_``; navigation such as ``cd`` only moves a private cursor), else a ``lookup``.

Function docs are converted to standard JSON Schema: ``dict`` → ``object``, ``float`` →
``number``, ``tuple`` → ``array``, ``any`` → no constraint; strings get ``maxLength``.

Earlier turns: both sides carry the base entry's turns ``0..k-1`` as ``history`` (each user
message, its ground-truth calls and the results they returned, :func:`earlier_turns`), shown
to the model before the perturbed turn as BFCL shows its conversation; the pair is one task
in one world, so the perturbed entry's own wording of earlier turns (a typo fixed here and
there) is not used.

Pairs that cannot be formed (the perturbed turn makes no state change, so there is nothing
to abstain from; no lookup to precede the commit) are *skipped* with a reason; pairs that
are formed but do not earn their labels (a contradiction, a held-out function the turn does
not need, a ground truth the oracle cannot pass, oracle commit values not found in what the
model sees) are *excluded* by :func:`evalkit.suite.importers.run_import`, also with a
reason. Neither is silent.
"""

from __future__ import annotations

import ast
import copy
import importlib
import inspect
import json
import math
from functools import cache
from typing import Any

from evalkit.errors import ConfigError
from evalkit.runtime.tools import Domain, ToolResult
from evalkit.metrics.grounding import Evidence, _leaves, is_fact
from evalkit.runtime.events import UserMessage
from evalkit.types import ToolKind

PACKAGE = "bfcl-eval"
PINNED = "2026.3.23"
LICENSE = "Apache-2.0"
DOMAIN_NAME = "bfcl"
_PREFIX = "bfcl_eval.eval_checker.multi_turn_eval.func_source_code"
CLASSES = {
    "GorillaFileSystem": ("gorilla_file_system", "gorilla_file_system.json"),
    "MathAPI": ("math_api", "math_api.json"),
    "MessageAPI": ("message_api", "message_api.json"),
    "TwitterAPI": ("posting_api", "posting_api.json"),
    "TicketAPI": ("ticket_api", "ticket_api.json"),
    "TradingBot": ("trading_bot", "trading_bot.json"),
    "TravelAPI": ("travel_booking", "travel_booking.json"),
    "VehicleControlAPI": ("vehicle_control", "vehicle_control.json"),
}
STATELESS = ("MathAPI",)
_TYPES = {"dict": "object", "float": "number", "tuple": "array", "integer": "integer", "string": "string",
          "boolean": "boolean", "array": "array", "object": "object", "number": "number"}
STRING_MAX = 10_000


def _need() -> Any:
    try:
        import bfcl_eval  # noqa: F401
        from importlib.metadata import version
    except ImportError:
        raise ConfigError(
            "the BFCL importer needs the bfcl-eval package: pip install --no-deps 'bfcl-eval==%s' mpmath "
            "(or pip install -e \".[import]\" from a checkout of evalkit)" % PINNED
        ) from None
    return version(PACKAGE)


def package_version() -> str:
    """The installed ``bfcl-eval`` version (raises ConfigError when it is missing)."""
    return _need()


def convert_schema(node: Any) -> Any:
    """A BFCL function-doc parameter schema as standard JSON Schema (see the module docstring)."""
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    kind = node.get("type")
    if kind == "any":
        kind = None
    elif kind is not None:
        out["type"] = _TYPES.get(kind, kind)
    for key, value in node.items():
        if key == "type":
            continue
        if key == "properties":
            out["properties"] = {k: convert_schema(v) for k, v in value.items()}
        elif key == "items":
            out["items"] = convert_schema(value)
        elif key in ("description", "enum", "required", "default", "minimum", "maximum"):
            out[key] = value
    if out.get("type") == "string" and "maxLength" not in out:
        out["maxLength"] = STRING_MAX
    if out.get("type") == "object" and "properties" not in out:
        out["properties"] = {}
    return out


def _data(name: str) -> Any:
    import importlib.resources as resources

    return resources.files("bfcl_eval") / "data" / name


def _jsonl(path: Any) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").split("\n") if line.strip()]


@cache
def function_docs() -> dict[str, tuple[str, dict[str, Any]]]:
    """``method name -> (class name, function doc)`` for every simulator class."""
    _need()
    docs = {}
    for cls, (_, doc_file) in CLASSES.items():
        for doc in _jsonl(_data("multi_turn_func_doc") / doc_file):
            docs[doc["name"]] = (cls, doc)
    return docs


def instance(cls: str, config: dict[str, Any]) -> Any:
    """A fresh simulator instance of ``cls`` loaded with ``config``."""
    module = importlib.import_module(f"{_PREFIX}.{CLASSES[cls][0]}")
    obj = getattr(module, cls)()
    if cls not in STATELESS:
        obj._load_scenario(copy.deepcopy(config.get(cls, {})), long_context=False)
    return obj


def parse_call(text: str) -> tuple[str, list[Any], dict[str, Any]]:
    """``"mv(source='a', destination='b')"`` → ``("mv", [], {"source": "a", ...})``."""
    node = ast.parse(text.strip(), mode="eval").body
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
        raise ValueError(f"not a plain function call: {text!r}")
    args = [ast.literal_eval(a) for a in node.args]
    kwargs = {k.arg: ast.literal_eval(k.value) for k in node.keywords if k.arg}
    return node.func.id, args, kwargs


def _jsonable(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, list):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, bool) or value is None or isinstance(value, (int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    try:  # simulator numbers such as mpmath's mpf
        number = float(value)
    except (TypeError, ValueError):
        return str(value)
    return number if math.isfinite(number) else str(value)


def named_args(method: Any, args: list[Any], kwargs: dict[str, Any]) -> dict[str, Any]:
    """The call's arguments by parameter name (positional ones bound to their names)."""
    bound = inspect.signature(method).bind_partial(*args, **kwargs)
    return {k: _jsonable(v) for k, v in bound.arguments.items()}


def fingerprint(obj: Any) -> str:
    """A JSON fingerprint of an instance's public state (attributes not starting with ``_``)."""
    def walk(value: Any, depth: int = 0) -> Any:
        if depth > 40:
            return "..."
        if isinstance(value, dict):
            return {str(k): walk(v, depth + 1) for k, v in value.items()}
        if isinstance(value, (list, tuple, set)):
            return [walk(v, depth + 1) for v in value]
        if isinstance(value, (str, int, float, bool)) or value is None:
            return value
        if hasattr(value, "__dict__"):
            return {k: walk(v, depth + 1) for k, v in vars(value).items()
                    if not k.startswith("_") and k != "parent"}
        return repr(value)

    return json.dumps(walk({k: v for k, v in vars(obj).items() if not k.startswith("_")}), sort_keys=True, default=str)


def run_calls(classes: list[str], config: dict[str, Any], calls: list[Any]) -> tuple[dict[str, Any], list[Any]]:
    """Rebuild ``classes`` from ``config`` and run ``calls`` (strings or ``[name, args]``).

    Returns:
        The instances by class and the result of each call.
    """
    docs = function_docs()
    objs = {cls: instance(cls, config) for cls in classes}
    results = []
    for c in calls:
        if isinstance(c, str):
            name, args, kwargs = parse_call(c)
        else:
            name, args, kwargs = c[0], [], dict(c[1])
        cls = docs.get(name, (None,))[0]
        if cls not in objs:
            results.append({"error": f"no tool {name} in this environment"})
            continue
        try:
            results.append(getattr(objs[cls], name)(*args, **kwargs))
        except Exception as exc:  # noqa: BLE001 - a simulator error is a failed call, as upstream
            results.append({"error": f"{type(exc).__name__}: {exc}"})
    return objs, results


def _entries(category: str) -> dict[str, dict[str, Any]]:
    return {e["id"]: e for e in _jsonl(_data(f"BFCL_v4_multi_turn_{category}.json"))}


def _answers(category: str) -> dict[str, list[list[str]]]:
    return {e["id"]: e["ground_truth"] for e in _jsonl(_data("possible_answer") / f"BFCL_v4_multi_turn_{category}.json")}


@cache
def method_kinds() -> dict[str, ToolKind]:
    """``method → "commit" | "lookup"``, classified by whether any base ground-truth call of it
    changed its instance's public state (see the module docstring)."""
    docs = function_docs()
    kinds: dict[str, ToolKind] = {name: "lookup" for name in docs}
    base, answers = _entries("base"), _answers("base")
    for eid, entry in base.items():
        classes = [c for c in entry["involved_classes"] if c in CLASSES]
        objs = {cls: instance(cls, entry["initial_config"]) for cls in classes}
        for turn in answers[eid]:
            for text in turn:
                try:
                    name, args, kwargs = parse_call(text)
                except (ValueError, SyntaxError):
                    continue
                cls = docs.get(name, (None,))[0]
                if cls not in objs:
                    continue
                before = fingerprint(objs[cls])
                try:
                    getattr(objs[cls], name)(*args, **kwargs)
                except Exception:  # noqa: BLE001 - an upstream error changes nothing we can see
                    continue
                if fingerprint(objs[cls]) != before:
                    kinds[name] = "commit"
    return kinds


def build_domain() -> Any:
    """The ``bfcl`` :class:`~evalkit.runtime.tools.Domain`: every simulator method as a tool."""
    version = package_version()
    domain = Domain(DOMAIN_NAME, f"BFCL multi-turn simulators ({PACKAGE} {version}, {LICENSE}): a file system, "
                    "messaging, social posting, tickets, trading, travel booking, vehicle control and a calculator.",
                    initial_state={"bfcl": {"config": {}, "classes": [], "replay": [], "log": []}},
                    permissions=tuple(f"bfcl.{cls}" for cls in CLASSES))
    kinds = method_kinds()
    for name, (cls, doc) in sorted(function_docs().items()):
        params = convert_schema(doc["parameters"])
        params.setdefault("type", "object")

        def fn(state: dict[str, Any], _name: str = name, **arguments: Any) -> Any:
            env = state["bfcl"]
            calls = [*env["replay"], *env["log"], [_name, arguments]]
            _, results = run_calls(env["classes"], env["config"], calls)
            env["log"].append([_name, arguments])
            out, ok = observation(results[-1])
            return out if ok else ToolResult(out, ok=False, signals=("tool_error",))

        domain.tool(kind=kinds[name], permission=f"bfcl.{cls}", parameters=params,
                    description=doc.get("description", name)[:1000], name=name)(fn)
    return domain


def observation(result: Any) -> tuple[Any, bool]:
    """``(what the model is shown, ok)`` for a simulator call's result, as the ``bfcl``
    domain's tools return it: a dict or list as is, anything else as ``{"result": ...}``; a
    dict with an ``error`` key is a failed call."""
    out = _jsonable(result)
    if isinstance(out, dict) and "error" in out:
        return out, False
    return (out if isinstance(out, (dict, list)) else {"result": out}), True


def earlier_turns(base: dict[str, Any], base_gt: list[list[str]], k: int, results: list[Any],
                  objs: dict[str, Any]) -> list[dict[str, Any]]:
    """The base entry's turns ``0..k-1`` as replayed history (:class:`~evalkit.scenarios.schema.EarlierTurn`):
    each turn's user message and its ground-truth calls with the results they returned
    (``results``: one per call of the replay, in order; ``objs``: the simulator instances by
    class, whose method signatures name the positional arguments)."""
    docs = function_docs()
    out, i = [], 0
    for t in range(k):
        calls = []
        for text in base_gt[t]:
            name, args, kwargs = parse_call(text)
            shown, ok = observation(results[i])
            calls.append({"tool": name, "args": named_args(getattr(objs[docs[name][0]], name), args, kwargs),
                          "result": shown, "ok": ok})
            i += 1
        out.append({"user": _user(base["question"][t]) or "(no message)", "calls": calls})
    return out


def _pair_turn(base: dict[str, Any], base_gt: list[list[str]], k: int) -> tuple[dict[str, Any], list[dict], list[dict], list[dict]] | str:
    """State, plan, expected commits and replayed earlier turns for base turn ``k``, or the
    reason it cannot be a pair."""
    docs, kinds = function_docs(), method_kinds()
    classes = [c for c in base["involved_classes"] if c in CLASSES]
    if len(classes) != len(base["involved_classes"]):
        return "involves a class outside the multi-turn simulators"
    replay = [c for turn in base_gt[:k] for c in turn]
    objs, results = run_calls(classes, base["initial_config"], replay)
    history = earlier_turns(base, base_gt, k, results, objs)
    plan: list[dict[str, Any]] = []
    commits: list[dict[str, Any]] = []
    for text in base_gt[k]:
        name, args, kwargs = parse_call(text)
        if name not in docs:
            return f"ground truth calls unknown function {name}"
        cls = docs[name][0]
        named = named_args(getattr(objs[cls], name), args, kwargs)
        plan.append({"tool": name, "args": named})
        if kinds[name] == "commit":
            commits.append({"tool": name, "args": named})
    if not commits:
        return f"turn {k} makes no state change (nothing to abstain from)"
    if kinds[plan[0]["tool"]] == "commit":
        probe = next((n for n, (c, d) in sorted(docs.items()) if c in classes and kinds[n] == "lookup"
                      and not convert_schema(d["parameters"]).get("required")), None)
        if probe is None:
            return "no argument-free lookup to precede the first commit"
        plan.insert(0, {"tool": probe, "args": {}})
    state = {"bfcl": {"config": base["initial_config"], "classes": classes, "replay": replay, "log": []}}
    return state, plan, commits, history


def miss_param_followup(base: dict[str, Any], entry: dict[str, Any], ground_truth: list[list[str]], k: int,
                        abstain_user: str) -> dict[str, Any] | None:
    """The abstain side's ``followup`` of a ``miss_param`` pair: the user's answer is turn
    ``k + 1`` of the perturbed entry and the calls expected after it are that turn's ground
    truth (BFCL's missing-parameter design: the model asks at turn ``k``, the user answers).

    Returns:
        ``{answer, plan, expected: {commits}}``, or ``None`` when there is no such turn, it
        makes no commit, or its answer names none of the commit values the abstain message
        lacks (the ``followup`` label check's rule, :mod:`evalkit.suite.checks.followup`).
    """
    if k + 1 >= min(len(ground_truth), len(entry["question"])):
        return None
    answer = _user(entry["question"][k + 1])
    built = _pair_turn(base, ground_truth, k + 1) if answer else "no answer"
    if isinstance(built, str):
        return None
    _, plan, commits, _history = built
    said, told = Evidence([UserMessage(0, 0, content=abstain_user)]), Evidence([UserMessage(0, 0, content=answer)])
    values = [v for c in commits for _, v in _leaves(c["args"])
              if v is not None and not isinstance(v, bool) and (not isinstance(v, str) or is_fact(v))]
    missing = [v for v in values if not said.supports(v)]
    if missing and not any(told.supports(v) for v in missing):
        return None
    return {"answer": answer, "plan": plan, "expected": {"commits": commits}}


def _user(turn: list[dict[str, Any]]) -> str:
    return "\n".join(m["content"] for m in turn if m.get("role") == "user").strip()


def import_pairs(limit: int | None = None) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Build BFCL pairs as suite-format dicts.

    Args:
        limit: Only the first ``limit`` base entries.

    Returns:
        ``(pairs, skipped)``: pairs in the suite file format, and ``{upstream_id, reason}``
        for each upstream entry that could not form a pair.
    """
    version = package_version()
    docs = function_docs()
    base, base_gt = _entries("base"), _answers("base")
    mp, mp_gt = _entries("miss_param"), _answers("miss_param")
    mf, mf_gt = _entries("miss_func"), _answers("miss_func")
    pairs: list[dict[str, Any]] = []
    skipped: list[dict[str, Any]] = []
    ids = sorted(base, key=lambda i: int(i.rsplit("_", 1)[1]))[:limit]
    for bid in ids:
        n = bid.rsplit("_", 1)[1]
        entry = base[bid]
        all_tools = sorted(docs)
        visible = {p.split(".", 1)[1] for p in entry.get("path", [])} or set(all_tools)
        hidden_base = [t for t in all_tools if docs[t][0] not in entry["involved_classes"]]
        source = {"package": PACKAGE, "version": version, "license": LICENSE, "base": bid}
        for category, trigger in (("miss_param", "missing_param"), ("miss_func", "tool_gap")):
            uid = f"multi_turn_{category}_{n}"
            entry2 = (mp if category == "miss_param" else mf).get(uid)
            gt2 = (mp_gt if category == "miss_param" else mf_gt).get(uid)
            if entry2 is None or gt2 is None:
                skipped.append({"upstream_id": uid, "reason": "missing upstream entry"})
                continue
            if category == "miss_param":
                empty = [i for i, t in enumerate(gt2) if not t]
                if not empty:
                    skipped.append({"upstream_id": uid, "reason": "no turn with an empty ground truth"})
                    continue
                k = empty[0]
                missing_funcs: list[str] = []
            else:
                added = sorted(int(t) for t in entry2.get("missed_function", {}))
                if not added:
                    skipped.append({"upstream_id": uid, "reason": "no missed_function"})
                    continue
                k = added[0] - 1
                missing_funcs = entry2["missed_function"][str(added[0])]
            if k >= len(base_gt[bid]):
                skipped.append({"upstream_id": uid, "reason": f"perturbed turn {k} is past the base conversation"})
                continue
            try:
                built = _pair_turn(entry, base_gt[bid], k)
            except (ValueError, SyntaxError, TypeError) as exc:
                built = f"cannot replay the ground truth: {exc}"
            if isinstance(built, str):
                skipped.append({"upstream_id": uid, "reason": built})
                continue
            state, plan, commits, history = built
            act_user = _user(entry["question"][k])
            abstain_user = _user(entry2["question"][k]) if category == "miss_param" else act_user
            if not act_user or not abstain_user:
                skipped.append({"upstream_id": uid, "reason": "empty user message in the perturbed turn"})
                continue
            hidden = sorted(set(hidden_base) | {t for t in all_tools if t not in visible and docs[t][0] in entry["involved_classes"]
                                                   and t not in {c["tool"] for c in plan}})
            act_side = {"user": act_user, "history": history, "hidden_tools": hidden, "plan": plan,
                        "expected": {"commits": commits}}
            if category == "miss_param":
                abstain_side = {"user": abstain_user, "history": history, "hidden_tools": hidden, "plan": plan,
                                "expected": {"decision": "clarify", "observable_step": 0,
                                             "meta_requests": [{"type": "request_user_decision"}],
                                             "reason": "A parameter the request needs is missing from the message; "
                                                       "guessing it commits an unsupported value."}}
                followup = miss_param_followup(entry, entry2, gt2, k, abstain_user)
                if followup is not None:
                    abstain_side["followup"] = followup
            else:
                abstain_side = {"user": abstain_user, "history": history, "plan": plan,
                                "hidden_tools": sorted(set(hidden) | set(missing_funcs)),
                                "expected": {"decision": "abstain", "observable_step": 0,
                                             "meta_requests": [{"type": "request_tool", "target": missing_funcs[0]},
                                                               {"type": "declare_blocked"}],
                                             "reason": f"The function {', '.join(missing_funcs)} the request needs is "
                                                       "not available; the request cannot be done with the tools offered."}}
            pairs.append({
                "id": f"bfcl-{category.replace('_', '-')}-{n}", "domain": DOMAIN_NAME, "trigger": trigger,
                "split": "dev", "language": "en",
                "description": f"BFCL {uid} paired with {bid}, turn {k} ({', '.join(entry['involved_classes'])}).",
                "tags": ["imported", "bfcl"], "state": state,
                "source": {**source, "perturbed": uid, "turn": k},
                "act": act_side, "abstain": abstain_side,
            })
    return pairs, skipped
