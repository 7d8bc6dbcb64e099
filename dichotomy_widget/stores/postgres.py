"""PostgreSQL table store, for deployments whose kernels run on several machines.

:class:`PostgresStore` implements :class:`~dichotomy_widget.stores.TableStore` exactly like
:class:`~dichotomy_widget.stores.SqliteStore` (same errors, same records, same conformance tests), on
one shared PostgreSQL database, with psycopg 3::

    store = PostgresStore("postgresql://dichotomy:secret@db.school.lan/dichotomy")

Schema (created on first use, idempotently, under an advisory lock so that many kernels starting at
once do not race)::

    dichotomy_schema (version)                                    -- one row: SCHEMA_VERSION
    dichotomy_tables (table_id PK, meta, created_at)
    dichotomy_events (table_id FK, seq, type, payload, created_at, PRIMARY KEY (table_id, seq))

``meta`` and ``payload`` are JSON text exactly as the SQLite store writes it (TEXT keeps key order
and the escaped lone surrogates that JSONB would refuse). The tables go in the first schema of the
connection's ``search_path`` (add ``?options=-csearch_path%3Dmyschema`` to the URL to pick one).

Writes are single statements (so each is its own transaction and costs one round trip): an append
checks the table's last ``seq``, inserts the events and sends ``NOTIFY dichotomy_events`` only if the
check passed; two writers racing past the check collide on the primary key and the loser gets
:class:`VersionConflict` with nothing written.

Two connection models:

* **Listening** (a notebook, a script, one kernel): the store's one connection also ``LISTEN``\\ s on
  ``dichotomy_events``, as described below.
* **Relayed** (``relay_dir``: the kernels of ``dichotomy serve``): the server process LISTENs once
  (:mod:`.pg_relay`) and appends each change to a file the store watches (inotify); the store's
  connection is opened only while it is used, under one of the server's connection slots
  (:mod:`.pg_slots`), and closed after ``linger`` s idle or at once when another kernel waits for a slot.
  The relay also passes on the new events themselves: a kernel's first read of a table after the
  relay told it of a change is served from those (no connection, no slot), unless the kernel knows of
  a later event (its own write, a conflict) that the relay has not passed on yet. PostgreSQL then sees at most ``servers ×
  pool`` kernel connections plus one per server, whatever the number of seats, and the store works
  through PgBouncer in transaction mode (no session state; no named prepared statements when the
  server was told of the pooler with ``--pg-listen-url``).

Change notification when listening: the store's one connection also ``LISTEN``\\ s on ``dichotomy_events``. A daemon
thread sleeps in ``epoll``/``select`` on the connection's socket (no polling, no CPU while idle) and bumps a
counter for each notification from another session; own writes bump it directly. ``change_marker()``
makes one round trip first, so a commit acknowledged to another writer is always seen.

psycopg is imported when a store is created, never when this module or the package is imported.
"""

from __future__ import annotations

import json
import logging
import os
import re
import selectors
import socket
import threading
import time
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Callable, Iterator
from urllib.parse import unquote

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
from ..logs import failure, log_failure
from .pg_slots import EVENT_LINE

log = logging.getLogger(__name__)

if TYPE_CHECKING:  # pragma: no cover

    import psycopg

__all__ = ["PostgresStore", "CHANNEL", "INSTALL_HINT", "LINGER", "redact", "normalize_dsn", "describe_dsn"]

#: The NOTIFY channel every write signals (payload: the table code).
CHANNEL = "dichotomy_events"

#: What to run when psycopg is missing.
INSTALL_HINT = 'pip install "dichotomy_widget[postgres]"'

#: Seconds to wait for the server when connecting, unless the DSN says otherwise.
DEFAULT_CONNECT_TIMEOUT = 10
#: Seconds a watching table may sleep between two safety-net re-reads (a missed notification costs at
#: most this; a dropped connection wakes the waiters itself). Every wake of an idle kernel costs CPU
#: and a round trip, and notifications wake it for every change, so this is long.
RECHECK_EVERY = 30.0

#: Relayed: seconds a kernel keeps its connection (and its slot) after the last use while no other
#: kernel of the server waits for a slot (then it goes back after the current query): a kernel in play
#: keeps it between moves (a new connection costs ~15 ms of authentication here, which a change after a
#: longer pause paid on top of its wake: moves are often 5-60 s apart), an idle page lets it go. Holding
#: costs no wake-ups: the kernel sleeps until the linger is over or a kernel asks for a slot.
LINGER = 60.0
#: Relayed: seconds idle after which a connection goes back at once if another kernel waits for a slot.
CONTENDED_IDLE = 0.1

