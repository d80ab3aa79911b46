"""The run plan as arithmetic (issue 8, target 3): RunPlan equals the list the nested loops
built, positions are computed from keys, the duplicate checks keep their messages, pending
episodes come from a bitmap, results are indexed by plan position, and the executor keeps a
bounded number of episodes in flight."""

from __future__ import annotations

import json
import shutil
import threading
import tracemalloc
from concurrent.futures import ThreadPoolExecutor

import pytest

import evalkit.harness.executor as executor_module
from evalkit.errors import ConfigError
from evalkit.harness.episode import EpisodeSpec
from evalkit.harness.executor import IN_FLIGHT_PER_CONNECTION, execute_plan
from evalkit.harness.plan import PendingEpisodes, RunPlan
from evalkit.harness.run import RunConfig, build_plan, check_unique_keys, pending
from evalkit.harness.store import ResultIndex, ResultsWarning, RunStore
from evalkit.records import EpisodeKey
from evalkit.metrics.scoring import score_episode
from evalkit.runtime.controller import Limits
from evalkit.runtime.model_io import ModelOutput
from evalkit.scenarios.domains import load_domain
from evalkit.scenarios.loader import load_suite
from evalkit.usage import Usage

FACTORS = dict(epochs=2, models=["scripted/oracle", "scripted/always_act"], conditions=["nl", "tool"],
               gates=["off", "on"])


def _listed(suite, tasks_dir, config):
    """The plan as build_plan made it before RunPlan: nested loops appending every episode."""
    plan = []
    for pair in suite.pairs:
        domain = load_domain(pair.domain, tasks_dir)
        for epoch in range(1, config.epochs + 1):
            for model in config.models:
                for condition in config.conditions:
                    for gate in config.gates:
                        for variant in pair.variants:
                            plan.append(EpisodeSpec(pair, variant, model, condition, epoch, gate, domain))
    return plan


@pytest.fixture(scope="module")
def mixed_suite():
    """Built-in pairs with one, two and three variants (control, plain, injection)."""
    return load_suite([]).select(pair_ids=["cal-create-sync-control", "cal-injection-cancel-others",
                                           "shop-order-missing-quantity"])


@pytest.mark.parametrize("which", ["mini", "mixed"])
def test_the_run_plan_equals_the_list_the_nested_loops_built(which, mini_suite, mini_tasks, mixed_suite):
    if which == "mini":
        suite, tasks = load_suite([mini_suite], tasks_dir=mini_tasks), mini_tasks
        config = RunConfig(tasks_dir=str(mini_tasks), **FACTORS)
    else:
        suite, tasks = mixed_suite, None
        config = RunConfig(**FACTORS)
        assert [len(p.variants) for p in suite.pairs] == [1, 3, 2]
    listed = _listed(suite, tasks, config)
    plan = build_plan(suite, config)
    assert isinstance(plan, RunPlan)
    assert len(plan) == len(listed) == sum(len(p.variants) for p in suite.pairs) * 2 * 2 * 2 * 2
    assert list(plan) == listed and plan == listed and listed == plan
    assert [plan[i] for i in range(len(plan))] == listed
    assert [plan[-i] for i in range(1, len(plan) + 1)] == listed[::-1]
    assert plan[3:9] == listed[3:9] and plan[::-5] == listed[::-5]
    with pytest.raises(IndexError):
        plan[len(plan)]
    with pytest.raises(IndexError):
        plan[-len(plan) - 1]
    keys = plan.keys()
    assert keys is plan.keys() and len(keys) == len(listed)
    assert list(keys) == list(keys) == [s.key for s in listed]  # re-iterable
    assert [keys[i] for i in range(-len(keys), 0)] == [s.key for s in listed]
    assert [keys.position(s.key) for s in listed] == list(range(len(listed)))
    assert all(s.key in keys for s in listed) and listed[7] in plan
    assert plan[5].domain is listed[5].domain and plan[5].setup is plan[0].setup


