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

CSV format (a teacher's vocabulary list): rows of ``target,foil``; an optional header row
``target,foil``; lines starting with ``#`` are comments, ``# lang: es`` sets the language. Rows are
grouped into cards of five in file order.

Rules checked on load: every card has exactly five pairs; each word is 1 to 40 characters with no
control characters and no HTML (``<`` or ``>``); no word appears twice on one card; a Target and its
Foil are not variants of each other (checked with :func:`dichotomy_widget.words.is_variant` in the
deck's language); no Target is used twice in the deck.

Limits on a deck file (defined in :mod:`dichotomy_widget.config`; :func:`deck_from_bytes` applies them
to files and uploads alike): at most :data:`MAX_DECK_BYTES` bytes, UTF-8 text (not a spreadsheet binary such as
``.xlsx``), at most :data:`MAX_DECK_ROWS` target/foil rows.
"""

from __future__ import annotations

import csv
import io
import json
import re
import unicodedata
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from .config import MAX_DECK_BYTES, MAX_DECK_ROWS, MAX_WORD_LENGTH, PAIRS_PER_CARD
from .errors import DeckError
from . import words

__all__ = ["Pair", "Card", "Deck", "PAIRS_PER_CARD", "MAX_WORD_LENGTH", "MAX_DECK_BYTES", "MAX_DECK_ROWS",
           "DECK_FILE_SUFFIXES", "load_deck", "parse_deck", "deck_from_bytes", "packaged_decks"]

# -- limits: defined once in config.py; the deck file limits are applied here ------------------
MAX_PROBLEMS_SHOWN = 10
#: File name endings read as decks (``.json``: JSON; the others: CSV or tab-separated rows).
DECK_FILE_SUFFIXES = (".csv", ".tsv", ".txt", ".json")
_SPREADSHEET_SUFFIXES = (".xlsx", ".xlsm", ".xls", ".ods", ".numbers")
_BINARY_MAGIC = (b"PK\x03\x04", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1")  # zip (xlsx, ods), OLE2 (xls)
_LANG_CODE = re.compile(r"[a-z]{2,3}(-[a-z0-9]{1,8})?")


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


def load_deck(source: "str | Path | Deck", lang: str | None = None, default_lang: str | None = "en") -> Deck:
    """Load a deck: a packaged deck name ("en"), a path to a .json or .csv file, or a Deck.

    A file is checked by :func:`deck_from_bytes` (limits, then :func:`parse_deck` with ``lang`` and
    ``default_lang``)."""
    if isinstance(source, Deck):
        return source
    text_source = str(source)
    packaged = _deck_dir() / f"{text_source}.json"
    if "/" not in text_source and "\\" not in text_source and packaged.is_file():
        return parse_deck(packaged.read_text(encoding="utf-8"), fmt="json", lang=lang, source=text_source)
    path = Path(source)
    if not path.is_file():
        known = ", ".join(packaged_decks()) or "none"
        raise DeckError(f"No deck named {text_source!r}: not a file, and not a packaged deck ({known}).",
                        code="deck_not_found")
    size = path.stat().st_size
    if size > MAX_DECK_BYTES:
        raise _too_big(path.name, size)
    return deck_from_bytes(path.read_bytes(), path.name, lang=lang, default_lang=default_lang)


def _too_big(source: str, size: int) -> DeckError:
    return DeckError(f"{source}: the file is {size:,} bytes; a deck file is at most {MAX_DECK_BYTES:,} bytes "
                     f"(1 MB). Split it into smaller decks.", code="deck_too_big")


def deck_from_bytes(data: bytes, filename: str, lang: str | None = None,
                    default_lang: str | None = "en") -> Deck:
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
        raise DeckError(f"{source}: this is a spreadsheet file, not text. In the spreadsheet, save it as "
                        "\"CSV UTF-8\" (File, Save as), or copy the two columns and paste them.",
                        code="deck_spreadsheet")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DeckError(f"{source}: the file is not UTF-8 text (byte {exc.start}). Save it with the "
                        "UTF-8 encoding (in a spreadsheet: \"CSV UTF-8\").", code="deck_not_utf8") from None
    if suffix == ".json" or (suffix not in DECK_FILE_SUFFIXES and text.lstrip().startswith("{")):
        fmt = "json"
    else:
        fmt = "csv"
    return parse_deck(text, fmt=fmt, lang=lang, source=source, default_lang=default_lang)


def _raise_problems(source: str, problems: list[str]) -> None:
    shown = "\n".join(f"- {p}" for p in problems[:MAX_PROBLEMS_SHOWN])
    more = len(problems) - MAX_PROBLEMS_SHOWN
    tail = f"\n- ... and {more} more" if more > 0 else ""
    err = DeckError(f"{source}: {len(problems)} problem(s) in the deck:\n{shown}{tail}")
    err.problems = problems  # type: ignore[attr-defined]
    raise err


def parse_deck(text: str, fmt: str = "json", lang: str | None = None, source: str = "deck",
               default_lang: str | None = "en") -> Deck:
    """Parse and validate deck text in the JSON or CSV format.

    The language is ``lang`` if given, else the deck's own (``# lang:`` or ``"lang"``), else
    ``default_lang``; with ``default_lang=None`` a deck that names no language is refused
    (``deck_lang_missing``) instead of being assumed to be English.
    A refusal's ``problems`` attribute (when present) lists every problem, each with its line.
    """
    if len(text) > MAX_DECK_BYTES:
        raise _too_big(source, len(text.encode("utf-8", "surrogatepass")))
    if fmt == "csv":
        name, deck_lang, cards = _parse_csv(text, source)
        description = ""
    else:
        name, deck_lang, description, cards = _parse_json(text, source)
    deck_lang = (lang or deck_lang or default_lang or "").strip().lower()
    if not deck_lang:
        raise DeckError(f"{source}: the deck does not say its language. Choose it, or add a first line "
                        "\"# lang: es\" (a list) or \"lang\": \"es\" (JSON).", code="deck_lang_missing")
    if not _LANG_CODE.fullmatch(deck_lang):
        raise DeckError(f"{source}: {deck_lang[:20]!r} is not a language code (such as en, es, fr, de).",
                        code="deck_bad_lang")
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
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise DeckError(f"{source}, line {exc.lineno}, column {exc.colno}: not valid JSON ({exc.msg}).") from None
    if not isinstance(data, dict) or not isinstance(data.get("cards"), list):
        raise DeckError(f'{source}, line 1: a deck is a JSON object with a "cards" list.')
    for key in ("name", "lang", "description"):
        if key in data and not isinstance(data[key], str):
            raise DeckError(f'{source}: "{key}" must be text.')
    pairs_given = sum(len(c) for c in data["cards"] if isinstance(c, list))
    if pairs_given > MAX_DECK_ROWS:
        raise _too_many_rows(source, pairs_given)
    offsets = _card_offsets(text)
    cards: list[_RawCard] = []
    for i, card in enumerate(data["cards"]):
        line = _line_of(text, offsets[i]) if i < len(offsets) else 0
        where = f"card {i + 1} (line {line})" if line else f"card {i + 1}"
        if not isinstance(card, list):
            raise DeckError(f"{source}, {where}: a card is a list of [target, foil] pairs.")
        pairs = []
        for j, pair in enumerate(card):
            if isinstance(pair, dict):
                pair = [pair.get("target"), pair.get("foil")]
            if (not isinstance(pair, list) or len(pair) != 2
                    or not all(isinstance(w, str) for w in pair)):
                raise DeckError(f"{source}, {where}, pair {j + 1}: a pair is [\"target\", \"foil\"], two texts.")
            pairs.append((pair[0], pair[1], line))
        cards.append((pairs, line))
    return data.get("name", ""), data.get("lang", ""), data.get("description", ""), cards


def _too_many_rows(source: str, rows: int | None = None, line: int | None = None) -> DeckError:
    where = f"{source}, line {line}" if line else source
    count = f" ({rows:,})" if rows else ""
    return DeckError(f"{where}: more than {MAX_DECK_ROWS:,} rows{count}; a deck has at most "
                     f"{MAX_DECK_ROWS:,} target/foil pairs. Split it into smaller decks.", code="deck_too_many_rows")


def _first_row(text: str) -> str:
    """The first line that is neither blank nor a ``#`` comment (it decides commas or tabs)."""
    for line in text.splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            return line
    return ""


def _parse_csv(text: str, source: str) -> tuple[str, str, list[_RawCard]]:
    lang, name = "", ""
    rows: list[tuple[str, str, int]] = []
    problems: list[str] = []
    dialect = "excel-tab" if "\t" in _first_row(text) else "excel"
    for line_no, row in enumerate(csv.reader(io.StringIO(text), dialect=dialect), start=1):
        cells = [c.strip() for c in row]
        if not any(cells):
            continue
        if cells[0].startswith("#"):
            m = re.match(r"#\s*(lang|name)\s*:\s*(.+)", ",".join(row).strip(), re.I)
            if m and m.group(1).lower() == "lang":
                lang = m.group(2).strip()
            elif m:
                name = m.group(2).strip()
            continue
        if not rows and [c.lower() for c in cells[:2]] == ["target", "foil"]:
            continue
        if len(rows) + len(problems) >= MAX_DECK_ROWS:
            raise _too_many_rows(source, line=line_no)
        if len(cells) != 2 or not all(cells):
            problems.append(f"line {line_no}: expected two cells, target,foil; got {len(cells)} "
                            f"({'an empty cell' if len(cells) == 2 else 'wrong count'})")
            continue
        rows.append((cells[0], cells[1], line_no))
    if problems:
        _raise_problems(source, problems)
    if not rows:
        raise DeckError(f"{source}: no target,foil rows found.")
    if len(rows) % PAIRS_PER_CARD:
        tail = rows[len(rows) - len(rows) % PAIRS_PER_CARD:]
        raise DeckError(
            f"{source}, lines {tail[0][2]}-{tail[-1][2]}: the last card has only {len(tail)} pair(s); "
            f"cards need {PAIRS_PER_CARD} rows each ({len(rows)} rows given).")
    cards = [(rows[i:i + PAIRS_PER_CARD], rows[i][2]) for i in range(0, len(rows), PAIRS_PER_CARD)]
    return name, lang, cards


def _word_problem(word: str) -> str | None:
    if not word.strip():
        return "an empty word"
    if len(word.strip()) > MAX_WORD_LENGTH:
        return f"a word longer than {MAX_WORD_LENGTH} characters"
    if any(unicodedata.category(ch).startswith("C") for ch in word):
        return "a control character"
    if "<" in word or ">" in word:
        return "HTML (< or >); words are plain text"
    return None


def _validate(cards: list[_RawCard], lang: str) -> list[str]:
    problems: list[str] = []
    if not cards:
        return ["the deck has no cards"]
    seen_targets: dict[str, int] = {}
    for index, (pairs, card_line) in enumerate(cards, start=1):
        where = f"card {index}" + (f" (line {card_line})" if card_line else "")
        if len(pairs) != PAIRS_PER_CARD:
            problems.append(f"{where}: has {len(pairs)} pairs, a card needs {PAIRS_PER_CARD}")
        on_card: dict[str, int] = {}
        for number, (target, foil, line) in enumerate(pairs, start=1):
            at = f"{where}, pair {number}" if not line or line == card_line else f"line {line}"
            for word in (target, foil):
                issue = _word_problem(word)
                if issue:
                    problems.append(f"{at}: {word[:20]!r} has {issue}")
                key = words.normalize(word)
                if key in on_card:
                    problems.append(f"{at}: {word!r} appears twice on this card")
                on_card[key] = number
            if target.strip() and foil.strip() and words.is_variant(target, foil, lang):
                problems.append(f"{at}: target {target!r} and foil {foil!r} are variants of each other")
            key = words.normalize(target)
            if key in seen_targets:
                problems.append(f"{at}: target {target!r} is already a target on card {seen_targets[key]}")
            else:
                seen_targets[key] = index
    return problems