#: Key of the advisory lock held while creating the schema (any constant; "dich" in ASCII).
_SCHEMA_LOCK = 0x64696368

_BIGINT_MAX = 2**63 - 1

_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS dichotomy_schema (
        version INTEGER NOT NULL
    )""",
    """CREATE TABLE IF NOT EXISTS dichotomy_tables (
        table_id TEXT PRIMARY KEY,
        meta TEXT NOT NULL,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now()
    )""",
    """CREATE TABLE IF NOT EXISTS dichotomy_events (
        table_id TEXT NOT NULL REFERENCES dichotomy_tables (table_id),
        seq BIGINT NOT NULL CHECK (seq > 0),
        type TEXT NOT NULL,
        payload TEXT NOT NULL,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        PRIMARY KEY (table_id, seq)
    )""",
)

_EXPECTED_COLUMNS = {
    "dichotomy_schema": {"version"},
    "dichotomy_tables": {"table_id", "meta", "created_at"},
    "dichotomy_events": {"table_id", "seq", "type", "payload", "created_at"},
}

# One statement = one transaction = one round trip. ``state`` reads whether the table exists and its
# last seq; ``ins`` inserts only if the caller's expected seq is that last seq; ``note`` notifies
# only if something was inserted. A concurrent writer that passed the same check makes the insert
# fail on the primary key (after waiting for that writer's commit): a conflict, nothing written.
_APPEND = f"""
WITH state AS (
    SELECT EXISTS (SELECT 1 FROM dichotomy_tables WHERE table_id = %(t)s) AS found,
           COALESCE((SELECT MAX(seq) FROM dichotomy_events WHERE table_id = %(t)s), 0) AS last
), ins AS (
    INSERT INTO dichotomy_events (table_id, seq, type, payload)
    SELECT %(t)s, %(e)s::bigint + u.n, u.type, u.payload
    FROM state, unnest(%(types)s::text[], %(payloads)s::text[]) WITH ORDINALITY AS u (type, payload, n)
    WHERE state.found AND state.last = %(e)s::bigint
    RETURNING seq, EXTRACT(EPOCH FROM created_at)::float8 AS at
), note AS (
    SELECT pg_notify('{CHANNEL}', left(%(t)s, 200)) FROM (SELECT 1 FROM ins LIMIT 1) AS any_row
)
SELECT found, last, (SELECT count(*) FROM ins), (SELECT min(at) FROM ins), (SELECT count(*) FROM note)
FROM state
"""

_CREATE = f"""
WITH ins AS (
    INSERT INTO dichotomy_tables (table_id, meta) VALUES (%(t)s, %(m)s)
    ON CONFLICT (table_id) DO NOTHING
    RETURNING 1
)
SELECT count(*) FROM (SELECT pg_notify('{CHANNEL}', '+' || left(%(t)s, 200)) FROM ins) AS done
"""

_STATE = """
SELECT EXISTS (SELECT 1 FROM dichotomy_tables WHERE table_id = %(t)s),
       COALESCE((SELECT MAX(seq) FROM dichotomy_events WHERE table_id = %(t)s), 0)
"""


# --------------------------------------------------------------------------------------------------
# DSN handling: never show a password


_URL_PASSWORD = re.compile(r"(?P<head>[a-z][a-z0-9+.-]*://[^:/?#@\s]*):(?P<pw>[^@/?#\s]*)@", re.I)
_KV_PASSWORD = re.compile(r"(?P<head>(?<![?&])\bpassword\s*=\s*)(?P<pw>'(?:[^'\\]|\\.)*'|\S+)", re.I)


def _normalize_dsn(dsn: str) -> str:
    """``postgresql+psycopg://`` (SQLAlchemy style) and ``postgres://`` become ``postgresql://``."""
    match = re.match(r"^\s*(postgres|postgresql)(\+[a-z0-9_]+)?://", dsn, re.I)
    if match:
        return "postgresql://" + dsn[match.end():]
    return dsn.strip()


def _passwords(dsn: str) -> list[str]:
    """Every password-looking value in ``dsn`` (raw and URL-decoded), longest first."""
    found: set[str] = set()
    for pattern in (_URL_PASSWORD, _KV_PASSWORD):
        for match in pattern.finditer(dsn):
            value = match.group("pw").strip("'")
            found.update(v for v in (value, unquote(value)) if v)
    for match in re.finditer(r"[?&]password=([^&#]*)", dsn, re.I):
        found.update(v for v in (match.group(1), unquote(match.group(1))) if v)
    return sorted(found, key=len, reverse=True)


