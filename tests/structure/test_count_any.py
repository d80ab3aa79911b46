"""tools/count_any.py counts ``Any`` in annotations from the syntax tree: parameters, returns
and variables, nested and quoted ones included, and the annotations that are ``Any`` itself."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _tool():
    spec = importlib.util.spec_from_file_location("count_any", ROOT / "tools" / "count_any.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_counts_by_kind_nested_quoted_and_bare(tmp_path):
    src = tmp_path / "m.py"
    src.write_text(
        "import typing\n"
        "from typing import Any, Callable\n"
        "def f(a: Any, b: dict[str, Any], *args: Any, **kw: 'list[Any]') -> Callable[[Any], Any]: ...\n"
        "x: typing.Any = 1\n"
        "y: int = 2\n"
        "def g(c: int) -> 'Any': ...\n",
        encoding="utf-8")
    per_kind, holding, per_file = _tool().count([tmp_path])
    assert per_kind["param"] == 4 and per_kind["return"] == 3 and per_kind["variable"] == 1
    assert holding["param"] == 4 and holding["return"] == 2 and holding["variable"] == 1
    assert per_kind["bare"] == 4  # a, *args, x and g's quoted return
    assert sum(per_file.values()) == 8
