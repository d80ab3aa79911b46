"""Concurrent episodes: per-model connection limits, completion order, crashes as outcomes."""

from __future__ import annotations

import threading
import time

import pytest

from evalkit.harness.episode import EpisodeSpec
from evalkit.harness.executor import ProgressBar, crashed_run, execute_plan
from evalkit.metrics.scoring import score_episode
from evalkit.runtime.controller import Limits
from evalkit.runtime.model_io import ModelOutput
from evalkit.scenarios.domains import load_domain
from evalkit.scenarios.loader import load_suite
from evalkit.usage import Usage


class Gauge:
    """A model that answers at once with text, counting how many calls are in flight."""

    def __init__(self, name, max_connections, hold_s=0.05):
        self.name = name
        self.max_connections = max_connections
        self.hold_s = hold_s
        self.active = 0
        self.peak = 0
        self.lock = threading.Lock()

    def respond(self, context, episode):
        with self.lock:
            self.active += 1
            self.peak = max(self.peak, self.active)
        deadline = time.monotonic() + self.hold_s
        while time.monotonic() < deadline and self.active < self.max_connections:
            time.sleep(0.002)  # hold until the pool is full (or a short while)
        time.sleep(0.005)
        with self.lock:
            self.active -= 1
        return ModelOutput(text="I can't do that.", usage=Usage(input_tokens=3, output_tokens=2))


@pytest.fixture
def plan_for(mini_suite, mini_tasks):
    suite = load_suite([mini_suite], tasks_dir=mini_tasks)

    def build(models, epochs=2):
        plan = []
        for pair in suite.pairs:
            domain = load_domain(pair.domain, mini_tasks)
            for epoch in range(1, epochs + 1):
                for model in models:
                    for variant in pair.variants:
                        plan.append(EpisodeSpec(pair=pair, variant=variant, model=model, condition="nl",
                                                epoch=epoch, domain=domain))
        return plan

    return build


def test_each_model_runs_at_most_max_connections_episodes_at_once(plan_for):
    wide, narrow = Gauge("test/wide", 3), Gauge("test/narrow", 1)
    plan = plan_for([wide.name, narrow.name])
    seen = []

    def record(spec, run):
        seen.append(spec.key)
        return score_episode(spec, run.log, run.state, run.error)

    ran = execute_plan(plan, {wide.name: wide, narrow.name: narrow}, Limits(), record)
    assert ran == len(plan) == len(seen) and set(seen) == {s.key for s in plan}
    assert (wide.peak, narrow.peak) == (3, 1)


def test_progress_counts_done_errors_and_tokens(plan_for):
    class Broken(Gauge):
        def respond(self, context, episode):
            if episode.variant == "abstain":
                raise RuntimeError("adapter bug")
            return super().respond(context, episode)

    model = Broken("test/broken", 2, hold_s=0.0)
    plan = plan_for([model.name], epochs=1)
    calls = []
    bar = ProgressBar()
    execute_plan(plan, {model.name: model}, Limits(),
                 lambda spec, run: score_episode(spec, run.log, run.state, run.error),
                 progress=lambda done, total, row: (calls.append((done, total)), bar(done, total, row)),
                 done=5, total=5 + len(plan))
    assert calls == [(5 + i, 5 + len(plan)) for i in range(0, len(plan) + 1)]  # first: the counts before any episode
    n_abstain = sum(1 for s in plan if s.variant == "abstain")
    assert bar.errors == n_abstain and bar.tokens == 5 * (len(plan) - n_abstain)


def test_an_escaping_exception_is_an_explicit_error_outcome(plan_for):
    model = Gauge("test/m", 1, hold_s=0.0)
    spec = plan_for([model.name], epochs=1)[0]
    broken = EpisodeSpec(pair=spec.pair, variant=spec.variant, model=model.name, condition="telepathy",
                         domain=spec.domain)
    rows = []
    execute_plan([broken], {model.name: model}, Limits(),
                 lambda s, run: rows.append(score_episode(s, run.log, run.state, run.error)) or rows[-1])
    [row] = rows
    assert row["status"] == "error" and "telepathy" in row["error"] and row["end_reason"] == "error"
    run = crashed_run(spec, ValueError("x"))
    assert run.error == "runtime error: ValueError: x" and [e.type for e in run.log.events] == [
        "episode_started", "error", "episode_ended"]
