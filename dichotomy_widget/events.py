"""Events: what happened at a table, as frozen dataclasses that round-trip through JSON.

Events are past-tense facts. Everything random or judged (the deal, the first Guesser, a random pick,
the purge, the verdict on a guess) is decided once and written into an event, so replay never draws
or judges again and gives the same state even if the word matcher improves later.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from functools import lru_cache
from typing import Any, ClassVar

__all__ = [
    "Event",
    "TableCreated",
    "SeatJoined",
    "SeatRemoved",
    "SeatsReordered",
    "GameStarted",
    "PairLocked",
    "ClueSubmitted",
    "CluesPurged",
    "GuessJudged",
    "RecapConfirmed",
    "GameEnded",
    "EVENT_TYPES",
    "event_from_dict",
]


@dataclass(frozen=True)
class Event:
    """Base class; ``type`` is the class name and the store's record type."""

    type: ClassVar[str] = "Event"

    def payload(self) -> dict[str, Any]:
        """JSON-ready payload (tuples become lists)."""
        return {name: _thaw(getattr(self, name)) for name in _field_names(type(self))}


@dataclass(frozen=True)
class TableCreated(Event):
    """A table was set up: its seed, rules options and the whole chosen deck (as [target, foil] lists)."""

    type: ClassVar[str] = "TableCreated"
    seed: int
    lang: str
    rounds: int
    deck_name: str
    cards: tuple
    time_limit: float | None = None


@dataclass(frozen=True)
class SeatJoined(Event):
    """A player claimed a seat; only the hash of the seat's secret token is kept."""

    type: ClassVar[str] = "SeatJoined"
    seat: int
    name: str
    token_hash: str


@dataclass(frozen=True)
class SeatRemoved(Event):
    """The host removed a seat in the lobby."""

    type: ClassVar[str] = "SeatRemoved"
    seat: int


@dataclass(frozen=True)
class SeatsReordered(Event):
    """The host set the clockwise order of the seats in the lobby."""

    type: ClassVar[str] = "SeatsReordered"
    order: tuple


@dataclass(frozen=True)
class GameStarted(Event):
    """The deal: the round deck in draw order (top first) and the first Guesser."""

    type: ClassVar[str] = "GameStarted"
    round_deck: tuple
    first_guesser: int


@dataclass(frozen=True)
class PairLocked(Event):
    """The Drawer (or the engine, for an absent Drawer) locked pair ``pair`` (0-based) of the card."""

    type: ClassVar[str] = "PairLocked"
    pair: int
    by: int | None
    random: bool = False
    at: float = 0.0


@dataclass(frozen=True)
class ClueSubmitted(Event):
    """A writer's clue; ``text`` None is a timeout (empty submit, host, or time limit)."""

    type: ClassVar[str] = "ClueSubmitted"
    seat: int
    text: str | None
    cause: str = "clue"  # clue | empty | host | time_limit
    at: float = 0.0


@dataclass(frozen=True)
class CluesPurged(Event):
    """After the last writer: which clues cancel, as ``[seat, reason, [matching seats]]`` rows."""

    type: ClassVar[str] = "CluesPurged"
    eliminated: tuple


@dataclass(frozen=True)
class GuessJudged(Event):
    """The guess (``None`` for a pass) and its verdict: correct | wrong | foil | pass."""

    type: ClassVar[str] = "GuessJudged"
    guess: str | None
    outcome: str
    reason: str | None = None
    cause: str = "guess"  # guess | pass | empty | host


@dataclass(frozen=True)
class RecapConfirmed(Event):
    """Seats confirmed the recap (``by_host`` when the host confirmed for absent seats)."""

    type: ClassVar[str] = "RecapConfirmed"
    seats: tuple
    by_host: bool = False


@dataclass(frozen=True)
class GameEnded(Event):
    """The host ended the game early."""

    type: ClassVar[str] = "GameEnded"
    by_host: bool = True


EVENT_TYPES: dict[str, type[Event]] = {
    cls.type: cls
    for cls in (TableCreated, SeatJoined, SeatRemoved, SeatsReordered, GameStarted, PairLocked,
                ClueSubmitted, CluesPurged, GuessJudged, RecapConfirmed, GameEnded)
}


@lru_cache(maxsize=None)
def _field_names(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in fields(cls))


def _thaw(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_thaw(v) for v in value]
    return value


def _freeze(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_freeze(v) for v in value)
    return value


def event_from_dict(type_name: str, payload: dict[str, Any]) -> Event:
    """Rebuild an event from its store record (lists become tuples, unknown keys are ignored)."""
    cls = EVENT_TYPES[type_name]
    names = _field_names(cls)
    return cls(**{k: _freeze(v) for k, v in payload.items() if k in names})
