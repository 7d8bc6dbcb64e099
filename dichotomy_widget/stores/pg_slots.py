"""A server's PostgreSQL connection budget, shared by its kernels: N lock files, one per connection.

``dichotomy serve`` makes ``slot-000`` ... ``slot-<N-1>`` in its relay folder (:mod:`.pg_relay`). A
kernel holds an exclusive ``flock`` on one of them for as long as it holds a PostgreSQL connection,
so a server never has more than N kernel connections open, however many seats it runs. The kernel
releases its slot when idle; a kernel that dies releases it with its file descriptors (the operating
system drops the lock), so nothing leaks.
"""

from __future__ import annotations

import fcntl
import os
import random
import time
from pathlib import Path

from ..errors import StoreError

__all__ = ["ConnectionSlots", "make_slots", "SLOT_PREFIX"]

SLOT_PREFIX = "slot-"


def make_slots(folder: str | os.PathLike[str], size: int) -> None:
    """Create ``size`` slot files in ``folder`` (and remove extra ones from an earlier, larger pool)."""
    if size < 1:
        raise ValueError("a connection pool needs at least one connection")
    path = Path(folder)
    for i in range(size):
        (path / f"{SLOT_PREFIX}{i:03d}").touch()
    for extra in path.glob(f"{SLOT_PREFIX}*"):
        if extra.name[len(SLOT_PREFIX):].isdigit() and int(extra.name[len(SLOT_PREFIX):]) >= size:
            extra.unlink(missing_ok=True)


class ConnectionSlots:
    """Take and give back one of the server's connection slots (cross-process, by ``flock``)."""

    def __init__(self, folder: str | os.PathLike[str]) -> None:
        self.folder = Path(folder)
        self.paths = sorted(self.folder.glob(f"{SLOT_PREFIX}[0-9]*"))
        self._fd: int | None = None
        self._rng = random.Random(os.getpid())  # spread kernels over the slots

    @property
    def size(self) -> int:
        return len(self.paths)

    @property
    def held(self) -> bool:
        return self._fd is not None

    def acquire(self, timeout: float) -> None:
        """Hold a free slot, waiting up to ``timeout`` s; :class:`StoreError` if every slot stays busy."""
        if self._fd is not None:
            return
        if not self.paths:
            raise StoreError(f"The connection slots in {self.folder} are missing.")  # untranslated: developer-only
        deadline = time.monotonic() + timeout
        pause = 0.001
        while True:
            order = list(self.paths)
            self._rng.shuffle(order)
            for path in order:
                fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except OSError:
                    os.close(fd)
                    continue
                self._fd = fd
                return
            if time.monotonic() >= deadline:
                raise StoreError(  # untranslated: developer-only
                    f"All {len(self.paths)} PostgreSQL connections of this server stayed busy for "
                    f"{timeout:.0f} s; raise dichotomy serve --pg-pool.")
            time.sleep(pause)
            pause = min(pause * 2, 0.02)

    def release(self) -> None:
        """Give the slot back (idempotent)."""
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)  # closing the descriptor drops the lock
