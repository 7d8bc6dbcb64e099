"""Saved decks (dichotomy_widget.deck_library) on every store: add, list, delete, per-owner visibility,
concurrent writers, and a folder of decks."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from dichotomy_widget import DeckError, Table, parse_deck
from dichotomy_widget.deck_library import (LIBRARY_PREFIX, DeckLibrary, folder_decks, owner_id)
from dichotomy_widget.errors import StoreError, TableNotFound
from dichotomy_widget.stores import MemoryStore, SqliteStore, TableStore

from test_store import pg_dsn, pg_server  # noqa: F401 - fixtures: a real PostgreSQL server

ROWS = ["sea,ocean", "coffee,tea", "cat,dog", "spring,autumn", "bread,rice",
        "violin,cello", "doctor,nurse", "train,bus", "lion,tiger", "castle,palace"]


def deck(name: str = "Unit 4", rows: list[str] = ROWS, lang: str = "en"):
    return parse_deck(f"# lang: {lang}\n# name: {name}\n" + "\n".join(rows) + "\n", fmt="csv", source="u4.csv")


class Stores:
    """Two handles on the same data (two kernels), for memory, SQLite and PostgreSQL."""

    def __init__(self, kind: str, tmp_path: Path, dsn: str | None) -> None:
        self.kind, self.tmp_path, self.dsn = kind, tmp_path, dsn
        self.memory = MemoryStore() if kind == "memory" else None
        self.opened: list[TableStore] = []

    def open(self) -> TableStore:
        if self.memory is not None:
            return self.memory
        if self.kind == "postgres":
            from dichotomy_widget.stores.postgres import PostgresStore

            store: TableStore = PostgresStore(self.dsn)
        else:
            store = SqliteStore(self.tmp_path / "tables.sqlite3")
        self.opened.append(store)
        return store


@pytest.fixture(params=["memory", "sqlite", "postgres"])
def stores(request, tmp_path):
    dsn = request.getfixturevalue("pg_dsn") if request.param == "postgres" else None
    s = Stores(request.param, tmp_path, dsn)
    yield s
    for store in s.opened:
        store.close()


def test_add_list_get_delete(stores):
    lib = DeckLibrary.for_secret(stores.open(), "teacher-key-1")
    assert lib.list() == []
    saved = lib.save(deck("Unit 4"))
    assert (saved.name, saved.lang, saved.cards) == ("Unit 4", "en", 2)
    other = lib.save(deck("Unit 5", ROWS[5:] + ROWS[:5]))
    assert [s.name for s in lib.list()] == ["Unit 5", "Unit 4"]  # newest first
    got = lib.get(saved.id)
    assert got == deck("Unit 4") and got.cards[1].pairs[0].target == "violin"
    # another kernel (a new handle on the same data) sees the same library
    again = DeckLibrary.for_secret(stores.open(), "teacher-key-1")
    assert {s.id for s in again.list()} == {saved.id, other.id}
    again.delete(saved.id)
    assert [s.name for s in lib.list()] == ["Unit 5"]
    with pytest.raises(DeckError) as err:
        lib.get(saved.id)
    assert err.value.code == "deck_not_found"
    with pytest.raises(DeckError):
        lib.delete(saved.id)


def test_saving_the_same_deck_twice_keeps_one_and_a_new_name_is_a_new_deck(stores):
    lib = DeckLibrary.for_secret(stores.open(), "k" * 10)
    first = lib.save(deck())
    assert lib.save(deck()).id == first.id
    renamed = lib.save(deck(), name="Week 2")
    assert renamed.id != first.id and len(lib.list()) == 2


def test_each_owner_sees_only_its_own_decks(stores):
    store = stores.open()
    ana = DeckLibrary.for_secret(store, "ana-secret-key")
    ben = DeckLibrary.for_secret(stores.open(), "ben-secret-key")
    kept = ana.save(deck("Ana's words"))
    assert ben.list() == []
    with pytest.raises(DeckError):
        ben.get(kept.id)  # knowing the id is not enough
    with pytest.raises(DeckError):
        ben.delete(kept.id)
    assert [s.name for s in ana.list()] == ["Ana's words"]
    # the store never holds the secret itself, and a library is not a table
    assert "ana-secret-key" not in ana.stream and ana.stream.startswith(LIBRARY_PREFIX)
    assert ana.stream == LIBRARY_PREFIX + owner_id("ana-secret-key")
    assert all("ana-secret-key" not in str(r.payload) for r in store.load(ana.stream))
    with pytest.raises(TableNotFound):
        Table.open(ana.stream, store)


def test_two_kernels_saving_at_once_lose_nothing(stores):
    decks = [deck(f"D{i}", ROWS[i % 10:] + ROWS[:i % 10]) for i in range(8)]
    errors: list[BaseException] = []

    def save(d) -> None:
        try:
            DeckLibrary.for_secret(stores.open(), "shared-key").save(d)  # a handle per thread
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=save, args=(d,)) for d in decks]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert sorted(s.name for s in DeckLibrary.for_secret(stores.open(), "shared-key").list()) == sorted(
        d.name for d in decks)


def test_bad_owner_and_secret_are_refused():
    with pytest.raises(DeckError):
        DeckLibrary(MemoryStore(), "not-hex!")
    with pytest.raises(DeckError):
        owner_id("")


def test_a_folder_offers_valid_decks_and_names_the_first_problem_of_the_others(tmp_path):
    (tmp_path / "unit4.csv").write_text("# lang: en\n" + "\n".join(ROWS) + "\n", encoding="utf-8")
    (tmp_path / "tabs.tsv").write_text("# lang: es\nmar\tocéano\ncafé\tté\ngato\tperro\nsol\tluna\npan\tarroz\n",
                                       encoding="utf-8")
    (tmp_path / "nolang.csv").write_text("\n".join(ROWS) + "\n", encoding="utf-8")
    (tmp_path / "short.csv").write_text("# lang: en\n" + "\n".join(ROWS[:7]) + "\n", encoding="utf-8")
    (tmp_path / "book.xlsx").write_bytes(b"PK\x03\x04rest-of-a-zip")
    (tmp_path / "notes.md").write_text("not a deck", encoding="utf-8")
    (tmp_path / ".hidden.csv").write_text("junk", encoding="utf-8")
    valid, invalid = folder_decks(tmp_path)
    assert sorted(valid) == ["tabs.tsv", "unit4.csv"]
    assert valid["tabs.tsv"].lang == "es" and valid["tabs.tsv"].cards[0].pairs[0].foil == "océano"
    problems = dict(invalid)
    assert sorted(problems) == ["book.xlsx", "nolang.csv", "short.csv"]
    assert "does not say its language" in problems["nolang.csv"]
    assert "short.csv, lines 7-8" in problems["short.csv"]
    assert "spreadsheet" in problems["book.xlsx"]
    with pytest.raises(DeckError):
        folder_decks(tmp_path / "missing")


def test_a_newer_library_event_gives_a_clear_error(stores):
    store = stores.open()
    lib = DeckLibrary.for_secret(store, "teacher-key-1")
    lib.save(deck())
    store.append(lib.stream, store.last_seq(lib.stream), [("DeckSaved", {"v": 99, "id": "x"})])
    with pytest.raises(StoreError) as err:
        DeckLibrary.for_secret(store, "teacher-key-1").list()
    assert err.value.code == "unknown_event_version" and "Saved-deck library" in err.value.message
