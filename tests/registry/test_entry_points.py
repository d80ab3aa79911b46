"""Components of an installed package, found through its ``evalkit.*`` entry points at the first
lookup (never at ``import evalkit``)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from evalkit import plugins


@pytest.fixture
def installed(tmp_path, monkeypatch):
    """A distribution ``toyplug`` on ``sys.path`` declaring a metric and a condition entry point."""
    info = tmp_path / "toyplug-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: toyplug\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[evalkit.metrics]\nlong = toyplug_metric\n\n"
                                           "[evalkit.conditions]\nbroken = toyplug_missing_module\n")
    (tmp_path / "toyplug_metric.py").write_text(textwrap.dedent('''
        from evalkit.metrics.registry import metric

        @metric("long_episode_rate", kind="rate", fields={"long_episode": "flag"})
        def long_episode(view):
            return {"long_episode": view.row["turns"] > 8}
    '''))
    monkeypatch.syspath_prepend(str(tmp_path))
    for group in ("evalkit.metrics", "evalkit.conditions"):
        monkeypatch.setattr(plugins, "_loaded", plugins._loaded - {group})
    monkeypatch.setattr(plugins, "_failed", {k: v for k, v in plugins._failed.items() if k == plugins.ENV})
    yield
    from evalkit.metrics.registry import unregister_metric

    unregister_metric("long_episode_rate")
    sys.modules.pop("toyplug_metric", None)


def test_metric_entry_point_is_loaded_at_first_lookup(installed):
    from evalkit.gate.catalogue import metric_kinds
    from evalkit.metrics.registry import get_metric

    assert "toyplug_metric" not in sys.modules
    m = get_metric("long_episode_rate")
    assert m is not None and m.fields == {"long_episode": "flag"} and "toyplug_metric" in sys.modules
    assert metric_kinds()["long_episode_rate"] == "rate"


def test_a_broken_entry_point_is_one_error_naming_it(installed):
    from evalkit.conditions.registry import get_condition
    from evalkit.errors import ConfigError

    with pytest.raises(ConfigError, match=r"entry point 'broken' \(toyplug_missing_module\) of toyplug"):
        get_condition("no-such-condition")


def test_import_evalkit_loads_no_entry_points():
    code = "import sys, evalkit; print('importlib.metadata' in sys.modules, 'evalkit.plugins' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False", "False"]


def test_every_entry_point_of_a_group_loads_and_the_failures_are_reported_together(tmp_path, monkeypatch):
    """Two broken entry points around a healthy one: the healthy metric registers; one error
    names both broken ones, and every later lookup raises it again (never a half-loaded registry)."""
    from evalkit.errors import ConfigError
    from evalkit.metrics.registry import _metrics, metrics, unregister_metric

    info = tmp_path / "mixplug-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: mixplug\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[evalkit.metrics]\naaa = mixplug_missing\nbbb = mixplug_ok\n"
                                           "ccc = mixplug_raises\n")
    (tmp_path / "mixplug_ok.py").write_text(textwrap.dedent('''
        from evalkit.metrics.registry import metric

        @metric("mix_ok_rate", kind="rate", fields={"mix_ok": "flag"})
        def mix_ok(view):
            return {"mix_ok": True}
    '''))
    (tmp_path / "mixplug_raises.py").write_text("raise RuntimeError('boom at import')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(plugins, "_loaded", plugins._loaded - {"evalkit.metrics"})
    monkeypatch.setattr(plugins, "_failed", {})
    try:
        with pytest.raises(ConfigError) as caught:
            metrics()
        message = str(caught.value)
        assert message.startswith("2 plugins cannot be loaded:")
        assert "entry point 'aaa' (mixplug_missing) of mixplug, group evalkit.metrics" in message
        assert "entry point 'ccc' (mixplug_raises) of mixplug" in message and "RuntimeError: boom at import" in message
        assert "mix_ok_rate" in _metrics  # the healthy entry point between them was loaded
        with pytest.raises(ConfigError, match="2 plugins cannot be loaded"):
            metrics()  # and again at the next lookup
        with pytest.raises(ConfigError, match="2 plugins cannot be loaded"):
            plugins.load_all()
    finally:
        unregister_metric("mix_ok_rate")
        for name in ("mixplug_ok", "mixplug_raises"):
            sys.modules.pop(name, None)


def test_evalkit_run_stops_before_any_episode_when_an_entry_point_cannot_be_loaded(tmp_path):
    """A metrics entry point is first looked up when an episode is scored: the run loads every
    group before it plans, so the broken one is exit 2 with no episode run."""
    import os

    info = tmp_path / "site" / "badplug-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: badplug\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[evalkit.metrics]\nbad = badplug_missing_module\n")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(tmp_path / "site"), env.get("PYTHONPATH", "")) if p)
    env.pop("EVALKIT_PLUGINS", None)
    out = tmp_path / "run"
    done = subprocess.run([sys.executable, "-m", "evalkit", "run", "--model", "scripted/oracle", "--condition", "tool",
                           "--limit", "1", "--no-report", "--out", str(out)], env=env, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 2, done.stderr
    assert "entry point 'bad' (badplug_missing_module) of badplug, group evalkit.metrics" in done.stderr
    assert "Traceback" not in done.stderr
    assert not (out / "results.jsonl").exists()
    for command in (["gate", str(out)], ["report", str(out)]):
        again = subprocess.run([sys.executable, "-m", "evalkit", *command], env=env, capture_output=True, text=True,
                               timeout=600)
        assert again.returncode == 2 and "badplug_missing_module" in again.stdout + again.stderr