def redact(text: str, dsn: str = "") -> str:
    """``text`` with the DSN's password (and any URL/keyword password) replaced by ``***``."""
    for secret in _passwords(dsn):
        text = text.replace(secret, "***")
    text = _URL_PASSWORD.sub(lambda m: f"{m.group('head')}:***@", text)
    text = _KV_PASSWORD.sub(lambda m: f"{m.group('head')}***", text)
    return re.sub(r"([?&]password=)[^&#\s]*", r"\1***", text, flags=re.I)


def _describe(dsn: str) -> str:
    """``postgresql://user@host:port/db`` for messages: no password, no other options."""
    try:
        from psycopg.conninfo import conninfo_to_dict

        parts = conninfo_to_dict(dsn)
    except Exception:  # noqa: BLE001 - a malformed DSN: show it redacted
        return redact(dsn, dsn)
    user = f"{parts['user']}@" if parts.get("user") else ""
    host = str(parts.get("host") or parts.get("hostaddr") or "")  # empty: the default (Unix socket)
    if ":" in host and "," not in host and not host.startswith("["):
        host = f"[{host}]"  # IPv6
    port = f":{parts['port']}" if parts.get("port") else ""
    db = f"/{parts['dbname']}" if parts.get("dbname") else ""
    return f"postgresql://{user}{host}{port}{db}"  # built from parts: the password is not among them


#: Public names for the server's change relay (:mod:`.pg_relay`).
normalize_dsn = _normalize_dsn
describe_dsn = _describe


# --------------------------------------------------------------------------------------------------
# The store


