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
control characters; no word appears twice on one card; a Target and its Foil are not variants of each
other (checked with :func:`dichotomy_widget.words.is_variant` in the deck's language); no Target is
used twice in the deck.
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

from .config import MAX_WORD_LENGTH, PAIRS_PER_CARD
from .errors import DeckError
from . import words

__all__ = ["Pair", "Card", "Deck", "PAIRS_PER_CARD", "load_deck", "parse_deck", "packaged_decks"]

MAX_PROBLEMS_SHOWN = 10


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


def load_deck(source: "str | Path | Deck", lang: str | None = None) -> Deck:
    """Load a deck: a packaged deck name ("en"), a path to a .json or .csv file, or a Deck."""
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
    try:
        raw = path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DeckError(f"{path.name}: the file is not UTF-8 text (byte {exc.start}).") from None
    fmt = "csv" if path.suffix.lower() in (".csv", ".tsv", ".txt") else "json"
    return parse_deck(raw, fmt=fmt, lang=lang, source=path.name)


def parse_deck(text: str, fmt: str = "json", lang: str | None = None, source: str = "deck") -> Deck:
    """Parse and validate deck text in the JSON or CSV format."""
    if fmt == "csv":
        name, deck_lang, cards = _parse_csv(text, source)
        description = ""
    else:
        name, deck_lang, description, cards = _parse_json(text, source)
    deck_lang = (lang or deck_lang or "en").strip().lower()
    problems = _validate(cards, deck_lang)
    if problems:
        shown = "\n".join(f"- {p}" for p in problems[:MAX_PROBLEMS_SHOWN])
        more = len(problems) - MAX_PROBLEMS_SHOWN
        tail = f"\n- ... and {more} more" if more > 0 else ""
        err = DeckError(f"{source}: {len(problems)} problem(s) in the deck:\n{shown}{tail}")
        err.problems = problems  # type: ignore[attr-defined]
        raise err
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


def _parse_csv(text: str, source: str) -> tuple[str, str, list[_RawCard]]:
    lang, name = "", ""
    rows: list[tuple[str, str, int]] = []
    dialect = "excel-tab" if "\t" in text.split("\n", 1)[0] else "excel"
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
        if len(cells) != 2 or not all(cells):
            raise DeckError(f"{source}, line {line_no}: expected two cells, target,foil; got {len(cells)} "
                            f"({'an empty cell' if len(cells) == 2 else 'wrong count'}).")
        rows.append((cells[0], cells[1], line_no))
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
