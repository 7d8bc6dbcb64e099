"""The rules of Dichotomy as a pure core: commands in, events out, state as the fold of events.

``decide(state, command)`` checks a command against the rules and returns the events it causes, or
raises a :class:`~dichotomy_widget.errors.RuleViolation` (nothing changes). ``evolve(state, event)``
applies one event and never raises. ``replay(events)`` folds a whole history. No I/O, no clock, no
global randomness: times come in on commands, randomness from the table's seed.

Seats have stable ids (join order); ``GameState.order`` is the clockwise order. "Left of" a seat is
the next seat clockwise.
"""

from __future__ import annotations

import random
import unicodedata
from dataclasses import dataclass, field, fields
from functools import lru_cache
from typing import Any, Callable, Iterable

from . import words
from .config import MAX_CLUE_LENGTH, MAX_GUESS_LENGTH, MAX_NAME_LENGTH, MAX_SEATS, MIN_SEATS, PAIRS_PER_CARD
from .errors import (Plural, InvalidAction, InvalidClue, InvalidGuess, NameTaken, NotAllowed, NotYourTurn,
                     RuleViolation, TableFull, WrongPhase)
from .i18n import N_
from .options import TableOptions
from .events import (ClueSubmitted, CluesPurged, Event, GameEnded, GameStarted, GuessJudged,
                     PairLocked, RecapConfirmed, SeatJoined, SeatRemoved, SeatsReordered, TableCreated)

__all__ = [
    "MIN_SEATS", "MAX_SEATS", "MAX_CLUE_LENGTH", "MAX_GUESS_LENGTH", "MAX_NAME_LENGTH",
    "Seat", "ClueResult", "RoundRecord", "GameState", "Command", "Join", "Act",
    "initial_state", "decide", "evolve", "replay", "parse_action", "allowed_actions", "legal_moves",
    "action_types",
    "Move", "MOVES",
    "writer_order", "left_of", "rank_band", "clean_name",
]


Pairs = tuple  # a card as a tuple of (target, foil) tuples


def _built(cls: type, values: dict[str, Any]) -> Any:
    """An instance of the frozen dataclass ``cls`` from ``values`` (every field, checked by the caller):
    what its ``__init__`` makes, without one ``object.__setattr__`` per field (the hot path makes one
    per action, clue and event)."""
    assert len(values) == _FIELD_COUNTS[cls], (cls, values)  # every field, no more
    obj = object.__new__(cls)
    object.__setattr__(obj, "__dict__", values)
    return obj


class _FieldCounts(dict):
    """How many fields each dataclass has (its class variables, such as an event's ``type``, are not
    fields), worked out on first use: a plain dict look-up after that."""

    def __missing__(self, cls: type) -> int:
        count = self[cls] = len(fields(cls))
        return count


_FIELD_COUNTS = _FieldCounts()


@dataclass(frozen=True)
class Seat:
    """A player at the table."""

    id: int
    name: str
    token_hash: str


@dataclass(frozen=True)
class ClueResult:
    """One writer's clue in a round, with its fate after the purge."""

    seat: int
    text: str | None  # None: timeout
    cause: str = "clue"
    eliminated: bool = False
    reason: str | None = None  # why it cancelled: a words reason code
    matched: tuple = ()  # seats whose clues it matched


@dataclass(frozen=True)
class RoundRecord:
    """Everything about a resolved round: what the recap shows."""

    number: int
    guesser: int
    drawer: int
    pair_number: int  # 1..5
    target: str
    foil: str
    clues: tuple  # of ClueResult, in writing order
    guess: str | None
    outcome: str  # correct | wrong | foil | pass
    reason: str | None
    cause: str
    penalty_discarded: bool
    score_card_removed: bool
    score: int
    discard: int
    deck_left: int


class _derived:
    """A value computed from a state on first use and then kept in that state's ``__dict__`` (a state
    never changes; :func:`_with` leaves such values out of the next state)."""

    def __init__(self, compute: Callable[[Any], Any]) -> None:
        self.compute, self.name, self.__doc__ = compute, compute.__name__, compute.__doc__

    def __get__(self, state: Any, owner: type | None = None) -> Any:
        if state is None:
            return self
        value = state.__dict__[self.name] = self.compute(state)
        return value


