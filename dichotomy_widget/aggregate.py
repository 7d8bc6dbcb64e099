"""One base for the event streams of tables, classes and saved-deck libraries.

An aggregate is one stream of a :class:`~.stores.TableStore` folded into a state. This base holds what
every kind shares: refresh (fold what other kernels appended), execute (decide against the newest
events and append; on a :class:`VersionConflict` reload and decide again), a change feed
(:meth:`Aggregate.subscribe`), the store-trouble check and the watch loop that follows the store.
Every stored event is decoded by :func:`~.events.event_from_dict` for the aggregate's
:attr:`Aggregate.kind`, so an unknown or newer event is a :class:`StoreError` for every kind.

One thread at a time folds or appends (a re-entrant lock per aggregate; listeners are told after it
is released): JupyterLab 4.6 sends widget messages on a kernel subshell, a thread of its own, while the
kernel's main loop runs the watch and the bots.

A subclass says what its state is (:meth:`Aggregate.initial_state`, :meth:`Aggregate.replay`) and,
where it differs, what a wake of the watch does (:meth:`Aggregate.follow`).
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Generic, Iterable, Sequence, TypeVar

from .errors import DichotomyError, StoreError, VersionConflict
from .events import Event, event_from_dict
from .logs import announce, log_failure
from .stores import TableStore, open_store
from .stores.base import Record, trouble_every, write_trouble_error

if TYPE_CHECKING:  # asyncio is imported only when a stream is watched
    import asyncio

__all__ = ["Aggregate", "as_store", "hash_token", "MAX_RETRIES"]

#: Attempts of one command against other writers before it gives up as busy.
MAX_RETRIES = 50

S = TypeVar("S")


def as_store(store: "TableStore | str | Path | None") -> TableStore:
    """A store object as is; a path, URL, "memory" or None opened with :func:`open_store`."""
    if store is None or isinstance(store, (str, Path)):
        return open_store(None if store is None else str(store))
    return store


def hash_token(token: str) -> str:
    """The SHA-256 hex digest a store keeps instead of a secret token."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def _asyncio():
    """The asyncio module, imported on first use (it costs ~50 ms at import time)."""
    import asyncio

    return asyncio


