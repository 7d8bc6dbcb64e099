"""A table binds the rules to a store: create/open/join/start/act/view, with retries and a change feed.

Every action is checked by the engine against the newest events in the store. When two kernels act at
once, the store refuses the second append (:class:`VersionConflict`); the loser reloads and decides
again, so nothing is lost, duplicated or reordered.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import secrets
import time
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from . import rules
from .config import DEFAULT_DECK, DEFAULT_ROUNDS, MAX_TIME_LIMIT, MIN_RECAP_TIME, MIN_TIME_LIMIT
from .decks import Deck, load_deck
from .errors import (Plural, DeckError, DichotomyError, SeatNotFound, StaleAction, StoreError, TableNotFound,
                     VersionConflict, where)
from .events import Event, TableCreated, event_from_dict
from .i18n import INTERFACE_LANGUAGES, interface_language, normalize_language
from .stores import TableStore, open_store
from .stores.base import trouble_every, write_trouble_error
from .views import seat_view, stage
from .logs import failure

if TYPE_CHECKING:  # asyncio is imported only when a table is watched
    import asyncio

__all__ = ["Table", "SeatTicket", "new_table_code", "normalize_code", "hash_token"]

log = logging.getLogger(__name__)

CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no O/0, I/1
CODE_LENGTH = 6
MAX_RETRIES = 50
#: A timed table wakes at least this often (seconds) to end a turn whose time ran out.
TICK_EVERY = 2.0


@dataclass(frozen=True)
class SeatTicket:
    """A claimed seat: its id, name and the secret token that proves it (keep it private)."""

    seat: int
    name: str
    token: str

    def __repr__(self) -> str:  # never print the token by accident
        return f"SeatTicket(seat={self.seat}, name={self.name!r})"


def _as_store(store: "TableStore | str | Path | None") -> TableStore:
    """A store object as is; a path, URL, "memory" or None opened with :func:`open_store`."""
    if store is None or isinstance(store, (str, Path)):
        return open_store(None if store is None else str(store))
    return store


def _asyncio():
    """The asyncio module, imported on first use (it costs ~50 ms at import time)."""
    import asyncio

    return asyncio


@lru_cache(maxsize=1)
def _release() -> str:
    """This package's installed version, written into a new table's first event ("" if unknown; read
    once per process: the package metadata is parsed from disk)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("dichotomy_widget")
    except PackageNotFoundError:
        return ""


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def hash_token(token: str) -> str:
    """The SHA-256 hex digest a store keeps instead of a secret token."""
    return _hash(token)


def new_table_code() -> str:
    """A short, unambiguous, random table code such as ``K7QX2M``."""
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def normalize_code(code: Any) -> str:
    """Upper-case and strip a typed table code; refuse anything that cannot be a code."""
    text = str(code or "").strip().upper()
    if not (1 <= len(text) <= 32) or not all(ch in CODE_ALPHABET for ch in text):
        raise TableNotFound("That is not a table code. Check the link or ask the host for the code.")
    return text


