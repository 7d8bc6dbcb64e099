"""Word-card decks: the data types, the JSON and CSV file formats, validation and the packaged decks.

JSON format (``format`` is optional; one card per line keeps error line numbers useful)::

    {
      "format": "dichotomy-deck/1",
      "name": "English classroom",
      "lang": "en",
      "description": "Everyday nouns for B1 learners",
      "cards": [
        [["sea", "ocean"], ["coffee", "tea"], ["cat", "dog"], ["sun", "moon"], ["bread", "butter"]],
        ...
      ]
    }

CSV format (a teacher's vocabulary list): rows of ``target,foil``; the separator is a comma, a
semicolon (what spreadsheets export in French or German locales) or a tab, found from the rows (or set
with a first line ``sep=;`` or ``parse_deck(..., sep=";")``); an optional header row ``target,foil``;
lines starting with ``#`` are comments, ``# lang: es`` sets the language. Rows are grouped into cards
of five in file order.

Language: ``lang=`` wins, then the file's ``# lang:`` line or ``"lang"`` key, then ``default_lang``.
By default (``default_lang=DETECT``) the language whose shipped lexicon knows clearly the most of the
deck's words is used and a :class:`~dichotomy_widget.errors.DeckWarning` says so; when the words do
not tell, or with ``default_lang=None``, loading fails and asks for the language
(``deck_lang_missing``). English is never assumed silently.

Rules checked on load: every card has exactly five pairs; each word is one word like a clue (no
spaces, commas, semicolons or slashes), 1 to 40 characters with no control characters and no HTML
(``<`` or ``>``); no word appears twice on one card; a Target and its Foil are not variants of each
other (checked with :func:`dichotomy_widget.words.is_variant` in the deck's language); no Target is
used twice in the deck.

Limits on a deck file (defined in :mod:`dichotomy_widget.config`; :func:`deck_from_bytes` applies them
to files and uploads alike): at most :data:`MAX_DECK_BYTES` bytes, UTF-8 text (not a spreadsheet binary such as
``.xlsx``), at most :data:`MAX_DECK_ROWS` target/foil rows.
"""

from __future__ import annotations

import bisect
import csv
import json
import logging
import re
import sys
import unicodedata
import warnings
from dataclasses import dataclass, field
from functools import cached_property
from importlib import resources
from pathlib import Path
from typing import Callable, Iterable, Mapping

from .config import MAX_DECK_BYTES, MAX_DECK_ROWS, MAX_TARGETS, MAX_WORD_LENGTH, PAIRS_PER_CARD
from .errors import DeckError, DeckWarning, Lines, Phrase
from .i18n import N_
from . import words

__all__ = ["Pair", "Card", "Deck", "PAIRS_PER_CARD", "MAX_WORD_LENGTH", "MAX_DECK_BYTES", "MAX_DECK_ROWS",
           "DECK_FILE_SUFFIXES", "SEPARATORS", "DETECT", "load_deck", "parse_deck", "deck_from_bytes",
           "packaged_decks", "detect_language", "deck_too_big", "MAX_JSON_DEPTH", "deck_from_targets"]

logger = logging.getLogger(__name__)

