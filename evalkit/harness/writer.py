"""The writer thread of a run directory: trace and row writes off the episode loop.

:meth:`evalkit.harness.store.RunStore.record` hands each finished episode's trace and result
row to one :class:`_BackgroundWriter` thread (``RunStore.open(background=True)``), which
writes them in order, trace before row, so the disk's latency overlaps the next episode;
at most :data:`WRITE_QUEUE` episodes wait.
"""

from __future__ import annotations

import queue
import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from evalkit.harness.store import RunStore

WRITE_QUEUE = 32
"""Most episodes waiting for the writer thread (:meth:`~evalkit.harness.store.RunStore.record`)."""


class _BackgroundWriter:
    """One thread that writes queued ``(episode_id, trace, row line)`` in order; the first
    error stops the writing and is kept for :meth:`stop` / the next :meth:`put`."""

    def __init__(self, store: RunStore):
        self._store = store
        self._queue: queue.Queue[tuple[str, str, str] | None] = queue.Queue(maxsize=WRITE_QUEUE)
        self.error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="evalkit-writer", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            if self.error is not None:
                continue  # after a failed write nothing more is written: the file order stays true
            try:
                self._store.write_trace(item[0], item[1])
                self._store._append_line(item[2])
            except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread
                self.error = exc

    def put(self, item: tuple[str, str, str]) -> None:
        if self.error is not None:
            raise self.error
        self._queue.put(item)

    def stop(self) -> BaseException | None:
        """Write what is queued, end the thread, return its error (if any)."""
        self._queue.put(None)
        self._thread.join()
        return self.error
