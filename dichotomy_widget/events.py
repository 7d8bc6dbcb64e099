"""Events: what happened at a table, in a class or in a saved-deck library, as frozen dataclasses that
round-trip through JSON. One registry (:data:`EVENT_TYPES`) holds every stream's events; each event
names the kind of stream it belongs to (``stream_kind``: ``table``, ``class`` or ``decks``), and one
function (:func:`event_from_dict`) decodes them all.

Events are past-tense facts. Everything random or judged (the deal, the first Guesser, a random pick,
the purge, the verdict on a guess) is decided once and written into an event, so replay never draws
or judges again and gives the same state even if the word matcher improves later.

Schema versions: every stored payload carries its event type's schema version under ``"v"`` (a
payload without one was written by release 0.1.0 and is version 1). Loading an older payload runs
the registered upcasters, one version step at a time (``UPCASTERS[(type, v)]`` turns a version ``v``
payload into version ``v + 1``), so a table written by an older release replays with the new code.
An unknown event type (or one of another kind of stream) or a version newer than this code knows
raises :class:`StoreError` naming the stream, never a bare ``KeyError``.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, is_dataclass
from functools import lru_cache
from typing import Any, Callable, ClassVar

from .errors import StoreError
from .options import TableOptions

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
    "ClassCreated",
    "StudentJoined",
    "StudentRemoved",
    "TablesMade",
    "TableAdded",
    "StudentMoved",
    "TableStarted",
    "TablePlayedAgain",
    "ClassEnded",
    "DeckSaved",
    "DeckDeleted",
    "STREAM_KINDS",
    "EVENT_TYPES",
    "SCHEMA_KEY",
    "UPCASTERS",
    "upcaster",
    "upcast",
    "event_from_dict",
]

SCHEMA_KEY = "v"


@dataclass(frozen=True)
class Event:
    """Base class; ``type`` is the class name and the store's record type."""

    type: ClassVar[str] = "Event"
    version: ClassVar[int] = 1  # the payload schema this code writes
    stream_kind: ClassVar[str] = "table"  # the kind of stream it belongs to (see STREAM_KINDS)
    #: Fields holding a value object, stored as a JSON object of its fields (name: its class).
    nested: ClassVar[dict[str, type]] = {}

    def payload(self) -> dict[str, Any]:
        """JSON-ready payload (tuples become lists), with its schema version."""
        values = self.__dict__
        out = {name: _thaw(values[name]) for name in _field_names(type(self))}
        out[SCHEMA_KEY] = self.version
        return out

    def stored_payload(self) -> dict[str, Any]:
        """The payload as a store writes it: :meth:`payload` with tuples left as they are (JSON writes a
        tuple as a list, so the stored text is the same) -- no list made per card of a whole deck.
        Only for encoding: a store's records hold lists."""
        values = self.__dict__
        nested = self.nested
        out = {name: _thaw(values[name]) if name in nested else values[name] for name in _field_names(type(self))}
        out[SCHEMA_KEY] = self.version
        return out


@dataclass(frozen=True)
class TableCreated(Event):
    """A table was set up: its seed, how it plays (``options``, a :class:`TableOptions`) and the whole
    chosen deck (as [target, foil] lists).

    Version 2 adds ``created_with``: the release that created the table (a version 1 payload was
    written by release 0.1.0). Version 3 adds ``interface_lang``: the language the table's screens
    speak (``""``: the deck's language when the interface has it, else English). Version 4 carries the
    options (rounds, time limit, interface language, fixed Guesser, recap countdown) as one nested
    ``options`` object instead of flat fields.
    """

    type: ClassVar[str] = "TableCreated"
    version: ClassVar[int] = 4
    nested: ClassVar[dict[str, type]] = {"options": TableOptions}
    seed: int
    lang: str
    deck_name: str
    cards: tuple
    options: TableOptions
    created_with: str = ""


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
    at: float = 0.0  # when the recap opened (0 in older payloads: a recap countdown had run out)


@dataclass(frozen=True)
class RecapConfirmed(Event):
    """Seats confirmed the recap (``by_host`` when the host confirmed for absent seats, ``timed`` when
    the table's recap countdown ran out)."""

    type: ClassVar[str] = "RecapConfirmed"
    seats: tuple
    by_host: bool = False
    timed: bool = False


@dataclass(frozen=True)
class GameEnded(Event):
    """The host ended the game early."""

    type: ClassVar[str] = "GameEnded"
    by_host: bool = True


# --- a class (see classroom.py) ---------------------------------------------------------------
@dataclass(frozen=True)
class ClassCreated(Event):
    """A class was set up: its name, the deck (cards as [target, foil] lists), the preferred table size
    and how its tables play (``options``, a :class:`TableOptions`; version 1 had flat ``rounds``,
    ``time_limit`` and ``interface_lang`` fields)."""

    type: ClassVar[str] = "ClassCreated"
    version: ClassVar[int] = 2
    stream_kind: ClassVar[str] = "class"
    nested: ClassVar[dict[str, type]] = {"options": TableOptions}
    name: str
    deck_name: str
    lang: str
    cards: tuple
    table_size: int
    seed: int
    options: TableOptions


