"""A server's PostgreSQL connection budget, shared by its kernels: N lock files, one per connection.

``dichotomy serve`` makes ``slot-000`` ... ``slot-<N-1>`` in its relay folder (:mod:`.pg_relay`). A
kernel holds an exclusive ``flock`` on one of them for as long as it holds a PostgreSQL connection,
so a server never has more than N kernel connections open, however many seats it runs. A kernel keeps
its connection while nobody waits (reconnecting costs PostgreSQL's authentication, ~15 ms here) and
gives it back when idle; a kernel that finds every slot taken touches ``wanted``, and holders that see
a recent ``wanted`` give their slot back after their current query. A kernel that dies releases its
slot with its file descriptors (the operating system drops the lock), so nothing leaks.
"""

from __future__ import annotations

import fcntl
import os
import random
import time
from pathlib import Path

from ..errors import StoreError

__all__ = ["ConnectionSlots", "make_slots", "SLOT_PREFIX", "CHANGES_FILE", "EVERYTHING", "CREATED", "EVENT_LINE",
           "POOLER", "WANTED"]

SLOT_PREFIX = "slot-"
#: The relay folder's change file (written by :mod:`.pg_relay`, watched by the kernels' stores).
CHANGES_FILE = "changes"
#: The table code of a line that means "reload everything" (after the relay lost its connection).
EVERYTHING = "*"
#: Present in the relay folder when the kernels reach PostgreSQL through a pooler (PgBouncer in
#: transaction mode: no named prepared statements; directly, psycopg prepares repeated queries).
POOLER = "through-pooler"
#: The prefix of a notification for a new table (the store's ``create_table``): news to every kernel,
#: which may be waiting for that table to appear.
CREATED = "+"
#: The start of a change-file line that carries one event: ``"= " + JSON [table, seq, type, payload, at]``
#: (``payload`` as the stored JSON text), or ``[table]`` alone: the relay could not read its events.
EVENT_LINE = "= "
#: Touched by a kernel waiting for a slot.
WANTED = "wanted"
#: Seconds a touch of ``wanted`` asks holders to give their slots back.
WANTED_FOR = 1.0


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
            self._want()
            if time.monotonic() >= deadline:
                raise StoreError(  # untranslated: developer-only
                    f"All {len(self.paths)} PostgreSQL connections of this server stayed busy for "
                    f"{timeout:.0f} s; raise dichotomy serve --pg-pool.")
            time.sleep(pause)
            pause = min(pause * 2, 0.02)

    def _want(self) -> None:
        try:
            os.utime(self.folder / WANTED)
        except FileNotFoundError:
            (self.folder / WANTED).touch()
        except OSError:  # a read-only folder: holders give back only when idle
            pass

    def contended(self) -> bool:
        """Whether a kernel has waited for a slot within the last :data:`WANTED_FOR` s (one ``stat``)."""
        try:
            return time.time() - os.stat(self.folder / WANTED).st_mtime < WANTED_FOR
        except OSError:
            return False

    def release(self) -> None:
        """Give the slot back (idempotent)."""
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)  # closing the descriptor drops the lock