# -- limits: defined once in config.py; the deck file limits are applied here ------------------
MAX_PROBLEMS_SHOWN = 10
#: How deeply a JSON deck may nest (a deck needs 4: the object, "cards", a card, a pair).
MAX_JSON_DEPTH = 20
#: For the depth check: JSON strings, anything but a bracket, an innermost empty pair.
_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_EMPTY_PAIR = re.compile(r"\[\]|\{\}")
#: File name endings read as decks (``.json``: JSON; the others: CSV or tab-separated rows).
DECK_FILE_SUFFIXES = (".csv", ".tsv", ".txt", ".json")
_SPREADSHEET_SUFFIXES = (".xlsx", ".xlsm", ".xls", ".ods", ".numbers")
_BINARY_MAGIC = (b"PK\x03\x04", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1")  # zip (xlsx, ods), OLE2 (xls)
_LANG_CODE = re.compile(r"[a-z]{2,3}(-[a-z0-9]{1,8})?")
#: ``default_lang=DETECT``: a deck that names no language plays in the one its words show (and says so).
DETECT = "detect"
#: CSV separators understood, with how a message names them.
SEPARATORS = {",": N_("a comma"), ";": N_("a semicolon"), "\t": N_("a tab")}
LANGUAGE_NAMES = {"en": "English", "es": "Spanish", "fr": "French", "de": "German", "it": "Italian",
                  "pt": "Portuguese"}
_LANGUAGE_SAMPLE = 200  # distinct words looked up per language when a deck names no language
_NOT_ONE_WORD = re.compile(r"[\s,;|/]")
_MARK_NAMES = {",": N_("a comma"), ";": N_("a semicolon"), "|": N_("a bar"), "/": N_("a slash")}


@dataclass(frozen=True)
class Pair:
    """One Target / Foil pair."""

    target: str
    foil: str


@dataclass(frozen=True)
class Card:
    """A word card: five numbered pairs (numbered 1..5 to players)."""

    pairs: tuple[Pair, ...]

    def to_json(self) -> list[list[str]]:
        return [[p.target, p.foil] for p in self.pairs]

    @classmethod
    def from_json(cls, data: list[list[str]]) -> "Card":
        return cls(tuple(Pair(str(t), str(f)) for t, f in data))


@dataclass(frozen=True)
class Deck:
    """A validated deck of cards in one language."""

    name: str
    lang: str
    cards: tuple[Card, ...]
    description: str = ""
    source: str = field(default="", compare=False)

    def __len__(self) -> int:
        return len(self.cards)

    @cached_property
    def card_pairs(self) -> tuple:
        """Every card as a tuple of ``(target, foil)`` tuples, as a table's first event holds the deck
        (made once per deck: a deck never changes)."""
        return tuple(tuple((p.target, p.foil) for p in card.pairs) for card in self.cards)

    @classmethod
    def from_targets(cls, targets, lang: str | None = None, foils=None, name: str = "") -> "Deck":
        """A deck from a word list: each Target gets ``foils[target]`` or its first Foil suggestion
        (see :mod:`dichotomy_widget.deck_targets`, where ``shortlists`` shows the choices)."""
        return deck_from_targets(targets, lang, foils=foils, name=name)

    def to_json(self) -> dict:
        return {
            "format": "dichotomy-deck/1",
            "name": self.name,
            "lang": self.lang,
            "description": self.description,
            "cards": [c.to_json() for c in self.cards],
        }


def _deck_dir():
    return resources.files("dichotomy_widget") / "decks"


def packaged_decks() -> dict[str, str]:
    """Names of the decks shipped with the package, mapped to their display names."""
    out: dict[str, str] = {}
    for entry in sorted(_deck_dir().iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".json"):
            key = entry.name[: -len(".json")]
            try:
                out[key] = json.loads(entry.read_text(encoding="utf-8")).get("name", key)
            except ValueError:
                out[key] = key
    return out


def load_deck(source: "str | Path | Deck", lang: str | None = None, default_lang: str | None = DETECT,
              sep: str | None = None) -> Deck:
    """Load a deck: a packaged deck name ("en"), a path to a .json or .csv file, or a Deck.

    A file is checked by :func:`deck_from_bytes` (limits, then :func:`parse_deck` with ``lang``,
    ``default_lang`` and ``sep``)."""
    if isinstance(source, Deck):
        return source
    text_source = str(source)
    packaged = _deck_dir() / f"{text_source}.json"
    if "/" not in text_source and "\\" not in text_source and packaged.is_file():
        return parse_deck(packaged.read_text(encoding="utf-8"), fmt="json", lang=lang, source=text_source)
    path = Path(source)
    if not path.is_file():
        known = ", ".join(packaged_decks()) or "none"
        raise DeckError("No deck named “{name}”: not a file, and not a packaged deck ({known}).",
                        code="deck_not_found", params={"name": text_source[:80], "known": known})
    size = path.stat().st_size
    if size > MAX_DECK_BYTES:
        raise _too_big(path.name, size)
    return deck_from_bytes(path.read_bytes(), path.name, lang=lang, default_lang=default_lang, sep=sep)


def deck_too_big(source: str, size: int) -> DeckError:
    """The refusal of a deck file of ``size`` bytes, over :data:`MAX_DECK_BYTES` (``deck_too_big``)."""
    return _too_big(source, size)


def _too_big(source: str, size: int) -> DeckError:
    return DeckError("{source}: the file is {size} bytes; a deck file is at most {limit} bytes "
                     "(1 MB). Split it into smaller decks.", code="deck_too_big",
                     params={"source": source, "size": size, "limit": MAX_DECK_BYTES})


def deck_from_bytes(data: bytes, filename: str, lang: str | None = None,
                    default_lang: str | None = DETECT, sep: str | None = None) -> Deck:
    """Check a deck file's bytes against the limits, decode them and parse them (an upload or a file).

    Refused with a clear :class:`DeckError` each: more than :data:`MAX_DECK_BYTES` bytes
    (``deck_too_big``), a spreadsheet binary such as ``.xlsx`` (``deck_spreadsheet``), bytes that are
    not UTF-8 (``deck_not_utf8``); then the rules of :func:`parse_deck`. ``.json`` files are JSON;
    ``.csv``/``.tsv``/``.txt`` are rows; any other name is JSON when it starts with ``{``.
    """
    source = Path(filename or "deck").name or "deck"
    suffix = Path(source).suffix.lower()
    if len(data) > MAX_DECK_BYTES:
        raise _too_big(source, len(data))
    if suffix in _SPREADSHEET_SUFFIXES or data.startswith(_BINARY_MAGIC):
        raise DeckError("{source}: this is a spreadsheet file, not text. In the spreadsheet, save it as "
                        "\"CSV UTF-8\" (File, Save as), or copy the two columns and paste them.",
                        code="deck_spreadsheet", params={"source": source})
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DeckError("{source}: the file is not UTF-8 text (byte {byte}). Save it with the "
                        "UTF-8 encoding (in a spreadsheet: \"CSV UTF-8\").", code="deck_not_utf8",
                        params={"source": source, "byte": str(exc.start)}) from None
    if suffix == ".json" or (suffix not in DECK_FILE_SUFFIXES and text.lstrip().startswith("{")):
        fmt = "json"
    else:
        fmt = "csv"
    return parse_deck(text, fmt=fmt, lang=lang, source=source, default_lang=default_lang, sep=sep)


def _raise_problems(source: str, problems: list[Phrase], hint: Phrase | None = None) -> None:
    """Refuse a deck with its problems listed (the first few), each a phrase naming its line.

    ``err.problems`` holds every problem in English, ``err.problem_phrases`` the same as phrases
    (``Translator.problems(err)`` shows them in a language).
    """
    lines: list[tuple[str, Phrase | str]] = [("- ", p) for p in problems[:MAX_PROBLEMS_SHOWN]]
    more = len(problems) - MAX_PROBLEMS_SHOWN
    if more > 0:
        lines.append(("- ", Phrase("... and {n} more", n=more)))
    if hint is not None:
        lines.append(("", hint))
    err = DeckError("{source}: problems in the deck ({count}):\n{problems}",
                    params={"source": source, "count": len(problems), "problems": Lines(lines)})
    err.problems = [str(p) for p in problems]  # type: ignore[attr-defined]
    err.problem_phrases = list(problems)  # type: ignore[attr-defined]
    raise err


def parse_deck(text: str, fmt: str = "json", lang: str | None = None, source: str = "deck",
               default_lang: str | None = DETECT, sep: str | None = None) -> Deck:
    """Parse and validate deck text in the JSON or CSV format (``sep``: a CSV separator to force).

    The language is ``lang`` if given, else the deck's own (``# lang:`` or ``"lang"``), else
    ``default_lang``: :data:`DETECT` (the default) reads it from the words and says so in a
    :class:`DeckWarning`, or asks for it when the words do not tell; ``None`` asks for it
    (``deck_lang_missing``); a code is used as it is. Never assumed to be English.
    A refusal's ``problems`` attribute (when present) lists every problem, each with its line.
    """
    if len(text) > MAX_DECK_BYTES:
        raise _too_big(source, len(text.encode("utf-8", "surrogatepass")))
    if fmt == "csv":
        name, deck_lang, cards = _parse_csv(text, source, sep)
        description = ""
    else:
        name, deck_lang, description, cards = _parse_json(text, source)
    deck_lang = (lang or deck_lang or "").strip().lower()
    if not deck_lang and default_lang == DETECT:
        deck_lang = _language_of(cards, source)
    elif not deck_lang:
        deck_lang = (default_lang or "").strip().lower()
    if not deck_lang:
        raise DeckError("{source}: the deck does not say its language. Choose it, or add a first line "
                        "\"# lang: es\" (a list) or \"lang\": \"es\" (JSON).", code="deck_lang_missing",
                        params={"source": source})
    if not _LANG_CODE.fullmatch(deck_lang):
        raise DeckError("{source}: “{lang}” is not a language code (such as en, es, fr, de).",
                        code="deck_bad_lang", params={"source": source, "lang": deck_lang[:20]})
    problems = _validate(cards, deck_lang)
    if problems:
        _raise_problems(source, problems)
    return Deck(
        name=name or source,
        lang=deck_lang,
        cards=tuple(Card(tuple(Pair(t, f) for t, f, _ in pairs)) for pairs, _ in cards),
        description=description,
        source=source,
    )


# A parsed card before validation: ([(target, foil, line)], line of the card)
_RawCard = tuple[list[tuple[str, str, int]], int]


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _line_finder(text: str) -> Callable[[int], int]:
    """``line(offset)`` for many offsets of one text: the newlines are found once (no rescan per card)."""
    newlines = [m.start() for m in re.finditer("\n", text)]
    return lambda offset: bisect.bisect_left(newlines, offset) + 1


def _check_depth(text: str, source: str) -> None:
    """Refuse JSON nested deeper than :data:`MAX_JSON_DEPTH` before parsing it (a deck needs 4 levels;
    a file of 100,000 brackets would exhaust the parser's recursion). Strings are dropped, then the
    innermost empty pairs of brackets removed level by level: each pass is one regex over the text."""
    brackets = _NOT_BRACKET.sub("", _JSON_STRING.sub("", text))
    for _level in range(MAX_JSON_DEPTH + 1):
        brackets, removed = _EMPTY_PAIR.subn("", brackets)
        if not brackets or not removed:
            return  # nested no deeper than the bound (or unbalanced: the parser says where)
    raise DeckError("{source}: the JSON is nested more than {limit} levels deep; a deck is an object "
                    "with a \"cards\" list of [target, foil] pairs.", code="deck_too_deep",
                    params={"source": source, "limit": MAX_JSON_DEPTH})


def _bounded_int(digits: str) -> int:
    """A JSON integer, refused when longer than any deck needs (Python refuses 4,300 digits itself)."""
    if len(digits) > 30:
        raise ValueError(f"a number of {len(digits)} digits")
    return int(digits)


def _card_offsets(text: str) -> list[int]:
    """Start offsets of each element of the top-level "cards" array, for line numbers."""
    match = re.search(r'"cards"\s*:\s*\[', text)
    if not match:
        return []
    decoder = json.JSONDecoder()
    offsets, pos = [], match.end()
    try:
        while True:
            while pos < len(text) and text[pos] in " \t\r\n,":
                pos += 1
            if pos >= len(text) or text[pos] == "]":
                return offsets
            offsets.append(pos)
            _, pos = decoder.raw_decode(text, pos)
    except ValueError:
        return offsets


def _parse_json(text: str, source: str) -> tuple[str, str, str, list[_RawCard]]:
    _check_depth(text, source)
    try:
        data = json.loads(text, parse_int=_bounded_int)
    except json.JSONDecodeError as exc:
        raise DeckError("{source}, line {line}, column {column}: not valid JSON ({detail}).",
                        params={"source": source, "line": str(exc.lineno), "column": str(exc.colno),
                                "detail": exc.msg}) from None
    except (ValueError, RecursionError) as exc:  # a number too long for Python; nesting past the check
        raise DeckError("{source}: not valid JSON for a deck ({detail}).", code="deck_bad_json",
                        params={"source": source, "detail": str(exc)[:80]}) from None
    if not isinstance(data, dict) or not isinstance(data.get("cards"), list):
        raise DeckError('{source}, line 1: a deck is a JSON object with a "cards" list.', params={"source": source})
    for key in ("name", "lang", "description"):
        if key in data and not isinstance(data[key], str):
            raise DeckError('{source}: "{key}" must be text.', params={"source": source, "key": key})
    pairs_given = sum(len(c) for c in data["cards"] if isinstance(c, list))
    if pairs_given > MAX_DECK_ROWS:
        raise _too_many_rows(source, pairs_given)
    if len(data["cards"]) > MAX_DECK_ROWS // PAIRS_PER_CARD:
        raise DeckError("{source}: {cards} cards; a deck has at most {limit} cards. Split it into smaller decks.",
                        code="deck_too_many_cards", params={"source": source, "cards": len(data["cards"]),
                                                            "limit": MAX_DECK_ROWS // PAIRS_PER_CARD})
    offsets = _card_offsets(text)
    line_at = _line_finder(text)
    cards: list[_RawCard] = []
    for i, card in enumerate(data["cards"]):
        line = line_at(offsets[i]) if i < len(offsets) else 0
        where = f"card {i + 1} (line {line})" if line else f"card {i + 1}"
        if not isinstance(card, list):
            raise DeckError("{source}, {where}: a card is a list of [target, foil] pairs.",
                            params={"source": source, "where": where})
        pairs = []
        for j, pair in enumerate(card):
            if isinstance(pair, dict):
                pair = [pair.get("target"), pair.get("foil")]
            if (not isinstance(pair, list) or len(pair) != 2
                    or not all(isinstance(w, str) for w in pair)):
                raise DeckError("{source}, {where}, pair {pair}: a pair is [\"target\", \"foil\"], two texts.",
                                params={"source": source, "where": where, "pair": j + 1})
            pairs.append((pair[0], pair[1], line))
        cards.append((pairs, line))
    return data.get("name", ""), data.get("lang", ""), data.get("description", ""), cards


def _too_many_rows(source: str, rows: int | None = None, line: int | None = None) -> DeckError:
    where = f"{source}, line {line}" if line else source
    if rows:
        return DeckError("{where}: more than {limit} rows ({rows}); a deck has at most {limit} target/foil pairs. "
                         "Split it into smaller decks.", code="deck_too_many_rows",
                         params={"where": where, "limit": MAX_DECK_ROWS, "rows": rows})
    return DeckError("{where}: more than {limit} rows; a deck has at most {limit} target/foil pairs. "
                     "Split it into smaller decks.", code="deck_too_many_rows",
                     params={"where": where, "limit": MAX_DECK_ROWS})


def _cells(line: str, sep: str) -> list[str]:
    """The cells of one row; a row the csv module cannot read (a cell over its 128 KB field limit) is
    one cell, which the caller reports as a row without two cells."""
    try:
        return [c.strip() for c in next(csv.reader([line], delimiter=sep))]
    except csv.Error:
        return [line[:20] + "..."]


def _detect_separator(lines: list[str]) -> str:
    """The separator (comma, semicolon or tab) that splits the most rows into exactly two cells."""
    sample = lines[:200]
    scores = {sep: sum(len(_cells(line, sep)) == 2 for line in sample) for sep in SEPARATORS}
    return max(SEPARATORS, key=lambda sep: scores[sep])  # ties keep the comma (dict order)


def _example(sep: str) -> str:
    """A sample row with the file's separator, readable in a message."""
    return "kettle<tab>teapot" if sep == "\t" else f"kettle{sep}teapot"


_COMMENT_HEADER = re.compile(r"#\s*(lang|name)\s*:\s*(.+)", re.I)


def comment_header(line: str) -> tuple[str, str] | None:
    """``("lang" | "name", value)`` for a list's ``# lang: fr`` / ``# name: …`` line, else None."""
    m = _COMMENT_HEADER.match(line)
    return (m.group(1).lower(), m.group(2).strip()) if m else None


def _parse_csv(text: str, source: str, sep: str | None = None) -> tuple[str, str, list[_RawCard]]:
    lang, name = "", ""
    data: list[tuple[int, str]] = []
    for line_no, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.startswith("#"):
            header = comment_header(stripped)
            if header and header[0] == "lang":
                lang = header[1]
            elif header:
                name = header[1]
            continue
        hint = re.fullmatch(r"sep=(.)", stripped, re.I)  # Excel's separator line
        if hint and not data:
            sep = sep or hint.group(1)
            continue
        data.append((line_no, line))
    if sep is not None and sep not in SEPARATORS:
        raise DeckError("{source}: the separator “{sep}” is not one of comma, semicolon or tab.",
                        params={"source": source, "sep": sep[:5]})
    sep = sep or _detect_separator([line for _, line in data])
    rows: list[tuple[str, str, int]] = []
    problems: list[Phrase] = []
    two_cells = False
    for line_no, line in data:
        cells = _cells(line, sep)
        if not rows and not problems and [c.lower() for c in cells[:2]] == ["target", "foil"]:
            continue
        if len(rows) + len(problems) >= MAX_DECK_ROWS:
            raise _too_many_rows(source, line=line_no)
        if len(cells) != 2:
            shown = ", ".join(repr(c) for c in cells[:4]) + (", ..." if len(cells) > 4 else "")
            two_cells = True
            problems.append(Phrase("line {line}: expected two cells, a Target and a Foil separated by {sep}; "
                                   "got {n} ({shown})", line=str(line_no), sep=Phrase(SEPARATORS[sep]),
                                   n=len(cells), shown=shown))
        elif not any(cells):
            problems.append(Phrase("line {line}: the Target and Foil are empty; every row needs a Target and "
                                   "its Foil ({example})", line=str(line_no), example=_example(sep)))
        elif not cells[0]:
            problems.append(Phrase("line {line}: the Target is empty; every row needs a Target and its Foil "
                                   "({example})", line=str(line_no), example=_example(sep)))
        elif not cells[1]:
            problems.append(Phrase("line {line}: the Foil is empty; every row needs a Target and its Foil "
                                   "({example})", line=str(line_no), example=_example(sep)))
        else:
            rows.append((cells[0], cells[1], line_no))
    if problems:
        _raise_problems(source, problems, hint=Phrase("Separators understood: a comma, a semicolon or a tab, "
                                                      "the same on every row.") if two_cells else None)
    if not rows:
        raise DeckError("{source}: no Target and Foil rows found (one row per pair, like {example}).",
                        params={"source": source, "example": _example(sep)})
    if len(rows) % PAIRS_PER_CARD:
        tail = rows[len(rows) - len(rows) % PAIRS_PER_CARD:]
        raise DeckError(
            "{source}, lines {first}-{last}: the last card is incomplete ({n} of {size} rows); "
            "every card needs {size} rows (rows given: {rows}).",
            params={"source": source, "first": str(tail[0][2]), "last": str(tail[-1][2]), "n": len(tail),
                    "size": PAIRS_PER_CARD, "rows": len(rows)})
    cards = [(rows[i:i + PAIRS_PER_CARD], rows[i][2]) for i in range(0, len(rows), PAIRS_PER_CARD)]
    return name, lang, cards


def detect_language(word_list: "list[str] | tuple[str, ...]") -> tuple[str | None, dict[str, int]]:
    """The language whose shipped lexicon knows clearly the most of ``word_list``, and every count.

    ``None`` when no language stands out (fewer than 60 % of the words known, or a lead over the
    runner-up of less than a fifth of the words). Looks up at most 200 distinct words per language.
    """
    sample = list(dict.fromkeys(words.normalize(w) for w in word_list if w.strip()))[:_LANGUAGE_SAMPLE]
    counts = {lang: sum(words.is_known(w, lang) for w in sample) for lang in words.SUPPORTED_LANGUAGES}
    ranked = sorted(counts, key=lambda lang: -counts[lang])
    if not sample or len(ranked) < 2:
        return None, counts
    best, second = counts[ranked[0]], counts[ranked[1]]
    if best >= 0.6 * len(sample) and best - second >= max(2, 0.2 * len(sample)):
        return ranked[0], counts
    return None, counts


def _language_of(cards: list[_RawCard], source: str) -> str:
    """Detect a deck's language from its words and say so (a warning), or ask for it (an error)."""
    word_list = [w for pairs, _ in cards for t, f, _line in pairs for w in (t, f)]
    lang, counts = detect_language(word_list)
    total = len(set(words.normalize(w) for w in word_list if w.strip()))
    sampled = min(total, _LANGUAGE_SAMPLE)
    tally = ", ".join(f"{code} {counts[code]}" for code in sorted(counts, key=lambda c: -counts[c]))
    codes = ", ".join(words.SUPPORTED_LANGUAGES)
    if lang is None:
        raise DeckError(
            "{source}: which language is this deck in? It has no '# lang:' line (or \"lang\" key), "
            "and its words do not tell (words known per language, of {sampled}: {tally}). Add a line "
            "'# lang: fr' at the top (one of {codes}), or pass lang=\"fr\".", code="deck_lang_missing",
            params={"source": source, "sampled": sampled, "tally": tally, "codes": codes})
    message = (f"{source} has no '# lang:' line; its words look {LANGUAGE_NAMES.get(lang, lang)} "
               f"(words known per language, of {sampled}: {tally}), so the deck plays in {lang!r}. "
               f"Add '# lang: {lang}' to the file (or pass lang=...) to say so and silence this warning.")
    logger.info("deck %s: language detected as %s", source, lang)
    warnings.warn(message, DeckWarning, stacklevel=_caller_stacklevel())
    return lang


def _caller_stacklevel() -> int:
    """The stack level of the first caller outside this package (the notebook cell or script)."""
    package = str(Path(__file__).resolve().parent)
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_code.co_filename.startswith(package):
        frame, level = frame.f_back, level + 1
    return level


#: What can be wrong with a card word, said of a Target and of a Foil (whole sentences translate better).
_WORD_PROBLEMS = {
    "target": {
        "empty": N_("{at}: target {word} is empty"),
        "long": N_("{at}: target {word} is longer than {limit} characters"),
        "control": N_("{at}: target {word} has a control character"),
        "html": N_("{at}: target {word} has HTML (< or >); words are plain text"),
        "words": N_("{at}: target {word} is not one word (it has {what}); a card word is one word, like a "
                    "clue: keep one word, or join them with a hyphen"),
    },
    "foil": {
        "empty": N_("{at}: foil {word} is empty"),
        "long": N_("{at}: foil {word} is longer than {limit} characters"),
        "control": N_("{at}: foil {word} has a control character"),
        "html": N_("{at}: foil {word} has HTML (< or >); words are plain text"),
        "words": N_("{at}: foil {word} is not one word (it has {what}); a card word is one word, like a "
                    "clue: keep one word, or join them with a hyphen"),
    },
}


def _word_problem(role: str, word: str, at: Phrase) -> Phrase | None:
    """What is wrong with one card word (``role``: target or foil), or None (the one-word rule of a clue)."""
    said = _WORD_PROBLEMS[role]
    shown = repr(word[:20])
    if not word.strip():
        return Phrase(said["empty"], at=at, word=shown)
    if len(word.strip()) > MAX_WORD_LENGTH:
        return Phrase(said["long"], at=at, word=shown, limit=MAX_WORD_LENGTH)
    if any(unicodedata.category(ch).startswith("C") for ch in word):
        return Phrase(said["control"], at=at, word=shown)
    if "<" in word or ">" in word:
        return Phrase(said["html"], at=at, word=shown)
    found = _NOT_ONE_WORD.search(word.strip())
    if found:
        what = Phrase(N_("a space") if found.group().isspace() else _MARK_NAMES[found.group()])
        return Phrase(said["words"], at=at, word=shown, what=what)
    return None


def _validate(cards: list[_RawCard], lang: str) -> list[Phrase]:
    problems: list[Phrase] = []
    if not cards:
        return [Phrase("the deck has no cards")]
    seen_targets: dict[str, int] = {}
    for index, (pairs, card_line) in enumerate(cards, start=1):
        where = (Phrase("card {card} (line {line})", card=str(index), line=str(card_line)) if card_line
                 else Phrase("card {card}", card=str(index)))
        if len(pairs) != PAIRS_PER_CARD:
            problems.append(Phrase("{where}: a card needs {size} pairs (pairs given: {n})", where=where, n=len(pairs),
                                   size=PAIRS_PER_CARD))
        on_card: dict[str, int] = {}
        for number, (target, foil, line) in enumerate(pairs, start=1):
            at = (Phrase("{where}, pair {pair}", where=where, pair=str(number)) if not line or line == card_line
                  else Phrase("line {line}", line=str(line)))
            for role, word in (("target", target), ("foil", foil)):
                issue = _word_problem(role, word, at)
                if issue:
                    problems.append(issue)
                key = words.normalize(word)
                if key in on_card:
                    problems.append(Phrase("{at}: {word} appears twice on this card", at=at, word=repr(word)))
                on_card[key] = number
            if target.strip() and foil.strip() and words.is_variant(target, foil, lang):
                problems.append(Phrase("{at}: target {target} and foil {foil} are variants of each other", at=at,
                                       target=repr(target), foil=repr(foil)))
            key = words.normalize(target)
            if key in seen_targets:
                problems.append(Phrase("{at}: target {target} is already a target on card {card}", at=at,
                                       target=repr(target), card=str(seen_targets[key])))
            else:
                seen_targets[key] = index
    return problems


# -- a deck from a word list (Targets only; Foils from suggestions): see deck_targets.py -------------
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
    chosen = {words.normalize(k): str(v or "").strip() for k, v in (foils or {}).items()}
    rows: list[tuple[str, str]] = []
    missing: list[Phrase] = []
    for number, target in enumerate(targets, start=1):
        foil = chosen.get(words.normalize(target), "")
        if words.normalize(target) not in chosen and target:  # a Target given "" keeps asking for a Foil
            first = words.suggest_foils(target, lang, 1)
            foil = first[0].word if first else ""
        if not foil:
            missing.append(Phrase("word {number} (“{target}”): no Foil suggestion; type one",
                                  number=str(number), target=target[:40]))
        rows.append((target, foil))
    if missing:
        hint = None if words.has_relations(lang) else Phrase(
            "Foil suggestions are not available for this language: type a Foil for each word.")
        _refuse_missing_foils(source, missing, hint)
    text = f"# lang: {lang}\n" + "".join(f"{t}\t{f}\n" for t, f in rows)
    deck = parse_deck(text, fmt="csv", lang=lang, source=source, sep="\t")
    return Deck(name=name or deck.name, lang=deck.lang, cards=deck.cards, source=source) if name else deck


def _refuse_missing_foils(source: str, problems: list[Phrase], hint: Phrase | None) -> None:
    """Refuse a list with Targets left without a Foil, each named (``problems`` as for any deck)."""
    lines: list[tuple[str, Phrase | str]] = [("- ", p) for p in problems]
    if hint is not None:
        lines.append(("", hint))
    err = DeckError("{source}: problems in the deck ({count}):\n{problems}", code="deck_foil_missing",
                    params={"source": source, "count": len(problems), "problems": Lines(lines)})
    err.problems = [str(p) for p in problems]  # type: ignore[attr-defined]
    err.problem_phrases = list(problems)  # type: ignore[attr-defined]
    raise err
