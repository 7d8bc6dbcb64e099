"""Upgrades mid-term: a store written by release 0.1.0 (commit 7ba530a) opens, replays and plays on.

The fixture ``tests/fixtures/store-0.1.0.sqlite3`` and the views the old code showed
(``store-0.1.0.json``) were written by ``tools/make_store_fixture.py`` run with that release.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from dichotomy_widget import Classroom, SqliteStore, StoreError, Table, WrongPhase
from dichotomy_widget.aggregate import hash_token
from dichotomy_widget.decks import load_deck
from dichotomy_widget.options import TableOptions
from dichotomy_widget.events import SCHEMA_KEY, TableCreated, event_from_dict
from dichotomy_widget.stores import MemoryStore

FIXTURES = Path(__file__).parent / "fixtures"
EXPECT = json.loads((FIXTURES / "store-0.1.0.json").read_text(encoding="utf-8"))


@pytest.fixture()
def old_store(tmp_path):
    path = tmp_path / "tables.sqlite3"
    shutil.copyfile(FIXTURES / "store-0.1.0.sqlite3", path)  # never touch the committed file
    store = SqliteStore(path)
    yield store
    store.close()


def test_the_fixture_is_old_data(old_store):
    for code in EXPECT:
        records = old_store.load(code)
        assert records and all(SCHEMA_KEY not in r.payload for r in records)
        assert "created_with" not in records[0].payload


@pytest.mark.parametrize("code", sorted(EXPECT))
def test_old_tables_replay_to_what_the_old_release_showed(old_store, code):
    table = Table.open(code, old_store)
    expect = EXPECT[code]
    assert table.replayed() == table.state
    view = table.view(None)
    # Every field the old release showed is shown the same; fields added since (e.g. final.ladder) may be extra.
    for key, old in expect["public"].items():
        new = view.get(key)
        if isinstance(old, dict) and isinstance(new, dict):
            assert {k: new.get(k) for k in old} == old, key
        else:
            assert new == old, key
    assert {str(s.id): table.view(s.id)["phase"] for s in table.state.seats} == expect["seats"]
    assert [s.name for s in table.state.seats] == expect["names"]
    assert len(table.events) == expect["events"]
    assert (table.state.target, table.state.current_writer) == (expect["target"], expect["writer"])
    assert table.events[0].created_with == "0.1.0"  # upcast from version 1


def test_a_game_stopped_mid_round_plays_on_with_the_new_code(old_store):
    table = Table.open("MDR567", old_store)
    while table.state.phase == "clues":
        table.act(table.state.current_writer, {"type": "clue", "text": ["meadow", "anchor"][len(table.state.clues) - 1]})
    table.act(table.state.guesser, {"type": "guess", "text": table.state.target})
    assert table.state.recap.outcome == "correct"
    stored = old_store.load("MDR567")
    assert stored[-1].payload[SCHEMA_KEY] == 1 and SCHEMA_KEY not in stored[0].payload
    again = Table.open("MDR567", SqliteStore(old_store.path))
    assert again.state == table.state == table.replayed()


def test_a_finished_old_game_stays_over(old_store):
    table = Table.open("DNE234", old_store)
    with pytest.raises(WrongPhase):
        table.act(table.state.order[0], {"type": "continue"})
    assert table.view(None)["final"]["score"] == EXPECT["DNE234"]["public"]["final"]["score"]


def test_new_tables_write_the_current_schema():
    table = Table.create(deck="en", seed=1, rounds=2)
    first = table.store.load(table.code)[0].payload
    assert first[SCHEMA_KEY] == TableCreated.version == 4 and first["created_with"]
    assert first["options"]["interface_lang"] == "" and table.interface_lang == "en"


def test_old_tables_speak_their_decks_language():
    """A version 2 TableCreated (before the interface language) upcasts to "" = the deck's language."""
    store = MemoryStore()
    table = Table.create(deck="es", seed=1, rounds=2, store=store, interface_lang="fr")
    assert table.interface_lang == "fr"
    payload = dict(store.load(table.code)[0].payload)
    payload = {**{k: v for k, v in payload.items() if k != "options"}, **payload["options"], SCHEMA_KEY: 2}
    del payload["interface_lang"]
    old = MemoryStore()
    old.create_table(table.code, {})
    old.append(table.code, 0, [("TableCreated", payload)])
    assert Table.open(table.code, old).interface_lang == "es"


def _write_old_stream(path: Path, stream: str, meta: dict, events: list) -> None:
    """Rows as an older release wrote them, straight into the SQLite file (no event classes involved)."""
    SqliteStore(path).close()  # the schema
    with closing(sqlite3.connect(path)) as db, db:
        db.execute("INSERT INTO tables (table_id, meta, created_at) VALUES (?, ?, ?)", (stream, json.dumps(meta), 1.0))
        db.executemany("INSERT INTO events (table_id, seq, type, payload, created_at) VALUES (?, ?, ?, ?, ?)",
                       [(stream, seq, kind, json.dumps(payload), 1.0) for seq, (kind, payload) in enumerate(events, 1)])


