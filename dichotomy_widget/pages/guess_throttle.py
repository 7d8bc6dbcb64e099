"""Throttles on guessing, per device: table and class codes typed into a page, and teacher keys.

A page kernel lives for one page; a reload gets a new one. So a bound kept in the kernel is per page,
and a script that reloads gets fresh tries each time. These throttles are kept where every page
kernel of the server reads them: one small file per device and kind in a private folder
(``$DICHOTOMY_THROTTLE_DIR``, default ``dichotomy-throttle-<uid>`` in the temporary folder, mode 0700),
holding the times of the recent wrong tries, under a file lock. Where the device is not known
(``""``: the teacher's own computer, or a server that does not bound devices) these throttles do not
apply; the per-page bounds still do.
"""

from __future__ import annotations

import logging
import math
import os
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, TypeVar

from ..errors import ClassNotFound, DichotomyError, TableNotFound
from ..logs import failure

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: the file is still shared, without the lock
    fcntl = None  # type: ignore[assignment]

__all__ = ["GuessThrottle", "CODE_GUESSES", "KEY_GUESSES", "THROTTLE_DIR_ENV", "guarded_open"]

T = TypeVar("T")

log = logging.getLogger(__name__)

THROTTLE_DIR_ENV = "DICHOTOMY_THROTTLE_DIR"


def _folder() -> Path:
    folder = os.environ.get(THROTTLE_DIR_ENV) or os.path.join(
        tempfile.gettempdir(), f"dichotomy-throttle-{os.getuid() if hasattr(os, 'getuid') else 'user'}")
    path = Path(folder)
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    return path


@dataclass
class GuessThrottle:
    """At most ``limit`` wrong tries of ``kind`` per device in any ``window`` seconds."""

    kind: str
    limit: int
    window: float

    def wait(self, device: str, now: float | None = None) -> float:
        """Seconds until ``device`` may try again (0: now)."""
        now = time.time() if now is None else now
        tries = self._tries(device, now)
        if len(tries) < self.limit:
            return 0.0
        return max(0.0, tries[-self.limit] + self.window - now)

    def failed(self, device: str, now: float | None = None) -> None:
        """Count one wrong try of ``device``."""
        now = time.time() if now is None else now
        if not device:
            return
        try:
            with self._open(device) as handle:
                kept = [t for t in self._read(handle) if t > now - self.window][-self.limit:] + [now]
                handle.seek(0)
                handle.truncate()
                handle.write("".join(f"{t:.3f}\n" for t in kept))
        except OSError as exc:  # a throttle that cannot write must not stop the page: log it
            log.warning("guess throttle %s: cannot record a try (%s)", self.kind, failure(exc))

    def _tries(self, device: str, now: float) -> list[float]:
        if not device:
            return []
        try:
            with self._open(device) as handle:
                return [t for t in self._read(handle) if t > now - self.window]
        except OSError as exc:
            log.warning("guess throttle %s: cannot read the tries (%s)", self.kind, failure(exc))
            return []

    def _open(self, device: str) -> "_Locked":
        return _Locked(_folder() / f"{self.kind}-{device}")

    @staticmethod
    def _read(handle) -> list[float]:
        handle.seek(0)
        out = []
        for line in handle.read().splitlines():
            try:
                out.append(float(line))
            except ValueError:
                continue
        return sorted(out)


class _Locked:
    """A file opened for reading and writing under an exclusive lock."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __enter__(self):
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        self.handle = os.fdopen(fd, "r+", encoding="ascii")
        if fcntl is not None:
            fcntl.flock(self.handle.fileno(), fcntl.LOCK_EX)
        return self.handle

    def __exit__(self, *_exc: object) -> None:
        self.handle.close()  # closing releases the lock


#: Wrong table or class codes one device may type in a minute.
CODE_GUESSES = GuessThrottle("code", limit=10, window=60.0)
#: Wrong teacher keys one device may type in ten minutes (each page also allows only five).
KEY_GUESSES = GuessThrottle("key", limit=10, window=600.0)


def guarded_open(open_code: Callable[[str], T], code: str, device: str) -> T:
    """``open_code(code)`` (``Table.open`` or ``Classroom.open`` on a store), unless ``device`` typed
    too many wrong codes lately (:class:`DichotomyError` ``too_many_guesses``); a code that opens
    nothing counts as a wrong one."""
    wait = CODE_GUESSES.wait(device)
    if wait > 0:
        log.warning("code guesses from one device throttled for %d s", math.ceil(wait))
        raise DichotomyError("Too many wrong codes from this device. Wait {seconds} seconds, then check the "
                             "code and try again.", code="too_many_guesses", params={"seconds": math.ceil(wait)})
    try:
        return open_code(code)
    except (TableNotFound, ClassNotFound):
        CODE_GUESSES.failed(device)
        raise
