"""Decks beyond the packaged ones: a teacher's saved decks (kept in the table store) and a folder of decks.

Saved decks are an event-sourced stream in the ordinary :class:`~dichotomy_widget.stores.TableStore`
(no change to the stores), on the same base as tables and classes (:mod:`~dichotomy_widget.aggregate`):
the stream ``decks:<owner>`` holds :class:`~dichotomy_widget.events.DeckSaved` and
:class:`~dichotomy_widget.events.DeckDeleted` events, and replaying them gives the library. An unknown
or newer event in it is a :class:`~dichotomy_widget.errors.StoreError`, as in a table. ``<owner>`` is :func:`owner_id` of a secret only the
teacher has (the teacher key, or a random secret kept by the host's browser when no key is set), so
one teacher's library is invisible to anyone without that secret. Such a stream can never be opened
as a table: table codes use only the letters of :data:`dichotomy_widget.table.CODE_ALPHABET`.

A folder of decks (``dichotomy serve --decks DIR``) is read with :func:`folder_decks`: every deck file
that passes :func:`~dichotomy_widget.decks.load_deck` is offered, the others are reported with
their first problem.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Iterable, Mapping, Sequence

from .aggregate import Aggregate
from .config import DECKS_DIR_ENV
from .decks import DECK_FILE_SUFFIXES, Card, Deck, load_deck
from .errors import DeckError, TableExists, TableNotFound
from .events import DeckDeleted, DeckSaved, Event
from .stores import TableStore
from .logs import log_failure
from .stores.base import Record

__all__ = ["DeckLibrary", "SavedDeck", "owner_id", "folder_decks", "first_problem", "LIBRARY_PREFIX",
           "DECKS_DIR_ENV", "MAX_SAVED_DECKS"]

log = logging.getLogger(__name__)

#: Store stream ids of deck libraries start with this (``decks:<owner>``).
LIBRARY_PREFIX = "decks:"
#: A library holds at most this many decks (a bound on what one page replays).
MAX_SAVED_DECKS = 200
_OWNER_SALT = b"dichotomy-deck-library/1"
_OWNER_ROUNDS = 20_000


def owner_id(secret: str) -> str:
    """The library owner for a secret (teacher key or browser secret): a slow salted hash, so the
    store never holds the secret itself and a copy of the store does not reveal it cheaply."""
    if not isinstance(secret, str) or not secret:
        raise DeckError("A deck library needs a secret.", code="deck_library_owner")
    digest = hashlib.pbkdf2_hmac("sha256", secret.encode("utf-8", "surrogatepass"), _OWNER_SALT, _OWNER_ROUNDS)
    return digest.hex()[:40]


@dataclass(frozen=True)
class SavedDeck:
    """One saved deck as listed (no words): its id, name, language, card count and when it was saved."""

    id: str
    name: str
    lang: str
    cards: int
    saved_at: float


def _deck_id(deck: Deck) -> str:
    """Same content, same id: saving a deck twice keeps one copy."""
    body = json.dumps([deck.name, deck.lang, [c.to_json() for c in deck.cards]], ensure_ascii=False)
    return hashlib.sha256(body.encode("utf-8", "surrogatepass")).hexdigest()[:16]


class DeckLibrary(Aggregate[Mapping[str, DeckSaved]]):
    """The saved decks of one owner in ``store`` (see the module docstring); its state maps a deck id
    to the event that saved it. The stream is created by its first write."""

    kind = "decks"
    noun = "deck library"

    def __init__(self, store: TableStore, owner: str) -> None:
        if not owner or not all(ch in "0123456789abcdef" for ch in owner):
            raise DeckError("A deck library owner is an owner_id().", code="deck_library_owner")
        super().__init__(f"{LIBRARY_PREFIX}{owner}", store)

    @classmethod
    def for_secret(cls, store: TableStore, secret: str) -> "DeckLibrary":
        """The library of whoever knows ``secret``."""
        return cls(store, owner_id(secret))

    # -- the aggregate ------------------------------------------------------------------------
    def initial_state(self) -> Mapping[str, DeckSaved]:
        return {}

    def replay(self, events: Sequence[Event], state: Mapping[str, DeckSaved]) -> Mapping[str, DeckSaved]:
        decks = dict(state)
        for event in events:
            if isinstance(event, DeckSaved):
                decks[event.id] = event
            elif isinstance(event, DeckDeleted):
                decks.pop(event.id, None)
        return decks

    @property
    def log_name(self) -> str:
        return f"deck library {self.stream[:16]}"  # the owner id shortened

    def busy_error(self) -> DeckError:
        return DeckError("The deck library is busy; try again.", code="deck_library_busy")

    def load_records(self) -> list[Record]:
        """A library nobody has written to yet has no stream: it is empty."""
        try:
            return super().load_records()
        except TableNotFound:
            return []

    def prepare_append(self) -> None:
        """The first write creates the stream."""
        if self.seq == 0 and not self.store.table_exists(self.stream):
            try:
                self.store.create_table(self.stream, {"kind": "deck-library"})
            except TableExists:
                pass

    # -- reading ------------------------------------------------------------------------------
    def list(self) -> list[SavedDeck]:
        """The saved decks, newest first."""
        self.refresh()
        out = [_listed(d) for d in self.state.values()]
        return sorted(out, key=lambda s: (-s.saved_at, s.name))

    def get(self, deck_id: str) -> Deck:
        """The saved deck ``deck_id``; :class:`DeckError` (``deck_not_found``) if there is none."""
        self.refresh()
        data = self.state.get(deck_id)
        if data is None:
            raise DeckError("That saved deck is not in your library any more.", code="deck_not_found")
        return Deck(name=data.name, lang=data.lang, description=data.description,
                    cards=tuple(Card.from_json(c) for c in data.cards), source=data.source)

    # -- writing ------------------------------------------------------------------------------
    def save(self, deck: Deck, name: str | None = None) -> SavedDeck:
        """Keep a validated deck (under ``name`` if given); saving the same deck again keeps one copy."""
        if name:
            deck = replace(deck, name=name)
        deck_id = _deck_id(deck)
        event = DeckSaved(id=deck_id, name=deck.name, lang=deck.lang, description=deck.description,
                          cards=tuple(tuple(c.to_json()) for c in deck.cards), source=deck.source,
                          saved_at=time.time())

        def decide(decks: Mapping[str, DeckSaved]) -> list[Event]:
            if deck_id in decks:
                return []
            if len(decks) >= MAX_SAVED_DECKS:
                raise DeckError("Your library already holds {most} decks; delete one first.",
                                code="deck_library_full", params={"most": MAX_SAVED_DECKS})
            return [event]

        self.execute(decide)
        return _listed(self.state[deck_id])

    def delete(self, deck_id: str) -> None:
        """Delete a saved deck; :class:`DeckError` (``deck_not_found``) if it is not there."""

        def decide(decks: Mapping[str, DeckSaved]) -> list[Event]:
            if deck_id not in decks:
                raise DeckError("That saved deck is not in your library any more.", code="deck_not_found")
            return [DeckDeleted(id=deck_id, deleted_at=time.time())]

        self.execute(decide)


def _listed(saved: DeckSaved) -> SavedDeck:
    return SavedDeck(id=saved.id, name=saved.name, lang=saved.lang, cards=len(saved.cards),
                     saved_at=float(saved.saved_at))


def first_problem(exc: DeckError) -> str:
    """The first problem of a refused deck, on one line."""
    problems = getattr(exc, "problems", None)
    if problems:
        return f"{exc.message.splitlines()[0].split(':')[0]}: {problems[0]}"
    return exc.message.splitlines()[0]


def folder_decks(folder: "str | Path", files: Iterable[Path] | None = None) -> tuple[dict[str, Deck], list[tuple[str, str]]]:
    """Every deck file in ``folder``: ``({file name: Deck}, [(file name, first problem)])``.

    A file must name its language (``# lang:`` or ``"lang"``); dot files and files whose ending is not
    a deck's (or a spreadsheet's) are ignored.
    """
    root = Path(folder)
    if not root.is_dir():
        raise DeckError("{folder}: not a folder of decks.", code="deck_folder_missing", params={"folder": str(folder)})
    valid: dict[str, Deck] = {}
    invalid: list[tuple[str, str]] = []
    spreadsheet = (".xlsx", ".xlsm", ".xls", ".ods")
    inside = root.resolve()
    for path in sorted(files if files is not None else root.iterdir(), key=lambda p: p.name):
        suffix = path.suffix.lower()
        if path.name.startswith(".") or suffix not in DECK_FILE_SUFFIXES + spreadsheet:
            continue
        real = path.resolve()
        if not real.is_relative_to(inside):  # a link out of the folder (to /proc/self/environ, ...)
            log.warning("deck folder: %s links outside the folder; not read", path.name)
            invalid.append((path.name, f"{path.name}: a link to a file outside the decks folder; not read."))
            continue
        if not real.is_file():
            continue
        try:
            valid[path.name] = load_deck(real, default_lang=None)
        except DeckError as exc:
            invalid.append((path.name, first_problem(exc)))
        except OSError as exc:
            invalid.append((path.name, f"{path.name}: cannot be read ({exc.strerror or exc})."))
        except Exception as err:  # noqa: BLE001 - one strange file must not stop the server or the page
            log_failure(log, "deck folder: %s could not be read", err, path.name)
            invalid.append((path.name, f"{path.name}: cannot be read as a deck."))
    return valid, invalid
