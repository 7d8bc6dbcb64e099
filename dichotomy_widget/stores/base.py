"""What every table store shares: the :class:`TableStore` protocol, :class:`Record`, validation and
encoding of events, the errors stores raise, and :class:`ChangeWaiters` for stores that are told of
changes.

A table is a code, a small JSON ``meta`` dict and an ordered list of events numbered 1, 2, 3, ...
with no gaps. Writers say which sequence number they last saw (``expected_seq``); if someone else
appended in between, the append is refused with :class:`VersionConflict` and nothing is written, so
the loser reloads and decides again. A store knows nothing about the game rules.

Watching for changes is store-neutral: ``change_marker()`` returns an opaque value and
``await wait_for_change(marker, timeout)`` returns as soon as the marker differs (or on timeout).
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Protocol, TypeVar, runtime_checkable

from ..errors import StoreError, TableExists, TableNotFound, VersionConflict
from ..logs import failure

if TYPE_CHECKING:  # pragma: no cover
    import asyncio

__all__ = [
    "Record", "JsonRecord", "TableStore", "ClosingStore", "ChangeWaiters", "SCHEMA_VERSION",
    "is_utf8", "check_table_id", "check_seq", "to_json", "encode_events", "decode_record",
    "conflict_error", "not_found_error", "exists_error", "write_trouble_text", "write_trouble_error",
]

_log = logging.getLogger(__name__)

_S = TypeVar("_S", bound="ClosingStore")

#: Schema version written by this code (SQLite ``PRAGMA user_version``, PostgreSQL's schema table).
SCHEMA_VERSION = 1


@dataclass(frozen=True)
class Record:
    """One stored event of one table."""

    table_id: str
    seq: int  # 1, 2, 3, ... per table, no gaps
    type: str  # event type name
    payload: dict  # JSON-ready; a fresh dict on every load
    created_at: float  # unix seconds


class JsonRecord(Record):
    """A :class:`Record` made from the JSON text its own store wrote (so it cannot be corrupt): the
    payload is decoded on first read, a fresh dict per record. A record nobody reads the payload of
    (the table layer reads only ``seq`` and ``created_at`` of what it appended) is never decoded.
    Equal to a :class:`Record` with the same fields."""

    def __init__(self, table_id: str, seq: int, type: str, payload_json: str, created_at: float) -> None:
        values = self.__dict__  # frozen: fill the fields without ``__setattr__``
        values["table_id"], values["seq"], values["type"] = table_id, seq, type
        values["created_at"], values["_json"] = created_at, payload_json

    @property  # type: ignore[override]
    def payload(self) -> dict:  # noqa: D102 - see Record.payload
        values = self.__dict__
        payload = values.get("_payload")
        if payload is None:
            payload = values["_payload"] = json.loads(values["_json"])
        return payload

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Record):
            return NotImplemented
        return ((self.table_id, self.seq, self.type, self.payload, self.created_at)
                == (other.table_id, other.seq, other.type, other.payload, other.created_at))

    __hash__ = None  # type: ignore[assignment] - a payload is a dict, as in Record


@runtime_checkable
class TableStore(Protocol):
    """What the table layer needs from a store (memory, SQLite, PostgreSQL)."""

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

    def write_trouble(self) -> "StoreError | None":
        """Why a write would fail now (e.g. ``store_full``, ``store_read_only``), or None; writes nothing.

        Watching tables ask it every few seconds so that every page shows the trouble. A store that
        cannot tell without writing returns None (PostgreSQL: there only the page whose action failed
        shows the error)."""

    def close(self) -> None:
        """Release resources; idempotent. Later calls raise :class:`StoreError`."""



# --------------------------------------------------------------------------------------------------
# Validation and encoding shared by every store


def is_utf8(text: str) -> bool:
    """False for strings with lone surrogates, which SQLite cannot store."""
    if text.isascii():  # no surrogates; no copy made
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def check_table_id(table_id: object) -> str:
    if not isinstance(table_id, str) or not table_id or not is_utf8(table_id):
        raise StoreError(f"a table code must be a non-empty string, not {table_id!r}")  # untranslated: developer-only
    return table_id


def check_seq(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise StoreError(f"{name} must be an integer >= 0, not {value!r}")  # untranslated: developer-only
    return value


#: ``json.dumps(..., ensure_ascii=False, allow_nan=False, separators=(",", ":"))``, made once (dumps with
#: options builds an encoder per call; an encoder keeps no state between calls).
_ENCODER = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":"))


def to_json(value: object, what: str) -> str:
    if not isinstance(value, dict):
        raise StoreError(f"{what} must be a dict, not {type(value).__name__}")  # untranslated: developer-only
    try:
        text = _ENCODER.encode(value)
    except (TypeError, ValueError) as exc:
        raise StoreError(f"{what} is not JSON-ready: {exc}") from None  # untranslated: developer-only
    if not is_utf8(text):  # lone surrogates: keep them, escaped as \udXXX
        text = json.dumps(value, ensure_ascii=True, allow_nan=False, separators=(",", ":"))
    return text


def encode_events(events: list[tuple[str, dict]]) -> list[tuple[str, str]]:
    """Validate and JSON-encode ``(type, payload)`` pairs before anything is written."""
    encoded = []
    for index, item in enumerate(events):
        try:
            event_type, payload = item
        except (TypeError, ValueError):
            raise StoreError(f"event {index} must be a (type, payload) pair, not {item!r}") from None  # untranslated: developer-only
        if not isinstance(event_type, str) or not event_type or not is_utf8(event_type):
            raise StoreError(f"event {index} needs a non-empty string type, not {event_type!r}")  # untranslated: developer-only
        encoded.append((event_type, to_json(payload, f"payload of event {index} ({event_type})")))
    return encoded


def write_trouble_error(store: object) -> "StoreError | None":
    """``store.write_trouble()`` (why a write would fail now), or None for none, for a store without
    that check, or when the check itself fails (logged). Pages show it in their own language."""
    ask = getattr(store, "write_trouble", None)
    if ask is None:
        return None
    try:
        return ask()
    except Exception as err:  # noqa: BLE001 - a failed check must not stop a watching page
        _log.warning("cannot check whether %r can be written (%s)", store, failure(err))
        return None


#: Seconds between two :func:`write_trouble_error` checks of a watching page, unless the store says
#: otherwise (:attr:`SqliteStore.trouble_every`: long while its file watch hears announcements).
TROUBLE_EVERY = 2.0


def trouble_every(store: object) -> float:
    """How long a watching page may sleep before it checks ``store``'s write trouble again."""
    every = getattr(store, "trouble_every", None)
    return float(every) if isinstance(every, (int, float)) and every > 0 else TROUBLE_EVERY