@dataclass(frozen=True)
class GameState:
    """The whole state of a table: the fold of its events."""

    seed: int = 0
    lang: str = "en"
    options: TableOptions = TableOptions()  # how the table plays (rounds, time limit, recap countdown...)
    deck_name: str = ""
    deck: tuple = ()  # every card of the chosen deck, as Pairs
    seats: tuple = ()  # of Seat, by id order
    order: tuple = ()  # seat ids clockwise
    phase: str = "lobby"
    round: int = 0
    dealt: int = 0
    round_deck: tuple = ()  # cards not yet drawn, top first
    score_pile: tuple = ()
    discard_pile: tuple = ()
    current: Pairs | None = None  # the card in play (drawn; in recap: the next round's card)
    pair_index: int | None = None  # index in ``current`` of the locked pair (None until locked)
    guesser: int | None = None
    clues: tuple = ()  # of ClueResult for the current round, writing order
    turn_since: float = 0.0
    recap_since: float = 0.0  # when the open recap began (its countdown runs from here)
    recap: RoundRecord | None = None  # the last resolved round while its recap is open
    confirmed: frozenset = frozenset()
    history: tuple = ()  # of RoundRecord
    ended_by_host: bool = False
    version: int = 0  # number of events folded

    # --- the options, read where the rules use them ------------------------------------------
    @property
    def rounds(self) -> int:
        return self.options.rounds

    @property
    def time_limit(self) -> float | None:
        return self.options.time_limit

    @property
    def recap_time(self) -> float | None:
        """Seconds a recap stays before the engine continues for everyone (None: no countdown)."""
        return self.options.recap_time

    @property
    def interface_lang(self) -> str:
        """"" = the deck's language (see i18n.interface_language)."""
        return self.options.interface_lang

    @property
    def fixed_guesser(self) -> bool:
        """A practice table: the first seat guesses every round."""
        return self.options.fixed_guesser

    # --- derived -----------------------------------------------------------------------------
    def seat_record(self, seat_id: int) -> Seat | None:
        for s in self.seats:
            if s.id == seat_id:
                return s
        return None

    def name(self, seat_id: int | None) -> str:
        s = self.seat_record(seat_id) if seat_id is not None else None
        return s.name if s else "?"


    # Derived values: computed once per state (see ``_derived``).
    @_derived
    def seat_ids(self) -> frozenset:
        """The ids of the seats at the table."""
        return frozenset(s.id for s in self.seats)

    @_derived
    def writers(self) -> tuple:
        """Clue-Givers in writing order, the Drawer first (from ``order`` and ``guesser``)."""
        return writer_order(self.order, self.guesser) if self.guesser in self.order else ()

    @_derived
    def drawer(self) -> int | None:
        """The seat left of the Guesser: picks the pair and writes the first clue."""
        writers = self.writers
        return writers[0] if writers else None

    @_derived
    def current_writer(self) -> int | None:
        """The seat whose clue is awaited now (``None`` outside the clue phase)."""
        if self.phase != "clues":
            return None
        done = len(self.clues)
        return self.writers[done] if done < len(self.writers) else None

    @property
    def target(self) -> str | None:
        locked = self._locked()
        return locked[0] if locked else None

    @property
    def foil(self) -> str | None:
        locked = self._locked()
        return locked[1] if locked else None

    def _locked(self) -> tuple | None:
        """The locked (target, foil) of the card in play, or None."""
        return self.current[self.pair_index] if self.current is not None and self.pair_index is not None else None

    @property
    def in_play(self) -> int:
        return 1 if self.current is not None else 0

    @property
    def drawer_can_pick(self) -> bool:
        """True while the card in play waits for its pair (reveal, or the recap before it)."""
        return self.current is not None and self.pair_index is None and self.phase in ("reveal", "recap")


# --- commands ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Command:
    """Base of commands; ``seat`` is the acting seat id or ``None`` for the host."""

    seat: int | None
    now: float = 0.0


@dataclass(frozen=True)
class Join(Command):
    """Claim a seat (the table layer makes the token and passes its hash)."""

    name: str = ""
    token_hash: str = ""


@dataclass(frozen=True)
class Act(Command):
    """A JSON action from a seat or the host, already shape-checked by :func:`parse_action`."""

    kind: str = ""
    args: dict = field(default_factory=dict)


def parse_action(seat: int | None, action: Any, now: float = 0.0) -> Act:
    """Check the JSON shape of an action (``{"type": ..., ...}``) and make it a command."""
    if not isinstance(action, dict) or not isinstance(kind := action.get("type"), str):
        raise InvalidAction('An action is an object like {"type": "clue", "text": "..."}.')
    if kind not in _ACTION_KINDS["host" if seat is None else "seat"]:
        if seat is None:
            raise InvalidAction("“{action}” is not an action the host can send.", code="unknown_action",
                                params={"action": kind[:30]})
        raise InvalidAction("“{action}” is not an action a seat can send.", code="unknown_action",
                            params={"action": kind[:30]})
    args = dict(action)
    del args["type"]
    args.pop("id", None)
    if kind == "pick":
        number = args.get("pair")
        if isinstance(number, bool) or not isinstance(number, int) or not 1 <= number <= PAIRS_PER_CARD:
            raise InvalidAction("Pick a pair by its number, 1 to {most}.", code="invalid_pair",
                                params={"most": PAIRS_PER_CARD})
    if kind in ("clue", "guess"):
        text = args.get("text", "")
        if text is None:
            text = ""
        if not isinstance(text, str):
            raise InvalidAction("The text must be a string.")
        args["text"] = text
    return _built(Act, {"seat": seat, "now": float(now), "kind": kind, "args": args})


