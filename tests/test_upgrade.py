"""Upgrades mid-term: a store written by release 0.1.0 (commit 7ba530a) opens, replays and plays on.

The fixture ``tests/fixtures/store-0.1.0.sqlite3`` and the views the old code showed
(``store-0.1.0.json``) were written by ``tools/make_store_fixture.py`` run with that release.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from dichotomy_widget import SqliteStore, StoreError, Table, WrongPhase
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
    assert first[SCHEMA_KEY] == TableCreated.version == 3 and first["created_with"]
    assert first["interface_lang"] == "" and table.interface_lang == "en"


def test_old_tables_speak_their_decks_language():
    """A version 2 TableCreated (before the interface language) upcasts to "" = the deck's language."""
    store = MemoryStore()
    table = Table.create(deck="es", seed=1, rounds=2, store=store, interface_lang="fr")
    assert table.interface_lang == "fr"
    payload = dict(store.load(table.code)[0].payload)
    payload[SCHEMA_KEY] = 2
    del payload["interface_lang"]
    old = MemoryStore()
    old.create_table(table.code, {})
    old.append(table.code, 0, [("TableCreated", payload)])
    assert Table.open(table.code, old).interface_lang == "es"


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