@dataclass(frozen=True)
class StudentJoined(Event):
    """A student joined the class; only the hash of their secret token is kept."""

    type: ClassVar[str] = "StudentJoined"
    stream_kind: ClassVar[str] = "class"
    student: int
    name: str
    token_hash: str
    device: str = ""  # the page's device tag (a hash of its address), "" where devices are not bounded


@dataclass(frozen=True)
class StudentRemoved(Event):
    """The teacher removed a student (before their table started): their link no longer opens."""

    type: ClassVar[str] = "StudentRemoved"
    stream_kind: ClassVar[str] = "class"
    student: int


@dataclass(frozen=True)
class TablesMade(Event):
    """The roster was split into tables: student ids per table (table 1 first)."""

    type: ClassVar[str] = "TablesMade"
    stream_kind: ClassVar[str] = "class"
    tables: tuple


@dataclass(frozen=True)
class TableAdded(Event):
    """The teacher added an empty table."""

    type: ClassVar[str] = "TableAdded"
    stream_kind: ClassVar[str] = "class"
    number: int


@dataclass(frozen=True)
class StudentMoved(Event):
    """A student was moved (or, joining late, seated) to table ``table`` (1-based)."""

    type: ClassVar[str] = "StudentMoved"
    stream_kind: ClassVar[str] = "class"
    student: int
    table: int


@dataclass(frozen=True)
class TableStarted(Event):
    """Table ``number`` started as the ordinary table ``code``."""

    type: ClassVar[str] = "TableStarted"
    stream_kind: ClassVar[str] = "class"
    number: int
    code: str


@dataclass(frozen=True)
class TablePlayedAgain(Event):
    """Table ``number``'s game was over and it plays again, with the same players and the next cards,
    as the ordinary table ``code`` (the finished game stays in the class, for the report)."""

    type: ClassVar[str] = "TablePlayedAgain"
    stream_kind: ClassVar[str] = "class"
    number: int
    code: str


@dataclass(frozen=True)
class ClassEnded(Event):
    """The teacher ended the class: no more joins, no more moves; the games still in play were ended."""

    type: ClassVar[str] = "ClassEnded"
    stream_kind: ClassVar[str] = "class"


# --- a saved-deck library (see deck_library.py) ----------------------------------------------------
@dataclass(frozen=True)
class DeckSaved(Event):
    """A teacher kept a deck (``id``: a hash of its content); ``cards`` as [target, foil] lists."""

    type: ClassVar[str] = "DeckSaved"
    stream_kind: ClassVar[str] = "decks"
    id: str
    name: str
    lang: str
    cards: tuple
    description: str = ""
    source: str = ""
    saved_at: float = 0.0


@dataclass(frozen=True)
class DeckDeleted(Event):
    """A teacher deleted saved deck ``id``."""

    type: ClassVar[str] = "DeckDeleted"
    stream_kind: ClassVar[str] = "decks"
    id: str
    deleted_at: float = 0.0


#: What a message calls a stream of each kind (the events of each kind are in :data:`EVENT_TYPES`).
STREAM_KINDS: dict[str, str] = {"table": "Table", "class": "Class", "decks": "Saved-deck library"}

#: Every event of every stream, by type name (names are unique across kinds).
EVENT_TYPES: dict[str, type[Event]] = {
    cls.type: cls
    for cls in (TableCreated, SeatJoined, SeatRemoved, SeatsReordered, GameStarted, PairLocked,
                ClueSubmitted, CluesPurged, GuessJudged, RecapConfirmed, GameEnded,
                ClassCreated, StudentJoined, StudentRemoved, TablesMade, TableAdded, StudentMoved, TableStarted,
                TablePlayedAgain, ClassEnded, DeckSaved, DeckDeleted)
}


@lru_cache(maxsize=None)
def _field_names(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in fields(cls))


#: JSON leaves, answered without further checks (a deck is thousands of strings).
_LEAVES = frozenset({str, int, float, bool, type(None)})


def _thaw(value: Any) -> Any:
    if type(value) in _LEAVES:
        return value
    if isinstance(value, tuple):
        return [v if type(v) in _LEAVES else _thaw(v) for v in value]
    if is_dataclass(value) and not isinstance(value, type):  # a value object: a JSON object of its fields
        return {f.name: _thaw(getattr(value, f.name)) for f in fields(value)}
    return value


def _freeze(value: Any) -> Any:
    if isinstance(value, list):  # leaves are answered inline: a deck is thousands of strings
        if list not in map(type, value):  # no list inside (a JSON list holds plain lists): one C pass
            return tuple(value)
        return tuple([_freeze(v) if isinstance(v, list) else v for v in value])
    return value


UPCASTERS: dict[tuple[str, int], Callable[[dict[str, Any]], dict[str, Any]]] = {}