# --- helpers -------------------------------------------------------------------------------------
@lru_cache(maxsize=4096)
def left_of(order: tuple, seat_id: int) -> int:
    """The seat to the left (next clockwise) of ``seat_id``."""
    i = order.index(seat_id)
    return order[(i + 1) % len(order)]


@lru_cache(maxsize=4096)
def writer_order(order: tuple, guesser: int) -> tuple:
    """Clue-Givers in writing order: clockwise from the Drawer, skipping the Guesser."""
    i = order.index(guesser)
    n = len(order)
    return tuple(order[(i + k) % n] for k in range(1, n))


_BANDS = (  # (minimum score out of 13, label); the label is English, shown through the translator
    (13, N_("Perfect telepathy")),
    (12, N_("Mind readers")),
    (11, N_("Word wizards")),
    (9, N_("Sharp crew")),
    (7, N_("Good company")),
    (4, N_("Warming up")),
    (0, N_("Fresh start")),
)


def rank_band(score: int, rounds: int = 13) -> str:
    """The project's own band label for a final score, scaled to the round deck's length."""
    if rounds <= 0:
        return _BANDS[-1][1]
    if score >= rounds:
        return _BANDS[0][1]
    scaled = score * 13 / rounds
    for minimum, label in _BANDS[1:]:
        if scaled >= minimum:
            return label
    return _BANDS[-1][1]


