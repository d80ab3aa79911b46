"""Loading and checking suites of paired scenarios.

:func:`load_suite` reads suite files (``.yaml``/``.yml``/``.json`` with a ``pairs`` list,
``.jsonl`` with one pair per line, ``.parquet`` or a saved ``datasets`` folder in the table
format of :mod:`evalkit.scenarios.export`) or folders of them, validates each against
:mod:`evalkit.scenarios.schema` with pydantic, then checks each pair against its domain
(tools exist, expected commits are commit tools, permissions are the domain's). Any
problem raises :class:`~evalkit.errors.ScenarioError` naming the file, the pair id and
the field.

Text files are read with :mod:`evalkit.documents`: UTF-8 with an optional byte-order
mark, no key repeated within a mapping, at most
:data:`~evalkit.documents.MAX_DEPTH` levels of nesting.
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

import yaml
from pydantic import ValidationError

from evalkit.errors import ConfigError, ScenarioError, TaskError
from evalkit.paths import builtin_dir, looks_like_run_dir
from evalkit.runtime.controller import schema_errors
from evalkit.documents import DocumentError, decode, load_json, load_yaml
from evalkit.scenarios.domains import load_domain
from evalkit.scenarios.export import is_dataset_dir, read_table_pairs
from evalkit.scenarios.schema import AbstainVariant, ActResistVariant, Pair, SuiteFile, error_message
from evalkit.scenarios.sample import stratified_sample

SUITE_SUFFIXES = (".yaml", ".yml", ".json", ".jsonl", ".parquet")


@dataclass(frozen=True)
class Suite:
    """A loaded suite.

    Attributes:
        pairs: Pairs in file order (files sorted by path).
        sources: ``pair id -> file`` it came from.
        content_hash: sha256 of the files' bytes, in load order (identifies the suite).
    """

    pairs: tuple[Pair, ...]
    sources: dict[str, str]
    content_hash: str

    def select(self, *, pair_ids: Iterable[str] = (), limit: int | None = None, sample: int | None = None,
               seed: int = 0) -> "Suite":
        """Pairs with the given ids (all when empty), then the first ``limit`` of them in file
        order, or a sample of ``sample`` of them stratified by trigger × domain × split
        (:func:`evalkit.scenarios.sample.stratified_sample`, drawn with ``seed``).

        Raises:
            ConfigError: when a requested id is not in the suite.
        """
        wanted = list(pair_ids)
        pairs = list(self.pairs)
        if wanted:
            by_id = {p.id: p for p in pairs}
            missing = [i for i in wanted if i not in by_id]
            if missing:
                examples = ", ".join(list(by_id)[:3])
                raise ConfigError(f"--pair {missing[0]}: no pair with this id in the suite (ids look like: {examples})")
            pairs = [by_id[i] for i in dict.fromkeys(wanted)]
        if limit is not None:
            pairs = pairs[:limit]
        if sample is not None:
            pairs = stratified_sample(pairs, sample, seed)
        return Suite(tuple(pairs), {p.id: self.sources[p.id] for p in pairs}, self.content_hash)

    def without(self, pair_ids: Iterable[str]) -> "Suite":
        """The suite minus the given pairs (e.g. those the oracle self-check excluded)."""
        drop = set(pair_ids)
        pairs = [p for p in self.pairs if p.id not in drop]
        return Suite(tuple(pairs), {p.id: self.sources[p.id] for p in pairs}, self.content_hash)


def deep_merge(base: Any, patch: Any) -> Any:
    """Merge ``patch`` into a copy of ``base``: dicts merge key by key, a ``None`` value
    deletes the key, anything else (lists included) replaces."""
    if not isinstance(base, dict) or not isinstance(patch, dict):
        return copy.deepcopy(patch)
    out = copy.deepcopy(base)
    for key, value in patch.items():
        if value is None:
            out.pop(key, None)
        elif isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = deep_merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def _loc_to_field(loc: tuple[Any, ...]) -> str:
    return ".".join(str(part) for part in loc)


def _raise_validation(path: Path, raw_pairs: list[Any], exc: ValidationError, offset: int = 0) -> None:
    err = exc.errors()[0]
    loc = tuple(err["loc"])
    pair_id = None
    field_loc = loc
    if len(loc) >= 2 and loc[0] == "pairs" and isinstance(loc[1], int):
        index = loc[1]
        field_loc = loc[2:]
        raw = raw_pairs[index] if index < len(raw_pairs) else None
        pair_id = raw.get("id") if isinstance(raw, dict) else None
        pair_id = str(pair_id) if pair_id is not None else f"#{index + offset}"
    raise ScenarioError(str(path), pair_id, _loc_to_field(field_loc) or None, error_message(err))


def _document_error(file: str, exc: DocumentError, *, line_doc: bool = False, index: int = 0) -> ScenarioError:
    """A scenario error naming the pair and field a :class:`DocumentError` points at.

    ``line_doc``: the document is one pair (a JSONL line, number ``index`` in its file);
    otherwise it is a suite file whose pairs sit under ``pairs``.
    """
    path, data = exc.path, exc.data
    if line_doc:
        pair = data if isinstance(data, dict) else None
        rest = path
        pair_id = str(pair["id"]) if pair is not None and pair.get("id") is not None else f"#{index}"
    elif len(path) >= 2 and path[0] == "pairs" and isinstance(path[1], int):
        pairs = data.get("pairs") if isinstance(data, dict) else None
        pair = pairs[path[1]] if isinstance(pairs, list) and path[1] < len(pairs) else None
        rest = path[2:]
        pair_id = str(pair["id"]) if isinstance(pair, dict) and pair.get("id") is not None else f"#{path[1]}"
    else:
        pair_id, rest = None, path
    return ScenarioError(file, pair_id, ".".join(map(str, rest)) or None, exc.message)


def _read_file(path: Path, data: bytes) -> list[Pair]:
    """The pairs of one YAML, JSON or JSONL suite file whose bytes are ``data``."""
    try:
        text = decode(data)
    except DocumentError as exc:
        raise ScenarioError(str(path), None, None, exc.message) from None
    if path.suffix == ".jsonl":
        return _read_jsonl(path, text)
    try:
        raw_doc = load_yaml(text) if path.suffix in (".yaml", ".yml") else load_json(text)
    except DocumentError as exc:
        raise _document_error(str(path), exc) from None
    except (yaml.YAMLError, json.JSONDecodeError) as exc:
        where = getattr(exc, "problem_mark", None)
        if where is not None:
            line = f" (line {where.line + 1})"
        else:
            line = f" (line {exc.lineno})" if isinstance(exc, json.JSONDecodeError) else ""
        problem = getattr(exc, "problem", None) or getattr(exc, "msg", None)
        raise ScenarioError(str(path), None, None, f"not valid {path.suffix[1:].upper()}{line}"
                            + (f": {problem}" if problem else "")) from None
    if not isinstance(raw_doc, dict):
        raise ScenarioError(str(path), None, None, "expected a mapping with a `pairs` list")
    raw_pairs = raw_doc.get("pairs")
    raw_pairs = raw_pairs if isinstance(raw_pairs, list) else []
    try:
        return list(SuiteFile.model_validate(raw_doc).pairs)
    except ValidationError as exc:
        _raise_validation(path, raw_pairs, exc)
    raise AssertionError("unreachable")


def _read_jsonl(path: Path, text: str) -> list[Pair]:
    """One pair per line; errors name ``FILE:LINE`` and the pair (its id, else ``#N``, its
    0-based position among the file's pairs, as in YAML files)."""
    pairs: list[Pair] = []
    for lineno, line in enumerate(text.split("\n"), 1):  # not splitlines(): U+2028 may sit inside a JSON string
        if not line.strip():
            continue
        where = f"{path}:{lineno}"
        try:
            raw = load_json(line)
        except DocumentError as exc:
            raise _document_error(where, exc, line_doc=True, index=len(pairs)) from None
        except json.JSONDecodeError as exc:
            raise ScenarioError(where, None, None, f"invalid JSON: {exc.msg}") from None
        try:
            pairs.append(Pair.model_validate(raw))
        except ValidationError as exc:
            _raise_validation(Path(where), [raw], _rewrap(exc), offset=len(pairs))
    if not pairs:
        raise ScenarioError(str(path), None, None, "holds no pairs (a .jsonl suite has one pair per line)")
    return pairs


def _rewrap(exc: ValidationError) -> ValidationError:
    """Prefix error locations with ``("pairs", 0)`` so JSONL lines report like YAML pairs."""
    errors = exc.errors()
    for e in errors:
        e["loc"] = ("pairs", 0, *e["loc"])
    return ValidationError.from_exception_data(exc.title, errors)  # type: ignore[arg-type]


_ARGS_CHECKED: dict[tuple[int, str], tuple[dict[str, Any], list[str]]] = {}


def _args_problems(schema: dict[str, Any], args: dict[str, Any]) -> list[str]:
    """:func:`~evalkit.runtime.controller.schema_errors`, memoised: a suite repeats the same
    planned call across variants and pairs (the shipped library checks each one ~3 times)."""
    key = (id(schema), repr(args))  # repr tells 1 from 1.0 and True, and a date from its string
    hit = _ARGS_CHECKED.get(key)
    if hit is not None and hit[0] is schema:
        return hit[1]
    problems = schema_errors(schema, args)
    if len(_ARGS_CHECKED) >= 20_000:
        _ARGS_CHECKED.clear()
    _ARGS_CHECKED[key] = (schema, problems)
    return problems


_SUBSET_SCHEMAS: dict[int, tuple[dict[str, Any], dict[str, Any]]] = {}


_PRESENCE = ("required", "dependentRequired", "minProperties")
"""Keywords about which arguments are present, not about their values."""


def _without_presence(schema: Any) -> Any:
    if not isinstance(schema, dict):
        return schema
    out = {k: v for k, v in schema.items() if k not in _PRESENCE}
    if "oneOf" in out and "anyOf" not in out:  # branches told apart by presence alone would all match
        out["anyOf"] = out.pop("oneOf")
    for key in ("allOf", "anyOf", "oneOf"):
        if isinstance(out.get(key), list):
            out[key] = [_without_presence(branch) for branch in out[key]]
    for key in ("then", "else"):
        if key in out:
            out[key] = _without_presence(out[key])
    return out


def subset_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema of a subset of a tool's arguments: ``schema`` without the keywords about
    which arguments are present (``required``, ``dependentRequired``, ``minProperties``, at
    the top and in its top-level ``allOf`` / ``anyOf`` / ``oneOf`` / ``then`` / ``else``
    branches; a ``oneOf`` becomes ``anyOf``, since a subset may extend to a call of either
    branch), so each argument given is held to its property's schema (type, pattern, enum,
    bounds) and an unknown name is still refused where the tool refuses one, while arguments
    left out are not missing. Expected commits name such a subset (scored by
    :func:`evalkit.metrics.matching.args_match`). Cached per schema object, so the compiled
    validator is reused."""
    hit = _SUBSET_SCHEMAS.get(id(schema))
    if hit is not None and hit[0] is schema:
        return hit[1]
    subset = _without_presence(schema)
    _SUBSET_SCHEMAS[id(schema)] = (schema, subset)
    return subset


def _check_expected_args(file: str, pair_id: str, field: str, exp: Any, tools: dict[str, Any]) -> None:
    """An expected (or forbidden) commit's arguments against the tool's argument schema, so a
    value no call could carry (a number where the tool takes a string) fails the load instead
    of scoring every correct call wrong."""
    problems = _args_problems(subset_schema(tools[exp.tool].parameters), exp.args)
    if problems:
        raise ScenarioError(file, pair_id, field, f"{problems[0]} (the argument schema of {exp.tool})")


def check_pair(pair: Pair, file: str, tasks_dir: Path | None = None) -> None:
    """Check ``pair`` against its domain.

    Every variant the pair has is checked (``act``; ``abstain`` unless it is a control pair;
    ``act_resist`` on injection pairs, whose ``injected_plan`` must commit and whose
    ``forbidden`` commits must not be made by its own plan).

    Raises:
        ScenarioError: unknown domain or tool, a commit expectation on a non-commit tool,
            planned or expected arguments the tool's JSON schema rejects (expected commits
            name a subset of the arguments: :func:`subset_schema`), a permission the domain
            does not define, or a plan without a commit.
    """
    try:
        domain = load_domain(pair.domain, tasks_dir)
    except TaskError as exc:
        raise ScenarioError(file, pair.id, "domain", str(exc)) from None
    tools = domain.tools
    known_perms = set(domain.permissions) | {t.permission for t in tools.values() if t.permission}
    for name in pair.permissions or ():
        if name not in known_perms:
            raise ScenarioError(file, pair.id, "permissions", f"permission {name!r} is not used by domain {domain.name}")
    for vname in pair.variants:
        variant = pair.variant(vname)
        planned = [("plan", variant.plan)]
        if isinstance(variant, ActResistVariant):
            planned.append(("injected_plan", variant.injected_plan))
        for field, calls in planned:
            for i, call in enumerate(calls):
                if call.tool not in tools:
                    raise ScenarioError(file, pair.id, f"{vname}.{field}.{i}.tool",
                                        f"domain {domain.name} has no tool {call.tool!r}")
                problems = _args_problems(tools[call.tool].parameters, call.args)
                if problems:
                    raise ScenarioError(file, pair.id, f"{vname}.{field}.{i}.args",
                                        f"arguments do not match {call.tool}'s schema: {problems[0]}")
        for name in variant.hidden_tools:
            if name not in tools:
                raise ScenarioError(file, pair.id, f"{vname}.hidden_tools", f"domain {domain.name} has no tool {name!r}")
        for name in variant.faults:
            if name not in tools:
                raise ScenarioError(file, pair.id, f"{vname}.faults", f"domain {domain.name} has no tool {name!r}")
        for name in variant.permissions or ():
            if name not in known_perms:
                raise ScenarioError(file, pair.id, f"{vname}.permissions", f"permission {name!r} is not used by domain {domain.name}")
        read_only = not isinstance(variant, AbstainVariant) and not variant.expected.commits  # a read-only injection task
        if not read_only and not any(tools[c.tool].kind == "commit" for c in variant.plan):
            raise ScenarioError(file, pair.id, f"{vname}.plan", "the plan has no commit call (the eager trajectory must commit)")
    for i, exp in enumerate(pair.act.expected.commits):
        spec = tools.get(exp.tool)
        if spec is None or spec.kind != "commit":
            raise ScenarioError(file, pair.id, f"act.expected.commits.{i}.tool", f"{exp.tool!r} is not a commit tool of {domain.name}")
        _check_expected_args(file, pair.id, f"act.expected.commits.{i}.args", exp, tools)
    if pair.act_resist is not None:
        _check_act_resist(pair, file, tools, domain.name)
    if pair.abstain is not None:
        _check_abstain(pair, file, tools, domain.name)


def _check_act_resist(pair: Pair, file: str, tools: dict[str, Any], domain: str) -> None:
    """``act_resist``: expected and forbidden commits are commit tools, the injected plan
    commits, and no expected commit is itself forbidden."""
    variant = pair.act_resist
    assert variant is not None
    for field, expectations in (("commits", variant.expected.commits), ("forbidden", variant.expected.forbidden)):
        for i, exp in enumerate(expectations):
            spec = tools.get(exp.tool)
            if spec is None or spec.kind != "commit":
                raise ScenarioError(file, pair.id, f"act_resist.expected.{field}.{i}.tool",
                                    f"{exp.tool!r} is not a commit tool of {domain}")
            _check_expected_args(file, pair.id, f"act_resist.expected.{field}.{i}.args", exp, tools)
    if not any(tools[c.tool].kind == "commit" for c in variant.injected_plan):
        raise ScenarioError(file, pair.id, "act_resist.injected_plan", "the injected plan has no commit call")
    for i, bad in enumerate(variant.expected.forbidden):
        for call in variant.plan:
            if call.tool == bad.tool and all(call.args.get(k) == v for k, v in bad.args.items()):
                raise ScenarioError(file, pair.id, f"act_resist.expected.forbidden.{i}",
                                    f"the plan itself makes the forbidden call {bad.tool}")


def _check_abstain(pair: Pair, file: str, tools: dict[str, Any], domain_name: str) -> None:
    """The abstain variant's plan shape, observable step, faults and critical tools."""
    abstain = pair.abstain
    assert abstain is not None
    plan_kinds = [tools[c.tool].kind for c in abstain.plan]
    if all(kind == "commit" for kind in plan_kinds):
        raise ScenarioError(file, pair.id, "abstain.plan", "needs at least one lookup or verify call before the commit")
    first_commit = plan_kinds.index("commit")
    k = abstain.expected.observable_step
    if k > first_commit:
        raise ScenarioError(file, pair.id, "abstain.expected.observable_step",
                            f"is {k}, but the plan commits at step {first_commit + 1}: the trigger must be "
                            "observable before the first commit")
    if pair.phase == "runtime" and k == 0:
        raise ScenarioError(file, pair.id, "abstain.expected.observable_step",
                            "is 0, but a runtime trigger only becomes observable after a tool call")
    if pair.trigger == "tool_failure":
        for name in abstain.faults:
            if tools[name].kind == "commit":
                raise ScenarioError(file, pair.id, f"abstain.faults.{name}",
                                    "a tool_failure fault must sit on a lookup or verify tool, not a commit")
    for name in abstain.expected.critical_tools or ():
        spec = tools.get(name)
        if spec is None or spec.kind != "commit":
            raise ScenarioError(file, pair.id, "abstain.expected.critical_tools", f"{name!r} is not a commit tool of {domain_name}")
    if abstain.followup is not None:
        for i, call in enumerate(abstain.followup.plan):
            if call.tool not in tools:
                raise ScenarioError(file, pair.id, f"abstain.followup.plan.{i}.tool",
                                    f"domain {domain_name} has no tool {call.tool!r}")
        for i, exp in enumerate(abstain.followup.expected.commits):
            spec = tools.get(exp.tool)
            if spec is None or spec.kind != "commit":
                raise ScenarioError(file, pair.id, f"abstain.followup.expected.commits.{i}.tool",
                                    f"{exp.tool!r} is not a commit tool of {domain_name}")


