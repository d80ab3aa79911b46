"""Resuming a run: what an interrupted run directory already holds, and whether it may go on.

:func:`input_fingerprints` gives the sha256 of every input of a run besides its suite (rule
set, policy, model config, task code), recorded in ``config.json`` (``inputs``);
:func:`check_inputs` refuses to resume a run one of whose inputs changed since it started
(:func:`check_sample` one whose ``--sample`` no longer draws the recorded pairs, and
:func:`check_plugins` one whose plugin metrics are not the recorded ones, and warns about one that
recorded none but shows signs of plugins);
:func:`prepare_resume` checks the suite's hash, leaves ``results.jsonl`` with one record per
episode key and returns the episodes already done (a finished episode without a whole trace
file runs again).

:func:`evalkit.pipeline.run` calls them with ``resume=True``
(:func:`evalkit.pipeline.resume_run`, ``evalkit run --resume DIR``);
:mod:`evalkit.harness.run` re-exports :func:`prepare_resume`.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from collections.abc import Collection
from typing import Any

from evalkit.errors import ConfigError
from evalkit.harness.config import RunConfig, runtime_setup
from evalkit.harness.plan import PlanKeys
from evalkit.harness.store import ResultsWarning, RunStore
from evalkit.scenarios.loader import Suite
from evalkit.version import __version__
from evalkit.scenarios.domains import domain_path
from evalkit.scenarios.sample import strata_counts


def prepare_resume(
    store: RunStore, config: RunConfig, suite: Suite, plan_keys: PlanKeys | list[tuple] | None = None
) -> bytearray | set[tuple]:
    """Check that ``store`` holds a run of this suite and return the episodes already done.

    ``results.jsonl`` is rewritten with one record per episode key (the last), without a
    half-written last line, so that new rows can be appended: with ``plan_keys``, in plan
    order, then the rows outside the plan as first seen
    (:meth:`~evalkit.harness.store.RunStore.rewrite_results`).

    Args:
        store: The run directory.
        config: The run configuration.
        suite: The selected suite.
        plan_keys: The plan's keys in plan order (``plan.keys()`` of a
            :class:`~evalkit.harness.plan.RunPlan`: indexed by position, no set of keys), or
            ``None`` (every recorded key counts).

    Returns:
        With ``plan_keys``: a bitmap, one byte per plan position, 1 where the episode
        finished ok (:func:`~evalkit.harness.plan.pending` takes it). Without: the keys of
        the episodes that finished ok.

    Raises:
        ConfigError: when the run directory has no manifest or the suite changed since.
    """
    path = store.root / "config.json"
    try:
        old = json.loads(path.read_text(encoding="utf-8-sig"))
    except (OSError, ValueError):
        raise ConfigError(f"{path}: missing or unreadable; nothing to resume") from None
    recorded_suite = old.get("suite") if isinstance(old, dict) else None
    old_hash = recorded_suite.get("content_hash") if isinstance(recorded_suite, dict) else None
    if old_hash != suite.content_hash:
        raise ConfigError(f"{store.root}: the suite changed since this run started "
                          f"(hash {str(old_hash)[:12]} then, {suite.content_hash[:12]} now); start a new run")
    check_reader_and_prompts(old, config, store.root)
    if old.get("evalkit_version") != __version__:
        warnings.warn(f"{store.root}: started with evalkit {old.get('evalkit_version')}, resumed with "
                      f"{__version__}", ResultsWarning, stacklevel=2)
    from evalkit.harness.episode import episode_id

    index = store.scan_results(plan_keys, keep_checked=True)  # by plan position; keys outside the plan in index.strays
    if plan_keys is not None and index.strays:  # kept in results.jsonl, never counted
        warnings.warn(f"{store.root / 'results.jsonl'}: {len(index.strays)} row(s) are not in this run's plan (e.g. "
                      f"{'/'.join(map(str, next(iter(index.strays))))}); they are kept but not counted",
                      ResultsWarning, stacklevel=2)

    untraced: list[tuple[int | None, tuple]] = []
    checked = (((pos, key, ref) for pos, key, ref in index.planned_items()) if plan_keys is not None
               else ((None, key, ref) for key, ref in list(index.strays.items())))
    for pos, key, ref in checked:
        if ref.ok and not whole_trace(store.traces / f"{episode_id(*key)}.jsonl"):
            untraced.append((pos, key))  # a row without its event log cannot be replayed or shown: run it again
    if untraced:
        example = min(key for _, key in untraced)
        warnings.warn(f"{store.traces}: {len(untraced)} finished episode(s) have no whole trace file (missing, empty "
                      f"or cut; e.g. {'/'.join(map(str, example))}); they run again", ResultsWarning, stacklevel=2)
    # an errored row (or one without its trace) that runs again keeps what it spent: its new row adds it
    store.superseded.update(_errored_spend(store, index, {key for _, key in untraced}))
    # one line per key, a half-written last line gone; an untraced row stays until its episode's new row
    # follows it (the last record of a key counts), so a resume that stops early loses nothing
    store.rewrite_results(index, plan_keys)
    store.rerun_on_purpose.update(key for _, key in untraced)
    if plan_keys is not None:
        done = index.ok_bitmap()
        for pos, _ in untraced:
            if pos is not None:  # always, with a plan
                done[pos] = 0
        return done
    again = {key for _, key in untraced}
    return {k for k, ref in index.items() if ref.ok and k not in again}


def check_reader_and_prompts(old: dict[str, Any], config: RunConfig, root: Path) -> None:
    """Refuse to resume when what reads final text or what each condition sends the model changed since the
    run started: the episodes already finished would be read, or prompted, differently from the ones still to
    run, and the manifest would describe only the first.

    Compares the manifest's ``text_reader`` (reader, classifier version, weights hash; ``classifier_version``
    in a manifest without it) and, per condition of ``config``, its ``prompt_sha256`` and ``meta_tools_sha256``
    with the installed ones. A manifest that lacks a field is not checked on it.

    Raises:
        ConfigError: naming the run directory, what changed, then and now.
    """
    from evalkit.conditions.classifier import reader_identity
    from evalkit.harness.manifest import _meta_tools_record
    from evalkit.conditions.registry import get_condition

    start = "start a new run with --out (its numbers would otherwise mix two readings)"
    now = reader_identity()
    then = old.get("text_reader")
    if isinstance(then, dict):
        changed = {k: (then.get(k), v) for k, v in now.items() if k in then and then.get(k) != v}
    elif "classifier_version" in old and old.get("classifier_version") != now["version"]:
        changed = {"version": (old.get("classifier_version"), now["version"])}
    else:
        changed = {}
    if changed:
        what = ", ".join(f"{k} {a!r} then, {b!r} now" for k, (a, b) in changed.items())
        raise ConfigError(f"{root}: the final-text reader changed since this run started ({what}); {start}")
    recorded = old.get("conditions")
    for name in config.conditions:
        record = recorded.get(name) if isinstance(recorded, dict) else None
        if not isinstance(record, dict):
            continue
        current = {"prompt_sha256": get_condition(name).prompt_sha256, **_meta_tools_record(name)}
        for field in ("prompt_sha256", "meta_tools_sha256"):
            if field in record and record[field] != current[field]:
                what = "system prompt" if field == "prompt_sha256" else "meta-tool definitions"
                raise ConfigError(f"{root}: condition {name!r}: its {what} changed since this run started "
                                  f"({field} {str(record[field])[:12]} then, {current[field][:12]} now); "
                                  "start a new run with --out (its episodes would otherwise mix two prompts)")


def _errored_spend(store: RunStore, index: Any, again: Collection[tuple] = ()) -> dict[tuple, dict[str, Any]]:
    """Episode key → the billing fields of its last row when that row is an error, or finished
    without a whole trace (``again``): the episode runs again and its new row adds what that one spent."""
    from evalkit.harness.store import SPENT_COUNTS, SPENT_FLAG_COUNTS, SPENT_LISTS, SPENT_PARTS, SPENT_SUMS
    from evalkit.records import EpisodeKey

    fields = (*SPENT_SUMS, *SPENT_PARTS, *SPENT_COUNTS, *SPENT_FLAG_COUNTS, *SPENT_LISTS, "resumed_over_error")
    refs = [ref for key, ref in index.items() if not ref.ok or key in again]
    out: dict[tuple, dict[str, Any]] = {}
    if not refs:
        return out
    with open(store.root / "results.jsonl", "rb") as fh:
        for ref in refs:
            fh.seek(ref.offset)
            try:
                row = json.loads(fh.read(ref.length))
            except ValueError:
                continue
            if isinstance(row, dict) and (row.get("status") == "error" or tuple(EpisodeKey.of(row)) in again):
                out[tuple(EpisodeKey.of(row))] = {f: row.get(f) for f in fields}
    return out


def whole_trace(path: Path) -> bool:
    """Whether ``path`` is a whole event log: its first event is ``episode_started`` and its
    last ``episode_ended`` (each line read whole, however long; a final newline is optional).

    Returns:
        ``False`` for a missing, empty, unreadable or cut file, or one that is not JSON lines.
    """
    try:
        with open(path, "rb") as fh:
            first = json.loads(fh.readline(1 << 24))
            end = fh.seek(0, 2)
            while end > 0:  # past the final newline(s)
                fh.seek(end - 1)
                if fh.read(1) != b"\n":
                    break
                end -= 1
            pos, chunks = end, []
            while pos > 0:  # back from the end, a block at a time, to the start of the last line
                step = min(1 << 16, pos)
                pos -= step
                fh.seek(pos)
                chunk = fh.read(step)
                cut = chunk.rfind(b"\n")
                chunks.append(chunk[cut + 1:])
                if cut >= 0:
                    break
            last = json.loads(b"".join(reversed(chunks)))
    except (OSError, ValueError, RecursionError):
        return False
    return (isinstance(first, dict) and first.get("type") == "episode_started"
            and isinstance(last, dict) and last.get("type") == "episode_ended")


def check_inputs(run_dir: Path, config: RunConfig, suite: Suite) -> None:
    """Refuse to resume ``run_dir`` when an input recorded in its ``config.json`` (``inputs``:
    :func:`input_fingerprints`) changed since the run started; called before any work.

    Raises:
        ConfigError: naming the inputs that changed (or a manifest without ``inputs``).
    """
    try:
        then = json.loads((Path(run_dir) / "config.json").read_text(encoding="utf-8-sig")).get("inputs")
    except (OSError, ValueError, AttributeError):
        then = None
    if not isinstance(then, dict):
        raise ConfigError(f"{Path(run_dir) / 'config.json'}: field inputs is missing: the run's rule set, policy and "
                          "task code cannot be checked; start a new run")
    now = input_fingerprints(config, suite)
    used = {name for name, digest in now.items() if digest is not None}  # an input with no record is changed
    changed = sorted(name for name in set(then) | used if now.get(name) != then.get(name))
    if changed:
        raise ConfigError(f"{run_dir}: {', '.join(changed)} changed since this run started (field inputs of "
                          "config.json); results under the old and the new would be mixed: restore them, or start "
                          "a new run")


def plugins_record() -> dict[str, Any]:
    """What a run records of its plugins in ``config.json`` (``plugins``): the ``EVALKIT_PLUGINS``
    modules (:func:`evalkit.plugins.env_modules`), the installed entry points of every plugin group
    (``GROUP:NAME=VALUE``, sorted) and the names of the metrics that are not evalkit's own (sorted;
    compared on resume by :func:`check_plugins`)."""
    from importlib.metadata import entry_points

    from evalkit.metrics.registry import extension_metrics
    from evalkit.plugins import GROUPS, env_modules

    return {"env_modules": env_modules(),
            "entry_points": sorted(f"{group}:{ep.name}={ep.value}" for group in GROUPS
                                   for ep in entry_points(group=group)),
            "metrics": sorted(m.name for m in extension_metrics())}


def check_plugins(run_dir: Path) -> None:
    """Refuse to resume ``run_dir`` when the metrics the loaded plugins register (those not
    evalkit's own) differ from those recorded in its ``config.json`` (``plugins.metrics``,
    :func:`plugins_record`): the summary, and the gate, would count a metric over only
    the episodes run with it, or drop it. A manifest without ``plugins`` (an older evalkit)
    recorded none: it resumes only without plugin metrics, and then with one warning
    (:class:`~evalkit.harness.store.ResultsWarning`, :func:`unrecorded_plugins_warning`) when
    there is a sign that the run had plugins its manifest does not show.

    Raises:
        ConfigError: naming the plugin metrics recorded and those loaded now, and how to fix it.
    """
    from evalkit.plugins import ENV

    path = Path(run_dir) / "config.json"
    try:
        old = json.loads(path.read_text(encoding="utf-8-sig"))
    except (OSError, ValueError):
        old = None
    then = old.get("plugins") if isinstance(old, dict) else None
    if then is not None and not (isinstance(then, dict) and isinstance(then.get("metrics"), list)
                                 and isinstance(then.get("env_modules", []), list)):
        raise ConfigError(f"{path}: field plugins: not the record of a run's plugins (metrics, env_modules); "
                          "start a new run")
    now = plugins_record()
    recorded = sorted(map(str, then["metrics"])) if then is not None else []
    if recorded == now["metrics"]:
        if then is None:
            warning = unrecorded_plugins_warning(path, old, now)
            if warning:
                warnings.warn(warning, ResultsWarning, stacklevel=2)
        return
    if then is None:
        was = (f"none (config.json has no field plugins: the run was started by evalkit "
               f"{old.get('evalkit_version') if isinstance(old, dict) else None}, which did not record them)")
    else:
        was = ", ".join(recorded) or "none"
    env_then = ",".join(map(str, then.get("env_modules", []))) if then is not None else ""
    env_now = ",".join(now["env_modules"])
    eps_then = sorted(map(str, then.get("entry_points") or [])) if then is not None else []
    fixes = []
    if env_then != env_now:
        fixes.append(f"set {ENV}={env_then}" if env_then else f"unset {ENV}")
    if then is not None and eps_then != now["entry_points"]:
        fixes.append(f"install the plugin packages it had (entry points {', '.join(eps_then) or 'none'})")
    fix = " and ".join(fixes or ["restore the plugins it had" if recorded else "load no plugin metric"])
    fix += " as when the run started"
    loaded = ", ".join(now["metrics"]) or "none"
    raise ConfigError(f"{run_dir}: the plugin metrics loaded now differ from those this run started with (field "
                      f"plugins.metrics of config.json): recorded {was}; loaded now {loaded} "
                      f"({ENV}={env_now or '(not set)'}); resumed, a plugin metric would count only part of the "
                      f"episodes, or be dropped: {fix}, or start a new run")


def unloaded_plugins_warning(run_dir: Path) -> str | None:
    """The warning for reading ``run_dir`` (``evalkit report``, ``evalkit gate``) without the
    plugin metrics it ran with: those named in its ``config.json`` (``plugins.metrics``,
    :func:`plugins_record`) that no loaded plugin registers now. Their columns would be left
    out of the report, and a gate check on them would find no data.

    Returns:
        One line naming the run directory, the missing metrics and how to load them (the
        ``EVALKIT_PLUGINS`` modules and entry points the run recorded); ``None`` when every
        recorded metric is loaded, or the manifest records none or cannot be read.
    """
    from evalkit.metrics.registry import extension_metrics
    from evalkit.plugins import ENV

    path = Path(run_dir) / "config.json"
    try:
        then = json.loads(path.read_text(encoding="utf-8-sig")).get("plugins")
        recorded = [str(m) for m in then["metrics"]]
    except (OSError, ValueError, AttributeError, TypeError, KeyError):
        return None
    missing = sorted(set(recorded) - {m.name for m in extension_metrics()})
    if not missing:
        return None
    env_then = ",".join(map(str, then.get("env_modules") or []))
    eps_then = [str(e) for e in then.get("entry_points") or []]
    how = ([f"set {ENV}={env_then}"] if env_then else []) \
        + ([f"install the plugin packages it had (entry points {', '.join(eps_then)})"] if eps_then else [])
    return (f"{run_dir}: the run had plugin metrics that are not loaded now: {', '.join(missing)} "
            f"(field plugins.metrics of config.json); they are left out: {' and '.join(how or ['load them'])} "
            "to include them")


def unrecorded_plugins_warning(path: Path, old: Any, now: dict[str, Any]) -> str | None:
    """The warning for resuming a run whose manifest ``path`` (read: ``old``) has no ``plugins``
    record (an evalkit before the record), while no plugin metric is loaded now (else
    :func:`check_plugins` refuses): whether the run had plugin metrics cannot be checked.

    It is given only on a sign of plugins: some are loaded now (``now``, :func:`plugins_record`:
    ``EVALKIT_PLUGINS`` modules or installed entry points, even if they register no metric), or
    the run's old ``summary.json`` holds metrics that are not evalkit's own
    (:func:`foreign_summary_metrics`). An old manifest holds no metric names, so the summary is
    the one record of them; it is there when the run finished once (e.g. a finished run resumed
    to run its errored episodes again), not after an interruption of its first pass.

    Args:
        path: The run's ``config.json``.
        old: Its content (``None`` when unreadable).
        now: :func:`plugins_record` of this process.

    Returns:
        One line naming the run directory, the signs found and what they mean; ``None`` when there
        is no sign.
    """
    from evalkit.plugins import ENV

    signs = []
    if now["env_modules"] or now["entry_points"]:
        loaded = ([f"{ENV}={','.join(now['env_modules'])}"] if now["env_modules"] else []) \
            + ([f"entry points {', '.join(now['entry_points'])}"] if now["entry_points"] else [])
        signs.append(f"plugins are loaded now ({'; '.join(loaded)})")
    foreign = foreign_summary_metrics(path.parent / "summary.json")
    if foreign:
        shown = ", ".join(foreign[:5]) + (f" and {len(foreign) - 5} more" if len(foreign) > 5 else "")
        signs.append(f"its summary.json holds metrics that are not evalkit's own: {shown}")
    if not signs:
        return None
    version = old.get("evalkit_version") if isinstance(old, dict) else None
    return (f"{path.parent}: the run directory does not record its plugins (config.json has no field plugins: started "
            f"by evalkit {version}), so plugin metrics cannot be checked on resume; {', and '.join(signs)}; if the run "
            "was started with plugin metrics, they are dropped or count only part of the episodes: start a new run "
            "to count them over all")


def foreign_summary_metrics(summary_path: Path) -> list[str]:
    """The metric names in the main rows of the summary at ``summary_path`` that this evalkit's own
    summary rows do not have (a plugin's metric, or one an older evalkit had), sorted; the
    ``_k``, ``_n``, ``_ci`` and ``_ci_n`` fields of a rate are folded into its name. Meant to be
    called with no plugin metric registered: evalkit's own rows are taken from
    :func:`evalkit.metrics.aggregate.group_metrics`, which holds every registered metric.

    Returns:
        The names; ``[]`` when the file is missing, unreadable or has no rows.
    """
    from evalkit.metrics.aggregate import GROUP_KEYS, group_metrics

    try:
        rows = json.loads(Path(summary_path).read_text(encoding="utf-8")).get("rows")
    except (OSError, ValueError, AttributeError):
        return []
    own = set(GROUP_KEYS) | set(group_metrics([], {}))
    found = {str(key) for row in (rows if isinstance(rows, list) else []) if isinstance(row, dict)
             for key in row if key not in own}
    parts = ("_ci_n", "_k", "_n", "_ci")
    return sorted(key for key in found
                  if not any(key.endswith(part) and key[:-len(part)] in found for part in parts))


def _sha256_file(path: Path) -> str | None:
    """sha256 of a file's bytes, ``None`` when it cannot be read (then it counts as changed)."""
    import hashlib

    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def input_fingerprints(config: RunConfig, suite: Suite) -> dict[str, str | None]:
    """sha256 of every file besides the suite that decides a run's episodes, by name: the
    rule set (``rules``), the policy file (``policy``), the model config file
    (``model_config``) and each task domain's ``domain.py`` the suite uses
    (``tasks/NAME``); ``None`` for one the run does not use. Recorded in ``config.json``
    (``inputs``); :func:`prepare_resume` refuses a run whose inputs changed since it started.

    Raises:
        ConfigError: for a missing or invalid rule set (while resolving a shipped set's name).
    """
    tasks_dir = Path(config.tasks_dir) if config.tasks_dir else None
    out: dict[str, str | None] = {
        "rules": runtime_setup(config).rules_identity.get("sha256") if config.rules else None,
        "policy": _sha256_file(Path(config.policy)) if config.policy else None,
        "model_config": _sha256_file(Path(config.model_config_file)) if config.model_config_file else None,
    }
    for name in sorted({p.domain for p in suite.pairs}):
        path = domain_path(name, tasks_dir)
        out[f"tasks/{name}"] = _sha256_file(path)
    return out


def sample_record(config: RunConfig, selected: Suite) -> dict[str, Any] | None:
    """The ``sample`` entry of ``config.json`` for a run with ``--sample``: its size, seed,
    the drawn pair ids (suite order) and how many of them each trigger, domain and split
    holds (:func:`evalkit.scenarios.sample.strata_counts`); ``None`` without ``--sample``."""
    if config.sample is None:
        return None

    return {"n": config.sample, "seed": config.seed or 0, "drawn": len(selected.pairs),
            "pair_ids": [p.id for p in selected.pairs], **strata_counts(selected.pairs)}


def check_sample(run_dir: Path, config: RunConfig, selected: Suite) -> None:
    """Refuse to resume a ``--sample`` run whose sample, drawn again, is not the one recorded
    in its ``config.json`` (``sample.pair_ids``).

    Raises:
        ConfigError: naming the first pair that differs.
    """
    if config.sample is None:
        return
    try:
        then = json.loads((Path(run_dir) / "config.json").read_text(encoding="utf-8-sig")).get("sample") or {}
    except (OSError, ValueError, AttributeError):
        then = {}
    recorded = then.get("pair_ids") if isinstance(then, dict) else None
    now = [p.id for p in selected.pairs]
    if recorded != now:
        first = next((a for a, b in zip(now, recorded or []) if a != b), None) if recorded else None
        detail = f" (first difference: {first})" if first else ""
        raise ConfigError(f"{Path(run_dir) / 'config.json'}: field sample.pair_ids: the sample drawn again differs "
                          f"from the recorded one{detail}: restore the suite, or start a new run")
