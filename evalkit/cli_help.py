"""How ``evalkit --help`` names parameters: by their metavar, never by a Python type.

Typer's help shows a type column taken from the annotation (``<bool>`` beside every flag,
``<list[str]>`` beside a repeatable argument, ``<path>``) and writes a required argument as
``{DIR}`` in the usage line. evalkit names every value by its metavar (``N``, ``DIR``,
``SPEC``, ``on|off``), so its commands and groups use :class:`Command` and :class:`Group`,
whose parameters show the metavar alone: nothing beside a flag, and a usage line in the usual
``DIR`` / ``[SUITE]...`` form. Parsing is untouched. Light on purpose: ``evalkit --help``
imports this module.
"""

from __future__ import annotations

from typing import Any

from typer.core import TyperArgument, TyperCommand, TyperGroup, TyperOption

__all__ = ["Command", "Group"]


class _Argument(TyperArgument):
    """An argument shown by its metavar alone (its name when it has none)."""

    def display_type_rich(self, ctx: Any) -> str | None:
        return None

    def _usage_display_name(self) -> str:
        name = self.display_name_raw if self.required else f"[{self.display_name_raw}]"
        return name + ("..." if self.nargs != 1 else "")


class _Option(TyperOption):
    """An option shown by its metavar alone; a flag (``--report/--no-report``) by its names."""

    def display_type_rich(self, ctx: Any) -> str | None:
        if self.is_flag:
            return None
        if self.metavar is not None:
            return self.metavar or None
        return super().display_type_rich(ctx)


_QUIET: dict[type, type] = {TyperArgument: _Argument, TyperOption: _Option}


def _quiet(params: list[Any]) -> list[Any]:
    for param in params:
        quiet = _QUIET.get(type(param))
        if quiet is not None:
            param.__class__ = quiet  # same fields, help display overridden
    return params


class Command(TyperCommand):
    """A typer command whose help names parameters by metavar (see the module docstring)."""

    def get_params(self, ctx: Any) -> list[Any]:
        return _quiet(super().get_params(ctx))


class Group(TyperGroup):
    """A typer group whose help names parameters by metavar (see the module docstring)."""

    def get_params(self, ctx: Any) -> list[Any]:
        return _quiet(super().get_params(ctx))
