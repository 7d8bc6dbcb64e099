"""Write tests/fixtures/store-0.1.0.sqlite3 and its expectations with the release to be upgraded from.

Run it with the OLD code on the path (the fixture was made with commit 7ba530a, release 0.1.0):

    git archive 7ba530a | tar -x -C /tmp/old      # plus links to dichotomy_widget/wordsdata/*.sqlite
    PYTHONPATH=/tmp/old python tools/make_store_fixture.py tests/fixtures

Two tables: DNE234, a finished 4-round game (a right guess, a cancelled pair of clues and a wrong
guess, a pass), and MDR567, a game stopped mid-round (pair locked, one clue written). The file is
VACUUMed; the JSON beside it holds what the old code showed (public views, per-seat phases).
"""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path

from dichotomy_widget import SqliteStore, Table
from dichotomy_widget.decks import Card, Deck, Pair

WORDS = [("river", "lake"), ("violin", "cello"), ("coffee", "tea"), ("winter", "summer"), ("doctor", "nurse"),
         ("apple", "pear"), ("castle", "palace"), ("rabbit", "hare"), ("train", "tram"), ("pencil", "crayon"),
         ("island", "beach"), ("candle", "lamp"), ("garden", "park"), ("thunder", "lightning"), ("spoon", "fork"),
         ("tiger", "lion"), ("bread", "toast"), ("mountain", "hill"), ("shirt", "jacket"), ("piano", "organ")]
PUBLIC = ("phase", "round", "rounds", "score", "discard", "deck_left", "history", "turn", "recap", "final")


def _deck() -> Deck:
    cards = tuple(Card(tuple(Pair(t, f) for t, f in WORDS[i:i + 5])) for i in range(0, len(WORDS), 5))
    return Deck(name="fixture words", lang="en", cards=cards)


def _clues(table: Table, texts: list[str]) -> None:
    for text in texts[: len(table.state.writers)]:
        table.act(table.state.current_writer, {"type": "clue", "text": text}, now=1.0)


def _continue(table: Table) -> None:
    for seat in table.state.order:
        if table.state.phase == "recap" and seat not in table.state.confirmed:
            table.act(seat, {"type": "continue"}, now=1.0)


def main(out: Path) -> None:
    path = out / "store-0.1.0.sqlite3"
    path.unlink(missing_ok=True)
    store = SqliteStore(path)
    done = Table.create(deck=_deck(), seed=11, rounds=4, store=store, code="DNE234")
    for name in ("Ana", "Ben", "Chloé", "Dariusz"):
        done.join(name)
    done.start()
    for outcome, clues in (("correct", ["zebra", "anchor", "velvet"]), ("wrong", ["zebra", "zebras", "meadow"]),
                           ("pass", ["compass", "trumpet", "saddle"])):
        done.act(done.state.drawer, {"type": "pick", "pair": 2}, now=1.0)
        _clues(done, clues)
        guess = {"correct": done.state.target, "wrong": "saxophone", "pass": ""}[outcome]
        done.act(done.state.guesser, {"type": "guess", "text": guess}, now=1.0)
        _continue(done)
    mid = Table.create(deck=_deck(), seed=12, rounds=3, store=store, code="MDR567")
    for name in ("Eve", "Finn", "Gül"):
        mid.join(name)
    mid.start()
    mid.act(mid.state.drawer, {"type": "pick", "pair": 4}, now=1.0)
    _clues(mid, ["harbour"])
    expect = {}
    for table in (done, mid):
        view = table.view(None)
        expect[table.code] = {
            "public": {k: view.get(k) for k in PUBLIC},
            "seats": {str(s.id): table.view(s.id)["phase"] for s in table.state.seats},
            "names": [s.name for s in table.state.seats],
            "events": len(table.events),
            "target": table.state.target,
            "writer": table.state.current_writer,
        }
    store.close()
    db = sqlite3.connect(path)
    db.execute("PRAGMA journal_mode=DELETE")
    db.execute("VACUUM")
    db.close()
    (out / "store-0.1.0.json").write_text(json.dumps(expect, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "tests/fixtures"))