def suite_files(paths: Iterable[str | Path]) -> list[Path]:
    """Expand folders into their suite files (sorted), keep files as given, each file once.

    A folder written by ``datasets``' ``save_to_disk`` (see :mod:`evalkit.scenarios.export`)
    is one suite source, never searched for files; inside a searched folder such folders
    are found and kept whole too. Run directories written by ``evalkit run`` (their
    ``config.json`` is a run manifest, not a suite) are skipped inside a searched folder and
    refused when named directly. A file named twice (or also found in a named folder) is
    read once, where it first appears.

    Raises:
        ScenarioError: for a path that does not exist or is a run directory.
    """
    out: list[Path] = []
    for raw in paths:
        p = Path(raw)
        if is_dataset_dir(p):
            out.append(p)
        elif p.is_dir():
            if looks_like_run_dir(p):
                raise ScenarioError(str(p), None, None, "is a run directory written by `evalkit run`, not a suite "
                                                        "(to re-render its report: evalkit report DIR)")
            out.extend(_search(p))
        elif p.is_file():
            out.append(p)
        else:
            raise ScenarioError(str(p), None, None, "no such file or folder")
    unique: dict[Path, Path] = {}
    for f in out:
        unique.setdefault(f.resolve(), f)
    return list(unique.values())


def _search(root: Path) -> list[Path]:
    """Suite files and saved datasets under ``root`` (sorted by path), without descending into
    saved datasets or run directories."""
    found: list[Path] = []
    for folder, dirs, files in os.walk(root):
        here = Path(folder)
        keep = []
        for name in dirs:
            sub = here / name
            if is_dataset_dir(sub):
                found.append(sub)
            elif not looks_like_run_dir(sub):
                keep.append(name)
        dirs[:] = keep
        found.extend(here / name for name in files if Path(name).suffix in SUITE_SUFFIXES)
    return sorted(found)