class Aggregate(Generic[S]):
    """One event stream ``stream`` of ``store`` folded into :attr:`state`; :attr:`seq` is the last
    event folded in. Subclasses set :attr:`kind` and :attr:`noun` and give the fold."""

    #: The kind of stream, as in :data:`~.events.STREAM_KINDS` (which events it may hold).
    kind: ClassVar[str] = "table"
    #: What log lines call one ("table", "class", ...).
    noun: ClassVar[str] = "stream"

    def __init__(self, stream: str, store: TableStore) -> None:
        self.stream = stream
        self.store = store
        self.state: S = self.initial_state()
        self.seq = 0
        #: When the last event folded in was stored (unix seconds; 0 before any): how long a stream has
        #: waited, for a teacher's "stuck for 2 min".
        self.last_event_at = 0.0
        self._listeners: list[Callable[[Any], None]] = []
        self._watch_task: asyncio.Task | None = None
        #: Why the store cannot be written now (full disk, read-only file), as text for every page, or
        #: "" -- kept up to date while the stream is watched (:meth:`watch`). Never holds a hidden word.
        self.store_trouble = ""
        #: The same trouble as an error (``None`` for none), for pages that show it in their own language.
        self.store_trouble_error: StoreError | None = None
        self._log = logging.getLogger(type(self).__module__)  # the subclass's logger, as before
        # One thread at a time folds or appends: JupyterLab sends widget messages on a kernel subshell
        # (a thread of its own) while the main loop's watch refreshes; both folding one event broke a game.
        self._folding = threading.RLock()

    # --- what a subclass gives ------------------------------------------------------------------
    def initial_state(self) -> S:
        """The state of an empty stream."""
        raise NotImplementedError

    def replay(self, events: Sequence[Event], state: S) -> S:
        """``state`` with ``events`` folded in (pure)."""
        raise NotImplementedError

    @property
    def log_name(self) -> str:
        """How log lines name this stream (never a secret)."""
        return f"{self.noun} {self.stream}"

    def busy_error(self) -> DichotomyError:
        """The error when other writers won :data:`MAX_RETRIES` times in a row."""
        return StoreError("The table is very busy right now; please try again.", code="store_busy")

    def prepare_append(self) -> None:
        """Called before an append (a stream created on its first write makes itself here)."""

    def load_records(self) -> list[Record]:
        """The stored records after :attr:`seq`."""
        return self.store.load(self.stream, after_seq=self.seq)

    def follow(self) -> None:
        """What one wake of :meth:`watch` does after the store changed or the wait ran out: refresh."""
        self.refresh()

    def wake_every(self) -> float:
        """The longest :meth:`watch` sleeps between two wakes (seconds)."""
        return trouble_every(self.store)

    # --- identity -------------------------------------------------------------------------------
    def meta_token_is(self, key: str, token: Any) -> bool:
        """True when ``token`` is the secret whose hash the stream's meta keeps under ``key`` (a
        table's host token, a class's teacher token)."""
        if not isinstance(token, str) or not token:
            return False
        expected = self.store.table_meta(self.stream).get(key, "")
        return hmac.compare_digest(hash_token(token), expected)

    def member_for_token(self, members: Callable[[S], Iterable[Any]], token: Any) -> int | None:
        """The ``id`` of the member (a seat, a student) in ``members(state)`` whose ``token_hash`` is
        ``token``'s, after a refresh; None for none."""
        if not isinstance(token, str) or not token:
            return None
        return self.member_for_hash(members, hash_token(token))

    def member_for_hash(self, members: Callable[[S], Iterable[Any]], digest: str) -> int | None:
        """The ``id`` of the member whose ``token_hash`` is ``digest``, after a refresh (a class finds its
        student's seat at a table by the hash both keep); None for none."""
        self.refresh()
        for member in members(self.state):
            if hmac.compare_digest(member.token_hash, digest):
                return member.id
        return None

    # --- state ----------------------------------------------------------------------------------
    def fold(self, events: Sequence[Event], seq: int) -> None:
        """Fold ``events`` (stored up to ``seq``) into :attr:`state`."""
        self.state = self.replay(events, self.state)
        self.seq = seq

    def decode(self, records: Sequence[Record]) -> list[Event]:
        """Stored records as events of this kind; :class:`StoreError` for an unknown or newer one."""
        return [event_from_dict(r.type, r.payload, self.stream, self.kind) for r in records]

    def refresh(self, notify: bool = True) -> bool:
        """Fold events other kernels appended; True (and listeners told) if anything changed."""
        with self._folding:
            records = self.load_records()
            if not records:
                return False
            self.fold(self.decode(records), records[-1].seq)
            self.last_event_at = records[-1].created_at
        if notify:
            self.notify()
        return True

    def execute(self, decide: Callable[[S], list[Event]]) -> list[Event]:
        """Decide against the newest events and append; on a conflict with another writer reload and
        decide again. Listeners hear of every move of the state, also when ``decide`` then refuses
        (another kernel's events were folded in first)."""
        moved = False
        try:
            with self._folding:  # released before the listeners are told
                for _ in range(MAX_RETRIES):
                    moved = self.refresh(notify=False) or moved
                    events = decide(self.state)
                    if not events:
                        return events
                    self.prepare_append()
                    try:
                        records = self.store.append(self.stream, self.seq,
                                                    [(e.type, e.stored_payload()) for e in events])
                    except VersionConflict:
                        continue
                    self.fold(events, records[-1].seq if records else self.seq)
                    if records:
                        self.last_event_at = records[-1].created_at
                    moved = True
                    announce(self.log_name, events)  # the teacher's lines, from the kernel that wrote them
                    return events
                raise self.busy_error()
        finally:
            if moved:
                self.notify()

    # --- change feed ----------------------------------------------------------------------------
    def subscribe(self, listener: Callable[[Any], None]) -> Callable[[], None]:
        """Call ``listener(self)`` after every change; returns a function that unsubscribes."""
        self._listeners.append(listener)

        def unsubscribe() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return unsubscribe

    def notify(self) -> None:
        """Tell every listener; a failing one is logged (type and line, never its message)."""
        for listener in list(self._listeners):
            try:
                listener(self)
            except Exception as err:  # noqa: BLE001 - a broken page must not break the stream
                log_failure(self._log, "%s: a listener failed", err, self.log_name)

    def check_store(self) -> bool:
        """Ask the store whether writing would fail now (no write); True (and listeners told) if
        :attr:`store_trouble` changed."""
        trouble = write_trouble_error(self.store)
        text = trouble.message if trouble is not None else ""
        if text == self.store_trouble:
            return False
        self.store_trouble_error = trouble
        if text:
            self._log.warning("%s: the store cannot be written now", self.log_name)
        else:
            self._log.info("%s: the store can be written again", self.log_name)
        self.store_trouble = text
        self.notify()
        return True

    async def watch(self) -> None:
        """Follow the store forever: :meth:`follow` when another kernel appends, and check
        :attr:`store_trouble` on every wake. An idle stream wakes only when told (a write, an
        announcement) or every :meth:`wake_every` s."""
        # The first pass takes the marker and catches up on events appended after this stream loaded.
        # It is retried like any wake: a busy store at that moment must not end the feed before it began
        # (a class lobby whose first pass failed never heard its table start).
        marker: object = None
        caught_up = False
        while True:
            try:
                if caught_up:
                    marker = await self.store.wait_for_change(marker, self.wake_every())
                else:
                    marker = self.store.change_marker()
                self.check_store()
                self.follow()
                caught_up = True
            except Exception as err:  # noqa: BLE001 - a transient store error must not end the feed for good
                log_failure(self._log, "%s: following the store failed, retrying in 1 s", err, self.log_name,
                            level=logging.WARNING)
                self.check_store()
                await _asyncio().sleep(1.0)

    def start_watching(self) -> "asyncio.Task | None":
        """Run :meth:`watch` on the running asyncio loop (one task per stream); None without a loop."""
        if self._watch_task is not None and not self._watch_task.done():
            return self._watch_task
        try:
            loop = _asyncio().get_running_loop()
        except RuntimeError:
            try:
                loop = _asyncio().get_event_loop()
            except RuntimeError:
                return None
        self._watch_task = loop.create_task(self.watch())
        self._watch_task.add_done_callback(self._watch_ended)
        return self._watch_task

    def _watch_ended(self, task: "asyncio.Task") -> None:
        """A watch ends only when cancelled; any other end is logged, never silent."""
        if not task.cancelled() and task.exception() is not None:
            log_failure(self._log, "%s: following the store stopped", task.exception(), self.log_name)

    def stop_watching(self) -> None:
        """Cancel the watch task, if any."""
        if self._watch_task is not None:
            self._watch_task.cancel()
            self._watch_task = None