def upcaster(type_name: str, from_version: int):
    """Register a function that turns a ``from_version`` payload of ``type_name`` into the next version."""
    def register(fn: Callable[[dict[str, Any]], dict[str, Any]]) -> Callable[[dict[str, Any]], dict[str, Any]]:
        UPCASTERS[(type_name, from_version)] = fn
        return fn
    return register


@upcaster("TableCreated", 1)
def _table_created_1_to_2(payload: dict[str, Any]) -> dict[str, Any]:
    return {**payload, "created_with": "0.1.0"}


@upcaster("TableCreated", 2)
def _table_created_2_to_3(payload: dict[str, Any]) -> dict[str, Any]:
    return {**payload, "interface_lang": ""}


#: The flat option fields of a version 3 ``TableCreated`` and a version 1 ``ClassCreated``.
_FLAT_OPTIONS = ("rounds", "time_limit", "interface_lang", "fixed_guesser", "recap_time")


def _nest_options(payload: dict[str, Any]) -> dict[str, Any]:
    """The flat option fields of ``payload`` moved into one ``options`` object (left without one if the
    payload lacks ``rounds``: a corrupt event stays one)."""
    out = {k: v for k, v in payload.items() if k not in _FLAT_OPTIONS}
    if "rounds" in payload:
        out["options"] = {k: payload[k] for k in _FLAT_OPTIONS if k in payload}
    return out


@upcaster("TableCreated", 3)
def _table_created_3_to_4(payload: dict[str, Any]) -> dict[str, Any]:
    return _nest_options(payload)


@upcaster("ClassCreated", 1)
def _class_created_1_to_2(payload: dict[str, Any]) -> dict[str, Any]:
    return _nest_options(payload)


def _value(cls: type, data: Any) -> Any:
    """A nested value object rebuilt from its JSON object (unknown keys ignored, missing ones default)."""
    if not isinstance(data, dict):
        raise TypeError(f"{cls.__name__} is stored as an object")
    names = _field_names(cls)
    return cls(**{k: _freeze(v) for k, v in data.items() if k in names})


def _stream_label(kind: str, stream: str) -> str:
    """``Table K7QX2M``, ``Class K7QX2M``, ``Saved-deck library decks:0a1b2c3d…`` (an owner id shortened)."""
    name = str(stream)
    if kind == "class" and name.startswith("class-"):
        name = name[len("class-"):]
    elif kind == "decks" and len(name) > 16:
        name = name[:14] + "…"
    return f"{STREAM_KINDS.get(kind, 'Stream')} {name}"


def upcast(type_name: str, payload: dict[str, Any], table: str = "?", kind: str = "table") -> dict[str, Any]:
    """``payload`` raised to the schema version this code writes; :class:`StoreError` if it cannot be.

    ``table`` is the stream id for messages and ``kind`` the kind of stream it was read from: an event
    of another kind of stream is as unknown there as a made-up type."""
    cls = EVENT_TYPES.get(type_name)
    label = _stream_label(kind, table)
    if cls is None or cls.stream_kind != kind:
        # untranslated: developer-only (a corrupt or newer store: for whoever runs the server)
        unknown = (f"{label}: a stored event has the type {str(type_name)[:40]!r}, which this "
                   "version of Dichotomy does not know (was it written by a newer release?).")
        raise StoreError(unknown, code="unknown_event_type")
    if not isinstance(payload, dict):
        raise StoreError(f"{label}: a stored {type_name} event is not a JSON object.", code="corrupt_event")  # untranslated: developer-only
    version = payload.get(SCHEMA_KEY, 1)
    if isinstance(version, bool) or not isinstance(version, int) or not 1 <= version <= cls.version:
        raise StoreError(f"{label}: a stored {type_name} event has schema version {str(version)[:20]}; "  # untranslated: developer-only
                         f"this version of Dichotomy reads versions 1 to {cls.version} (update Dichotomy).",
                         code="unknown_event_version")
    while version < cls.version:
        step = UPCASTERS.get((type_name, version))
        if step is None:
            raise StoreError(f"{label}: no upgrade from {type_name} version {version}.",  # untranslated: developer-only
                             code="unknown_event_version")
        payload = step(payload)
        version += 1
    return payload


def event_from_dict(type_name: str, payload: dict[str, Any], table: str = "?", kind: str = "table") -> Event:
    """Rebuild an event of a ``kind`` stream from its store record: upcast to the current schema,
    lists become tuples, unknown keys are ignored. :class:`StoreError` (naming stream ``table``) for
    what cannot be read."""
    payload = upcast(type_name, payload, table, kind)
    cls = EVENT_TYPES[type_name]
    names = _field_names(cls)
    try:
        values = {k: _freeze(v) for k, v in payload.items() if k in names}
        for name, value_cls in cls.nested.items():
            if name in values:
                values[name] = _value(value_cls, values[name])
        return cls(**values)
    except TypeError as err:  # a required field is missing, or a nested value is not an object
        raise StoreError(f"{_stream_label(kind, table)}: a stored {type_name} event lacks a field it needs.",  # untranslated: developer-only
                         code="corrupt_event") from err
