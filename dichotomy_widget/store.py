"""Append-only event store for tables, with optimistic concurrency.

A table is a code, a small JSON ``meta`` dict and an ordered list of events numbered 1, 2, 3, ...
with no gaps. Writers say which sequence number they last saw (``expected_seq``); if someone else
appended in between, the append is refused with :class:`VersionConflict` and nothing is written, so
the loser reloads and decides again. The store knows nothing about the game rules.

Two stores share one interface (:class:`TableStore`) and one conformance test suite:

* :class:`MemoryStore` -- one kernel, thread-safe, nothing on disk.
* :class:`SqliteStore` -- one SQLite file (WAL mode) shared by many kernels and processes.

Watching for changes is store-neutral: ``change_marker()`` returns an opaque value and
``await wait_for_change(marker, timeout)`` returns as soon as the marker differs (or on timeout).
SQLite polls ``PRAGMA data_version`` (cheap, changes only when another connection commits) plus an
own-writes counter; a PostgreSQL store can await a LISTEN/NOTIFY notification behind the same two
methods without any change to the table code.

This module imports only the standard library (``asyncio`` and ``platformdirs`` lazily), so
importing it is cheap.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator, Protocol, TypeVar, runtime_checkable

from .errors import StoreError, TableExists, TableNotFound, VersionConflict

if TYPE_CHECKING:  # pragma: no cover
    import asyncio

__all__ = [
    "Record",
    "TableStore",
    "MemoryStore",
    "SqliteStore",
    "open_store",
    "default_store_path",
    "SCHEMA_VERSION",
]

_S = TypeVar("_S", bound="ClosingStore")

#: Value of ``PRAGMA user_version`` written by this code.
SCHEMA_VERSION = 1

#: Seconds between two ``PRAGMA data_version`` polls in :meth:`SqliteStore.wait_for_change`.
DEFAULT_POLL_INTERVAL = 0.05

#: Seconds a writer waits for another process's write lock before giving up.
DEFAULT_BUSY_TIMEOUT = 10.0


@dataclass(frozen=True)
class Record:
    """One stored event of one table."""

    table_id: str
    seq: int  # 1, 2, 3, ... per table, no gaps
    type: str  # event type name
    payload: dict  # JSON-ready; a fresh dict on every load
    created_at: float  # unix seconds


@runtime_checkable
class TableStore(Protocol):
    """What the table layer needs from a store (memory, SQLite, later PostgreSQL)."""

    def create_table(self, table_id: str, meta: dict) -> None:
        """Create an empty table; :class:`TableExists` if the code is taken."""

    def table_meta(self, table_id: str) -> dict:
        """The ``meta`` given at creation; :class:`TableNotFound` if missing."""

    def table_exists(self, table_id: str) -> bool:
        """Whether a table with that code exists."""

    def append(self, table_id: str, expected_seq: int, events: list[tuple[str, dict]]) -> list[Record]:
        """Atomically append ``events`` as ``expected_seq + 1, ...``; :class:`VersionConflict` if stale."""

    def load(self, table_id: str, after_seq: int = 0) -> list[Record]:
        """Events with ``seq > after_seq`` in order; :class:`TableNotFound` if missing."""

    def last_seq(self, table_id: str) -> int:
        """Sequence number of the last event (0 for none); :class:`TableNotFound` if missing."""

    def change_marker(self) -> object:
        """Opaque, cheap value that differs after any commit (own or another writer's)."""

    async def wait_for_change(self, marker: object, timeout: float) -> object:
        """Return the new marker as soon as it differs from ``marker``, or the current one on timeout."""

    def close(self) -> None:
        """Release resources; idempotent. Later calls raise :class:`StoreError`."""


# --------------------------------------------------------------------------------------------------
# Validation and encoding shared by both stores


def _is_utf8(text: str) -> bool:
    """False for strings with lone surrogates, which SQLite cannot store."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _check_table_id(table_id: object) -> str:
    if not isinstance(table_id, str) or not table_id or not _is_utf8(table_id):
        raise StoreError(f"a table code must be a non-empty string, not {table_id!r}")
    return table_id


def _check_seq(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise StoreError(f"{name} must be an integer >= 0, not {value!r}")
    return value


def _to_json(value: object, what: str) -> str:
    if not isinstance(value, dict):
        raise StoreError(f"{what} must be a dict, not {type(value).__name__}")
    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    except (TypeError, ValueError) as exc:
        raise StoreError(f"{what} is not JSON-ready: {exc}") from None
    if not _is_utf8(text):  # lone surrogates: keep them, escaped as \udXXX
        text = json.dumps(value, ensure_ascii=True, allow_nan=False, separators=(",", ":"))
    return text


def _encode_events(events: list[tuple[str, dict]]) -> list[tuple[str, str]]:
    """Validate and JSON-encode ``(type, payload)`` pairs before anything is written."""
    encoded = []
    for index, item in enumerate(events):
        try:
            event_type, payload = item
        except (TypeError, ValueError):
            raise StoreError(f"event {index} must be a (type, payload) pair, not {item!r}") from None
        if not isinstance(event_type, str) or not event_type or not _is_utf8(event_type):
            raise StoreError(f"event {index} needs a non-empty string type, not {event_type!r}")
        encoded.append((event_type, _to_json(payload, f"payload of event {index} ({event_type})")))
    return encoded


def _conflict(table_id: str, expected: int, actual: int) -> VersionConflict:
    """A :class:`VersionConflict` carrying ``expected_seq`` and ``actual_seq`` attributes."""
    exc = VersionConflict(
        f"Table {table_id} changed meanwhile (expected last event {expected}, found {actual}); "
        "reload and try again."
    )
    exc.expected_seq = expected  # type: ignore[attr-defined]
    exc.actual_seq = actual  # type: ignore[attr-defined]
    return exc


def _not_found(table_id: str) -> TableNotFound:
    return TableNotFound(f"No table has the code {table_id}.")


def _exists(table_id: str) -> TableExists:
    return TableExists(f"A table with the code {table_id} already exists.")


# --------------------------------------------------------------------------------------------------
# Memory store


@dataclass
class _MemTable:
    meta_json: str
    created_at: float
    events: list[tuple[str, str, float]] = field(default_factory=list)  # (type, payload_json, at)


class ClosingStore:
    """``with store: ...`` closes the store at the end (shared by every store class)."""

    def __enter__(self: _S) -> _S:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()  # type: ignore[attr-defined]


class MemoryStore(ClosingStore):
    """In-process store for one kernel; thread-safe; waiters wake without polling."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._tables: dict[str, _MemTable] = {}
        self._version = 0
        self._waiters = ChangeWaiters()
        self._closed = False

    def __repr__(self) -> str:
        return f"MemoryStore(tables={len(self._tables)})"

    def _check_open(self) -> None:
        if self._closed:
            raise StoreError("The table store is closed.")

    def _table(self, table_id: str) -> _MemTable:
        self._check_open()
        table = self._tables.get(_check_table_id(table_id))
        if table is None:
            raise _not_found(table_id)
        return table

    def create_table(self, table_id: str, meta: dict) -> None:
        """Create an empty table; :class:`TableExists` if the code is taken."""
        meta_json = _to_json(meta, "table meta")
        with self._lock:
            self._check_open()
            if _check_table_id(table_id) in self._tables:
                raise _exists(table_id)
            self._tables[table_id] = _MemTable(meta_json, time.time())
            self._changed()

    def table_meta(self, table_id: str) -> dict:
        """The ``meta`` given at creation; :class:`TableNotFound` if missing."""
        with self._lock:
            return json.loads(self._table(table_id).meta_json)

    def table_exists(self, table_id: str) -> bool:
        """Whether a table with that code exists."""
        with self._lock:
            self._check_open()
            return _check_table_id(table_id) in self._tables

    def append(self, table_id: str, expected_seq: int, events: list[tuple[str, dict]]) -> list[Record]:
        """Atomically append ``events`` as ``expected_seq + 1, ...``; :class:`VersionConflict` if stale."""
        _check_seq(expected_seq, "expected_seq")
        encoded = _encode_events(events)
        with self._lock:
            table = self._table(table_id)
            if len(table.events) != expected_seq:
                raise _conflict(table_id, expected_seq, len(table.events))
            now = time.time()
            table.events.extend((event_type, payload, now) for event_type, payload in encoded)
            if encoded:
                self._changed()
        return [
            Record(table_id, expected_seq + i, event_type, json.loads(payload), now)
            for i, (event_type, payload) in enumerate(encoded, start=1)
        ]

    def load(self, table_id: str, after_seq: int = 0) -> list[Record]:
        """Events with ``seq > after_seq`` in order; :class:`TableNotFound` if missing."""
        _check_seq(after_seq, "after_seq")
        with self._lock:
            rows = self._table(table_id).events[after_seq:]
        return [
            Record(table_id, seq, event_type, json.loads(payload), at)
            for seq, (event_type, payload, at) in enumerate(rows, start=after_seq + 1)
        ]

    def last_seq(self, table_id: str) -> int:
        """Sequence number of the last event (0 for none); :class:`TableNotFound` if missing."""
        with self._lock:
            return len(self._table(table_id).events)

    def change_marker(self) -> object:
        """A counter bumped by every write."""
        with self._lock:
            self._check_open()
            return self._version

    async def wait_for_change(self, marker: object, timeout: float) -> object:
        """Sleep (no polling) until a write bumps the marker, or ``timeout`` seconds pass."""
        await self._waiters.wait(self._lock, self._marker_locked, marker, timeout)
        return self.change_marker()

    def _marker_locked(self) -> object:
        """:meth:`change_marker` for a caller that already holds the (non-reentrant) lock."""
        self._check_open()
        return self._version

    def close(self) -> None:
        """Drop all tables and wake waiters (their next call raises :class:`StoreError`)."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._tables.clear()
            self._changed()

    def _changed(self) -> None:
        """Bump the version and wake every waiter. Lock held."""
        self._version += 1
        self._waiters.wake_all()


class ChangeWaiters:
    """Asyncio waiters that any thread can wake: the no-polling half of ``wait_for_change``.

    Used by stores that learn of changes by being told (the memory store's own writes, PostgreSQL's
    LISTEN/NOTIFY thread) rather than by polling.
    """

    def __init__(self) -> None:
        self._waiters: set[tuple[asyncio.AbstractEventLoop, asyncio.Future]] = set()

    async def wait(self, lock: Any, current: Callable[[], object], marker: object, timeout: float) -> None:
        """Return when woken or after ``timeout`` s; at once if ``current()`` already differs from
        ``marker``. ``current`` is read and the waiter registered under ``lock``, the lock the
        waking side holds, so no wake-up is lost in between."""
        import asyncio

        loop = asyncio.get_running_loop()
        future: asyncio.Future = loop.create_future()
        waiter = (loop, future)
        with lock:
            if current() != marker:
                return
            self._waiters.add(waiter)
        try:
            await asyncio.wait({future}, timeout=max(0.0, timeout))
        finally:
            with lock:
                self._waiters.discard(waiter)

    def wake_all(self) -> None:
        """Wake every waiter, on whatever loop or thread it waits. The caller holds the lock."""
        for loop, future in list(self._waiters):
            try:
                loop.call_soon_threadsafe(_resolve, future)
            except RuntimeError:  # that loop is closed; nobody is listening any more
                self._waiters.discard((loop, future))


def _resolve(future: asyncio.Future) -> None:
    if not future.done():
        future.set_result(None)


# --------------------------------------------------------------------------------------------------
# SQLite store

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
    ) -> None:
        self.path = Path(path).expanduser()
        self.busy_timeout = busy_timeout
        self.poll_interval = poll_interval
        self._lock = threading.RLock()
        self._writes = 0  # own commits: PRAGMA data_version ignores them
        self._conn: sqlite3.Connection | None = self._connect()

    def __repr__(self) -> str:
        return f"SqliteStore({str(self.path)!r})"

    # -- opening ---------------------------------------------------------------------------------

    def _connect(self) -> sqlite3.Connection:
        """Open the file, creating parent directories and the schema; clear StoreError on failure."""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"Cannot create the folder for the table store {self.path}: {exc}") from None
        try:
            conn = sqlite3.connect(
                str(self.path), timeout=self.busy_timeout, isolation_level=None, check_same_thread=False
            )
        except sqlite3.Error as exc:
            raise StoreError(f"Cannot open the table store {self.path}: {exc}") from None
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
                    f"The table store {self.path} was written by a newer version of dichotomy "
                    f"(schema {version}, this one knows {SCHEMA_VERSION}); upgrade dichotomy_widget."
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
                raise StoreError(
                    f"{self.path} is an SQLite file but not a dichotomy table store "
                    f"(table {name!r} has columns {sorted(found)})."
                )

    # -- plumbing --------------------------------------------------------------------------------

    def _error(self, action: str, exc: sqlite3.Error) -> StoreError:
        """Turn an sqlite3 error into a StoreError that names the file."""
        text = str(exc)
        if isinstance(exc, sqlite3.DatabaseError) and "not a database" in text.lower():
            return StoreError(f"{self.path} is not a dichotomy table store (not an SQLite database).")
        if isinstance(exc, sqlite3.DatabaseError) and "malformed" in text.lower():
            return StoreError(f"The table store {self.path} is corrupt ({text}).")
        if isinstance(exc, sqlite3.OperationalError) and _is_busy(exc):
            return StoreError(
                f"The table store {self.path} stayed busy for over {self.busy_timeout:g} s ({text})."
            )
        return StoreError(f"Cannot {action} in the table store {self.path}: {text}")

    @contextmanager
    def _connection(self, action: str) -> Iterator[sqlite3.Connection]:
        """The connection under the lock; sqlite3 errors become StoreError."""
        with self._lock:
            if self._conn is None:
                raise StoreError(f"The table store {self.path} is closed.")
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

    # -- TableStore ------------------------------------------------------------------------------

    def create_table(self, table_id: str, meta: dict) -> None:
        """Create an empty table; :class:`TableExists` if the code is taken."""
        _check_table_id(table_id)
        meta_json = _to_json(meta, "table meta")
        with self._transaction("create a table") as conn:
            cursor = conn.execute(
                "INSERT OR IGNORE INTO tables (table_id, meta, created_at) VALUES (?, ?, ?)",
                (table_id, meta_json, time.time()),
            )
            if cursor.rowcount != 1:
                raise _exists(table_id)

    def table_meta(self, table_id: str) -> dict:
        """The ``meta`` given at creation; :class:`TableNotFound` if missing."""
        _check_table_id(table_id)
        with self._connection("read a table") as conn:
            row = conn.execute("SELECT meta FROM tables WHERE table_id = ?", (table_id,)).fetchone()
        if row is None:
            raise _not_found(table_id)
        return self._decode(row[0], table_id)

    def table_exists(self, table_id: str) -> bool:
        """Whether a table with that code exists."""
        _check_table_id(table_id)
        with self._connection("read a table") as conn:
            return conn.execute("SELECT 1 FROM tables WHERE table_id = ?", (table_id,)).fetchone() is not None

    def append(self, table_id: str, expected_seq: int, events: list[tuple[str, dict]]) -> list[Record]:
        """Atomically append ``events`` as ``expected_seq + 1, ...``; :class:`VersionConflict` if stale."""
        _check_table_id(table_id)
        _check_seq(expected_seq, "expected_seq")
        encoded = _encode_events(events)
        now = time.time()
        rows = [(table_id, expected_seq + i, t, p, now) for i, (t, p) in enumerate(encoded, start=1)]
        if not rows:  # nothing to write: only check the version, commit nothing
            actual = self.last_seq(table_id)
            if actual != expected_seq:
                raise _conflict(table_id, expected_seq, actual)
            return []
        with self._transaction("append events") as conn:
            actual = self._last_seq(conn, table_id)
            if actual != expected_seq:
                raise _conflict(table_id, expected_seq, actual)
            try:
                conn.executemany(
                    "INSERT INTO events (table_id, seq, type, payload, created_at) VALUES (?, ?, ?, ?, ?)",
                    rows,
                )
            except sqlite3.IntegrityError:  # impossible under BEGIN IMMEDIATE; never duplicate a seq
                raise _conflict(table_id, expected_seq, -1) from None
        return [Record(table_id, seq, t, json.loads(p), now) for _, seq, t, p, now in rows]

    def load(self, table_id: str, after_seq: int = 0) -> list[Record]:
        """Events with ``seq > after_seq`` in order; :class:`TableNotFound` if missing."""
        _check_table_id(table_id)
        _check_seq(after_seq, "after_seq")
        with self._connection("load events") as conn:
            rows = conn.execute(
                "SELECT seq, type, payload, created_at FROM events"
                " WHERE table_id = ? AND seq > ? ORDER BY seq",
                (table_id, after_seq),
            ).fetchall()
            if not rows and not self._has_table(conn, table_id):
                raise _not_found(table_id)
        return [Record(table_id, seq, t, self._decode(p, table_id), at) for seq, t, p, at in rows]

    def last_seq(self, table_id: str) -> int:
        """Sequence number of the last event (0 for none); :class:`TableNotFound` if missing."""
        _check_table_id(table_id)
        with self._connection("read a table") as conn:
            return self._last_seq(conn, table_id)

    def change_marker(self) -> object:
        """``(PRAGMA data_version, own commits)``: differs after any commit by anyone."""
        with self._connection("check for changes") as conn:
            return (conn.execute("PRAGMA data_version").fetchone()[0], self._writes)

    async def wait_for_change(self, marker: object, timeout: float) -> object:
        """Poll :meth:`change_marker` every ``poll_interval`` s until it differs or ``timeout`` passes."""
        import asyncio

        loop = asyncio.get_running_loop()
        deadline = loop.time() + max(0.0, timeout)
        while True:
            current = self.change_marker()
            remaining = deadline - loop.time()
            if current != marker or remaining <= 0:
                return current
            await asyncio.sleep(min(self.poll_interval, remaining))

    def close(self) -> None:
        """Close the connection; idempotent."""
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    # -- helpers ---------------------------------------------------------------------------------

    def _last_seq(self, conn: sqlite3.Connection, table_id: str) -> int:
        """Last seq; tables are never deleted, so the existence check is needed only for 0."""
        last = conn.execute("SELECT MAX(seq) FROM events WHERE table_id = ?", (table_id,)).fetchone()[0]
        if last is None and not self._has_table(conn, table_id):
            raise _not_found(table_id)
        return last or 0

    @staticmethod
    def _has_table(conn: sqlite3.Connection, table_id: str) -> bool:
        return conn.execute("SELECT 1 FROM tables WHERE table_id = ?", (table_id,)).fetchone() is not None

    def _decode(self, text: str, table_id: str) -> dict:
        return _decode_record(text, str(self.path), table_id)


def _decode_record(text: str, where: str, table_id: str) -> dict:
    """A stored JSON object (payload or meta); a clear :class:`StoreError` if the record is corrupt."""
    try:
        value = json.loads(text)
    except ValueError:
        value = None
    if not isinstance(value, dict):
        raise StoreError(f"The table store {where} holds a corrupt record for table {table_id}.")
    return value


def _rollback(conn: sqlite3.Connection) -> None:
    """Roll back if a transaction is open; never raise (the original error matters more)."""
    if conn.in_transaction:
        try:
            conn.execute("ROLLBACK")
        except sqlite3.Error:
            pass


# --------------------------------------------------------------------------------------------------
# Opening by URL or path

_MEMORY_NAMES = {"", "memory", ":memory:", "memory://", "mem://"}


def default_store_path() -> Path:
    """``tables.sqlite3`` in the user's data directory (``platformdirs.user_data_dir("dichotomy")``)."""
    import platformdirs

    return Path(platformdirs.user_data_dir("dichotomy")) / "tables.sqlite3"


def _looks_like_dsn(text: str) -> bool:
    """True for libpq ``key=value`` strings such as ``host=db dbname=game``."""
    return "=" in text and any(text.startswith(k + "=") or f" {k}=" in text
                               for k in ("host", "dbname", "user", "port", "password"))


def open_store(url_or_path: str | os.PathLike[str] | None = None) -> TableStore:
    """Open a store from ``None``/``"memory"``, a file path, ``sqlite:///path`` or ``postgresql://...``.

    ``sqlite://`` with no path opens :func:`default_store_path`. A libpq ``key=value`` connection
    string is refused (use a ``postgresql://`` URL) rather than taken for a file name.
    """
    if url_or_path is None:
        return MemoryStore()
    if not isinstance(url_or_path, str):
        return SqliteStore(os.fspath(url_or_path))
    text = url_or_path.strip()
    if text.lower() in _MEMORY_NAMES:
        return MemoryStore()
    scheme, sep, rest = text.partition("://")
    if not sep:
        if _looks_like_dsn(text):
            raise StoreError("That looks like a PostgreSQL key=value connection string; "
                             "write it as a URL: postgresql://user@host:5432/dbname")
        return SqliteStore(text)
    return _open_url(scheme.lower(), rest, text)


def _open_url(scheme: str, rest: str, url: str) -> TableStore:
    if scheme in ("sqlite", "sqlite3", "file"):
        if rest.startswith("//"):  # sqlite:////abs/path
            rest = rest[1:]
        return SqliteStore(rest or default_store_path())
    if scheme.split("+")[0] in ("postgres", "postgresql"):
        from .store_postgres import PostgresStore  # imports psycopg lazily; if missing: StoreError with the pip command

        return PostgresStore(url)
    raise StoreError(f"Unknown table store {url!r}: use 'memory', a file path or sqlite:///path.")
