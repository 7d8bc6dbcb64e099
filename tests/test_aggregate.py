"""The one aggregate base (dichotomy_widget.aggregate) under tables, classes and saved-deck libraries:
every kind decodes its stream with the shared registry, so an unknown, foreign or future event is a
clear StoreError in a real SQLite store, and a class event is upcast like a table event."""

from __future__ import annotations

import threading
import time

import pytest

from dichotomy_widget import Classroom, StoreError, Table
from dichotomy_widget.aggregate import Aggregate
from dichotomy_widget.deck_library import DeckLibrary
from dichotomy_widget.decks import parse_deck
from dichotomy_widget.events import SCHEMA_KEY, UPCASTERS, ClassCreated, event_from_dict
from dichotomy_widget.stores import MemoryStore, SqliteStore
from game_helpers import word_deck

ROWS = "sea,ocean\ncoffee,tea\ncat,dog\nspring,autumn\nbread,rice\nviolin,cello\ndoctor,nurse\ntrain,bus\nlion,tiger\ncastle,palace\n"


@pytest.fixture()
def sqlite(tmp_path):
    store = SqliteStore(tmp_path / "tables.sqlite3")
    yield store
    store.close()


@pytest.fixture()
def other_kernel(sqlite):
    """A second handle on the same file, as another kernel opens it."""
    store = SqliteStore(sqlite.path)
    yield store
    store.close()


def _table(store):
    table = Table.create(deck="en", seed=1, rounds=2, store=store)
    return table.code, (lambda other: Table.open(table.code, other)), table.code


def _class(store):
    room = Classroom.create("Unit 4", deck="en", rounds=2, store=store, seed=1)
    room.join("Ana")
    return room.stream, (lambda other: Classroom.open(room.code, other)), room.code


def _decks(store):
    lib = DeckLibrary.for_secret(store, "teacher-key")
    lib.save(parse_deck("# lang: en\n" + ROWS, fmt="csv"))
    return lib.stream, (lambda other: DeckLibrary.for_secret(other, "teacher-key").list()), "Saved-deck library"


# what each kind writes, and a real event of another kind (foreign to it)
KINDS = {"table": (_table, "StudentJoined"), "class": (_class, "SeatJoined"), "decks": (_decks, "GameEnded")}


@pytest.mark.parametrize("kind", sorted(KINDS))
@pytest.mark.parametrize("written, code", [
    (("MysteryHappened", {"x": 1, SCHEMA_KEY: 1}), "unknown_event_type"),
    ("foreign", "unknown_event_type"),
    ("future", "unknown_event_version"),
])
def test_an_unreadable_event_is_a_clear_store_error_for_every_kind(sqlite, other_kernel, kind, written, code):
    make, foreign = KINDS[kind]
    stream, reopen, named = make(sqlite)
    if written == "foreign":
        written = (foreign, {SCHEMA_KEY: 1})
    elif written == "future":  # the stream's own last event type, in a version no release wrote yet
        last = sqlite.load(stream)[-1]
        written = (last.type, {**last.payload, SCHEMA_KEY: 99})
    sqlite.append(stream, sqlite.last_seq(stream), [written])
    with pytest.raises(StoreError) as err:
        reopen(other_kernel)
    assert err.value.code == code and named in err.value.message
    assert not isinstance(err.value, (KeyError, ValueError))


def test_tables_classes_and_libraries_share_the_base():
    assert all(issubclass(cls, Aggregate) for cls in (Table, Classroom, DeckLibrary))
    for name in ("execute", "refresh", "subscribe", "watch", "start_watching", "check_store"):
        assert all(getattr(cls, name) is getattr(Aggregate, name) for cls in (Table, Classroom, DeckLibrary)), name