def write_trouble_text(store: object) -> str:
    """The English message of :func:`write_trouble_error`, or ""."""
    trouble = write_trouble_error(store)
    return trouble.message if trouble is not None else ""


def conflict_error(table_id: str, expected: int, actual: int) -> VersionConflict:
    """A :class:`VersionConflict` carrying ``expected_seq`` and ``actual_seq`` attributes."""
    exc = VersionConflict(
        "Table {code} changed meanwhile (expected last event {expected}, found {actual}); reload and try again.",
        params={"code": table_id, "expected": expected, "actual": actual},
    )
    exc.expected_seq = expected  # type: ignore[attr-defined]
    exc.actual_seq = actual  # type: ignore[attr-defined]
    return exc


def not_found_error(table_id: str) -> TableNotFound:
    return TableNotFound("No table has the code {code}.", params={"code": table_id})


def exists_error(table_id: str) -> TableExists:
    return TableExists("A table with the code {code} already exists.", params={"code": table_id})




class ClosingStore:
    """``with store: ...`` closes the store at the end (shared by every store class)."""

    def __enter__(self: _S) -> _S:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()  # type: ignore[attr-defined]



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


def decode_record(text: str, where: str, table_id: str) -> dict:
    """A stored JSON object (payload or meta); a clear :class:`StoreError` if the record is corrupt."""
    try:
        value = json.loads(text)
    except ValueError:
        value = None
    if not isinstance(value, dict):
        raise StoreError(f"The table store {where} holds a corrupt record for table {table_id}.")  # untranslated: developer-only
    return value

