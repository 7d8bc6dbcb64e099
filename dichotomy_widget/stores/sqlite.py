"""Store in one SQLite file (WAL mode) shared by many kernels and processes.

The change marker is ``PRAGMA data_version`` (changes only when another connection commits) plus an
own-writes counter and a count of *announcements*. On Linux a waiting kernel sleeps until inotify
reports a write to the database or its WAL file (:mod:`.file_watch`), re-reading the marker then and
every :data:`WATCHED_RECHECK` s as a safety net; elsewhere it polls the marker every ``poll_interval``
seconds.

An announcement (:meth:`SqliteStore.announce`) touches the database file's time stamp (``os.utime``: no
data, works on a full disk): every watching kernel wakes and checks :meth:`~SqliteStore.write_trouble`.
A write that fails because the disk is full or the file read-only announces; so does ``dichotomy
serve``'s trouble check (:mod:`dichotomy_widget.server.trouble_watch`), so waiting kernels need no timer of
their own to show a full disk within seconds.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from ..errors import StoreError
from .base import (
    SCHEMA_VERSION,
    ChangeWaiters,
    ClosingStore,
    JsonRecord,
    Record,
    check_seq,
    check_table_id,
    conflict_error,
    decode_record,
    encode_events,
    exists_error,
    not_found_error,
    to_json,
)
from .file_watch import FileWatch
from ..logs import failure

log = logging.getLogger(__name__)

__all__ = ["SqliteStore", "DEFAULT_POLL_INTERVAL", "DEFAULT_BUSY_TIMEOUT"]

#: Seconds between two ``PRAGMA data_version`` polls in :meth:`SqliteStore.wait_for_change`.
DEFAULT_POLL_INTERVAL = 0.05

#: With a file watch, seconds between safety-net re-reads of the marker and trouble checks (a missed
#: notice costs at most this). Every wake of an idle kernel costs CPU, so this is long.
WATCHED_RECHECK = 30.0

#: Without a file watch (polling), seconds between two write-trouble checks of a watching table.
POLLED_TROUBLE_EVERY = 2.0

#: After a file notice that did not yet change the marker (the writer is mid-commit), re-read after
#: SETTLE_FIRST s, then twice as long each time up to SETTLE_STEP (a commit usually lands within a
#: millisecond of its WAL write: the first re-reads catch it, and the re-reads stay about as few); a
#: newer notice wakes the reader at once and starts again from SETTLE_FIRST ...
SETTLE_FIRST = 0.001
SETTLE_STEP = 0.01
#: ... for this long.
SETTLE_TIME = 0.25

#: Fewer free bytes than this on the store's file system count as a full disk (:meth:`SqliteStore.write_trouble`).
LOW_SPACE = 32 * 1024

#: Seconds a writer waits for another process's write lock before giving up.
DEFAULT_BUSY_TIMEOUT = 10.0


_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS tables (
        table_id TEXT PRIMARY KEY,
        meta TEXT NOT NULL,
        created_at REAL NOT NULL
    ) WITHOUT ROWID""",
    """CREATE TABLE IF NOT EXISTS events (
        table_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        type TEXT NOT NULL,
        payload TEXT NOT NULL,
        created_at REAL NOT NULL,
        PRIMARY KEY (table_id, seq)
    ) WITHOUT ROWID""",
)

_EXPECTED_COLUMNS = {
    "tables": {"table_id", "meta", "created_at"},
    "events": {"table_id", "seq", "type", "payload", "created_at"},
}


def _is_busy(exc: sqlite3.Error) -> bool:
    text = str(exc).lower()
    return "locked" in text or "busy" in text