class PostgresStore(ClosingStore):
    """Store in one PostgreSQL database, shared by kernels on any number of machines.

    One connection (autocommit, guarded by a lock) serves every call and LISTENs for changes; a daemon
    thread reads notifications as they arrive. After a lost connection the next call reconnects
    (reads are retried once; a write whose fate is unknown raises :class:`StoreError`).
    """

    def __init__(self, dsn: str, *, connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
                 relay_dir: str | os.PathLike[str] | None = None, linger: float = LINGER) -> None:
        if not isinstance(dsn, str) or not dsn.strip():
            raise StoreError("A PostgreSQL table store needs a connection string (postgresql://user@host/db).")
        try:
            import psycopg  # noqa: F401  (lazy: importing dichotomy_widget must stay cheap)
        except ImportError:
            raise StoreError("The PostgreSQL table store needs psycopg 3: {hint}", params={"hint": INSTALL_HINT}) from None
        self._dsn = _normalize_dsn(dsn)
        self.url = _describe(self._dsn)  # safe to show: no password
        self.connect_timeout = connect_timeout
        self.connects = 0  # connections opened (for benches and tests)
        self._lock = threading.RLock()
        self._conn: psycopg.Connection | None = None
        self._pid = 0  # backend pid of our connection: its own notifications are not news
        self._version = 0  # the change marker
        self._closed = False
        self._waiters = ChangeWaiters()
        self._wake_r, self._wake_w = socket.socketpair()  # wakes the listener thread (close, reconnect)
        self._wake_r.setblocking(False)
        self._wake_w.setblocking(False)
        self._schema_ok = False
        self.linger = linger
        self._relay: _RelayFeed | None = None
        if relay_dir is not None:
            self._relay = _RelayFeed(self, relay_dir)
            if not self._relay.start():
                log.warning("cannot watch %s; this kernel listens on its own connection", relay_dir)
                self._relay = None
        try:
            with self._lock:
                self._connect()
        except BaseException:
            self._wake_r.close()
            self._wake_w.close()
            if self._relay is not None:
                self._relay.stop()
            raise
        if self._relay is not None:
            self._thread = threading.Thread(target=self._relay.reap_loop, name=f"dichotomy-pg-idle {self.url}",
                                            daemon=True)
        else:
            self._thread = threading.Thread(target=self._listen_loop, name=f"dichotomy-pg-listen {self.url}",
                                            daemon=True)
        self._thread.start()

    @property
    def relayed(self) -> bool:
        """True when the server process listens for this store (``relay_dir``), False when it listens itself."""
        return self._relay is not None

    def __repr__(self) -> str:
        return f"PostgresStore({self.url!r})"

    # -- connecting ------------------------------------------------------------------------------

    def _error(self, action: str, exc: BaseException) -> StoreError:
        """A StoreError naming the server (never its password) and what failed."""
        text = " ".join(str(exc).split()) or type(exc).__name__
        return StoreError(redact(f"Cannot {action} in the table store {self.url}: {text}", self._dsn))  # untranslated: developer-only

    def _connect(self) -> None:
        """Open the connection, create/check the schema, LISTEN. Lock held."""
        import psycopg

        kwargs: dict[str, Any] = {"autocommit": True}
        if "connect_timeout" not in self._dsn:
            kwargs["connect_timeout"] = max(1, int(round(self.connect_timeout)))
        relay = self._relay
        if relay is not None:
            relay.slots.acquire(self.connect_timeout)  # the server's budget: wait for a free connection
        try:
            conn = psycopg.connect(self._dsn, **kwargs)
        except psycopg.Error as exc:
            if relay is not None:
                relay.slots.release()
            raise self._error("connect", exc) from None
        except Exception as exc:  # malformed DSN and the like  # noqa: BLE001
            if relay is not None:
                relay.slots.release()
            raise self._error("connect", exc) from None
        try:
            if relay is not None and relay.pooler:
                conn.prepare_threshold = None  # PgBouncer in transaction mode: no named prepared statements
            if not self._schema_ok:
                self._prepare(conn)
                self._schema_ok = True
            if relay is None:
                conn.add_notify_handler(self._on_notify)
                conn.execute(f"LISTEN {CHANNEL}")
        except StoreError:
            conn.close()
            if relay is not None:
                relay.slots.release()
            raise
        except psycopg.Error as exc:
            conn.close()
            if relay is not None:
                relay.slots.release()
            raise self._error("open", exc) from None
        self._conn = conn
        self._pid = conn.info.backend_pid
        self.connects += 1
        if relay is not None:
            relay.opened()
        else:
            self._wake_listener()

    def _prepare(self, conn: psycopg.Connection) -> None:
        """Create the schema if missing (once, under an advisory lock) and check it."""
        version = self._schema_version(conn)
        self._check_not_newer(version)
        if version == SCHEMA_VERSION:
            self._check_columns(conn)
            return
        with conn.transaction():  # a foreign schema found by the check is rolled back, not "upgraded"
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (_SCHEMA_LOCK,))
            version = self._schema_version(conn)  # another process may have just done it
            self._check_not_newer(version)
            if version != SCHEMA_VERSION:
                for statement in _SCHEMA:
                    conn.execute(statement)
                conn.execute("DELETE FROM dichotomy_schema")
                conn.execute("INSERT INTO dichotomy_schema (version) VALUES (%s)", (SCHEMA_VERSION,))
            self._check_columns(conn)

    def _check_not_newer(self, version: int | None) -> None:
        if version is not None and version > SCHEMA_VERSION:
            raise StoreError(
                "The table store {path} was written by a newer version of dichotomy "
                "(schema {version}, this one knows {known}); upgrade dichotomy_widget.",
                params={"path": self.url, "version": version, "known": SCHEMA_VERSION},
            )

    def _check_columns(self, conn: psycopg.Connection) -> None:
        for name, expected in _EXPECTED_COLUMNS.items():
            found = {
                row[0]
                for row in conn.execute(
                    "SELECT attname FROM pg_attribute"
                    " WHERE attrelid = to_regclass(%s) AND attnum > 0 AND NOT attisdropped",
                    (name,),
                )
            }
            if not expected <= found:
                raise StoreError(  # untranslated: developer-only
                    f"The database {self.url} has a table {name!r} that is not a dichotomy table "
                    f"store's (columns {sorted(found)})."
                )

    @staticmethod
    def _schema_version(conn: psycopg.Connection) -> int | None:
        """The stored schema version; None if the schema is missing (or has no version row)."""
        if conn.execute("SELECT to_regclass('dichotomy_schema') IS NOT NULL").fetchone()[0] is not True:
            return None
        row = conn.execute("SELECT max(version) FROM dichotomy_schema").fetchone()
        return None if row is None else row[0]

    @contextmanager
    def _connection(self, action: str) -> Iterator[psycopg.Connection]:
        """The live connection under the lock (reconnecting if it was lost); psycopg errors become StoreError."""
        import psycopg

        with self._lock:
            if self._closed:
                raise StoreError("The table store {path} is closed.", params={"path": self.url})
            if self._conn is None or self._conn.closed or self._conn.broken:
                self._drop_connection()
                self._connect()
            conn = self._conn
            assert conn is not None
            try:
                yield conn
            except psycopg.DataError as exc:
                if "0x00" in str(exc) or "NUL" in str(exc):
                    raise StoreError("Table codes, event types and texts must not contain NUL characters.") from None
                raise self._error(action, exc) from None
            except psycopg.Error as exc:
                if conn.broken or conn.closed:
                    self._drop_connection()
                raise self._error(action, exc) from None
            finally:
                if self._relay is not None:
                    self._relay.used()  # close it after `linger` s idle

    def _read(self, action: str, query: str, params: dict, fetch: str = "one") -> Any:
        """Run a read-only query; if the connection had broken, reconnect and try once more."""

        def run(conn: Any) -> Any:
            cur = conn.execute(query, params)
            return cur.fetchone() if fetch == "one" else cur.fetchall()

        return self._retrying(action, run)

    def _retrying(self, action: str, work: Callable[[Any], Any]) -> Any:
        """``work(conn)`` on the connection; after a broken connection, reconnect and run it once more.

        Only for work that is safe to repeat (reads); an append cut off mid-flight is not retried.
        """
        for attempt in (1, 2):
            try:
                with self._connection(action) as conn:
                    return work(conn)
            except StoreError:
                with self._lock:
                    lost = self._conn is None and not self._closed
                if attempt == 2 or not lost:
                    raise
        raise AssertionError("unreachable")  # pragma: no cover

    def _drop_connection(self) -> None:
        """Forget a broken connection (the next call reconnects) and wake waiters. Lock held."""
        conn, self._conn = self._conn, None
        if conn is not None:
            try:
                conn.close()
            except Exception:  # noqa: BLE001
                pass
            self._changed()  # notifications may be missed until the reconnection: reload then
        if self._relay is not None:
            self._relay.slots.release()
        self._wake_listener()

    # -- TableStore ------------------------------------------------------------------------------

    def create_table(self, table_id: str, meta: dict) -> None:
        """Create an empty table; :class:`TableExists` if the code is taken."""
        check_table_id(table_id)
        self._follow(table_id)
        meta_json = to_json(meta, "table meta")
        with self._connection("create a table") as conn:
            created = conn.execute(_CREATE, {"t": table_id, "m": meta_json}).fetchone()[0]
            if created != 1:
                raise exists_error(table_id)
            self._changed()

    def table_meta(self, table_id: str) -> dict:
        """The ``meta`` given at creation; :class:`TableNotFound` if missing."""
        check_table_id(table_id)
        self._follow(table_id)
        row = self._read("read a table", "SELECT meta FROM dichotomy_tables WHERE table_id = %(t)s", {"t": table_id})
        if row is None:
            raise not_found_error(table_id)
        return self._decode(row[0], table_id)

    def table_exists(self, table_id: str) -> bool:
        """Whether a table with that code exists."""
        check_table_id(table_id)
        self._follow(table_id)
        row = self._read("read a table", "SELECT 1 FROM dichotomy_tables WHERE table_id = %(t)s", {"t": table_id})
        return row is not None

    def append(self, table_id: str, expected_seq: int, events: list[tuple[str, dict]]) -> list[Record]:
        """Atomically append ``events`` as ``expected_seq + 1, ...``; :class:`VersionConflict` if stale."""
        import psycopg

        check_table_id(table_id)
        self._follow(table_id)
        check_seq(expected_seq, "expected_seq")
        encoded = encode_events(events)
        if not encoded or expected_seq + len(encoded) > _BIGINT_MAX:  # nothing to write: check only
            actual = self.last_seq(table_id)
            if actual != expected_seq or encoded:
                raise conflict_error(table_id, expected_seq, actual)
            return []
        params = {
            "t": table_id,
            "e": expected_seq,
            "types": [t for t, _ in encoded],
            "payloads": [p for _, p in encoded],
        }
        with self._connection("append events") as conn:  # connecting fails here, before anything is sent
            try:
                found, last, inserted, at, _ = conn.execute(_APPEND, params).fetchone()
            except psycopg.errors.UniqueViolation:  # another writer got there first
                found, last, inserted, at = True, None, 0, None
            except psycopg.OperationalError as exc:
                if not (conn.broken or conn.closed):
                    raise
                self._drop_connection()
                lost = (f"{self._error('append events', exc).message} -- the connection was lost, so the events "
                        "may or may not have been written; reload the table.")  # untranslated: developer-only
                raise StoreError(lost) from None
            if inserted:
                self._changed()
        if not found:
            raise not_found_error(table_id)
        if inserted != len(encoded):
            actual = self.last_seq(table_id) if last is None else int(last)
            self._known(table_id, actual)
            raise conflict_error(table_id, expected_seq, actual)
        self._known(table_id, expected_seq + len(encoded))
        return [
            JsonRecord(table_id, expected_seq + i, t, p, at)  # decoded when read
            for i, (t, p) in enumerate(encoded, start=1)
        ]

    def load(self, table_id: str, after_seq: int = 0) -> list[Record]:
        """Events with ``seq > after_seq`` in order; :class:`TableNotFound` if missing."""
        check_table_id(table_id)
        self._follow(table_id)
        check_seq(after_seq, "after_seq")
        if self._relay is not None:
            relayed = self._relay.relayed(table_id, after_seq)
            if relayed is not None:
                return [Record(table_id, seq, t, self._decode(p, table_id), at) for seq, t, p, at in relayed]
        rows = self._read(
            "load events",
            "SELECT seq, type, payload, EXTRACT(EPOCH FROM created_at)::float8 FROM dichotomy_events"
            " WHERE table_id = %(t)s AND seq > %(a)s::bigint ORDER BY seq",
            {"t": table_id, "a": min(after_seq, _BIGINT_MAX)},
            fetch="all",
        )
        if not rows and not self.table_exists(table_id):
            raise not_found_error(table_id)
        if rows:
            self._known(table_id, rows[-1][0])
        return [Record(table_id, seq, t, self._decode(p, table_id), at) for seq, t, p, at in rows]

    def last_seq(self, table_id: str) -> int:
        """Sequence number of the last event (0 for none); :class:`TableNotFound` if missing."""
        check_table_id(table_id)
        self._follow(table_id)
        found, last = self._read("read a table", _STATE, {"t": table_id})
        if not found:
            raise not_found_error(table_id)
        self._known(table_id, int(last))
        return int(last)

    def change_marker(self) -> object:
        """A counter bumped by every notification from another session and by every own write.

        Listening: one round trip first, which makes the server hand over notifications of commits
        that were already acknowledged to their writers. Relayed: no round trip; another writer's
        commit bumps it once the server's relay has passed it on (milliseconds), which is enough for
        the take-the-marker-then-read pattern of :meth:`Table.watch`: a change committed before the
        marker is in the read, one after it wakes the wait.
        """

        if self._relay is not None:  # the relay's file is the feed: no round trip
            with self._lock:
                if self._closed:
                    raise StoreError("The table store {path} is closed.", params={"path": self.url})
                self._relay.read()
                return self._version

        def check(conn: Any) -> object:
            conn.execute("SELECT 1")
            self._drain(conn)
            return self._version

        return self._retrying("check for changes", check)

    async def wait_for_change(self, marker: object, timeout: float) -> object:
        """Sleep (no polling) until a notification or own write bumps the marker, or ``timeout`` passes."""
        # check and register under the lock the listener thread holds to bump the marker; the check
        # has made its round trip, so the marker is read without another one (a wake costs one less)
        await self._waiters.wait(self._lock, self.change_marker, marker, timeout)
        with self._lock:
            if not self._closed:
                return self._version
        return self.change_marker()  # closed meanwhile: it says so

    @property
    def trouble_every(self) -> float:
        """Seconds a watching table may wait before it looks again without being told: NOTIFY wakes it
        for every change and :meth:`write_trouble` has nothing to find, so only the safety net."""
        return RECHECK_EVERY

    def write_trouble(self) -> StoreError | None:
        """None: the server cannot be asked without writing, so only the page whose action failed
        shows a full or read-only database."""
        return None

    def close(self) -> None:
        """Close the connection, stop the listener thread, wake waiters; idempotent."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            conn, self._conn = self._conn, None
            self._changed()
            self._wake_listener()
            if self._relay is not None:
                self._relay.closing()
        if self._thread is not threading.current_thread():
            self._thread.join(timeout=5)
        if self._relay is not None:
            self._relay.stop()
        if conn is not None:
            try:
                conn.close()
            except Exception:  # noqa: BLE001
                pass
        for sock in (self._wake_r, self._wake_w):
            sock.close()

    # -- change notification ---------------------------------------------------------------------

    def _follow(self, table_id: str) -> None:
        """Relayed: wake this store's waiters for changes to ``table_id`` from now on."""
        if self._relay is not None:
            self._relay.follow(table_id)

    def _known(self, table_id: str, seq: int) -> None:
        """Relayed: ``table_id`` has events up to ``seq`` (read or written here)."""
        if self._relay is not None:
            self._relay.known(table_id, seq)

    def _changed(self) -> None:
        """Bump the marker and wake every waiter, on whatever loop it waits. Lock held."""
        self._version += 1
        self._waiters.wake_all()

    def _on_notify(self, notify: Any) -> None:
        """psycopg's handler for notifications read while running a query. Lock held."""
        if notify.pid != self._pid:
            self._changed()

    def _drain(self, conn: psycopg.Connection) -> None:
        """Read what the socket holds and count the notifications in it. Lock held."""
        pgconn = conn.pgconn
        pgconn.consume_input()
        while (notify := pgconn.notifies()) is not None:
            if notify.be_pid != self._pid:
                self._changed()

    def _wake_listener(self) -> None:
        try:
            self._wake_w.send(b"x")
        except (BlockingIOError, OSError):  # already pending, or closed
            pass

    def _listen_loop(self) -> None:
        """Daemon thread: sleep until the server sends something (no timeout), then count notifications."""
        selector = selectors.DefaultSelector()  # epoll/kqueue: no FD_SETSIZE limit as with select()
        selector.register(self._wake_r, selectors.EVENT_READ)
        watched: Any = None  # the connection whose socket is registered
        watched_fd = -1
        try:
            while True:
                with self._lock:
                    if self._closed:
                        return
                    conn = self._conn
                if conn is not watched:
                    if watched is not None:
                        selector.unregister(watched_fd)
                        watched = None
                    if conn is not None and not conn.closed:
                        try:
                            watched_fd = conn.fileno()
                            selector.register(watched_fd, selectors.EVENT_READ)
                            watched = conn
                        except (OSError, ValueError, KeyError):  # closed meanwhile: look again after a wake-up
                            pass
                try:
                    events = selector.select()
                except OSError:  # pragma: no cover - EINTR is retried by Python; anything else: look again
                    continue
                for key, _ in events:
                    if key.fileobj is self._wake_r:
                        try:
                            while self._wake_r.recv(4096):
                                pass
                        except OSError:  # drained (BlockingIOError) or closed
                            pass
                        continue
                    with self._lock:
                        if self._closed or self._conn is not watched:
                            continue
                        try:
                            self._drain(watched)
                        except Exception:  # noqa: BLE001 - the server went away: reconnect on next use
                            self._drop_connection()
        finally:
            selector.close()

    # -- helpers ---------------------------------------------------------------------------------

    def _decode(self, text: str, table_id: str) -> dict:
        return decode_record(text, self.url, table_id)