def test_class_events_are_upcast_like_table_events(sqlite, other_kernel, monkeypatch):
    room = Classroom.create("Unit 4", deck="en", rounds=2, store=sqlite, seed=1)
    stored = sqlite.load(room.stream)[0].payload
    assert stored[SCHEMA_KEY] == ClassCreated.version == 2
    # a later release: ClassCreated version 3, whose upcaster rewrites a version 2 payload
    monkeypatch.setattr(ClassCreated, "version", 3)
    monkeypatch.setitem(UPCASTERS, ("ClassCreated", 2), lambda p: {**p, "name": p["name"] + " (upgraded)"})
    assert Classroom.open(room.code, other_kernel).state.name == "Unit 4 (upgraded)"
    assert event_from_dict("ClassCreated", stored, room.stream, "class").name == "Unit 4 (upgraded)"


class _BusyAtFirst(SqliteStore):
    """A real SQLite store whose first change check fails as a busy file can under load."""

    def __init__(self, path):
        super().__init__(path)
        self.failures = 1

    def change_marker(self):
        if self.failures:
            self.failures -= 1
            raise StoreError("The table is very busy right now; please try again.", code="store_busy")
        return super().change_marker()


def test_a_watch_whose_first_look_fails_still_follows_the_stream(sqlite, caplog):
    """The class-of-twelve flake: a lobby's watch that met a busy store on its first look ended for good,
    so the student's page never heard the table start. It must retry and follow."""
    import asyncio

    room = Classroom.create("Unit 4", deck="en", rounds=2, store=sqlite, seed=1)
    busy = _BusyAtFirst(sqlite.path)
    try:
        lobby = Classroom.open(room.code, busy)
        heard: list[int] = []
        lobby.subscribe(lambda r: heard.append(len(r.state.students)))

        async def scenario() -> None:
            task = lobby.start_watching()
            assert task is not None
            await asyncio.sleep(0.2)  # the first look failed; the watch waits 1 s and looks again
            room.join("Ana")  # another kernel's write
            for _ in range(200):
                if heard and heard[-1] == 1:
                    break
                await asyncio.sleep(0.05)
            lobby.stop_watching()

        asyncio.run(scenario())
        assert busy.failures == 0 and heard and heard[-1] == 1, heard
        assert "following the store failed" in caplog.text
    finally:
        busy.close()


class _RefreshedByAnotherThreadAfterAppend(MemoryStore):
    """A memory store that, right after an append has been written and before the appending table has
    folded it, lets another thread refresh that table: what JupyterLab does, since it sends widget
    messages on a kernel subshell (its own thread) while the kernel's main loop follows the store."""

    def __init__(self) -> None:
        super().__init__()
        self.table: Table | None = None
        self.other_thread_done: list[bool] = []

    def append(self, table_id, expected_seq, events):
        records = super().append(table_id, expected_seq, events)
        if self.table is not None and events and events[0][0] == "ClueSubmitted":
            table, self.table = self.table, None  # once
            other = threading.Thread(target=lambda: self.other_thread_done.append(table.refresh()), daemon=True)
            other.start()
            other.join(1.0)  # unguarded, the other thread folds the clue now; guarded, it waits for the fold
        return records


def test_a_refresh_from_another_thread_never_folds_an_event_twice():
    """JupyterLab 4.6 sends widget messages on a kernel subshell: a clue decided there raced the main
    thread's store watch, both folded the clue, the table counted two clues from one writer and waited
    for nobody (tests/browser/test_jupyterlab.py, a loaded run). One thread at a time folds."""
    store = _RefreshedByAnotherThreadAfterAppend()
    table = Table.create(deck=word_deck(), seed=7, rounds=3, store=store)
    for name in ("Ada", "Ben", "Cy"):
        table.join(name)
    table.start()
    table.act(table.state.drawer, {"type": "pick", "pair": 1})
    first, second = table.state.writers
    store.table = table
    table.act(first, {"type": "clue", "text": "zebra"})
    for _ in range(100):  # the other thread got the lock once the clue was folded: nothing left to fold
        if store.other_thread_done:
            break
        time.sleep(0.05)
    assert store.other_thread_done == [False]
    assert [c.seat for c in table.state.clues] == [first]
    assert table.state.current_writer == second
    assert table.seq == store.last_seq(table.code) and table.state == table.replayed()
