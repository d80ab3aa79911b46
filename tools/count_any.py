"""Count ``Any`` in the type annotations of a package, from its syntax tree.

Counts every occurrence of the name ``Any`` (``Any``, ``typing.Any``, ``t.Any``) inside an
annotation: function parameters (including ``*args`` / ``**kwargs``), return types and
annotated variables and attributes, nested ones included (``dict[str, Any]`` counts 1,
``Callable[[Any], Any]`` counts 2). String annotations (``"dict[str, Any]"``) are parsed too.
Also prints how many annotations hold at least one ``Any`` and how many are ``Any`` itself.

Usage::

    python tools/count_any.py [PACKAGE_DIR ...]   # default: evalkit/
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections import Counter
from pathlib import Path


def _any_in(node: ast.AST | None) -> int:
    """Occurrences of ``Any`` in one annotation expression."""
    if node is None:
        return 0
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        try:
            node = ast.parse(node.value, mode="eval").body
        except SyntaxError:
            return 0
    n = 0
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and sub.id == "Any":
            n += 1
        elif isinstance(sub, ast.Attribute) and sub.attr == "Any":
            n += 1
        elif isinstance(sub, ast.Constant) and isinstance(sub.value, str) and sub is not node:
            n += _any_in(sub)  # a quoted part of a subscript, e.g. list["Any"]
    return n


def annotations(tree: ast.AST) -> list[tuple[str, int, ast.expr]]:
    """``(kind, line, annotation)`` for every annotation in ``tree``."""
    out: list[tuple[str, int, ast.expr]] = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            a = node.args
            for arg in [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg]:
                if arg is not None and arg.annotation is not None:
                    out.append(("param", arg.lineno, arg.annotation))
            if node.returns is not None:
                out.append(("return", node.lineno, node.returns))
        elif isinstance(node, ast.AnnAssign):
            out.append(("variable", node.lineno, node.annotation))
    return out


def _bare(node: ast.expr) -> bool:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value.strip() in ("Any", "typing.Any")
    return (isinstance(node, ast.Name) and node.id == "Any") or (isinstance(node, ast.Attribute) and node.attr == "Any")


def count(paths: list[Path]) -> tuple[Counter[str], Counter[str], Counter[str]]:
    """``(Any per kind, annotations with Any per kind, Any per file)``; ``per kind`` also
    has ``bare``: annotations that are ``Any`` itself."""
    per_kind: Counter[str] = Counter()
    holding: Counter[str] = Counter()
    per_file: Counter[str] = Counter()
    for root in paths:
        files = sorted(root.rglob("*.py")) if root.is_dir() else [root]
        for file in files:
            tree = ast.parse(file.read_text(encoding="utf-8"), filename=str(file))
            for kind, _line, ann in annotations(tree):
                n = _any_in(ann)
                if n:
                    per_kind[kind] += n
                    per_kind["bare"] += _bare(ann)
                    holding[kind] += 1
                    per_file[str(file)] += n
    return per_kind, holding, per_file


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Count Any in type annotations (AST).")
    parser.add_argument("paths", nargs="*", type=Path, default=[Path(__file__).resolve().parent.parent / "evalkit"])
    parser.add_argument("--top", type=int, default=10, help="also list the N files with most Any")
    args = parser.parse_args(argv)
    per_kind, holding, per_file = count(args.paths)
    total = sum(per_kind[k] for k in ("param", "return", "variable"))
    print(f"Any in annotations: {total} ({', '.join(f'{k} {per_kind[k]}' for k in ('param', 'return', 'variable'))}); "
          f"annotations holding Any: {sum(holding.values())}, of which bare Any: {per_kind['bare']}")
    for file, n in per_file.most_common(args.top):
        print(f"  {n:4d}  {file}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
