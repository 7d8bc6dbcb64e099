"""A deck from a plain word list: Targets only, Foils picked from suggestions (or typed).

A teacher's vocabulary list is one column of Targets. :func:`shortlists` gives each Target a ranked
shortlist of Foils (:func:`dichotomy_widget.words.suggest_foils`); :func:`deck_from_targets` makes
the deck, taking the Foil the teacher chose for a Target, else the first suggestion. A Target with
no Foil (no suggestion and none given) refuses the deck with every such Target named
(``deck_foil_missing``), and the finished rows go through :func:`~dichotomy_widget.decks.parse_deck`,
so the usual rules and messages apply (five rows a card, one word each, no variants).
"""

from __future__ import annotations

import re
from typing import Iterable, Mapping

from .config import MAX_DECK_BYTES, PAIRS_PER_CARD
from .decks import Deck, parse_deck, detect_language
from .errors import DeckError, Lines, Phrase
from .words import FoilSuggestion, has_relations, normalize, suggest_foils

__all__ = ["MAX_TARGETS", "single_column", "one_column_list", "shortlists", "deck_from_targets", "list_language"]

#: Targets in one word list (20 cards): each gets a shortlist and a row in the form.
MAX_TARGETS = 100
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
            m = re.match(r"#\s*(lang|name)\s*:\s*(.+)", stripped, re.I)
            if m and m.group(1).lower() == "lang":
                lang = m.group(2).strip().lower()
            elif m:
                name = m.group(2).strip()
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
    if len(data) > MAX_DECK_BYTES or source.lower().endswith(".json"):
        return None
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


def list_language(targets: list[str], lang: str | None, source: str = "word list") -> str:
    """The list's language: ``lang`` if given, else the one its words clearly show; else ask."""
    if lang:
        return lang.strip().lower()
    found, _counts = detect_language(targets)
    if found is None:
        raise DeckError("{source}: which language is this deck in? Choose it, or add a first line "
                        "\"# lang: es\".", code="deck_lang_missing", params={"source": source})
    return found


def deck_from_targets(targets: Iterable[str], lang: str | None = None, foils: Mapping[str, str] | None = None,
                      name: str = "", source: str = "word list") -> Deck:
    """A deck of ``targets`` in ``lang`` (detected from the words when None), each with its Foil:
    ``foils[target]`` when given (``""``: none yet), else the first suggestion. Raises :class:`DeckError`
    (``deck_foil_missing``) naming every Target left without a Foil, or the usual deck errors."""
    targets = [str(t).strip() for t in targets]
    if len(targets) > MAX_TARGETS:
        raise DeckError("{source}: {n} words; a word list for Foil suggestions holds at most {limit} "
                        "(split it into smaller decks).", code="deck_too_many_targets",
                        params={"source": source, "n": len(targets), "limit": MAX_TARGETS})
    lang = list_language(targets, lang, source)
    chosen = {normalize(k): str(v or "").strip() for k, v in (foils or {}).items()}
    rows: list[tuple[str, str]] = []
    missing: list[Phrase] = []
    for number, target in enumerate(targets, start=1):
        foil = chosen.get(normalize(target), "")
        if normalize(target) not in chosen and target:  # a Target given "" keeps asking for a Foil
            first = suggest_foils(target, lang, 1)
            foil = first[0].word if first else ""
        if not foil:
            missing.append(Phrase("word {number} (“{target}”): no Foil suggestion; type one",
                                  number=str(number), target=target[:40]))
        rows.append((target, foil))
    if missing:
        hint = None if has_relations(lang) else Phrase(
            "Foil suggestions are not available for this language: type a Foil for each word.")
        _refuse_missing(source, missing, hint)
    text = f"# lang: {lang}\n" + "".join(f"{t}\t{f}\n" for t, f in rows)
    deck = parse_deck(text, fmt="csv", lang=lang, source=source, sep="\t")
    return Deck(name=name or deck.name, lang=deck.lang, cards=deck.cards, source=source) if name else deck


def _refuse_missing(source: str, problems: list[Phrase], hint: Phrase | None) -> None:
    """Refuse a list with Targets left without a Foil, each named (``problems`` as for any deck)."""
    lines: list[tuple[str, Phrase | str]] = [("- ", p) for p in problems]
    if hint is not None:
        lines.append(("", hint))
    err = DeckError("{source}: problems in the deck ({count}):\n{problems}", code="deck_foil_missing",
                    params={"source": source, "count": len(problems), "problems": Lines(lines)})
    err.problems = [str(p) for p in problems]  # type: ignore[attr-defined]
    err.problem_phrases = list(problems)  # type: ignore[attr-defined]
    raise err


def cards_needed(n_targets: int) -> int:
    """Rows still missing for the last card to be complete (0 when the list fills whole cards)."""
    return (-n_targets) % PAIRS_PER_CARD