def test_a_key_outside_the_plan_has_no_position(mini_suite, mini_tasks):
    plan = build_plan(load_suite([mini_suite], tasks_dir=mini_tasks), RunConfig(tasks_dir=str(mini_tasks), **FACTORS))
    keys = plan.keys()
    first = keys[0]
    assert first == ("mini-missing-target", "act", "scripted/oracle", "nl", "off", 1)
    assert keys.position(first) == 0 and keys.position(keys[-1]) == len(plan) - 1
    for stray in [("not-planned", *first[1:]), (*first[:5], 3), (*first[:5], 0), (*first[:2], "scripted/late:1",
                  *first[3:]), (first[0], "act_resist", *first[2:]), (*first[:3], "meta", *first[4:]),
                  first[:5], ([1], *first[1:]), "x", None]:
        assert keys.position(stray) is None and stray not in keys
    assert keys.position((*first[:5], 1.0)) == 0  # as a set of keys would compare it


def test_a_plan_costs_the_same_memory_for_ten_or_a_thousand_epochs(mixed_suite):
    def built(epochs):
        tracemalloc.start()
        try:
            plan = RunPlan(mixed_suite.pairs, [None] * len(mixed_suite.pairs), epochs=epochs, models=FACTORS["models"],
                           conditions=FACTORS["conditions"], gates=FACTORS["gates"])
            keys = plan.keys()
            assert keys.position(keys[-1]) == len(plan) - 1
            return len(plan), tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    (small, small_peak), (large, large_peak) = built(10), built(1000)
    assert (small, large) == (6 * 8 * 10, 6 * 8 * 1000)
    assert large_peak < 8_000 and large_peak < small_peak + 1_000  # a few KB whatever the epochs, not 48,000 episodes


def test_repeated_factors_are_refused_with_the_first_repeated_key(mini_suite, mini_tasks):
    suite = load_suite([mini_suite], tasks_dir=mini_tasks)
    domains = [load_domain(p.domain, mini_tasks) for p in suite.pairs]
    cases = [dict(pairs=suite.pairs, models=("m", "n", "m")),
             dict(pairs=(*suite.pairs, suite.pairs[1]), models=("m",)),
             dict(pairs=suite.pairs, models=("m",), gates=("off", "on", "off"))]
    expected = ["the run plan holds episode mini-missing-target/act/m/nl/off/1 twice",
                "the run plan holds episode mini-missing-param/act/m/nl/off/1 twice",
                "the run plan holds episode mini-missing-target/act/m/nl/off/1 twice"]
    for case, message in zip(cases, expected):
        pairs = case["pairs"]
        plan = RunPlan(pairs, [domains[suite.pairs.index(p)] for p in pairs], epochs=2, models=case["models"],
                       conditions=("nl",), gates=case.get("gates", ("off",)))
        with pytest.raises(ConfigError) as from_list:
            check_unique_keys(list(plan))
        with pytest.raises(ConfigError) as from_plan:
            check_unique_keys(plan)
        assert str(from_plan.value) == str(from_list.value)
        assert str(from_plan.value).startswith(message + " (a pair id, model or condition given twice?)")
        # a repeated factor value maps to its first position
        assert plan.keys().position(plan.keys()[-1]) < len(plan) - 1
    ok = RunPlan(suite.pairs, domains, epochs=2, models=("m", "n"), conditions=("nl",), gates=("off",))
    check_unique_keys(ok)


def test_pending_reads_a_bitmap_or_keys_lazily(mini_suite, mini_tasks):
    plan = build_plan(load_suite([mini_suite], tasks_dir=mini_tasks), RunConfig(tasks_dir=str(mini_tasks), **FACTORS))
    listed = list(plan)
    done = bytearray(len(plan))
    for i in (0, 3, 17, len(plan) - 1):
        done[i] = 1
    rest = pending(plan, done)
    assert isinstance(rest, PendingEpisodes) and len(rest) == len(plan) - 4
    assert rest == [s for i, s in enumerate(listed) if i not in (0, 3, 17, len(plan) - 1)]
    assert list(rest) == list(rest)  # re-iterable (the executor reads it once per model)
    assert rest[0] == listed[1] and rest[-1] == listed[-2]
    by_keys = pending(plan, {listed[0].key, listed[3].key, listed[17].key, listed[-1].key, ("stray",)})
    assert by_keys == rest and by_keys.done == done
    assert pending(listed, {listed[0].key, listed[3].key, listed[17].key, listed[-1].key}) == rest
    assert len(pending(plan, set())) == len(plan) and pending(plan, bytearray(len(plan))) == listed
    with pytest.raises(ValueError, match="the bitmap has 3 bytes for a plan of 96 episodes"):
        pending(plan, bytearray(3))


