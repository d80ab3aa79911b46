"""Progress of a run on a stream that is not a terminal (a log file, a CI job's output).

On a terminal ``evalkit run`` draws a rich bar (:class:`evalkit.harness.executor.ProgressBar`);
anywhere else a bar is invisible, so :class:`ProgressLines` writes one line every
:func:`progress_interval` seconds instead, from a timer thread, so a line comes even while a
slow live model has not finished any episode::

    evalkit: progress 120/600 episodes (20.0%), 3 errors, 2.10 episodes/s, elapsed 0:00:57, ETA 0:03:48

(``every episode done, writing the results`` in place of the ETA once the last episode is in).
``episodes/s`` counts the episodes finished by this process (a resumed run's earlier
episodes are in ``done`` but not in the rate), and the ETA is the episodes left over that
rate (``unknown`` before the first one finishes). Until the plan is known (the suite loads,
the oracle self-check runs, models start) the line says ``preparing the run``. A run shorter than one interval prints
nothing; one that printed a line ends with a last line when it finishes.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from typing import Any, Callable, TextIO

from evalkit.errors import ConfigError

INTERVAL_ENV = "EVALKIT_PROGRESS_INTERVAL"
DEFAULT_INTERVAL = 5.0
"""Seconds between two progress lines unless ``$EVALKIT_PROGRESS_INTERVAL`` says otherwise."""

__all__ = ["DEFAULT_INTERVAL", "INTERVAL_ENV", "ProgressLines", "progress_interval"]


def progress_interval(environ: dict[str, str] | None = None) -> float | None:
    """Seconds between progress lines: ``$EVALKIT_PROGRESS_INTERVAL`` (a number of seconds,
    ``0`` for no lines), else :data:`DEFAULT_INTERVAL`.

    Returns:
        The interval, or ``None`` when lines are turned off.

    Raises:
        ConfigError: when the variable is not a finite number ≥ 0.
    """
    raw = (os.environ if environ is None else environ).get(INTERVAL_ENV, "").strip()
    if not raw:
        return DEFAULT_INTERVAL
    try:
        value = float(raw)
    except ValueError:
        value = float("nan")
    if not 0 <= value < float("inf"):
        raise ConfigError(f"${INTERVAL_ENV}={raw!r}: give the seconds between progress lines (0: none)")
    return value or None


def _clock_text(seconds: float) -> str:
    seconds = int(round(seconds))
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


class ProgressLines:
    """Progress lines on ``stream`` every ``interval`` seconds (see the module docstring).

    Use as a context manager and pass the object as the ``progress`` callback of
    :func:`evalkit.pipeline.run`: ``progress(done, total, row)``, where ``done`` counts the
    run's finished episodes (earlier ones of a resumed run included), ``total`` the planned
    ones and ``row`` is the scored row of the episode just recorded (``None`` for a call that
    only reports the counts, before the first episode).

    Args:
        interval: Seconds between two lines (> 0).
        stream: Where to write (default ``sys.stderr``, looked up when a line is written).
        clock: Monotonic clock in seconds (for tests).
    """

    def __init__(self, interval: float = DEFAULT_INTERVAL, *, stream: TextIO | None = None,
                 clock: Callable[[], float] = time.monotonic):
        if not interval > 0:
            raise ValueError(f"interval must be above 0 seconds, got {interval}")
        self.interval = interval
        self._stream = stream
        self._clock = clock
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._started = clock()
        self.done = 0
        self.total: int | None = None
        self.errors = 0
        self._first_done: int | None = None  # ``done`` when this process started recording
        self._first_at: float | None = None
        self._last_at: float | None = None
        self.lines = 0
        self._last_line_done: int | None = None

    def __call__(self, done: int, total: int, row: dict[str, Any] | None = None) -> None:
        with self._lock:
            if self._first_done is None:
                self._first_done = done if row is None else done - 1
                self._first_at = self._clock() if row is None else self._started
            self.done, self.total = done, total
            self._last_at = self._clock()
            if row is not None and row.get("status") == "error":
                self.errors += 1

    def line(self) -> str:
        """The progress line for the counts so far."""
        with self._lock:
            done, total, errors = self.done, self.total, self.errors
            first, first_at, last_at = self._first_done, self._first_at, self._last_at
        now = self._clock()
        elapsed = now - self._started
        if total is None:
            return f"evalkit: progress: preparing the run (suite, self-check, models), elapsed {_clock_text(elapsed)}"
        share = f" ({100 * done / total:.1f}%)" if total else ""
        ran = done - first if first is not None else 0
        finished = done >= total
        end = last_at if finished and last_at is not None else now  # a finished run's rate stays put
        span = end - (first_at if first_at is not None else self._started)
        if ran > 0 and span > 0:
            rate = ran / span
            speed, eta = f"{rate:.2f} episodes/s", _clock_text((total - done) / rate)
        elif finished:
            speed, eta = "nothing left to run", "none"
        else:
            speed, eta = "no episode finished yet", "unknown"
        tail = "every episode done, writing the results" if finished else f"ETA {eta}"
        return (f"evalkit: progress {done}/{total} episodes{share}, {errors} error{'s' if errors != 1 else ''}, "
                f"{speed}, elapsed {_clock_text(elapsed)}, {tail}")

    def _write(self) -> None:
        if self.total is not None and self.done >= self.total and self._last_line_done == self.done:
            return  # the finished line once, not again while the summary is written
        stream = self._stream or sys.stderr
        try:
            stream.write(self.line() + "\n")
            stream.flush()
        except (OSError, ValueError):  # a closed or broken stream must not stop the run
            return
        self.lines += 1
        self._last_line_done = self.done

    def _tick(self) -> None:
        while not self._stop.wait(self.interval):
            self._write()

    def __enter__(self) -> "ProgressLines":
        self._started = self._clock()
        self._thread = threading.Thread(target=self._tick, name="evalkit-progress", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, exc_type: Any, *exc: Any) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        if exc_type is None and self.lines:
            self._write()  # the last counts, once a log has lines (an interrupted run says what it kept)
