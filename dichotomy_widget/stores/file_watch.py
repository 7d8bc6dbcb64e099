"""Be told when files change, at no cost while nothing does: Linux inotify through ``inotify_simple``.

:class:`FileWatch` runs one daemon thread that sleeps in ``select`` on the inotify descriptor and a
stop pipe, and calls ``on_change(written)`` when one of the named files in a folder is written,
created, moved in or deleted (``written`` True), or only has its metadata touched (``written`` False: a
``chmod``, or ``os.utime`` by a process announcing news that is not in the file). An idle watch wakes
nobody: no timer, no polling. Where inotify is not available
(macOS, Windows, some network file systems) :func:`FileWatch.start` returns False and the caller
keeps polling.
"""

from __future__ import annotations

import logging
import os
import select
import threading
from pathlib import Path
from typing import Any, Callable, Iterable
from ..logs import failure, log_failure

log = logging.getLogger(__name__)

__all__ = ["FileWatch"]


def notice_kinds(events: Iterable[Any], names: frozenset[str], flags: Any) -> list[bool]:
    """What one read of inotify events on ``names`` tells: ``True`` if a file was written, ``False`` if
    metadata was touched (an announcement), both when both happened in the same read (a write must not
    hide an announcement: the waiting kernel would sleep until its recheck). An overflow may have lost
    either, so it tells both."""
    ours = [e for e in events if e.name in names or e.mask & flags.Q_OVERFLOW]
    overflow = any(e.mask & flags.Q_OVERFLOW for e in ours)
    out = []
    if overflow or any(e.mask & ~(flags.ATTRIB | flags.ISDIR) for e in ours):
        out.append(True)
    if overflow or any(e.mask & flags.ATTRIB for e in ours):
        out.append(False)
    return out


class FileWatch:
    """Call ``on_change(written)`` from a background thread whenever one of ``names`` in ``folder``
    changes (``written``) or has its metadata touched (not ``written``)."""

    def __init__(self, folder: str | os.PathLike[str], names: Iterable[str],
                 on_change: Callable[[bool], None]) -> None:
        self.folder = Path(folder)
        self.names = frozenset(names)
        self.on_change = on_change
        self._thread: threading.Thread | None = None
        self._stop_write: int | None = None

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def start(self) -> bool:
        """Start watching; False (and nothing started) where inotify cannot watch the folder."""
        if self.running:
            return True
        try:
            from inotify_simple import INotify, flags
        except ImportError:  # not Linux, or the package is missing: the caller polls
            return False
        try:
            inotify = INotify()
        except OSError as exc:
            log.warning("inotify is not available (%s); watching the store by polling", failure(exc))
            return False
        mask = flags.MODIFY | flags.CREATE | flags.MOVED_TO | flags.DELETE | flags.CLOSE_WRITE | flags.ATTRIB
        try:
            inotify.add_watch(str(self.folder), mask)
        except OSError as exc:  # e.g. the per-user watch limit
            inotify.close()
            log.warning("cannot watch %s (%s); watching the store by polling", self.folder, failure(exc))
            return False
        stop_read, self._stop_write = os.pipe()
        self._thread = threading.Thread(target=self._run, args=(inotify, stop_read, flags),
                                        name=f"dichotomy-watch:{self.folder.name}", daemon=True)
        self._thread.start()
        return True

    def stop(self) -> None:
        """Stop the thread (idempotent)."""
        if self._stop_write is not None:
            try:
                os.write(self._stop_write, b"x")
                os.close(self._stop_write)
            except OSError:
                pass
            self._stop_write = None
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=2)
        self._thread = None

    def _run(self, inotify, stop_read: int, flags) -> None:  # type: ignore[no-untyped-def]
        try:
            while True:
                ready, _, _ = select.select([inotify.fileno(), stop_read], [], [])
                if stop_read in ready:
                    return
                events = inotify.read(timeout=0)
                for written in notice_kinds(events, self.names, flags):
                    self.on_change(written)
        except Exception as err:  # never die silently: the store falls back to its slow poll
            log_failure(log, "watching %s stopped", err, self.folder)
        finally:
            inotify.close()
            os.close(stop_read)
