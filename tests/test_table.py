"""Table: identity (tokens), the store binding (replay, conflicts, refresh) and the change feed."""

from __future__ import annotations

import json

import pytest

from dichotomy_widget import SeatNotFound, SqliteStore, Table, TableNotFound
from dichotomy_widget.stores import MemoryStore
from game_helpers import lock, new_game, unique_clues, word_deck, write


def test_join_returns_a_secret_token_that_identifies_the_seat():
    table = Table.create(deck=word_deck(), seed=1, rounds=5)
    ticket = table.join("Ada")
    assert len(ticket.token) >= 20 and ticket.token not in repr(ticket)
    assert table.seat_for_token(ticket.token) == ticket.seat
    # the token itself is never stored, only its hash
    assert ticket.token not in json.dumps([r.payload for r in table.store.load(table.code)])


@pytest.mark.parametrize("forged", ["", "x" * 10_000, None, 42, "<script>alert(1)</script>"])
def test_forged_tokens_are_refused(forged):
    table = Table.create(deck=word_deck(), seed=1, rounds=5)
    table.join("Ada")
    with pytest.raises(SeatNotFound) as err:
        table.seat_for_token(forged)
    assert err.value.code == "seat_not_found"


def test_host_token_is_checked_in_constant_time_and_only_its_hash_is_stored():
    table = Table.create(deck=word_deck(), seed=1, rounds=5)
    assert table.is_host(table.host_token)
    assert not table.is_host("nope") and not table.is_host(None)
    assert table.host_token not in json.dumps(table.store.table_meta(table.code))
    reopened = Table.open(table.code, table.store)
    assert reopened.host_token is None and reopened.is_host(table.host_token)


@pytest.mark.parametrize("code", ["", "nope!", "ZZZZZZ", "<b>", "x" * 10_000])
def test_unknown_table_codes_are_refused(code):
    store = MemoryStore()
    with pytest.raises(TableNotFound):
        Table.open(code, store)


def test_codes_are_case_insensitive():
    table = Table.create(deck=word_deck(), seed=1, rounds=5)
    assert Table.open(" " + table.code.lower() + " ", table.store).code == table.code


def test_a_table_opened_from_sqlite_replays_to_the_same_state(tmp_path):
    path = tmp_path / "tables.sqlite3"
    table, _ = new_game(4, rounds=3, store=str(path))
    lock(table)
    write(table, unique_clues(table))
    again = Table.open(table.code, SqliteStore(path))
    assert again.state == table.state == table.replayed()
    assert again.view(2) == table.view(2)


def test_two_tables_on_one_store_resolve_a_race_by_reloading(tmp_path):
    path = tmp_path / "t.sqlite3"
    first, _ = new_game(4, rounds=3, store=str(path))
    second = Table.open(first.code, SqliteStore(path))
    lock(first)  # `second` has not seen this yet
    writer = first.state.current_writer
    second.act(writer, {"type": "clue", "text": "zebra"})  # decided against a reloaded state
    assert second.state.clues[0].text == "zebra"
    assert first.refresh() is True
    assert first.state == second.state
    seqs = [r.seq for r in first.store.load(first.code)]
    assert seqs == list(range(1, len(seqs) + 1))


def test_subscribers_hear_local_and_remote_changes(tmp_path):
    path = tmp_path / "t.sqlite3"
    first, _ = new_game(3, rounds=3, store=str(path))
    second = Table.open(first.code, SqliteStore(path))
    heard = []
    unsubscribe = second.subscribe(lambda t: heard.append(t.state.phase))
    lock(first)
    assert second.refresh() and heard == ["clues"]
    unsubscribe()
    first.act(first.state.current_writer, {"type": "clue", "text": "zebra"})
    second.refresh()
    assert heard == ["clues"]


def test_a_refused_action_writes_nothing():
    table, _ = new_game(3)
    before = table.store.last_seq(table.code)
    with pytest.raises(Exception):
        table.act(table.state.guesser, {"type": "pick", "pair": 1})
    assert table.store.last_seq(table.code) == before


def test_seats_are_found_by_name_or_id():
    table, tickets = new_game(3)
    assert table.seat_id("p1") == 1 and table.seat_id(tickets[2]) == 2
    with pytest.raises(SeatNotFound):
        table.seat_id("nobody")
    with pytest.raises(SeatNotFound):
        table.view(9)


def test_repr_has_no_secrets_or_addresses():
    table, _ = new_game(3)
    text = repr(table)
    assert table.code in text and "0x" not in text and table.host_token not in text


def test_listeners_hear_of_other_kernels_events_even_when_the_action_is_then_refused():
    mine, _ = new_game(3)
    theirs = Table.open(mine.code, mine.store)  # another kernel's copy of the same table
    heard = []
    mine.subscribe(lambda t: heard.append(t.state.phase))
    drawer = mine.state.drawer
    theirs.act(drawer, {"type": "pick", "pair": 1})  # mine has not seen this yet
    assert mine.state.phase == "reveal"
    with pytest.raises(Exception) as err:  # a double-clicked pick: the card is already locked
        mine.act(drawer, {"type": "pick", "pair": 2})
    assert getattr(err.value, "code", None) == "wrong_phase"
    assert mine.state.phase == "clues"
    assert heard == ["clues"]  # told once, although the action itself was refused


def test_listeners_hear_each_successful_action_once():
    table, _ = new_game(3)
    heard = []
    table.subscribe(lambda t: heard.append(t.seq))
    lock(table)
    assert heard == [table.seq]