CARDS = [card.to_json() for card in load_deck("en").cards[:4]]


def test_a_table_stored_with_flat_options_loads_and_plays_on(tmp_path):
    """A version 3 TableCreated (options as flat fields, before the nested ``options`` value)."""
    path = tmp_path / "tables.sqlite3"
    created = {"seed": 7, "lang": "en", "rounds": 2, "deck_name": "en", "cards": CARDS, "time_limit": 30,
               "created_with": "0.3.0", "interface_lang": "fr", "fixed_guesser": False, "recap_time": 12.0, SCHEMA_KEY: 3}
    joins = [("SeatJoined", {"seat": i, "name": name, "token_hash": hash_token(f"t{i}"), SCHEMA_KEY: 1})
             for i, name in enumerate(["Ada", "Ben", "Cy"])]
    _write_old_stream(path, "FLT234", {"host_token_hash": hash_token("host")}, [("TableCreated", created), *joins])
    store = SqliteStore(path)
    table = Table.open("FLT234", store)
    assert table.options == TableOptions(rounds=2, time_limit=30.0, interface_lang="fr", recap_time=12.0)
    assert table.interface_lang == "fr" and [s.name for s in table.state.seats] == ["Ada", "Ben", "Cy"]
    table.start()
    drawer = table.state.drawer
    table.act(drawer, {"type": "pick", "pair": 1})
    assert table.state.phase == "clues"
    writer, since = table.state.current_writer, table.state.turn_since
    assert not table.tick(now=since + 29) and table.tick(now=since + 31)  # the stored 30 s limit still runs
    assert table.state.clues[0].seat == writer and table.state.clues[0].text is None
    stored = store.load("FLT234")
    assert stored[0].payload == created  # never rewritten
    again = Table.open("FLT234", SqliteStore(path))
    assert again.state == table.state == table.replayed() and again.view(None)["deadline"] == table.view(None)["deadline"]
    store.close()


def test_a_class_stored_with_flat_options_loads_and_starts_tables(tmp_path):
    """A version 1 ClassCreated (rounds, time limit and interface language as flat fields)."""
    path = tmp_path / "tables.sqlite3"
    created = {"name": "Unit 4", "deck_name": "en", "lang": "en", "cards": CARDS, "rounds": 2, "table_size": 4,
               "seed": 1, "time_limit": 40.0, "interface_lang": "es", SCHEMA_KEY: 1}
    joins = [("StudentJoined", {"student": i, "name": name, "token_hash": hash_token(f"s{i}"), "device": "",
                                SCHEMA_KEY: 1}) for i, name in enumerate(["Ana", "Bo", "Cy", "Di"])]
    _write_old_stream(path, "class-CLS234", {"kind": "class", "teacher_token_hash": hash_token("teach")},
                      [("ClassCreated", created), *joins])
    store = SqliteStore(path)
    room = Classroom.open("CLS234", store)
    assert room.options == TableOptions(rounds=2, time_limit=40.0, interface_lang="es")
    assert (room.state.rounds, room.state.time_limit, room.interface_lang) == (2, 40.0, "es")
    room.make_tables()
    table = room.start_table(1)
    assert table.options == TableOptions(rounds=2, time_limit=40.0, interface_lang="es", led_by="teacher")
    assert table.store.load(table.code)[0].payload["options"]["time_limit"] == 40.0  # written as the new version
    assert Classroom.open("CLS234", SqliteStore(path)).state == room.state
    store.close()


@pytest.mark.parametrize("kind, payload, code", [
    ("MysteryHappened", {"x": 1}, "unknown_event_type"),
    ("SeatJoined", {"seat": 9, "name": "Zed", "token_hash": "", SCHEMA_KEY: 99}, "unknown_event_version"),
    ("SeatJoined", {"seat": 9, "name": "Zed", "token_hash": "", SCHEMA_KEY: "two"}, "unknown_event_version"),
    ("SeatJoined", {"name": "Zed", SCHEMA_KEY: 1}, "corrupt_event"),
])
def test_unreadable_events_name_the_table_and_never_raise_key_error(kind, payload, code):
    store = MemoryStore()
    table = Table.create(deck="en", seed=1, rounds=2, store=store)
    store.append(table.code, store.last_seq(table.code), [(kind, payload)])
    with pytest.raises(StoreError) as err:
        Table.open(table.code, store)
    assert err.value.code == code and table.code in err.value.message
    assert not isinstance(err.value, KeyError)
    with pytest.raises(StoreError):
        event_from_dict(kind, payload, table.code)
