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
