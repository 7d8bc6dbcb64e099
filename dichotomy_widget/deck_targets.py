"""A deck from a plain word list: Targets only, Foils picked from suggestions (or typed).

(``deck_from_targets`` and ``list_language`` live in :mod:`dichotomy_widget.decks`, beside the parser they
feed, so that ``Deck.from_targets`` needs no import cycle; they are re-exported here.)

A teacher's vocabulary list is one column of Targets. :func:`shortlists` gives each Target a ranked
shortlist of Foils (:func:`dichotomy_widget.words.suggest_foils`); :func:`deck_from_targets` makes
the deck, taking the Foil the teacher chose for a Target, else the first suggestion. A Target with
no Foil (no suggestion and none given) refuses the deck with every such Target named
(``deck_foil_missing``), and the finished rows go through :func:`~dichotomy_widget.decks.parse_deck`,
so the usual rules and messages apply (five rows a card, one word each, no variants).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Iterable

from .config import MAX_DECK_BYTES, MAX_TARGETS
from .decks import comment_header, deck_from_targets, list_language
from .words import FoilSuggestion, suggest_foils

__all__ = ["MAX_TARGETS", "single_column", "one_column_list", "shortlists", "deck_from_targets", "list_language"]

_SEPARATORS = re.compile(r"[,;\t]")


def single_column(text: str) -> tuple[list[str], str, str] | None:
    """``(targets, lang, name)`` when ``text`` is a one-column list (``# lang:`` / ``# name:`` lines and a
    ``target`` header allowed), else None (a two-column list is an ordinary deck)."""
    targets: list[str] = []
    lang = name = ""
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.startswith("#"):
            header = comment_header(stripped)
            if header and header[0] == "lang":
                lang = header[1].lower()
            elif header:
                name = header[1]
            continue
        cells = [c.strip() for c in _SEPARATORS.split(stripped)]
        if len([c for c in cells if c]) > 1:
            return None
        cell = next((c for c in cells if c), "")
        if not targets and cell.lower() == "target":
            continue
        targets.append(cell)
    return (targets, lang, name) if targets else None


def one_column_list(data: bytes, source: str) -> tuple[list[str], str, str] | None:
    """:func:`single_column` of an upload's or a paste's bytes; None for anything else (a JSON deck, a
    file over the size limit, bytes that are not UTF-8: :func:`~dichotomy_widget.decks.deck_from_bytes`
    explains those)."""
    suffix = Path(source).suffix.lower()
    if len(data) > MAX_DECK_BYTES or (suffix and suffix not in (".csv", ".tsv", ".txt")) or b"\x00" in data:
        return None  # a JSON deck, a spreadsheet binary (.xlsx), a file too big: deck_from_bytes says
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return None
    if text.lstrip().startswith(("{", "[")):
        return None
    return single_column(text)


def shortlists(targets: Iterable[str], lang: str, limit: int = 10) -> dict[str, list[FoilSuggestion]]:
    """Each Target's ranked Foil suggestions (an empty list where the data has none)."""
    return {t: suggest_foils(t, lang, limit) for t in targets}
