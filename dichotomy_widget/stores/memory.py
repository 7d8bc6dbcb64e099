"""In-process store for one kernel: thread-safe, nothing on disk, waiters woken without polling."""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field

from ..errors import StoreError
from .base import (ChangeWaiters, ClosingStore, JsonRecord, Record, check_seq, check_table_id, conflict_error,
                   encode_events, exists_error, not_found_error, to_json)

__all__ = ["MemoryStore"]


@dataclass
class _MemTable:
    meta_json: str
    created_at: float
    events: list[tuple[str, str, float]] = field(default_factory=list)  # (type, payload_json, at)


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
        table = self._tables.get(check_table_id(table_id))
        if table is None:
            raise not_found_error(table_id)
        return table

    def create_table(self, table_id: str, meta: dict) -> None:
        """Create an empty table; :class:`TableExists` if the code is taken."""
        meta_json = to_json(meta, "table meta")
        with self._lock:
            self._check_open()
            if check_table_id(table_id) in self._tables:
                raise exists_error(table_id)
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
            return check_table_id(table_id) in self._tables

    def append(self, table_id: str, expected_seq: int, events: list[tuple[str, dict]]) -> list[Record]:
        """Atomically append ``events`` as ``expected_seq + 1, ...``; :class:`VersionConflict` if stale."""
        check_seq(expected_seq, "expected_seq")
        encoded = encode_events(events)
        with self._lock:
            table = self._table(table_id)
            if len(table.events) != expected_seq:
                raise conflict_error(table_id, expected_seq, len(table.events))
            now = time.time()
            table.events.extend((event_type, payload, now) for event_type, payload in encoded)
            if encoded:
                self._changed()
        return [  # decoded only when read: the table layer reads only their seq
            JsonRecord(table_id, expected_seq + i, event_type, payload, now)
            for i, (event_type, payload) in enumerate(encoded, start=1)
        ]

    def load(self, table_id: str, after_seq: int = 0) -> list[Record]:
        """Events with ``seq > after_seq`` in order; :class:`TableNotFound` if missing."""
        check_seq(after_seq, "after_seq")
        with self._lock:
            rows = self._table(table_id).events[after_seq:]
        if not rows:  # nothing new: a table's every refresh before it acts
            return []
        return [
            JsonRecord(table_id, seq, event_type, payload, at)
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

    def write_trouble(self) -> StoreError | None:
        """None: memory never fills up or turns read-only."""
        return None

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

