"""User-supplied regular expressions, matched in linear time (DESIGN §4).

Every pattern evalkit takes from a user's file goes through this module: a stopping rule's
``pattern`` / ``not_pattern`` (:mod:`evalkit.rules`), an argument test in a runtime policy
file (``evalkit run --policy``, :mod:`evalkit.runtime.policy`) and one in a scenario
variant's ``approvals`` (:class:`evalkit.runtime.matching.ArgTest`). Neither the pattern nor
the text it is matched against — a model's tool-call argument or a recorded trace — is
trusted. A backtracking engine takes exponential time on patterns such as ``(a+)+$``
against a long argument value, so one careless pattern could hang a run, ``evalkit rules
replay`` or the gate. These patterns are therefore compiled and matched with RE2 (the
``google-re2`` package, a core dependency): matching takes time linear in the length of the
value, whatever the pattern, and a pattern that needs backtracking is refused when its file
is loaded, with an error naming the file, the rule / policy entry / pair, and the field
(:func:`evalkit.rules.loader.load_rule_set`, :func:`evalkit.runtime.policy.load_policy`,
:func:`evalkit.scenarios.loader.load_suite`). evalkit's own fixed patterns stay on :mod:`re`.

The syntax is RE2's (https://github.com/google/re2/wiki/Syntax). For the patterns these files
use — literals, ``.``, classes, alternation, groups, ``* + ? {m,n}``, ``^ $ \\A \\z``, ``(?i)``
— it reads like Python's :mod:`re`, with these differences:

* **refused on load**: backreferences (``\\1``), lookaround (``(?=``, ``(?!``, ``(?<=``,
  ``(?<!``), atomic groups and possessive quantifiers, the flags ``(?x)``, ``(?u)``,
  ``(?a)``, ``\\Z`` (write ``\\z``), and repeat counts above 1000;
* ``$`` (without ``(?m)``) matches only at the very end of the value, never before a final
  newline: ``@ourco\\.com$`` does not match ``"a@ourco.com\\n"``;
* ``\\d``, ``\\w``, ``\\s`` and ``\\b`` are ASCII; write ``\\p{N}``, ``\\pL`` or
  ``\\p{Han}`` for other scripts;
* ``{,n}`` is literal text (write ``{0,n}``).

A pattern whose compiled program would exceed RE2's memory limit (8 MiB) is refused on load
too. A value is matched in its string form (``str(value)`` for a non-string), as UTF-8; a
lone surrogate in a recorded value is encoded as it is (``surrogatepass``), so it cannot
break matching.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

_HINT = ("not supported by the linear-time pattern engine (RE2 syntax: no backreferences, "
         "lookaround, atomic groups or possessive quantifiers; repeat counts up to 1000)")


MAX_PROGRAM_SIZE = 2000
"""Largest compiled RE2 program accepted. Matching is linear in the value's length with a
constant that grows with the program: counted repetitions such as ``[ab]{999}`` repeated
make programs of thousands of instructions that take about a second per 100 KB of value,
while every pattern the shipped files use is under 100 (``\\p{Han}{2,20}`` is 1,622)."""


class LinearPattern:
    """A compiled user pattern; :meth:`found` takes time linear in the value's length.

    Args:
        text: The pattern as written in its file.
        compiled: The RE2 program (compiled with captures off: only whether the pattern is
            found matters, which lets RE2 answer with its DFA alone).
    """

    __slots__ = ("text", "_compiled")

    def __init__(self, text: str, compiled: Any):
        self.text = text
        self._compiled = compiled

    def found(self, value: Any) -> bool:
        """Whether the pattern occurs anywhere in ``value``'s string form (``re.search`` semantics).

        Args:
            value: An argument value; a non-string is matched as ``str(value)``.

        Returns:
            ``True`` when the pattern is found.
        """
        text = value if isinstance(value, str) else str(value)
        return self._compiled.search(text.encode("utf-8", "surrogatepass")) is not None

    def __repr__(self) -> str:
        return f"LinearPattern({self.text!r})"

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        # pickled as its text (a run's scenarios and policy may travel to worker processes)
        return compile_pattern, (self.text,)


@lru_cache(maxsize=1024)
def compile_pattern(text: str) -> LinearPattern:
    """Compile a user pattern for linear-time matching (cached by text).

    Args:
        text: The pattern (RE2 syntax, see the module docstring).

    Returns:
        A :class:`LinearPattern`.

    Raises:
        ValueError: naming the pattern and what RE2 could not accept (the loader adds the
            file, the rule, policy entry or pair, and the field).
    """
    import re
    import re2

    shown = f"`{text}`" if text.isprintable() else repr(text)
    if len(shown) > 80:
        shown = f"{shown[:60]}… ({len(text):,} characters)"
    options = re2.Options()
    options.log_errors = False  # the error is raised here, not printed by the library
    options.never_capture = True
    try:
        compiled = re2.compile(text, options)
    except UnicodeEncodeError:
        raise ValueError(f"regular expression {shown} holds a lone surrogate, which is not text (UTF-8)") from None
    except re2.error as exc:
        detail = exc.args[0].decode("utf-8", "replace") if exc.args and isinstance(exc.args[0], bytes) else str(exc)
        try:
            re.compile(text)
        except re.error as invalid:  # not a regular expression at all, in any dialect
            raise ValueError(f"regular expression {shown} is not valid: {invalid}") from None
        except (RecursionError, OverflowError):
            pass
        raise ValueError(f"regular expression {shown} is {_HINT}: {detail}") from None
    if compiled.programsize > MAX_PROGRAM_SIZE:
        raise ValueError(f"regular expression {shown} is too large for linear-time matching (program size "
                         f"{compiled.programsize} > {MAX_PROGRAM_SIZE}): use fewer or smaller counted repetitions, or a shorter pattern")
    return LinearPattern(text, compiled)