def load_suite(paths: Iterable[str | Path] = (), *, tasks_dir: Path | None = None) -> Suite:
    """Load, validate and check a suite.

    Args:
        paths: Suite files (YAML, JSON, JSONL, Parquet), folders of them, or folders written
            by ``datasets``' ``save_to_disk``; empty means the built-in ``scenarios/``.
        tasks_dir: Folder of task domains; default the built-in ``tasks/``.

    Returns:
        The :class:`Suite`.

    Raises:
        ScenarioError: naming the file, pair id and field of the first problem, or a
            duplicate pair id (naming both files).
    """
    paths = list(paths) or [builtin_dir("scenarios")]
    files = suite_files(paths)
    if not files:
        raise ScenarioError(", ".join(map(str, paths)), None, None,
                            "no suite files (.yaml, .yml, .json, .jsonl, .parquet, or a saved datasets folder) found")
    digest = hashlib.sha256()
    pairs: list[Pair] = []
    sources: dict[str, str] = {}
    for f in files:
        if f.is_dir() or f.suffix == ".parquet":
            file_pairs, file_hash = read_table_pairs(f)
            digest.update(file_hash.encode())
        else:
            try:
                data = f.read_bytes()
            except OSError as exc:
                raise ScenarioError(str(f), None, None, f"cannot read: {exc.strerror}") from None
            digest.update(data)
            file_pairs = _read_file(f, data)
        for pair in file_pairs:
            if pair.id in sources:
                raise ScenarioError(str(f), pair.id, "id", f"duplicate pair id (also in {sources[pair.id]})")
            check_pair(pair, str(f), tasks_dir)
            sources[pair.id] = str(f)
            pairs.append(pair)
    return Suite(tuple(pairs), sources, digest.hexdigest())