class Table:
    """One game table, backed by a :class:`TableStore`."""

    def __init__(self, code: str, store: TableStore) -> None:
        self.code = code
        self.store = store
        self.state = rules.initial_state()
        self.events: list[Event] = []
        self.seq = 0
        self.host_token: str | None = None
        self._listeners: list[Callable[["Table"], None]] = []
        self._watch_task: asyncio.Task | None = None
        #: Why the store cannot be written now (full disk, read-only file), as text for every page, or
        #: "" -- kept up to date while the table is watched (:meth:`watch`). Never holds a hidden word.
        self.store_trouble = ""
        #: The same trouble as an error (``None`` for none), for pages that show it in their own language.
        self.store_trouble_error: StoreError | None = None
        self.refresh()

    # --- creating and opening ----------------------------------------------------------------
    @classmethod
    def create(cls, deck: "str | Path | Deck" = DEFAULT_DECK, seed: int | None = None,
               rounds: int = DEFAULT_ROUNDS,
               store: "TableStore | str | None" = None, lang: str | None = None,
               time_limit: float | None = None, code: str | None = None,
               interface_lang: str | None = None, fixed_guesser: bool = False,
               recap_time: float | None = None) -> "Table":
        """Create a table in ``store`` (default: a new in-memory store) and return it.

        ``recap_time``: seconds each recap stays before the table continues for everyone still reading
        it (a countdown every screen shows); ``None`` or 0 (the default): each player continues.
        ``interface_lang`` is the language its screens speak (default: the deck's language when the
        interface has it, else English); a student may still switch their own screen.
        ``fixed_guesser``: the first seat guesses every round (a practice table with bots).
        """
        the_deck = load_deck(deck, lang=lang)
        if interface_lang and normalize_language(interface_lang) is None:
            raise DichotomyError("The interface speaks {languages}; {lang} is not one of them.",
                                 code="unknown_interface_language",
                                 params={"languages": ", ".join(INTERFACE_LANGUAGES),
                                         "lang": str(interface_lang)[:20]})
        if not isinstance(rounds, int) or rounds < 1:
            raise DeckError("The number of rounds must be a whole number of at least 1.", code="invalid_rounds")
        if len(the_deck) < rounds:
            raise DeckError("The deck “{deck}” has {cards}; a game of {rounds} rounds needs at least {rounds}. "
                            "Choose fewer rounds or a bigger deck.", code="deck_too_small",
                            params={"deck": the_deck.name, "cards": Plural("{n} card", "{n} cards", len(the_deck)),
                                    "rounds": rounds})
        if time_limit is not None and not (MIN_TIME_LIMIT <= float(time_limit) <= MAX_TIME_LIMIT):
            raise DichotomyError("A clue time limit is between {least} and {most} seconds.",
                                 code="invalid_time_limit", params={"least": MIN_TIME_LIMIT, "most": MAX_TIME_LIMIT})
        if recap_time and not (MIN_RECAP_TIME <= float(recap_time) <= MAX_TIME_LIMIT):
            raise DichotomyError("A recap countdown is between {least} and {most} seconds.",
                                 code="invalid_recap_time", params={"least": MIN_RECAP_TIME, "most": MAX_TIME_LIMIT})
        the_store = _as_store(store)
        if seed is None:
            seed = secrets.randbits(63)
        host_token = secrets.token_urlsafe(18)
        for _ in range(20):
            table_code = normalize_code(code) if code else new_table_code()
            if not the_store.table_exists(table_code):
                break
            if code:
                raise StoreError("A table with code {code} already exists.", code="table_exists",
                                 params={"code": table_code})
        meta = {"host_token_hash": _hash(host_token), "created_at": time.time(), "deck": the_deck.name,
                "lang": the_deck.lang}
        the_store.create_table(table_code, meta)
        created = TableCreated(seed=int(seed), lang=the_deck.lang, rounds=rounds, deck_name=the_deck.name,
                               cards=tuple(c.to_json() for c in the_deck.cards),
                               time_limit=float(time_limit) if time_limit else None,
                               created_with=_release(),
                               interface_lang=normalize_language(interface_lang) or "",
                               fixed_guesser=bool(fixed_guesser),
                               recap_time=float(recap_time) if recap_time else None)
        the_store.append(table_code, 0, [(created.type, created.payload())])
        table = cls(table_code, the_store)
        table.host_token = host_token
        return table

    @property
    def interface_lang(self) -> str:
        """The language this table's screens speak unless a student switches their own."""
        return interface_language(self.state.interface_lang, self.state.lang)

    @classmethod
    def open(cls, code: str, store: "TableStore | str | None") -> "Table":
        """Open an existing table by its code; :class:`TableNotFound` if there is none."""
        the_store = _as_store(store)
        table_code = normalize_code(code)
        if not the_store.table_exists(table_code):
            raise TableNotFound("No table has the code {code}. Check the link or ask the host.",
                                params={"code": table_code})
        return cls(table_code, the_store)

    # --- identity ----------------------------------------------------------------------------
    def is_host(self, token: Any) -> bool:
        """True when ``token`` is this table's host token."""
        if not isinstance(token, str) or not token:
            return False
        expected = self.store.table_meta(self.code).get("host_token_hash", "")
        return hmac.compare_digest(_hash(token), expected)

    def seat_for_token(self, token: Any) -> int:
        """The seat id a secret token belongs to; :class:`SeatNotFound` for a wrong token."""
        if isinstance(token, str) and token:
            self.refresh()
            digest = _hash(token)
            for seat in self.state.seats:
                if hmac.compare_digest(seat.token_hash, digest):
                    return seat.id
        raise SeatNotFound("This seat link is not valid for this table. Ask the host for the join link.")

    # --- commands ----------------------------------------------------------------------------
    def join(self, name: str, token: str | None = None) -> SeatTicket:
        """Claim a seat in the lobby; returns the seat with its secret token.

        ``token`` (default: a fresh random one) is for a caller that derives seat keys itself, such as
        the JupyterHub service (one key per hub user and table); it must be secret and unguessable.
        """
        if token is not None and (not isinstance(token, str) or len(token) < 16):
            raise SeatNotFound("A seat token is at least 16 characters.", code="invalid_token")
        token = token if token is not None else secrets.token_urlsafe(18)
        events = self._execute(rules.Join(seat=None, now=time.time(), name=name, token_hash=_hash(token)))
        joined = events[0]
        return SeatTicket(seat=joined.seat, name=joined.name, token=token)  # type: ignore[attr-defined]

    def join_hashed(self, name: str, token_hash: str) -> int:
        """Claim a seat for a token the caller keeps secret (only its :func:`hash_token` is given).

        A class seats its students this way: the student's class token is also their seat token, so
        their page becomes their seat with no new link. Returns the seat id.
        """
        events = self._execute(rules.Join(seat=None, now=time.time(), name=name, token_hash=token_hash))
        return events[0].seat  # type: ignore[attr-defined]

    def add_bot(self, name: str, level: int = 2, **options: Any) -> SeatTicket:
        """Seat a bot player in the lobby, run from this kernel (see :func:`dichotomy_widget.bots.add_bot`);
        :class:`BotUnavailable` when bots cannot play this table's language."""
        from .bots.driver import add_bot

        return add_bot(self, name, level=level, **options)

    def start(self) -> None:
        """Start the game (host)."""
        self.act(None, {"type": "start"})

    def act(self, seat: "int | SeatTicket | None", action: Any, now: float | None = None,
            stage: str | None = None) -> list[Event]:
        """Apply one JSON action from ``seat`` (``None``: the host); raises a RuleViolation if refused.

        ``stage``: the view's ``stage`` the action was made on (a browser click); when that step of the
        game has ended by the time the action is decided, it is refused with :class:`StaleAction`.
        """
        seat_id = seat.seat if isinstance(seat, SeatTicket) else seat
        if seat_id is not None and (isinstance(seat_id, bool) or not isinstance(seat_id, int)):
            raise SeatNotFound("Unknown seat.")
        command = rules.parse_action(seat_id, action, time.time() if now is None else now)
        return self._execute(command, stage)

    @property
    def timed(self) -> bool:
        """True when a clock can move this table on (a clue time limit or a recap countdown)."""
        return bool(self.state.time_limit or self.state.recap_time)

    def tick(self, now: float | None = None) -> bool:
        """Record a timeout if the clue time limit ran out, or continue for every seat still reading
        a recap whose countdown ran out; True when it did."""
        self.refresh()
        s = self.state
        now = time.time() if now is None else now
        if s.phase == "clues" and s.time_limit:
            ends = s.turn_since + s.time_limit
        elif s.phase == "recap" and s.recap_time:
            ends = s.recap_since + s.recap_time
        else:
            return False
        if now < ends:
            return False
        try:
            self.act(None, {"type": "expire"}, now=now)
        except DichotomyError as err:  # another kernel recorded it first: nothing to do
            log.debug("table %s: time-limit expiry not recorded (%s)", self.code, err.code)
            return False
        return True

    def _execute(self, command: rules.Command, made_on: str | None = None) -> list[Event]:
        """Decide against the newest events and append; listeners hear of every move of the state,
        also when the command is then refused (another kernel's events were folded in first)."""
        moved = False
        try:
            for _ in range(MAX_RETRIES):
                moved = self.refresh(notify=False) or moved
                self._check_stage(made_on)
                events = rules.decide(self.state, command)
                try:
                    records = self.store.append(self.code, self.seq, [(e.type, e.payload()) for e in events])
                except VersionConflict:
                    continue
                self._fold(events, records[-1].seq if records else self.seq)
                moved = True
                return events
            raise StoreError("The table is very busy right now; please try again.", code="store_busy")
        finally:
            if moved:
                self._notify()

    def check_stage(self, made_on: Any) -> None:
        """Refuse (:class:`StaleAction`) when ``made_on`` is a stage that has ended; None passes."""
        self.refresh()
        self._check_stage(made_on)

    def _check_stage(self, made_on: Any) -> None:
        if made_on is not None and made_on != stage(self.state):
            raise StaleAction("The game moved on before your click arrived, so it was not used. "
                              "Your screen now shows where the game is.")

    # --- state -------------------------------------------------------------------------------
    def _fold(self, events: list[Event], seq: int) -> None:
        self.state = rules.replay(events, self.state)
        self.events.extend(events)
        self.seq = seq

    def refresh(self, notify: bool = True) -> bool:
        """Fold events other kernels appended; True (and listeners told) if anything changed."""
        records = self.store.load(self.code, after_seq=self.seq)
        if not records:
            return False
        self._fold([event_from_dict(r.type, r.payload, self.code) for r in records], records[-1].seq)
        if notify:
            self._notify()
        return True

    def view(self, seat: "int | SeatTicket | None" = None, lang: str | None = None) -> dict[str, Any]:
        """The JSON-ready view of ``seat`` (``None``: the public projector / host view), its sentences in
        ``lang`` (default: :attr:`interface_lang`; a student's screen may speak another)."""
        seat_id = seat.seat if isinstance(seat, SeatTicket) else seat
        if seat_id is not None and self.state.seat_record(seat_id) is None:
            raise SeatNotFound("No such seat at this table.")
        out = seat_view(self.state, seat_id, lang or self.interface_lang)
        out["table"] = self.code
        out["stage"] = stage(self.state)
        return out

    def replayed(self) -> rules.GameState:
        """The state rebuilt from every stored event (for checks: equals :attr:`state`)."""
        records = self.store.load(self.code)
        return rules.replay(event_from_dict(r.type, r.payload, self.code) for r in records)

    # --- seats --------------------------------------------------------------------------------
    def seat_id(self, who: "int | str | SeatTicket") -> int:
        """Resolve a seat id, a :class:`SeatTicket` or a player's name to a seat id."""
        if isinstance(who, SeatTicket):
            who = who.seat
        if isinstance(who, int) and not isinstance(who, bool) and self.state.seat_record(who) is not None:
            return who
        if isinstance(who, str):
            from .words import normalize

            for seat in self.state.seats:
                if normalize(seat.name) == normalize(who):
                    return seat.id
        raise SeatNotFound("No seat “{who}” at this table.", params={"who": str(who)[:60]})

    # --- change feed -------------------------------------------------------------------------
    def subscribe(self, listener: Callable[["Table"], None]) -> Callable[[], None]:
        """Call ``listener(table)`` after every change; returns a function that unsubscribes."""
        self._listeners.append(listener)

        def unsubscribe() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return unsubscribe

    def _notify(self) -> None:
        for listener in list(self._listeners):
            try:
                listener(self)
            except Exception as err:  # noqa: BLE001 - a broken widget must not break the table
                log.error("table %s: a listener failed (%s)", self.code, where(err))

    def check_store(self) -> bool:
        """Ask the store whether writing would fail now (no write); True (and listeners told) if
        :attr:`store_trouble` changed."""
        trouble = write_trouble_error(self.store)
        text = trouble.message if trouble is not None else ""
        if text == self.store_trouble:
            return False
        self.store_trouble_error = trouble
        if text:
            log.warning("table %s: the store cannot be written now", self.code)
        else:
            log.info("table %s: the store can be written again", self.code)
        self.store_trouble = text
        self._notify()
        return True

    async def watch(self) -> None:
        """Follow the store forever: refresh and notify when another kernel appends, and check
        :attr:`store_trouble` on every wake. An idle table wakes only when told (a write, an
        announcement) or every :func:`~.stores.base.trouble_every` s; a timed one every
        :data:`TICK_EVERY` s."""
        self.check_store()
        marker = self.store.change_marker()
        self.refresh()  # catch up: events appended after this table loaded but before the marker was taken
        while True:
            try:
                wait = trouble_every(self.store)
                if self.timed:
                    wait = min(wait, TICK_EVERY)
                marker = await self.store.wait_for_change(marker, wait)
                self.check_store()
                self.refresh()
                if self.timed:
                    self.tick()
            except Exception as err:  # noqa: BLE001 - a transient store error must not end the feed for good
                log.warning("table %s: following the store failed, retrying in 1 s (%s)", self.code, failure(err))
                self.check_store()
                await _asyncio().sleep(1.0)

    def start_watching(self) -> "asyncio.Task | None":
        """Run :meth:`watch` on the running asyncio loop (one task per table); None without a loop."""
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
        return self._watch_task

    def __repr__(self) -> str:
        s = self.state
        return (f"<Table {self.code}: {len(s.seats)} seats, phase {s.phase}, round {s.round}/{s.rounds}, "
                f"score {len(s.score_pile)}>")
