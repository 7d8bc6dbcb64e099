"""A table binds the rules to a store: create/open/join/start/act/view, with retries and a change feed.

Every action is checked by the engine against the newest events in the store. When two kernels act at
once, the store refuses the second append (:class:`VersionConflict`); the loser reloads and decides
again, so nothing is lost, duplicated or reordered.
"""

from __future__ import annotations

import logging
import secrets
import time
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Sequence

from . import rules
from .aggregate import Aggregate, as_store, hash_token
from .config import DEFAULT_DECK, DEFAULT_ROUNDS
from .decks import Deck, load_deck
from .errors import DichotomyError, SeatNotFound, StaleAction, StoreError, TableNotFound
from .events import Event, TableCreated
from .options import PlaysByOptions, TableOptions
from .stores import TableStore
from .stores.base import trouble_every
from .views import seat_view, stage

__all__ = ["Table", "SeatTicket", "new_table_code", "normalize_code", "hash_token"]

log = logging.getLogger(__name__)

CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no O/0, I/1
CODE_LENGTH = 6
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


@lru_cache(maxsize=1)
def _release() -> str:
    """This package's installed version, written into a new table's first event ("" if unknown; read
    once per process: the package metadata is parsed from disk)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("dichotomy_widget")
    except PackageNotFoundError:
        return ""


def new_table_code() -> str:
    """A short, unambiguous, random table code such as ``K7QX2M``."""
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def normalize_code(code: Any) -> str:
    """Upper-case and strip a typed table code; refuse anything that cannot be a code."""
    text = str(code or "").strip().upper()
    if not (1 <= len(text) <= 32) or not all(ch in CODE_ALPHABET for ch in text):
        raise TableNotFound("That is not a table code. Check the link or ask the host for the code.")
    return text


class Table(PlaysByOptions, Aggregate[rules.GameState]):
    """One game table, backed by a :class:`TableStore` (its stream is its code)."""

    kind = "table"
    noun = "table"

    def __init__(self, code: str, store: TableStore, created: "tuple[TableCreated, float] | None" = None) -> None:
        """Follow table ``code`` of ``store``, its stored events folded in. ``created``: the table's first
        event as just appended, with its store time (:meth:`create` folds it as it was written instead of
        reading it back: the whole deck)."""
        self.code = code
        self.events: list[Event] = []
        self.host_token: str | None = None
        super().__init__(code, store)
        if created is not None:
            self.fold([created[0]], 1)
            self.last_event_at = created[1]
        self.refresh()

    def initial_state(self) -> rules.GameState:
        return rules.initial_state()

    def replay(self, events: Sequence[Event], state: rules.GameState) -> rules.GameState:
        return rules.replay(events, state)

    # --- creating and opening ----------------------------------------------------------------
    @classmethod
    def create(cls, deck: "str | Path | Deck" = DEFAULT_DECK, seed: int | None = None,
               rounds: int = DEFAULT_ROUNDS,
               store: "TableStore | str | None" = None, lang: str | None = None,
               time_limit: float | None = None, code: str | None = None,
               interface_lang: str | None = None, fixed_guesser: bool = False,
               recap_time: float | None = None, options: TableOptions | None = None) -> "Table":
        """Create a table in ``store`` (default: a new in-memory store) and return it.

        ``options`` (a :class:`TableOptions`) says how it plays (the package's own callers pass one);
        without it, the loose keywords (kept for notebook users) make one:
        ``rounds``, ``time_limit``, ``interface_lang`` (the language its screens speak; default: the
        deck's language when the interface has it, else English; a student may still switch their own
        screen), ``fixed_guesser`` (the first seat guesses every round: a practice table with bots) and
        ``recap_time`` (seconds each recap stays before the table continues for everyone still reading
        it, a countdown every screen shows; None or 0, the default: each player continues).
        """
        the_deck = load_deck(deck, lang=lang)
        if options is None:
            options = TableOptions(rounds=rounds, time_limit=time_limit, interface_lang=interface_lang or "",
                                   fixed_guesser=fixed_guesser, recap_time=recap_time)
        options = options.checked(the_deck)
        the_store = as_store(store)
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
        meta = {"host_token_hash": hash_token(host_token), "created_at": time.time(), "deck": the_deck.name,
                "lang": the_deck.lang}
        the_store.create_table(table_code, meta)
        created = TableCreated(seed=int(seed), lang=the_deck.lang, deck_name=the_deck.name,
                               cards=the_deck.card_pairs, options=options, created_with=_release())
        [record] = the_store.append(table_code, 0, [(created.type, created.stored_payload())])
        table = cls(table_code, the_store, (created, record.created_at))
        table.host_token = host_token
        return table

    @classmethod
    def open(cls, code: str, store: "TableStore | str | None") -> "Table":
        """Open an existing table by its code; :class:`TableNotFound` if there is none."""
        the_store = as_store(store)
        table_code = normalize_code(code)
        if not the_store.table_exists(table_code):
            raise TableNotFound("No table has the code {code}. Check the link or ask the host.",
                                params={"code": table_code})
        return cls(table_code, the_store)

    # --- identity ----------------------------------------------------------------------------
    def is_host(self, token: Any) -> bool:
        """True when ``token`` is this table's host token."""
        return self.meta_token_is("host_token_hash", token)

    def seat_for_token(self, token: Any) -> int:
        """The seat id a secret token belongs to; :class:`SeatNotFound` for a wrong token."""
        seat = self.member_for_token(lambda s: s.seats, token)
        if seat is not None:
            return seat
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
        events = self._execute(rules.Join(seat=None, now=time.time(), name=name, token_hash=hash_token(token)))
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
        """Decide against the newest events and append (see :meth:`Aggregate.execute`); refused with
        :class:`StaleAction` when the step ``made_on`` has ended by then."""
        def decide(state: rules.GameState) -> list[Event]:
            self._check_stage(made_on)
            return rules.decide(state, command)

        return self.execute(decide)

    def check_stage(self, made_on: Any) -> None:
        """Refuse (:class:`StaleAction`) when ``made_on`` is a stage that has ended; None passes."""
        self.refresh()
        self._check_stage(made_on)

    def _check_stage(self, made_on: Any) -> None:
        if made_on is not None and made_on != stage(self.state):
            raise StaleAction("The game moved on before your click arrived, so it was not used. "
                              "Your screen now shows where the game is.")

    # --- state -------------------------------------------------------------------------------
    def fold(self, events: Sequence[Event], seq: int) -> None:
        super().fold(events, seq)
        self.events.extend(events)

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
        return rules.replay(self.decode(self.store.load(self.code)))

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

    # --- following the store ------------------------------------------------------------------
    def follow(self) -> None:
        """One wake of :meth:`watch`: refresh, and end a clue turn or a recap whose time ran out."""
        self.refresh()
        if self.timed:
            self.tick()

    def wake_every(self) -> float:
        """An idle table wakes every :func:`~.stores.base.trouble_every` s; a timed one every
        :data:`TICK_EVERY` s."""
        wait = trouble_every(self.store)
        return min(wait, TICK_EVERY) if self.timed else wait

    def __repr__(self) -> str:
        s = self.state
        return (f"<Table {self.code}: {len(s.seats)} seats, phase {s.phase}, round {s.round}/{s.rounds}, "
                f"score {len(s.score_pile)}>")
