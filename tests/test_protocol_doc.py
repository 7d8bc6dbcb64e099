"""The view has one shape in three places: what ``Table.view`` sends (views.py), the ``View`` typedef
that js/widget.js documents, and the key table of docs/protocol.md. Real games (every phase, seat and
table views, recaps with eliminated and missing clues, a timed table, a final) give the keys the engine
sends; each must be documented in both places, and each documented key must occur in some real view.

A key is a path: ``a.b`` is key ``b`` of the object in ``a``, ``a[].b`` key ``b`` of each object in the
list ``a``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from dichotomy_widget import Table
from game_helpers import confirm_all, guess, lock, new_game, unique_clues, word_deck, write

ROOT = Path(__file__).resolve().parents[1]


# --- JSDoc ------------------------------------------------------------------------------------------

def _typedefs(source: str) -> dict[str, str]:
    """``@typedef {TYPE} Name`` blocks of the file's JSDoc comments: name -> type text."""
    found: dict[str, str] = {}
    for comment in re.findall(r"/\*\*(.*?)\*/", source, flags=re.S):
        text = " ".join(line.strip().lstrip("*").strip() for line in comment.splitlines())
        for match in re.finditer(r"@typedef\s+\{", text):
            depth, i = 1, match.end()
            while depth:
                depth += {"{": 1, "}": -1}.get(text[i], 0)
                i += 1
            name = re.match(r"\s*(\w+)", text[i:])
            assert name, f"a typedef without a name: {text[match.start():i]}"
            found[name.group(1)] = text[match.end():i - 1].strip()
    return found


def _split_top(text: str, sep: str) -> list[str]:
    """``text`` split at ``sep`` outside brackets."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "{[(<":
            depth += 1
        elif ch in "}])>" and not (ch == ">" and text[i - 1] == "="):
            depth -= 1
        elif ch == sep and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


def _paths_of_type(type_text: str, prefix: str, defs: dict[str, str], out: set[str]) -> None:
    """Add the key paths an (object) type documents under ``prefix``."""
    for alt in _split_top(type_text, "|"):
        array = alt.endswith("[]")
        alt = alt[:-2].strip() if array else alt
        here = prefix + "[]" if array else prefix
        if alt.startswith("{") and alt.endswith("}"):
            for field in _split_top(alt[1:-1], ","):
                key, _, sub = field.partition(":")
                path = f"{here}.{key.strip().rstrip('?')}".lstrip(".")
                out.add(path)
                _paths_of_type(sub.strip(), path, defs, out)
        elif alt in defs:
            _paths_of_type(defs[alt], here, defs, out)


def jsdoc_paths() -> set[str]:
    defs = _typedefs((ROOT / "js" / "widget.js").read_text(encoding="utf-8"))
    assert "View" in defs, "js/widget.js documents no View typedef"
    out: set[str] = set()
    _paths_of_type(defs["View"], "", defs, out)
    return out


# --- docs/protocol.md ------------------------------------------------------------------------------

def doc_paths() -> set[str]:
    """The keys in the first column of the table under docs/protocol.md's "## View" heading."""
    text = (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")
    section = re.search(r"^## View\b.*?$(.*?)(?=^## )", text, flags=re.S | re.M)
    assert section, "docs/protocol.md has no '## View' section"
    keys = re.findall(r"^\|\s*`([\w.\[\]]+)`\s*\|", section.group(1), flags=re.M)
    assert len(keys) == len(set(keys)), "a key is listed twice in docs/protocol.md"
    return set(keys)


# --- real views ------------------------------------------------------------------------------------

def view_paths(value: Any, prefix: str = "") -> set[str]:
    """Every key path in a JSON value."""
    out: set[str] = set()
    if isinstance(value, dict):
        for key, sub in value.items():
            path = f"{prefix}.{key}".lstrip(".")
            out.add(path)
            out |= view_paths(sub, path)
    elif isinstance(value, list):
        for item in value:
            out |= view_paths(item, prefix + "[]")
    return out


def _look(table, seen: set[str], phases: set[str]) -> None:
    for seat in [None, *table.state.order]:
        view = table.view(seat)
        seen |= view_paths(view)
        phases.add(view["phase"])


@pytest.fixture(scope="module")
def sent() -> set[str]:
    """The key paths of every view of real games, at each step, for the projector and each seat."""
    seen: set[str] = set()
    phases: set[str] = set()
    # a timed four-seat table: a lobby, every phase, clues that cancel, a timeout, every outcome, a final
    lobby = Table.create(deck=word_deck(), seed=3, rounds=2, time_limit=60)
    lobby.join("Ada")
    _look(lobby, seen, phases)
    table, _ = new_game(players=4, rounds=4, seed=5, time_limit=60)
    _look(table, seen, phases)                       # reveal
    lock(table, 2)
    _look(table, seen, phases)                       # clues, a deadline
    writers = len(table.state.writers)
    clues = ["zebra", "zebra", ""][:writers]         # two clues that cancel, a timeout
    for text in clues:
        table.act(table.state.current_writer, {"type": "clue", "text": text})
        _look(table, seen, phases)                   # clues, then guess
    guess(table, table.state.foil)
    _look(table, seen, phases)                       # a recap with a next round
    table.act(table.state.order[0], {"type": "continue"})
    _look(table, seen, phases)                       # a seat that read on
    confirm_all(table)
    outcomes = iter(["correct", "pass", "wrong", "correct"])
    while table.state.phase != "over":               # the other rounds, the last recap, the final
        lock(table, 1)
        write(table, unique_clues(table))
        outcome = next(outcomes)
        guess(table, {"correct": table.state.target, "pass": "", "wrong": "saxophone"}[outcome])
        _look(table, seen, phases)
        confirm_all(table)
        _look(table, seen, phases)
    assert phases == {"lobby", "reveal", "clues", "guess", "recap", "over"}, phases
    return seen


def test_every_key_the_engine_sends_is_in_the_jsdoc_view(sent):
    missing = sorted(sent - jsdoc_paths())
    assert not missing, f"keys the engine sends that js/widget.js's View typedef lacks: {missing}"


def test_every_key_the_engine_sends_is_in_the_protocol_doc(sent):
    missing = sorted(sent - doc_paths())
    assert not missing, f"keys the engine sends that docs/protocol.md's View table lacks: {missing}"


def test_every_documented_key_is_sent(sent):
    assert not sorted(jsdoc_paths() - sent), f"JSDoc keys no real view has: {sorted(jsdoc_paths() - sent)}"
    assert not sorted(doc_paths() - sent), f"docs/protocol.md keys no real view has: {sorted(doc_paths() - sent)}"


def test_the_parsers_read_nested_and_named_types():
    """The readers themselves: a named type, a list of objects, an optional key, a nullable object."""
    defs = {"P": "{seat: number, tags: string[]}",
            "V": "{a: number, b?: P[], c: {d: string|null, e: {f: number}[]}|null, g: (x: number) => void}"}
    out: set[str] = set()
    _paths_of_type(defs["V"], "", defs, out)
    assert out == {"a", "b", "b[].seat", "b[].tags", "c", "c.d", "c.e", "c.e[].f", "g"}
    assert view_paths({"a": [{"b": 1}], "c": None, "d": {"e": []}}) == {"a", "a[].b", "c", "d", "d.e"}
