"""One LISTEN per server: the ``dichotomy serve`` process hears PostgreSQL's change notifications
and passes them to its own kernels through a file, so kernels need no connection of their own.

:class:`ChangeRelay` holds one PostgreSQL connection that ``LISTEN``\\ s on the store's channel. A
daemon thread sleeps in ``select`` on its socket; for each notification it appends one line
``"<backend pid> <table code>\\n"`` (``+code`` for a new table) to ``changes`` in the relay folder,
after the table's new events, which it reads on the same connection (one line each, ``"= " + JSON``:
:data:`~.pg_slots.EVENT_LINE`), so that a kernel woken by that line reads them there, without a
PostgreSQL connection of its own (at most :data:`FAN_OUT_MAX` events per table at once). Each kernel's
:class:`~.postgres.PostgresStore` watches that file with :class:`~.file_watch.FileWatch` (inotify: no
polling), reads the new lines and wakes only the tables it follows. After a lost connection the relay
writes ``"0 *"`` (everything may have changed) and reconnects with a growing pause; every
``keepalive`` s of silence it asks the server ``SELECT 1`` so that a dead server is noticed. The
file is emptied when it passes ``max_bytes`` (readers notice it shrank and reload everything).

The relay's connection must reach PostgreSQL itself (LISTEN needs a session): behind PgBouncer in
transaction mode, give the relay the direct address and the kernels PgBouncer's.
"""

from __future__ import annotations

import logging
import json
import os
import select
import selectors
import shutil
import socket
import tempfile
import threading
from pathlib import Path
from typing import Callable

from ..errors import StoreError
from .pg_slots import CHANGES_FILE, CREATED, EVENT_LINE, EVERYTHING, POOLER
from ..logs import log_failure

__all__ = ["APPLICATION_NAME", "ChangeRelay", "CHANGES_FILE", "CREATED", "EVERYTHING", "FAN_OUT_MAX", "is_postgres",
           "start_server_relay"]

log = logging.getLogger(__name__)

#: The relay connection's ``application_name`` (unless the URL gives one).
APPLICATION_NAME = "dichotomy-relay"

#: The most events of one table the relay passes on for one notification (the newest ones; a kernel
#: that misses older ones reads them from PostgreSQL).
FAN_OUT_MAX = 200

#: The events of one table after a sequence number, newest first (``FAN_OUT_MAX`` of them at most).
_NEWS = ("SELECT seq, type, payload, EXTRACT(EPOCH FROM created_at)::float8 FROM dichotomy_events"
         " WHERE table_id = %(t)s AND seq > %(a)s::bigint ORDER BY seq DESC LIMIT %(n)s")

