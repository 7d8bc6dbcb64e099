"""Dichotomy: a cooperative classroom word party game (Just One plus a Foil), played inside Jupyter.

Quick start::

    from dichotomy_widget import PassAndPlayWidget, Table
    table = Table.create(deck="en", rounds=13)
    for name in ("Ada", "Ben", "Cy"):
        table.join(name)
    PassAndPlayWidget(table)   # one screen for the whole table (in a notebook)

Widgets (``SeatWidget``, ``TableWidget``, ``PassAndPlayWidget``) are imported on first use, so the
engine stays cheap to import.
"""

from __future__ import annotations

from typing import Any

from .class_mode.classroom import Classroom, StudentTicket
from .deck_library import DeckLibrary, SavedDeck
from .decks import Card, Deck, Pair, deck_from_bytes, detect_language, load_deck, packaged_decks, parse_deck
from .errors import (ClassNotFound, DeckError, DeckWarning, DependencyMissing, DichotomyError, HubIdentityError,
                     InvalidAction, InvalidClue, InvalidGuess, NameTaken, NotAllowed, NotYourTurn, RuleViolation,
                     SeatingError, SeatNotFound, StaleAction, StoreError, TableFull, TableNotFound,
                     TeacherKeyRequired, VersionConflict, WrongPhase)
from .rules import GameState, rank_band
from .stores import MemoryStore, SqliteStore, TableStore, open_store
from .options import TableOptions
from .table import SeatTicket, Table
from .words import is_variant, normalize, variant_reason

__version__ = "0.1.0"

__all__ = [
    "Table", "SeatTicket", "TableOptions", "GameState", "rank_band", "Classroom", "StudentTicket",
    "Deck", "Card", "Pair", "load_deck", "parse_deck", "deck_from_bytes", "packaged_decks", "detect_language",
    "DeckLibrary", "SavedDeck",
    "TableStore", "MemoryStore", "SqliteStore", "open_store",
    "is_variant", "variant_reason", "normalize",
    "SeatWidget", "TableWidget", "PassAndPlayWidget",
    "DichotomyError", "RuleViolation", "WrongPhase", "StaleAction", "NotYourTurn", "NotAllowed", "InvalidClue",
    "InvalidGuess", "InvalidAction", "TableFull", "NameTaken", "DeckError", "DeckWarning", "StoreError",
    "TeacherKeyRequired", "VersionConflict", "TableNotFound", "SeatNotFound", "DependencyMissing",
    "ClassNotFound", "SeatingError", "HubIdentityError",
    "__version__",
]

_WIDGETS = ("SeatWidget", "TableWidget", "PassAndPlayWidget")


def __getattr__(name: str) -> Any:
    """Import the widget classes lazily (anywidget and traitlets are not needed by the engine)."""
    if name in _WIDGETS:
        from .widgets import game as widgets

        return getattr(widgets, name)
    raise AttributeError(f"module 'dichotomy_widget' has no attribute {name!r}")