def _row(key, n, status="ok"):
    pair_id, variant, model, condition, gate, epoch = key
    return {"pair_id": pair_id, "variant": variant, "model": model, "condition": condition, "gate": gate,
            "epoch": epoch, "status": status, "correct": status == "ok", "n": n}


def test_the_plan_index_rewrites_results_as_the_key_dict_did(tmp_path, mini_suite, mini_tasks):
    plan = build_plan(load_suite([mini_suite], tasks_dir=mini_tasks), RunConfig(tasks_dir=str(mini_tasks), **FACTORS))
    keys = plan.keys()
    stray_a = ("gone-pair", *keys[0][1:])
    stray_b = (*keys[0][:5], 9)
    order = [keys[40], keys[2], stray_a, keys[0], keys[40], keys[7], stray_b, keys[2], keys[95]]
    status = ["error", "ok", "ok", "ok", "ok", "ok", "ok", "ok", "ok"]
    lines = [json.dumps(_row(k, n, s)) + "\n" for n, (k, s) in enumerate(zip(order, status))]
    lines[7] = json.dumps(_row(keys[2], 7)) + "\n"  # keys[2] ran again after it had finished: a warning
    for name in ("index", "dict"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "results.jsonl").write_text("".join(lines) + '{"pair_id": "mini-miss')  # torn last line
    taken = {}
    for name, plan_keys in (("index", keys), ("dict", None)):
        store = RunStore(tmp_path / name)
        with pytest.warns(ResultsWarning) as caught:
            refs = store.scan_results(plan_keys)
        assert sorted(str(w.message).split("results.jsonl: ")[1] for w in caught) == [
            "1 finished episode(s) were recorded again (e.g. mini-missing-target/act/scripted/oracle/nl/on/1); "
            "keeping one record each, the last", "ignored a half-written last line (22 characters)"]
        taken[name] = []
        order_arg = keys if plan_keys is not None else list(keys)
        assert store.rewrite_results(refs, order_arg, taken[name].append) == 7
    assert isinstance(store.scan_results(keys), ResultIndex)
    assert taken["index"] == taken["dict"]
    assert [r["n"] for r in taken["index"]] == [3, 7, 5, 4, 8, 2, 6]  # plan order, then strays as first seen
    assert (tmp_path / "index" / "results.jsonl").read_bytes() == (tmp_path / "dict" / "results.jsonl").read_bytes()
    index = RunStore(tmp_path / "index").scan_results(keys)
    assert len(index) == 7 and list(index.strays) == [stray_a, stray_b]
    assert len(index.offsets) == len(index.lengths) == len(index.ok) == len(plan)  # nothing per key but strays
    assert [k for k in index][:5] == [keys[0], keys[2], keys[7], keys[40], keys[95]]
    assert index.ok_bitmap().count(1) == 5 and index.get(keys[1]) is None and index[keys[40]].ok
    # already in plan order: read, not rewritten
    path = tmp_path / "index" / "results.jsonl"
    before = path.stat()
    again = []
    assert RunStore(tmp_path / "index").rewrite_results(index, keys, again.append) == 7
    assert (path.stat().st_ino, path.stat().st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    assert again == taken["index"]


def test_resume_marks_finished_episodes_in_a_bitmap(tmp_path, mini_suite, mini_tasks):
    from evalkit.harness.run import prepare_resume
    from evalkit.pipeline import run

    config = RunConfig(suites=[str(mini_suite)], tasks_dir=str(mini_tasks), models=["scripted/oracle"],
                       conditions=["nl"], out=str(tmp_path / "run"), report=False, selfcheck=False)
    run(config)
    suite = load_suite([str(mini_suite)], tasks_dir=mini_tasks)
    plan = build_plan(suite, config)
    path = tmp_path / "run" / "results.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    rows[4]["status"] = "error"
    path.write_text("".join(json.dumps(r) + "\n" for i, r in enumerate(rows) if i != 1))
    store = RunStore(tmp_path / "run")
    done = prepare_resume(store, config, suite, plan.keys())
    assert isinstance(done, bytearray) and list(done) == [1, 0, 1, 1, 0, 1]
    assert [s.key for s in pending(plan, done)] == [plan.keys()[1], plan.keys()[4]]
    assert prepare_resume(store, config, suite) == {plan.keys()[i] for i in (0, 2, 3, 5)}  # without a plan


class _Blocking:
    """A pool model whose episodes wait for a gate, counting calls."""

    name = "test/blocking"
    max_connections = 2

    def __init__(self):
        self.gate = threading.Event()
        self.calls = 0

    def respond(self, context, episode):
        self.gate.wait(10)
        self.calls += 1
        return ModelOutput(text="I can't do that.", usage=Usage(input_tokens=1, output_tokens=1))


def test_the_executor_keeps_a_bounded_number_of_episodes_in_flight(mini_suite, mini_tasks, monkeypatch):
    suite = load_suite([mini_suite], tasks_dir=mini_tasks)
    model = _Blocking()
    plan = RunPlan(suite.pairs, [load_domain(p.domain, mini_tasks) for p in suite.pairs], epochs=5,
                   models=(model.name,), conditions=("nl",), gates=("off",))
    unfinished, peak, reads = [0], [0], []
    lock = threading.Lock()

    def finished(_future):
        with lock:
            unfinished[0] -= 1

    class CountingPool(ThreadPoolExecutor):
        def submit(self, fn, *args, **kwargs):
            with lock:
                unfinished[0] += 1
                peak[0] = max(peak[0], unfinished[0])
            future = super().submit(fn, *args, **kwargs)
            future.add_done_callback(finished)
            return future

    class Counted(list):
        """The plan, counting the episodes each pass over it has read."""

        def __iter__(self):
            reads.append(0)
            n = len(reads) - 1
            for spec in super().__iter__():
                reads[n] += 1
                yield spec

    monkeypatch.setattr(executor_module, "ThreadPoolExecutor", CountingPool)
    seen = []

    def record(spec, run):
        seen.append((spec.key, reads[0]))
        return score_episode(spec, run.log, run.state, run.error)

    timer = threading.Timer(0.3, model.gate.set)  # time enough to submit every episode, were they all submitted
    timer.start()
    try:
        ran = execute_plan(Counted(plan), {model.name: model}, Limits(), record)
    finally:
        timer.cancel()
    cap = IN_FLIGHT_PER_CONNECTION * model.max_connections
    assert ran == len(plan) == 30 and model.calls == 30
    assert peak[0] == cap == 4  # submitted and not finished: never more than 2 x max_connections
    assert sorted(k for k, _ in seen) == sorted(plan.keys())
    # the model's pass over the plan had read only what was submitted (and the next one) when
    # the first episode was recorded, and all of it by the end
    assert seen[0][1] <= cap + 1 and reads[0] == 30


def test_inline_and_pool_models_share_a_run_in_plan_order(mini_suite, mini_tasks):
    from evalkit.models.registry import get_model

    suite = load_suite([mini_suite], tasks_dir=mini_tasks)
    pool = _Blocking()
    pool.gate.set()
    scripted = get_model("scripted/oracle")
    plan = RunPlan(suite.pairs, [load_domain(p.domain, mini_tasks) for p in suite.pairs], epochs=3,
                   models=("scripted/oracle", pool.name), conditions=("nl",), gates=("off",))
    seen = []
    ran = execute_plan(plan, {"scripted/oracle": scripted, pool.name: pool}, Limits(),
                       lambda spec, run: seen.append(spec.key) or score_episode(spec, run.log, run.state, run.error))
    assert ran == len(plan) == 36 and sorted(seen) == sorted(plan.keys())
    inline = [k for k in seen if k[2] == "scripted/oracle"]
    assert inline == [k for k in plan.keys() if k[2] == "scripted/oracle"]  # the calling thread, in plan order