class ChangeRelay:
    """LISTEN once for a whole server and append each change to ``folder/changes``."""

    def __init__(self, dsn: str, folder: str | os.PathLike[str], *, keepalive: float = 30.0,
                 max_bytes: int = 4 << 20, connect_timeout: float = 10.0) -> None:
        from .postgres import describe_dsn, normalize_dsn

        self._dsn = normalize_dsn(dsn)
        self.url = describe_dsn(self._dsn)
        self.folder = Path(folder)
        self.keepalive = keepalive
        self.max_bytes = max_bytes
        self.connect_timeout = connect_timeout
        self.path = self.folder / CHANGES_FILE
        self.notices = 0  # notifications relayed (for benches and tests)
        self.fanned = 0  # events passed on with them
        self._seen: dict[str, int] = {}  # per table, the last seq passed on
        self._fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, 0o600)
        self._stop_r, self._stop_w = socket.socketpair()
        self._conn = None
        self._thread: threading.Thread | None = None

    def start(self) -> "ChangeRelay":
        """Connect and LISTEN now (a clear :class:`StoreError` if PostgreSQL cannot be reached), then
        relay in a daemon thread."""
        self._conn = self._connect()
        self._thread = threading.Thread(target=self._run, name="dichotomy-pg-relay", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop the thread, close the connection and the file (idempotent)."""
        try:
            self._stop_w.send(b"x")
        except OSError:
            pass
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=5)
        self._thread = None
        conn, self._conn = self._conn, None
        if conn is not None:
            conn.close()
        for sock in (self._stop_r, self._stop_w):
            sock.close()
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    # -- inside ------------------------------------------------------------------------------------

    def _connect(self):  # type: ignore[no-untyped-def]
        import psycopg

        from .postgres import CHANNEL, redact

        kwargs = {"autocommit": True}
        if "application_name" not in self._dsn:
            kwargs["application_name"] = APPLICATION_NAME  # how pg_stat_activity names it
        if "connect_timeout" not in self._dsn:
            kwargs["connect_timeout"] = max(1, int(round(self.connect_timeout)))
        try:
            conn = psycopg.connect(self._dsn, **kwargs)
            conn.execute(f"LISTEN {CHANNEL}")
        except Exception as exc:  # noqa: BLE001 - psycopg errors and malformed DSNs alike
            text = " ".join(str(exc).split()) or type(exc).__name__
            raise StoreError(redact(f"Cannot listen for changes in the table store {self.url}: {text}",  # untranslated: developer-only
                                    self._dsn)) from None
        return conn

    def _write(self, pid: int, table: str) -> None:
        self._write_lines([f"{pid} {table}"])
        self.notices += 1

    def _write_lines(self, lines: list[str]) -> None:
        data = "".join(f"{line}\n" for line in lines).encode("utf-8", "replace")
        if os.fstat(self._fd).st_size + len(data) > self.max_bytes:
            os.ftruncate(self._fd, 0)  # readers see the file shrink and reload everything
        while data:  # O_APPEND; readers take whole lines only, so a split write is never half read
            data = data[os.write(self._fd, data):]

    def _pass_on(self, conn, batch: list[tuple[int, str]]) -> None:  # type: ignore[no-untyped-def]
        """Write the new events of the tables named in ``batch`` (read on ``conn``), then one wake line
        per notification: a kernel woken by a line finds the events before it."""
        lines: list[str] = []
        for table in dict.fromkeys(t for _, t in batch):
            if table == EVERYTHING or table.startswith(CREATED):
                continue
            try:
                rows = conn.execute(_NEWS, {"t": table, "a": self._seen.get(table, 0), "n": FAN_OUT_MAX}).fetchall()
            except Exception as exc:  # noqa: BLE001 - psycopg's errors: the wake still goes out
                if conn.broken or conn.closed:
                    raise
                log_failure(log, "relay: cannot read the new events of %r; its kernels read them themselves",
                            exc, table)
                self._seen.pop(table, None)
                lines.append(EVENT_LINE + json.dumps([table]))  # "a gap": kernels forget its events
                continue
            for seq, kind, payload, at in reversed(rows):
                lines.append(EVENT_LINE + json.dumps([table, seq, kind, payload, at]))  # ASCII: one line
            if rows:
                self._seen[table] = rows[0][0]
                self.fanned += len(rows)
        lines.extend(f"{pid} {table}" for pid, table in batch)
        self._write_lines(lines)
        self.notices += len(batch)

    def _run(self) -> None:
        pause = 0.5
        while True:
            conn = self._conn
            try:
                if conn is None:
                    conn = self._conn = self._connect()
                    self._write(0, EVERYTHING)  # notifications were missed while we were away
                    log.info("relay: listening again on %s", self.url)
                    pause = 0.5
                if self._relay(conn):
                    return
            except Exception as exc:  # noqa: BLE001 - never die: reconnect after a pause
                message = exc.message if isinstance(exc, StoreError) else type(exc).__name__
                log.warning("relay: lost the change feed of %s (%s); reconnecting in %.1f s", self.url,
                            message, pause)
                if conn is not None:
                    try:
                        conn.close()
                    except Exception as err:  # noqa: BLE001 - it is gone already
                        log_failure(log, "relay: closing a broken connection failed", err, level=logging.DEBUG)
                self._conn = None
                try:
                    self._write(0, EVERYTHING)
                except OSError as err:
                    log_failure(log, "relay: cannot write %s", err, self.path)
                ready, _, _ = select.select([self._stop_r], [], [], pause)
                if ready:
                    return
                pause = min(pause * 2, 10.0)

    def _relay(self, conn) -> bool:  # type: ignore[no-untyped-def]
        """Relay until stopped (True) or the connection fails (an exception)."""
        selector = selectors.DefaultSelector()
        pending: list[tuple[int, str]] = []  # notifications not yet passed on
        conn.add_notify_handler(lambda n: pending.append((n.pid, n.payload)))  # those read during a query
        try:
            selector.register(self._stop_r, selectors.EVENT_READ)
            selector.register(conn.fileno(), selectors.EVENT_READ)
            while True:
                events = selector.select(self.keepalive)
                if any(key.fileobj is self._stop_r for key, _ in events):
                    return True
                if not events:
                    conn.execute("SELECT 1")  # silence: is the server still there?
                pgconn = conn.pgconn
                pgconn.consume_input()
                while (notify := pgconn.notifies()) is not None:
                    pending.append((notify.be_pid, notify.extra.decode("utf-8", "replace")))
                while pending:  # reading the events may bring more notifications
                    batch = pending[:]
                    del pending[:]
                    self._pass_on(conn, batch)
                if conn.broken or conn.closed:
                    raise ConnectionError("the connection to PostgreSQL was closed")
        finally:
            selector.close()


def is_postgres(store: str) -> bool:
    """Whether a store path or URL names a PostgreSQL store."""
    return store.strip().lower().split("://", 1)[0].split("+", 1)[0] in ("postgres", "postgresql") and "://" in store


def start_server_relay(store: str, pool: int, listen_url: str | None = None) -> tuple[dict[str, str], Callable[[], None]]:
    """For a PostgreSQL ``store``: a relay folder with ``pool`` connection slots and a running
    :class:`ChangeRelay` (on ``listen_url`` if given: PostgreSQL itself when ``store`` goes through
    PgBouncer). Returns the environment for the server's kernels and a function that stops it all.
    Any other store: ``({}, a no-op)``."""
    from ..config import PG_RELAY_ENV
    from .pg_slots import make_slots

    if not is_postgres(store):
        return {}, lambda: None
    folder = tempfile.mkdtemp(prefix="dichotomy-pg-relay-")
    try:
        make_slots(folder, pool)
        if listen_url and listen_url.strip() != store.strip():  # the kernels' address is a pooler's
            (Path(folder) / POOLER).touch()
        relay = ChangeRelay(listen_url or store, folder).start()
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise

    def stop() -> None:
        relay.stop()
        shutil.rmtree(folder, ignore_errors=True)

    return {PG_RELAY_ENV: folder}, stop