def _has_control(text: str) -> bool:
    """True if ``text`` holds a control, format, surrogate, private-use or unassigned character."""
    if text.isprintable():  # fast path: printable text has none of those categories
        return False
    return any(unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Cn") for ch in text)


def clean_name(name: Any) -> str:
    """Check and tidy a player name (trimmed, inner spaces collapsed)."""
    if not isinstance(name, str):
        raise InvalidAction("A name is text.", code="invalid_name")
    cleaned = " ".join(name.split())
    if not cleaned:
        raise InvalidAction("Please type a name.", code="invalid_name")
    if len(cleaned) > MAX_NAME_LENGTH:
        raise InvalidAction("Names are at most {limit} characters.", code="invalid_name",
                            params={"limit": MAX_NAME_LENGTH})
    if _has_control(cleaned):
        raise InvalidAction("A name cannot hold control characters.", code="invalid_name")
    return cleaned


def _clean_clue(text: str) -> str:
    """The clue in ``text``, trimmed, or the :class:`InvalidClue` saying why it cannot be one. The
    verdict on a text no longer than a clue is remembered (a refusal is raised anew each time)."""
    if len(text) <= MAX_CLUE_LENGTH:
        return _remembered_clue(text)
    return _checked_clue(text)


def _checked_clue(text: str) -> str:
    clue = text.strip()
    if len(clue) > MAX_CLUE_LENGTH:
        raise InvalidClue("A clue is at most {limit} characters. Try a shorter word.",
                          code="clue_too_long", params={"limit": MAX_CLUE_LENGTH})
    if " " in clue or (not clue.isprintable() and any(ch.isspace() for ch in clue)):
        raise InvalidClue("A clue is one word: remove the spaces.", code="clue_not_one_word")
    if _has_control(clue):
        raise InvalidClue("A clue cannot hold control characters.", code="clue_control_character")
    if clue and not words.has_letter_or_digit(clue):
        raise InvalidClue("A clue needs at least one letter or digit.", code="clue_no_letter")
    _one_script(clue, InvalidClue)
    return clue


_remembered_clue = lru_cache(maxsize=8192)(_checked_clue)


@lru_cache(maxsize=8192)
def _mixes_scripts(word: str) -> bool:
    """:func:`words.mixes_scripts`, remembered per word (it looks up every character's script)."""
    return words.mixes_scripts(word)


def _one_script(text: str, error: type[RuleViolation]) -> None:
    """Refuse a word that mixes alphabets (a Cyrillic "а" among Latin letters looks like "a")."""
    if any(_mixes_scripts(word) for word in text.split()):
        raise error("Each word must be typed in one alphabet: this one mixes letters from "
                    "different alphabets (check your keyboard layout).", code="mixed_scripts")


def _clean_guess(text: str) -> str:
    guess = " ".join(text.split())
    if len(guess) > MAX_GUESS_LENGTH:
        raise InvalidGuess("A guess is at most {limit} characters.", code="guess_too_long",
                           params={"limit": MAX_GUESS_LENGTH})
    if _has_control(guess):
        raise InvalidGuess("A guess cannot hold control characters.", code="guess_control_character")
    _one_script(guess, InvalidGuess)
    return guess


def purge(clues: Iterable[ClueResult], lang: str) -> list[list]:
    """Rows ``[seat, reason, [matching seats]]`` for every clue that matches at least one other.

    Matching is symmetric, so each pair of clues is judged once.
    """
    written = [c for c in clues if c.text is not None]
    matched: dict[int, list[int]] = {c.seat: [] for c in written}
    reasons: dict[int, str] = {}
    for i, j, why in words.variant_pairs([c.text for c in written], lang):
        a, b = written[i].seat, written[j].seat
        matched[a].append(b)
        matched[b].append(a)
        reasons.setdefault(a, why)
        reasons.setdefault(b, why)
    # each seat's matches are already in writing order: earlier clues were added before later ones
    return [[c.seat, reasons[c.seat], matched[c.seat]] for c in written if matched[c.seat]]


# --- decide --------------------------------------------------------------------------------------
def initial_state() -> GameState:
    """The state before any event."""
    return GameState()


def _wrong_phase(state: GameState) -> WrongPhase:
    """Why an action does not fit the phase, naming only players everyone sees."""
    phase = state.phase
    if phase == "lobby":
        return WrongPhase("The game has not started yet.")
    if phase == "reveal":
        return WrongPhase("Waiting for {name} to pick a pair.", params={"name": state.name(state.drawer)})
    if phase == "clues":
        return WrongPhase("Clues are being written; it is {name}'s turn.",
                          params={"name": state.name(state.current_writer)})
    if phase == "guess":
        return WrongPhase("{name} is guessing now.", params={"name": state.name(state.guesser)})
    if phase == "recap":
        return WrongPhase("The round is over; read the recap and press Continue.")
    if phase == "over":
        return WrongPhase("The game is over.")
    return WrongPhase("Not now.")


def decide(state: GameState, command: Command) -> list[Event]:
    """Check ``command`` against the rules; return its events or raise a RuleViolation."""
    if type(command) is not Act:  # an action is the common case: one type test
        if isinstance(command, Join):
            return _decide_join(state, command)
        if not isinstance(command, Act):
            raise InvalidAction("Unknown command.")
    seat = command.seat
    if seat is not None and seat not in state.seat_ids:
        raise NotAllowed("That seat is not at this table.", code="unknown_seat")
    move = MOVES.get(command.kind)
    if move is None:
        raise InvalidAction("“{action}” is not an action.", code="unknown_action",
                            params={"action": command.kind[:30]})
    refusal = move.refusal(state, seat)
    if refusal is not None:
        raise refusal()
    return move.apply(state, command)


def _decide_join(state: GameState, cmd: Join) -> list[Event]:
    name = clean_name(cmd.name)
    if state.phase != "lobby":
        raise TableFull("This game has already started; ask the host for a new table.",
                        code="game_started")
    if len(state.seats) >= MAX_SEATS:
        raise TableFull("This table is full ({most} players).", params={"most": MAX_SEATS})
    if cmd.token_hash and any(s.token_hash == cmd.token_hash for s in state.seats):
        raise NotAllowed("You already have a seat at this table.", code="already_seated")
    if any(words.normalize(s.name) == words.normalize(name) for s in state.seats):
        raise NameTaken("Someone at this table is already called {name}. Pick another name.",
                        params={"name": name})
    new_id = max((s.id for s in state.seats), default=-1) + 1
    return [SeatJoined(seat=new_id, name=name, token_hash=cmd.token_hash)]


# --- the move table ------------------------------------------------------------------------------
# Each row says who may send an action (the host or a seat), in which phases, and when (``check``:
# ``None`` if ``seat`` may send it now, else a function making the refusal). ``decide`` raises that
# refusal before a handler sees the command; ``allowed_actions`` lists the rows with no refusal, so a
# view's ``actions`` and ``decide`` cannot disagree. Handlers then check only the action's arguments.
# Refusals are built only when raised: listing actions for every view stays cheap.
Refusal = Callable[[], RuleViolation]
Check = Callable[[GameState, "int | None"], "Refusal | None"]
Apply = Callable[[GameState, Act], "list[Event]"]


def _anytime(_state: GameState, _seat: int | None) -> Refusal | None:
    return None


@dataclass(frozen=True)
class Move:
    """One row of the move table."""

    kind: str
    actor: str  # "host", "seat" or "any"
    phases: frozenset
    apply: Apply
    check: Check = _anytime
    listed: bool = True  # False: sent by a clock (``expire``), never shown as a control
    #: The only seats ``check`` can let through (a shortcut for :func:`legal_moves`; ``check`` still
    #: decides), or ``None``: any seat.
    who: Callable[[GameState], tuple] | None = None

    def refusal(self, state: GameState, seat: int | None) -> Refusal | None:
        """Why ``seat`` (``None``: the host) may not send this action now (a function making the
        error), or ``None``."""
        if self.actor == "host" and seat is not None:
            return lambda: NotAllowed("Only the host can do that.", code="host_only")
        if self.actor == "seat" and seat is None:
            return lambda: NotAllowed("Only a player at the table can do that.", code="seat_only")
        if state.phase not in self.phases:
            return lambda: _wrong_phase(state)
        return self.check(state, seat)


def _seat_count(state: GameState, _seat: int | None) -> Refusal | None:
    n = len(state.seats)
    if not MIN_SEATS <= n <= MAX_SEATS:
        return lambda: RuleViolation("Dichotomy needs {least} to {most} players; {n} joined.",
                                     code="seat_count", params={"least": MIN_SEATS, "most": MAX_SEATS, "n": n})
    if len(state.deck) < state.rounds:
        return lambda: RuleViolation(
            "The deck has {cards} but the round deck needs {rounds}.", code="deck_too_small",
            params={"cards": Plural("{n} card", "{n} cards", len(state.deck)), "rounds": state.rounds})
    return None


def _someone_seated(state: GameState, _seat: int | None) -> Refusal | None:
    return None if state.seats else lambda: InvalidAction("Nobody has joined yet.", code="no_seats")


def _no_card() -> RuleViolation:
    return WrongPhase("There is no card waiting for a pair right now.")


def _card_waiting(state: GameState, _seat: int | None) -> Refusal | None:
    return None if state.drawer_can_pick else _no_card


def _drawer(state: GameState, seat: int | None) -> Refusal | None:
    if not state.drawer_can_pick:
        return _no_card
    if seat == state.drawer:
        return None
    return lambda: NotYourTurn("{name} picks the pair this round.", params={"name": state.name(state.drawer)})


def _writer(state: GameState, seat: int | None) -> Refusal | None:
    if seat == state.current_writer:
        return None
    if seat == state.guesser:
        return lambda: NotAllowed("You are guessing this round: wait for the clues.", code="guesser_cannot_clue")
    if any(c.seat == seat for c in state.clues):
        return lambda: NotYourTurn("You already gave your clue this round.", code="already_submitted")
    return lambda: NotYourTurn("Wait for your turn: {name} is writing.",
                                params={"name": state.name(state.current_writer)})


def _guesser(state: GameState, seat: int | None) -> Refusal | None:
    if seat == state.guesser:
        return None
    return lambda: NotAllowed("Only {name} guesses this round.", code="not_guesser",
                              params={"name": state.name(state.guesser)})


def _not_confirmed(state: GameState, seat: int | None) -> Refusal | None:
    if seat not in state.confirmed:
        return None
    return lambda: RuleViolation("You already pressed Continue.", code="already_confirmed")


def _timed(state: GameState, _seat: int | None) -> Refusal | None:
    if state.phase == "recap":
        if state.recap_time is not None:
            return None
        return lambda: NotAllowed("This table has no recap countdown.", code="no_recap_time")
    if state.time_limit is not None:
        return None
    return lambda: NotAllowed("This table has no time limit.", code="no_time_limit")


# --- handlers: the action's arguments and its events (the row's checks have passed) ---------------
def _start(state: GameState, cmd: Act) -> list[Event]:
    rng = random.Random(state.seed)
    cards = list(state.deck)
    rng.shuffle(cards)  # the permutation depends on the length alone: as shuffling the indices did
    dealt = tuple(cards[: state.rounds])
    first = state.order[rng.randrange(len(state.seats))]
    if state.fixed_guesser:
        first = state.order[0]
    return [GameStarted(round_deck=dealt, first_guesser=first)]


def _reorder(state: GameState, cmd: Act) -> list[Event]:
    order = cmd.args.get("order")
    if not isinstance(order, list) or sorted(order) != sorted(state.order):
        raise InvalidAction("The new order must list every seat exactly once.", code="invalid_order")
    return [SeatsReordered(order=tuple(order))]


def _remove(state: GameState, cmd: Act) -> list[Event]:
    seat = cmd.args.get("seat")
    if seat not in state.order:
        raise InvalidAction("No such seat.", code="unknown_seat")
    return [SeatRemoved(seat=seat)]


def _pick(state: GameState, cmd: Act) -> list[Event]:
    return [_built(PairLocked, {"pair": cmd.args["pair"] - 1, "by": cmd.seat, "random": False, "at": cmd.now})]


def _random_pick(state: GameState, cmd: Act) -> list[Event]:
    rng = random.Random(f"{state.seed}:pick:{state.round}:{len(state.history)}")
    return [PairLocked(pair=rng.randrange(len(state.current)), by=None, random=True, at=cmd.now)]


def _clue_events(state: GameState, seat: int, text: str | None, cause: str, now: float) -> list[Event]:
    events: list[Event] = [_built(ClueSubmitted, {"seat": seat, "text": text, "cause": cause, "at": now})]
    if len(state.clues) + 1 == len(state.writers):
        clues = state.clues + (_clue_result(seat, text, cause),)
        events.append(CluesPurged(eliminated=tuple(tuple(r) for r in purge(clues, state.lang))))
    return events


def _clue(state: GameState, cmd: Act) -> list[Event]:
    clue = _clean_clue(cmd.args["text"])
    if not clue:
        return _clue_events(state, cmd.seat, None, "empty", cmd.now)
    target, foil = state._locked() or (None, None)
    matches = _clue_matches(clue, target, foil, state.lang)
    if matches == "target":
        raise InvalidClue("That clue is the Target or a form of it. Write another word.",
                          code="clue_matches_target")
    if matches == "foil":
        raise InvalidClue("That clue is the Foil or a form of it. Write another word.",
                          code="clue_matches_foil")
    return _clue_events(state, cmd.seat, clue, "clue", cmd.now)


@lru_cache(maxsize=8192)
def _clue_matches(clue: str, target: str | None, foil: str | None, lang: str) -> str | None:
    """"target" or "foil" when ``clue`` is that word or a form of it (the Target first), else None;
    remembered per clue and pair (one look-up per clue instead of two)."""
    if words.is_variant(clue, target, lang):
        return "target"
    if words.is_variant(clue, foil, lang):
        return "foil"
    return None


def _timeout(state: GameState, cmd: Act) -> list[Event]:
    if state.phase == "clues":
        return _clue_events(state, state.current_writer, None, "host", cmd.now)
    return _judge(state, None, "host", cmd.now)


def _expire(state: GameState, cmd: Act) -> list[Event]:
    if state.phase == "recap":  # the recap countdown: every seat still reading continues now
        if cmd.now < state.recap_since + state.recap_time:
            raise RuleViolation("The recap countdown has not ended yet.", code="time_left")
        missing = tuple(s for s in state.order if s not in state.confirmed)
        return [RecapConfirmed(seats=missing, timed=True)]
    if cmd.now < state.turn_since + state.time_limit:
        raise RuleViolation("The writer still has time.", code="time_left")
    return _clue_events(state, state.current_writer, None, "time_limit", cmd.now)


def _judge(state: GameState, guess: str | None, cause: str, now: float) -> list[Event]:
    if not guess:
        return [GuessJudged(guess=None, outcome="pass", reason=None, cause=cause, at=now)]
    why = words.guess_reason(guess, state.target, state.lang)
    if why is not None:
        return [GuessJudged(guess=guess, outcome="correct", reason=why, cause=cause, at=now)]
    why = words.guess_reason(guess, state.foil, state.lang)
    if why is not None:
        return [GuessJudged(guess=guess, outcome="foil", reason=why, cause=cause, at=now)]
    return [GuessJudged(guess=guess, outcome="wrong", reason=None, cause=cause, at=now)]


def _guess(state: GameState, cmd: Act) -> list[Event]:
    guess = _clean_guess(cmd.args["text"])
    return _judge(state, guess or None, "guess" if guess else "empty", cmd.now)


def _pass(state: GameState, cmd: Act) -> list[Event]:
    return _judge(state, None, "pass", cmd.now)


def _continue(state: GameState, cmd: Act) -> list[Event]:
    return [_built(RecapConfirmed, {"seats": (cmd.seat,), "by_host": False, "timed": False})]


def _confirm_absent(state: GameState, cmd: Act) -> list[Event]:
    missing = tuple(s for s in state.order if s not in state.confirmed)
    return [RecapConfirmed(seats=missing, by_host=True)]


def _end(state: GameState, cmd: Act) -> list[Event]:
    return [GameEnded(by_host=True)]


_PLAYING = frozenset({"lobby", "reveal", "clues", "guess", "recap"})

#: The move table, in the order a view lists the actions (and the host's buttons appear).
MOVES: dict[str, Move] = {m.kind: m for m in (
    Move("start", "host", frozenset({"lobby"}), _start, _seat_count),
    Move("reorder", "host", frozenset({"lobby"}), _reorder, _someone_seated),
    Move("remove", "host", frozenset({"lobby"}), _remove, _someone_seated),
    Move("pick", "seat", frozenset({"reveal", "recap"}), _pick, _drawer, who=lambda s: (s.drawer,)),
    Move("clue", "seat", frozenset({"clues"}), _clue, _writer, who=lambda s: (s.current_writer,)),
    Move("guess", "seat", frozenset({"guess"}), _guess, _guesser, who=lambda s: (s.guesser,)),
    Move("pass", "seat", frozenset({"guess"}), _pass, _guesser, who=lambda s: (s.guesser,)),
    Move("continue", "seat", frozenset({"recap"}), _continue, _not_confirmed),
    Move("timeout", "host", frozenset({"clues", "guess"}), _timeout),
    Move("random_pick", "host", frozenset({"reveal", "recap"}), _random_pick, _card_waiting),
    Move("confirm_absent", "host", frozenset({"recap"}), _confirm_absent),
    Move("end", "host", _PLAYING, _end),
    Move("expire", "any", frozenset({"clues", "recap"}), _expire, _timed, listed=False),
)}


_ACTION_TYPES = {actor: tuple(kind for kind, m in MOVES.items() if m.actor in (actor, "any"))
                 for actor in ("host", "seat")}
_ACTION_KINDS = {actor: frozenset(kinds) for actor, kinds in _ACTION_TYPES.items()}


def action_types(actor: str) -> tuple[str, ...]:
    """Every action type the ``"host"`` or a ``"seat"`` can ever send."""
    known = _ACTION_TYPES.get(actor)
    return known if known is not None else tuple(k for k, m in MOVES.items() if m.actor in (actor, "any"))


_LISTED = {actor: tuple(m for m in MOVES.values() if m.listed and m.actor in (actor, "any"))
           for actor in ("host", "seat")}


def allowed_actions(state: GameState, seat: int | None) -> list[str]:
    """The action types ``seat`` (``None``: the host) may send now, as a view lists them.

    Exactly the listed moves of :data:`MOVES` that :func:`decide` would not refuse (given valid
    arguments). ``expire`` is never listed: a clock sends it once the view's ``deadline`` has passed.
    """
    known = state.__dict__.get("_actions")
    if known is None:
        known = state.__dict__["_actions"] = {}  # a state never changes, so its answers keep
    kinds = known.get(seat)
    if kinds is None:
        phase = state.phase
        kinds = known[seat] = tuple(m.kind for m in _LISTED["host" if seat is None else "seat"]
                                    if phase in m.phases and m.check(state, seat) is None)  # no errors built
    return list(kinds)


#: Per phase, the seat moves that may apply: ``(kind, check, who)``, and whether one of them is open to
#: every seat (``who`` is None).
_SEAT_MOVES = {phase: tuple((m.kind, m.check, m.who) for m in _LISTED["seat"] if phase in m.phases)
               for phase in ("lobby", "reveal", "clues", "guess", "recap", "over")}
_ANY_SEAT = {phase: any(who is None for _, _, who in moves) for phase, moves in _SEAT_MOVES.items()}


def legal_moves(state: GameState) -> list[tuple[int, str]]:
    """Every ``(seat, action type)`` a seat may send now: for each seat in seating order, its
    :func:`allowed_actions`. Worked out once per state (asking only each move's possible seats), or
    from the last state's when a recap's confirmation follows it (:func:`_on_confirmed`)."""
    known = state.__dict__.get("_moves")
    if known is None:
        moves = _SEAT_MOVES.get(state.phase, ())
        if _ANY_SEAT.get(state.phase):  # seat by seat in seating order, its kinds in move-table order
            only = [(kind, check, None if who is None else who(state)) for kind, check, who in moves]
            known = [(seat, kind) for seat in state.order for kind, check, seats in only
                     if (seats is None or seat in seats) and check(state, seat) is None]
        else:
            known = [(seat, kind) for kind, check, who in moves for seat in who(state)
                     if seat is not None and check(state, seat) is None]
            if len(known) > 1 and len({seat for seat, _ in known}) > 1:  # seating order (a stable sort)
                rank = {seat: i for i, seat in enumerate(state.order)}
                known.sort(key=lambda move: rank[move[0]])
        state.__dict__["_moves"] = known
    return list(known)


# --- evolve --------------------------------------------------------------------------------------
def _as_card(raw: Any) -> Pairs:
    return tuple(map(tuple, raw))


_FIELD_COUNT = len(fields(GameState))


def _with(state: GameState, **changes: Any) -> GameState:
    """A copy of ``state`` with ``changes``: ``dataclasses.replace`` without re-running ``__init__``.

    What a state remembers about itself (``_derived`` values, :func:`allowed_actions`, :func:`legal_moves`)
    is not copied (a recap's next legal moves are worked out from its last, see :func:`_on_confirmed`),
    except the writing order and the Drawer, which follow from ``order`` and ``guesser`` alone (kept while
    neither changes: one look-up fewer per event), and the seat ids (kept while ``seats`` does not)."""
    new = object.__new__(GameState)
    values = state.__dict__.copy()  # a dict's copy is cheaper than ``{**a, **b}``
    values.update(changes)
    if len(values) > _FIELD_COUNT:
        pop = values.pop
        pop("current_writer", None)  # one pop per name, no loop: this runs once per event
        pop("_actions", None)
        pop("_moves", None)
        if "order" in changes or "guesser" in changes:
            pop("writers", None)
            pop("drawer", None)
        if "seats" in changes:
            pop("seat_ids", None)
    object.__setattr__(new, "__dict__", values)
    return new


def _drawn(round_deck: tuple) -> dict[str, Any]:
    """The changes that draw the next card of ``round_deck`` (none left: no card in play), for the
    same :func:`_with` as the event's other changes (one state copy, not two)."""
    if not round_deck:
        return {"current": None, "pair_index": None, "round_deck": round_deck}
    return {"current": round_deck[0], "round_deck": round_deck[1:], "pair_index": None}


def evolve(state: GameState, event: Event) -> GameState:
    """Apply one event; pure and total (an event is a fact, never refused)."""
    new = _APPLY[type(event)](state, event)
    if new is state:
        new = _with(state)
    new.__dict__["version"] = state.version + 1  # ``new`` is a fresh copy that nothing else holds yet
    return new


def _on_created(s: GameState, e: TableCreated) -> GameState:
    return _with(s, seed=e.seed, lang=e.lang, options=e.options, deck_name=e.deck_name,
                   deck=tuple(map(_as_card, e.cards)))


def _on_joined(s: GameState, e: SeatJoined) -> GameState:
    return _with(s, seats=s.seats + (Seat(e.seat, e.name, e.token_hash),), order=s.order + (e.seat,))


def _on_removed(s: GameState, e: SeatRemoved) -> GameState:
    return _with(s, seats=tuple(x for x in s.seats if x.id != e.seat),
                   order=tuple(x for x in s.order if x != e.seat))


def _on_reordered(s: GameState, e: SeatsReordered) -> GameState:
    return _with(s, order=tuple(e.order))


def _on_started(s: GameState, e: GameStarted) -> GameState:
    deck = tuple(map(_as_card, e.round_deck))
    return _with(s, phase="reveal", round=1, dealt=len(deck), guesser=e.first_guesser, clues=(),
                 confirmed=frozenset(), **_drawn(deck))


def _on_locked(s: GameState, e: PairLocked) -> GameState:
    next_round = s.round + 1 if s.phase == "recap" else s.round
    return _with(s, phase="clues", pair_index=e.pair, round=next_round, clues=(), recap=None,
                   confirmed=frozenset(), turn_since=e.at)


def _clue_result(seat: int, text: str | None, cause: str) -> ClueResult:
    """``ClueResult(seat, text, cause)``, not yet purged."""
    return _built(ClueResult, {"seat": seat, "text": text, "cause": cause, "eliminated": False, "reason": None,
                               "matched": ()})


def _on_clue(s: GameState, e: ClueSubmitted) -> GameState:
    return _with(s, clues=s.clues + (_clue_result(e.seat, e.text, e.cause),), turn_since=e.at)


def _on_purged(s: GameState, e: CluesPurged) -> GameState:
    fate = {row[0]: (row[1], tuple(row[2])) for row in e.eliminated}
    clues = tuple(_built(ClueResult, {"seat": c.seat, "text": c.text, "cause": c.cause, "eliminated": True,
                                      "reason": fate[c.seat][0], "matched": fate[c.seat][1]})
                  if c.seat in fate else c for c in s.clues)  # not ``replace``: it re-inspects the fields
    return _with(s, phase="guess", clues=clues)


def _on_judged(s: GameState, e: GuessJudged) -> GameState:
    card = s.current
    score, discard, deck = s.score_pile, s.discard_pile, s.round_deck
    penalty = removed = False
    if e.outcome == "correct":
        score = score + (card,)
    else:
        discard = discard + (card,)
        if e.outcome in ("wrong", "foil") and deck:
            discard, deck, penalty = discard + (deck[0],), deck[1:], True
        if e.outcome == "foil" and score:
            discard, score, removed = discard + (score[-1],), score[:-1], True
    record = _built(RoundRecord, dict(
        number=s.round, guesser=s.guesser, drawer=s.drawer, pair_number=s.pair_index + 1,
        target=s.target, foil=s.foil, clues=s.clues, guess=e.guess, outcome=e.outcome, reason=e.reason,
        cause=e.cause, penalty_discarded=penalty, score_card_removed=removed, score=len(score),
        discard=len(discard), deck_left=len(deck)))
    return _with(s, phase="recap", score_pile=score, discard_pile=discard, recap=record,
                 history=s.history + (record,), recap_since=e.at,
                 guesser=s.guesser if s.fixed_guesser else left_of(s.order, s.guesser), confirmed=frozenset(),
                 **_drawn(deck))


def _on_confirmed(s: GameState, e: RecapConfirmed) -> GameState:
    confirmed = s.confirmed | frozenset(e.seats)
    if s.phase == "recap" and confirmed.issuperset(s.order):
        if s.current is None:
            return _with(s, phase="over", confirmed=confirmed)
        return _with(s, phase="reveal", round=s.round + 1, recap=None, confirmed=frozenset(), clues=())
    new = _with(s, confirmed=confirmed)
    moves = s.__dict__.get("_moves")
    if moves is not None and s.phase == "recap":  # only "continue" asks who confirmed: those seats lose it
        seats = e.seats
        new.__dict__["_moves"] = [m for m in moves if m[0] not in seats or m[1] != "continue"]
    return new


def _on_ended(s: GameState, e: GameEnded) -> GameState:
    return _with(s, phase="over", ended_by_host=e.by_host)


_APPLY = {
    TableCreated: _on_created, SeatJoined: _on_joined, SeatRemoved: _on_removed,
    SeatsReordered: _on_reordered, GameStarted: _on_started, PairLocked: _on_locked,
    ClueSubmitted: _on_clue, CluesPurged: _on_purged, GuessJudged: _on_judged,
    RecapConfirmed: _on_confirmed, GameEnded: _on_ended,
}


def replay(events: Iterable[Event], state: GameState | None = None) -> GameState:
    """Fold events onto ``state`` (default: the initial state)."""
    state = state or initial_state()
    for event in events:
        state = evolve(state, event)
    return state