#: Relayed: the most events of one table a kernel keeps from the relay's file.
_RELAYED_KEEP = 1000


class _RelayFeed:
    """The relayed half of a :class:`PostgresStore`: the change file and the events it carries, the
    slot, the idle close."""

    #: The last seq of each (relay folder, table) this process has read or written through PostgreSQL,
    #: shared by its stores: events the relay may not have passed on yet.
    _known: dict[tuple[str, str], int] = {}
    _known_lock = threading.Lock()

    def __init__(self, store: PostgresStore, folder: str | os.PathLike[str]) -> None:
        from .file_watch import FileWatch
        from .pg_slots import CHANGES_FILE, POOLER, WANTED, ConnectionSlots

        self.store = store
        self.path = os.path.join(os.fspath(folder), CHANGES_FILE)
        self.slots = ConnectionSlots(folder)
        self.pooler = os.path.exists(os.path.join(os.fspath(folder), POOLER))
        self.tables: set[str] = set()  # the tables this kernel has read or written: the ones it follows
        self.folder = os.fspath(folder)
        #: per followed table, the events the relay passed on (contiguous): (seq, type, payload text, at)
        self.events: dict[str, list[tuple[int, str, str, float]]] = {}
        self.news: set[str] = set()  # tables the relay told of a change not yet read here
        self.hits = 0  # reads served from the relay's events (for benches and tests)
        self.offset = self._size()  # older lines are news to nobody
        self.last_used = 0.0
        self.idle = threading.Condition(store._lock)
        self.watch = FileWatch(folder, {CHANGES_FILE, WANTED}, self._on_notice)  # WANTED: a kernel waits for a slot

    def start(self) -> bool:
        if not self.slots.size:
            log.warning("no connection slots in %s", self.slots.folder)
            return False
        return self.watch.start()

    def stop(self) -> None:
        self.watch.stop()
        self.slots.release()

    def _size(self) -> int:
        try:
            return os.stat(self.path).st_size
        except OSError:
            return 0

    def follow(self, table_id: str) -> None:
        with self.store._lock:
            self.tables.add(table_id)

    def _on_notice(self, _written: bool) -> None:
        with self.store._lock:
            self.read()
            if self.store._conn is not None and self.slots.contended():
                self.idle.notify_all()  # the idle thread gives the slot back if this kernel is idle

    def known(self, table_id: str, seq: int) -> None:
        key = (self.folder, table_id)
        with self._known_lock:
            if seq > self._known.get(key, 0):
                self._known[key] = seq

    def relayed(self, table_id: str, after_seq: int) -> list[tuple[int, str, str, float]] | None:
        """The events after ``after_seq`` from the relay's file, for the first read of a table after the
        relay told of a change to it, if they are all there: no event this process knows of is missing
        (its own writes, a conflict's); else None (read PostgreSQL)."""
        with self.store._lock:
            if self.store._closed:
                return None
            self.read()
            events = self.events.get(table_id)
            if table_id not in self.news or not events:
                return None
            with self._known_lock:
                known = self._known.get((self.folder, table_id), 0)
            first, last = events[0][0], events[-1][0]
            if first > after_seq + 1 or last < max(after_seq, known):
                return None
            self.news.discard(table_id)
            self.hits += 1
            return events[after_seq + 1 - first:]

    def _forget(self) -> None:
        """Anything may have changed: the relayed events are no guide. Lock held."""
        self.events.clear()
        self.news.clear()
        self.store._changed()

    def _take(self, line: str) -> None:
        """Keep one relayed event of a followed table. Lock held."""
        try:
            item = json.loads(line[len(EVENT_LINE):])
            table = item[0]
            if len(item) == 1:  # the relay could not read this table's events: read them from PostgreSQL
                self.events.pop(table, None)
                self.news.discard(table)
                return
            _, seq, kind, payload, at = item
        except (ValueError, TypeError, IndexError) as exc:
            log.warning("a bad line in the change relay %s (%s)", self.path, failure(exc))
            return
        if table not in self.tables:
            return
        events = self.events.setdefault(table, [])
        if events and seq <= events[-1][0]:
            return  # passed on already
        if events and seq != events[-1][0] + 1:
            events.clear()  # a gap: keep only what follows it
        events.append((seq, kind, payload, at))
        if len(events) > _RELAYED_KEEP:
            del events[: len(events) - _RELAYED_KEEP]

    def read(self) -> None:
        """Read the relay's new lines: keep the events of followed tables, and bump the store's marker
        if a line tells of a change to one (not this kernel's own write, already counted). Lock held."""
        from .pg_slots import CREATED, EVERYTHING

        try:
            with open(self.path, "rb") as fh:
                size = os.fstat(fh.fileno()).st_size
                if size < self.offset:  # emptied by the relay: anything may have changed
                    self.offset = 0
                    self._forget()
                fh.seek(self.offset)
                data = fh.read(size - self.offset)
        except OSError as exc:
            log.warning("cannot read the change relay %s (%s)", self.path, failure(exc))
            return
        end = data.rfind(b"\n") + 1  # only whole lines
        self.offset += end
        own = self.store._pid if self.store._conn is not None else -1
        changed = False
        for line in data[:end].decode("utf-8", "replace").split("\n")[:-1]:
            if line.startswith(EVENT_LINE):
                self._take(line)
                continue
            pid, _, table = line.partition(" ")
            if table == EVERYTHING:
                self._forget()
            elif table in self.tables:
                if table in self.events:
                    self.news.add(table)
                changed = changed or pid != str(own)
            elif table.startswith(CREATED) and pid != str(own):
                changed = True
        if changed:
            self.store._changed()

    def opened(self) -> None:
        """A connection was just opened: wake the idle thread to time it. Lock held."""
        self.last_used = time.monotonic()
        self.idle.notify_all()

    def used(self) -> None:
        """The connection was just used: close it after ``linger`` s idle, at once if another kernel
        waits for a slot. Lock held."""
        self.last_used = time.monotonic()  # the idle thread, asleep until the old deadline, sees it then
        if self.slots.contended():
            self._close_connection()

    def closing(self) -> None:
        self.idle.notify_all()

    def _close_connection(self) -> None:
        """Close the idle connection and give its slot back (no change implied). Lock held."""
        conn, self.store._conn = self.store._conn, None
        if conn is not None:
            try:
                conn.close()
            except Exception as err:  # noqa: BLE001 - it is gone either way
                log_failure(log, "closing an idle connection failed", err, level=logging.DEBUG)
        self.slots.release()  # after the close: the budget is never exceeded, not even for a moment

    def reap_loop(self) -> None:
        """Daemon thread: close the connection once it has been idle for ``linger`` s, or for
        :data:`CONTENDED_IDLE` s while another kernel waits for a slot. Sleeps until the linger is over
        or the file watch sees a kernel ask for a slot (no polling while nobody waits)."""
        with self.idle:
            while not self.store._closed:
                if self.store._conn is None:
                    self.idle.wait()
                    continue
                idle = time.monotonic() - self.last_used
                contended = self.slots.contended()
                if idle >= self.store.linger or (idle >= CONTENDED_IDLE and contended):
                    self._close_connection()
                    continue
                self.idle.wait(CONTENDED_IDLE - idle if contended else self.store.linger - idle)