class SqliteStore(ClosingStore):
    """Store in one SQLite file (WAL), safe across processes and threads (one connection + a lock)."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        busy_timeout: float = DEFAULT_BUSY_TIMEOUT,
        poll_interval: float = DEFAULT_POLL_INTERVAL,
        watch_files: bool = True,
    ) -> None:
        self.path = Path(path).expanduser()
        self.busy_timeout = busy_timeout
        self.poll_interval = poll_interval
        self.watch_files = watch_files  # False: always poll (the behaviour before file notices)
        self._lock = threading.RLock()
        self._writes = 0  # own commits: PRAGMA data_version ignores them
        self._conn: sqlite3.Connection | None = self._connect()
        self._identity = self._file_identity()  # the file this connection has open
        self._waiters = ChangeWaiters()
        self._watch: FileWatch | None = None
        self._last_notice = 0.0  # time.monotonic() of the last file notice of a write
        self._notices = 0  # file notices so far (writes and announcements): a waiter wakes when it moves
        self._announcements = 0  # metadata-only notices (an announcement, a chmod) seen by the watch

    def __repr__(self) -> str:
        return f"SqliteStore({str(self.path)!r})"

    # -- opening ---------------------------------------------------------------------------------

    def _connect(self) -> sqlite3.Connection:
        """Open the file, creating parent directories and the schema; clear StoreError on failure."""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError("Cannot create the folder for the table store {path}: {detail}",
                             params={"path": str(self.path), "detail": str(exc)}) from None
        try:
            conn = sqlite3.connect(
                str(self.path), timeout=self.busy_timeout, isolation_level=None, check_same_thread=False
            )
        except sqlite3.Error as exc:
            raise self._error("open", exc) from None
        try:
            self._prepare(conn)
        except BaseException:
            conn.close()
            raise
        return conn

    def _prepare(self, conn: sqlite3.Connection) -> None:
        """Pragmas and schema, retried while another process is creating the same file."""
        deadline = time.monotonic() + self.busy_timeout
        while True:
            try:
                conn.execute(f"PRAGMA busy_timeout = {int(self.busy_timeout * 1000)}")
                if conn.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
                    conn.execute("PRAGMA journal_mode = WAL")
                conn.execute("PRAGMA synchronous = NORMAL")
                self._init_schema(conn)
                return
            except sqlite3.OperationalError as exc:
                if not _is_busy(exc) or time.monotonic() > deadline:
                    raise self._error("open", exc) from None
                time.sleep(0.02)
            except sqlite3.Error as exc:
                raise self._error("open", exc) from None

    def _init_schema(self, conn: sqlite3.Connection) -> None:
        conn.execute("BEGIN IMMEDIATE")
        try:
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise StoreError(
                    "The table store {path} was written by a newer version of dichotomy "
                    "(schema {version}, this one knows {known}); upgrade dichotomy_widget.",
                    params={"path": str(self.path), "version": version, "known": SCHEMA_VERSION},
                )
            if version < SCHEMA_VERSION:
                for statement in _SCHEMA:
                    conn.execute(statement)
                conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            self._check_columns(conn)
            conn.execute("COMMIT")
        except BaseException:
            _rollback(conn)
            raise

    def _check_columns(self, conn: sqlite3.Connection) -> None:
        for name, expected in _EXPECTED_COLUMNS.items():
            found = {row[1] for row in conn.execute(f"PRAGMA table_info({name})")}
            if not expected <= found:
                raise StoreError(  # untranslated: developer-only
                    f"{self.path} is an SQLite file but not a dichotomy table store "
                    f"(table {name!r} has columns {sorted(found)})."
                )

    # -- plumbing --------------------------------------------------------------------------------

    def _error(self, action: str, exc: sqlite3.Error) -> StoreError:
        """Turn an sqlite3 error into a StoreError that names the file."""
        text = str(exc)
        if isinstance(exc, sqlite3.DatabaseError) and "not a database" in text.lower():
            return StoreError("{path} is not a dichotomy table store (not an SQLite database).",
                              code="store_corrupt", params={"path": str(self.path)})
        if isinstance(exc, sqlite3.DatabaseError) and "malformed" in text.lower():
            return StoreError("The table store {path} is corrupt ({detail}).", code="store_corrupt",
                              params={"path": str(self.path), "detail": text})
        if "disk is full" in text.lower() or ("i/o error" in text.lower() and self._disk_full()):
            self.announce()  # the other pages show it now, not at their next check
            return self._full_error()
        if "readonly" in text.lower() or "read-only" in text.lower() or self._read_only():
            self.announce()
            return self._read_only_error()
        if isinstance(exc, sqlite3.OperationalError) and _is_busy(exc):
            return StoreError("The table store {path} stayed busy for over {seconds} s ({detail}).",
                              params={"path": str(self.path), "seconds": self.busy_timeout, "detail": text})
        return StoreError(f"Cannot {action} in the table store {self.path}: {text}")  # untranslated: developer-only

    def _full_error(self) -> StoreError:
        return StoreError("The disk holding the table store {path} is full, so nothing was saved. "
                          "Free some space on it, then try again.", code="store_full",
                          params={"path": str(self.path)})

    def _read_only_error(self) -> StoreError:
        return StoreError("The table store {path} cannot be written (it is read-only), so nothing "
                          "was saved. Make it writable again, then try again.", code="store_read_only",
                          params={"path": str(self.path)})

    def write_trouble(self) -> StoreError | None:
        """Why a write would fail now (``store_read_only`` or ``store_full``), or None; writes nothing.

        Two cheap system calls: ``os.access`` on the file and its folder (SQLite writes a ``-wal`` and
        ``-shm`` file beside it) and ``os.statvfs`` (a read-only mount, less than
        :data:`LOW_SPACE` bytes free for this user). Watching pages ask it every few seconds, so every
        page can show the trouble, not only the page whose action failed."""
        folder = self.path.parent
        try:
            st = os.statvfs(folder)
        except AttributeError:  # no statvfs (Windows): the access checks alone
            st = None
        except OSError:
            return None  # the folder is gone: the next read or write names that trouble itself
        if st is not None and st.f_flag & os.ST_RDONLY:
            return self._read_only_error()
        try:
            if not os.access(folder, os.W_OK) or (self.path.exists() and not os.access(self.path, os.W_OK)):
                return self._read_only_error()
        except OSError:
            return None
        if st is not None and st.f_bavail * st.f_frsize < LOW_SPACE:
            return self._full_error()
        return None

    def _file_identity(self) -> tuple[int, int] | None:
        """(device, inode) of the store file now, or None if it is gone (or the platform has no inodes)."""
        try:
            st = os.stat(self.path)
        except OSError:
            return None
        return (st.st_dev, st.st_ino) if st.st_ino else None

    def _disk_full(self) -> bool:
        """True when the store's file system has (almost) no space left."""
        try:
            st = os.statvfs(self.path.parent)
        except (OSError, AttributeError):  # AttributeError: no statvfs (Windows)
            return False
        return st.f_bavail * st.f_frsize < 64 * 1024

    def _read_only(self) -> bool:
        """True when the store file exists but cannot be written (a read-only file or file system)."""
        try:
            return self.path.exists() and not os.access(self.path, os.W_OK)
        except OSError:
            return False

    @contextmanager
    def _connection(self, action: str) -> Iterator[sqlite3.Connection]:
        """The connection under the lock; sqlite3 errors become StoreError."""
        with self._lock:
            if self._conn is None:
                raise StoreError("The table store {path} is closed.", params={"path": str(self.path)})
            if self._identity is not None and self._file_identity() != self._identity:
                # the open connection would read and write a file nobody else sees any more
                raise StoreError("The table store {path} was replaced or removed while the game was "
                                 "running, so nothing was saved. Reload the page.", code="store_replaced",
                                 params={"path": str(self.path)})
            try:
                yield self._conn
            except sqlite3.Error as exc:
                raise self._error(action, exc) from None

    @contextmanager
    def _transaction(self, action: str) -> Iterator[sqlite3.Connection]:
        """One ``BEGIN IMMEDIATE`` write transaction; rolled back on any exception."""
        with self._connection(action) as conn:
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
                conn.execute("COMMIT")
            except BaseException:
                _rollback(conn)
                raise
            self._writes += 1
            self._waiters.wake_all()  # this process's own watchers need no file notice

    # -- TableStore ------------------------------------------------------------------------------

    def create_table(self, table_id: str, meta: dict) -> None:
        """Create an empty table; :class:`TableExists` if the code is taken."""
        check_table_id(table_id)
        meta_json = to_json(meta, "table meta")
        with self._transaction("create a table") as conn:
            cursor = conn.execute(
                "INSERT OR IGNORE INTO tables (table_id, meta, created_at) VALUES (?, ?, ?)",
                (table_id, meta_json, time.time()),
            )
            if cursor.rowcount != 1:
                raise exists_error(table_id)

    def table_meta(self, table_id: str) -> dict:
        """The ``meta`` given at creation; :class:`TableNotFound` if missing."""
        check_table_id(table_id)
        with self._connection("read a table") as conn:
            row = conn.execute("SELECT meta FROM tables WHERE table_id = ?", (table_id,)).fetchone()
        if row is None:
            raise not_found_error(table_id)
        return self._decode(row[0], table_id)

    def table_exists(self, table_id: str) -> bool:
        """Whether a table with that code exists."""
        check_table_id(table_id)
        with self._connection("read a table") as conn:
            return conn.execute("SELECT 1 FROM tables WHERE table_id = ?", (table_id,)).fetchone() is not None

    def append(self, table_id: str, expected_seq: int, events: list[tuple[str, dict]]) -> list[Record]:
        """Atomically append ``events`` as ``expected_seq + 1, ...``; :class:`VersionConflict` if stale."""
        check_table_id(table_id)
        check_seq(expected_seq, "expected_seq")
        encoded = encode_events(events)
        now = time.time()
        rows = [(table_id, expected_seq + i, t, p, now) for i, (t, p) in enumerate(encoded, start=1)]
        if not rows:  # nothing to write: only check the version, commit nothing
            actual = self.last_seq(table_id)
            if actual != expected_seq:
                raise conflict_error(table_id, expected_seq, actual)
            return []
        with self._transaction("append events") as conn:
            actual = self._last_seq(conn, table_id)
            if actual != expected_seq:
                raise conflict_error(table_id, expected_seq, actual)
            try:
                conn.executemany(
                    "INSERT INTO events (table_id, seq, type, payload, created_at) VALUES (?, ?, ?, ?, ?)",
                    rows,
                )
            except sqlite3.IntegrityError:  # impossible under BEGIN IMMEDIATE; never duplicate a seq
                raise conflict_error(table_id, expected_seq, -1) from None
        return [JsonRecord(table_id, seq, t, p, now) for _, seq, t, p, now in rows]  # decoded when read

    def load(self, table_id: str, after_seq: int = 0) -> list[Record]:
        """Events with ``seq > after_seq`` in order; :class:`TableNotFound` if missing."""
        check_table_id(table_id)
        check_seq(after_seq, "after_seq")
        with self._connection("load events") as conn:
            rows = conn.execute(
                "SELECT seq, type, payload, created_at FROM events"
                " WHERE table_id = ? AND seq > ? ORDER BY seq",
                (table_id, after_seq),
            ).fetchall()
            if not rows and not self._has_table(conn, table_id):
                raise not_found_error(table_id)
        return [Record(table_id, seq, t, self._decode(p, table_id), at) for seq, t, p, at in rows]

    def last_seq(self, table_id: str) -> int:
        """Sequence number of the last event (0 for none); :class:`TableNotFound` if missing."""
        check_table_id(table_id)
        with self._connection("read a table") as conn:
            return self._last_seq(conn, table_id)

    def change_marker(self) -> object:
        """``(PRAGMA data_version, own commits, announcements)``: differs after any commit by anyone
        and after an :meth:`announce`."""
        with self._connection("check for changes") as conn:
            return (conn.execute("PRAGMA data_version").fetchone()[0], self._writes, self._announcements)

    @property
    def trouble_every(self) -> float:
        """Seconds a watching table may wait before its next :meth:`write_trouble` check: long while
        the file watch runs (announcements wake it), short when polling (it wakes anyway)."""
        watch = self._watch
        return WATCHED_RECHECK if watch is not None and watch.running else POLLED_TROUBLE_EVERY

    def announce(self) -> bool:
        """Wake every kernel watching this file, so it checks :meth:`write_trouble` now: touches the
        file's time stamp (no data is written, so this works on a full disk). False if it could not."""
        try:
            os.utime(self.path)
        except OSError as exc:  # a read-only file system: the watchers' safety-net check sees it
            log.info("cannot announce a change of %s (%s)", self.path, failure(exc))
            return False
        return True

    async def wait_for_change(self, marker: object, timeout: float) -> object:
        """Return the marker as soon as it differs from ``marker``, or when ``timeout`` s have passed.

        Sleeps until a file notice where inotify works (see the module docstring), else polls."""
        import asyncio

        loop = asyncio.get_running_loop()
        deadline = loop.time() + max(0.0, timeout)
        watched = self._ensure_watch()
        step, settling = SETTLE_FIRST, -1
        while True:
            key = self._wake_key()  # before the marker: a notice or own write after this wakes the wait
            current = self.change_marker()
            remaining = deadline - loop.time()
            if current != marker or remaining <= 0:
                return current
            if not watched:
                await asyncio.sleep(min(self.poll_interval, remaining))
            elif time.monotonic() - self._last_notice < SETTLE_TIME:
                # a write was noticed and may not have landed yet: re-read soon, or at the next notice
                if key != settling:
                    step, settling = SETTLE_FIRST, key
                await self._waiters.wait(self._lock, self._wake_key, key, min(step, remaining))
                step = min(step * 2, SETTLE_STEP)
            else:
                await self._waiters.wait(self._lock, self._wake_key, key, min(WATCHED_RECHECK, remaining))

    def _wake_key(self) -> tuple[int, int]:
        """Moves with every file notice and own commit: what wakes a waiter."""
        return self._notices, self._writes

    def _ensure_watch(self) -> bool:
        """Start the file watch on first use; False where it cannot run (then the store polls)."""
        with self._lock:
            if self._conn is None:
                raise StoreError("The table store {path} is closed.", params={"path": str(self.path)})
            if not self.watch_files:
                return False
            if self._watch is None:
                folder = self.path.resolve().parent
                names = {self.path.name, self.path.name + "-wal"}
                self._watch = FileWatch(folder, names, self._on_file_notice)
                if not self._watch.start():
                    log.info("no file notices for %s: polling every %.2f s", self.path, self.poll_interval)
            return self._watch.running

    def _on_file_notice(self, written: bool = True) -> None:
        with self._lock:
            if written:
                self._last_notice = time.monotonic()
            else:
                self._announcements += 1
            self._notices += 1
            self._waiters.wake_all()

    def close(self) -> None:
        """Close the connection; idempotent."""
        with self._lock:
            watch, self._watch = self._watch, None
            if self._conn is not None:
                self._conn.close()
                self._conn = None
        if watch is not None:
            watch.stop()

    # -- helpers ---------------------------------------------------------------------------------

    def _last_seq(self, conn: sqlite3.Connection, table_id: str) -> int:
        """Last seq; tables are never deleted, so the existence check is needed only for 0."""
        last = conn.execute("SELECT MAX(seq) FROM events WHERE table_id = ?", (table_id,)).fetchone()[0]
        if last is None and not self._has_table(conn, table_id):
            raise not_found_error(table_id)
        return last or 0

    @staticmethod
    def _has_table(conn: sqlite3.Connection, table_id: str) -> bool:
        return conn.execute("SELECT 1 FROM tables WHERE table_id = ?", (table_id,)).fetchone() is not None

    def _decode(self, text: str, table_id: str) -> dict:
        return decode_record(text, str(self.path), table_id)



def _rollback(conn: sqlite3.Connection) -> None:
    """Roll back if a transaction is open; never raise (the original error matters more)."""
    if conn.in_transaction:
        try:
            conn.execute("ROLLBACK")
        except sqlite3.Error:
            pass


