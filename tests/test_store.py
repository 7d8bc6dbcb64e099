"""Conformance tests for the table stores (memory, SQLite, PostgreSQL), plus multi-process races.

The PostgreSQL runs use a real server: a throwaway cluster started once per session by
``tests/pg_server.py`` (the fixture fails, never skips, when the server binaries are missing), with a
fresh schema (``?options=-csearch_path=...``) for every test and fresh databases where it matters.
"""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Iterator

import pytest

from dichotomy_widget.errors import StoreError, TableExists, TableNotFound, VersionConflict
from dichotomy_widget.stores import (
    SCHEMA_VERSION,
    MemoryStore,
    Record,
    SqliteStore,
    TableStore,
    default_store_path,
    open_store,
)

from pg_server import PostgresServer, PostgresUnavailable, _free_port as free_port
from support import append_with_retry

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PostgresServer]:
    """One throwaway PostgreSQL server for the whole session; FAILS (no skip) without the binaries."""
    try:
        server = PostgresServer().start()
    except PostgresUnavailable as exc:
        pytest.fail(f"PostgreSQL tests need a server: {exc}", pytrace=False)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def pg_dsn(pg_server: PostgresServer) -> str:
    """A fresh, empty schema on the session's server: a URL with a password and a search_path."""
    return pg_server.create_schema()


class Backend:
    """Opens handles on one store's data: for SQLite/PostgreSQL a new connection each time, for memory the same object."""

    def __init__(self, kind: str, tmp_path: Path, dsn: str | None = None) -> None:
        self.kind = kind
        self.path = tmp_path / "nested" / "dir" / "tables.sqlite3"
        self.dsn = dsn
        self.memory = MemoryStore() if kind == "memory" else None
        self.handles: list[TableStore] = []
        self.relay = None
        if kind == "pg-relayed":  # as in dichotomy serve: one LISTEN for all handles, a pool of 3 slots
            from dichotomy_widget.stores.pg_relay import ChangeRelay
            from dichotomy_widget.stores.pg_slots import make_slots

            self.relay_dir = tmp_path / "relay"
            self.relay_dir.mkdir()
            make_slots(self.relay_dir, 3)
            assert dsn is not None
            self.relay = ChangeRelay(dsn, self.relay_dir).start()

    def open(self) -> TableStore:
        """Another handle (connection/process view) on the same data."""
        if self.memory is not None:
            store: TableStore = self.memory
        elif self.kind == "postgres":
            from dichotomy_widget.stores.postgres import PostgresStore

            assert self.dsn is not None
            store = PostgresStore(self.dsn)
        elif self.kind == "pg-relayed":
            from dichotomy_widget.stores.postgres import PostgresStore

            assert self.dsn is not None
            store = PostgresStore(self.dsn, relay_dir=self.relay_dir)
            assert store.relayed
        else:
            store = SqliteStore(self.path)
        self.handles.append(store)
        return store

    def reopen(self, store: TableStore) -> TableStore:
        """Close ``store`` and open the data again (memory: the same live object)."""
        if self.memory is not None:
            return store
        store.close()
        return self.open()

    def close_all(self) -> None:
        for store in self.handles:
            store.close()
        if self.relay is not None:
            self.relay.stop()


#: The backends every conformance test runs on; the change-notification tests (``RELAYED``) also run
#: relayed, as in ``dichotomy serve`` (stores/pg_relay.py: one LISTEN per server, pooled connections).
BACKENDS = ["memory", "sqlite", "postgres"]
RELAYED = pytest.mark.parametrize("backend", [*BACKENDS, "pg-relayed"], indirect=True)


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest, tmp_path: Path):
    dsn = request.getfixturevalue("pg_dsn") if request.param in ("postgres", "pg-relayed") else None
    b = Backend(request.param, tmp_path, dsn)
    yield b
    b.close_all()


@pytest.fixture
def store(backend: Backend) -> TableStore:
    return backend.open()


META = {"host_token_hash": "abc123", "created_at": 1700000000.5, "deck": {"lang": "fr", "n": 13}, "name": "Élodie ✓"}


def tick(i: int, **extra: object) -> tuple[str, dict]:
    return ("tick", {"i": i, **extra})


# -------------------------------------------------------------------------------------------------
# Conformance: every store


def test_is_a_table_store(store: TableStore) -> None:
    assert isinstance(store, TableStore)


def test_create_exists_meta(store: TableStore) -> None:
    assert not store.table_exists("T1")
    store.create_table("T1", META)
    assert store.table_exists("T1")
    assert store.table_meta("T1") == META
    assert store.last_seq("T1") == 0
    assert store.load("T1") == []
    with pytest.raises(TableExists) as info:
        store.create_table("T1", {"other": True})
    assert isinstance(info.value, StoreError) and info.value.code == "table_exists"
    assert store.table_meta("T1") == META


def test_meta_is_a_fresh_copy(store: TableStore) -> None:
    meta = {"a": [1, 2]}
    store.create_table("T1", meta)
    meta["a"].append(3)
    store.table_meta("T1")["a"].append(4)
    assert store.table_meta("T1") == {"a": [1, 2]}


def test_append_and_load_in_order(store: TableStore) -> None:
    store.create_table("T1", {})
    before = time.time()
    first = store.append("T1", 0, [("join", {"name": "Ana"}), ("join", {"name": "Bo"}), tick(1)])
    second = store.append("T1", 3, [tick(2, nested={"x": [1, None, "é"]}), ("start", {})])
    assert [r.seq for r in first] == [1, 2, 3]
    assert [r.seq for r in second] == [4, 5]
    loaded = store.load("T1")
    assert loaded == first + second
    assert [(r.type, r.payload) for r in loaded] == [
        ("join", {"name": "Ana"}),
        ("join", {"name": "Bo"}),
        ("tick", {"i": 1}),
        ("tick", {"i": 2, "nested": {"x": [1, None, "é"]}}),
        ("start", {}),
    ]
    assert all(isinstance(r, Record) and r.table_id == "T1" for r in loaded)
    assert all(before - 1 <= r.created_at <= time.time() + 1 for r in loaded)
    assert store.last_seq("T1") == 5


def test_tables_are_independent(store: TableStore) -> None:
    store.create_table("A", {})
    store.create_table("B", {})
    store.append("A", 0, [tick(1), tick(2)])
    store.append("B", 0, [tick(9)])
    assert [r.payload["i"] for r in store.load("A")] == [1, 2]
    assert [(r.seq, r.payload["i"]) for r in store.load("B")] == [(1, 9)]


def test_load_after_seq(store: TableStore) -> None:
    store.create_table("T1", {})
    store.append("T1", 0, [tick(i) for i in range(1, 6)])
    assert [r.seq for r in store.load("T1", after_seq=2)] == [3, 4, 5]
    assert [r.seq for r in store.load("T1", 4)] == [5]
    assert store.load("T1", after_seq=5) == []
    assert store.load("T1", after_seq=50) == []


def test_loaded_payloads_are_fresh(store: TableStore) -> None:
    store.create_table("T1", {})
    payload = {"list": [1]}
    [record] = store.append("T1", 0, [("x", payload)])
    payload["list"].append(2)
    record.payload["list"].append(3)
    store.load("T1")[0].payload["list"].append(4)
    assert store.load("T1")[0].payload == {"list": [1]}


@RELAYED
def test_stale_expected_seq_conflicts_and_writes_nothing(backend: Backend) -> None:
    a, b = backend.open(), backend.open()
    a.create_table("T1", {})
    a.append("T1", 0, [tick(1)])
    with pytest.raises(VersionConflict) as info:
        b.append("T1", 0, [tick(2), tick(3)])  # b decided on an old state
    assert info.value.code == "version_conflict"
    assert (info.value.expected_seq, info.value.actual_seq) == (0, 1)
    with pytest.raises(VersionConflict):
        b.append("T1", 5, [tick(4)])  # ahead of the table is a conflict too
    assert [r.payload for r in a.load("T1")] == [{"i": 1}]
    assert [r.payload for r in b.load("T1")] == [{"i": 1}]
    assert b.append("T1", 1, [tick(2)])[0].seq == 2  # after reloading, b succeeds


def test_empty_append_checks_version_only(store: TableStore) -> None:
    store.create_table("T1", {})
    store.append("T1", 0, [tick(1)])
    assert store.append("T1", 1, []) == []
    with pytest.raises(VersionConflict):
        store.append("T1", 0, [])
    assert store.last_seq("T1") == 1


def test_unknown_table(store: TableStore) -> None:
    assert store.table_exists("NOPE") is False
    for call in (
        lambda: store.table_meta("NOPE"),
        lambda: store.load("NOPE"),
        lambda: store.load("NOPE", 3),
        lambda: store.last_seq("NOPE"),
        lambda: store.append("NOPE", 0, [tick(1)]),
        lambda: store.append("NOPE", 0, []),
    ):
        with pytest.raises(TableNotFound) as info:
            call()
        assert info.value.code == "table_not_found" and "NOPE" in info.value.message
    assert store.table_exists("NOPE") is False


@pytest.mark.parametrize(
    "events",
    [
        [tick(1), ("bad", {"x": object()})],
        [tick(1), ("bad", {"x": float("nan")})],
        [tick(1), ("", {})],
        [tick(1), ("bad", ["not", "a", "dict"])],
        [tick(1), "not a pair"],
        [tick(1), ("\ud800", {})],
    ],
)
def test_invalid_events_write_nothing(store: TableStore, events: list) -> None:
    store.create_table("T1", {})
    with pytest.raises(StoreError):
        store.append("T1", 0, events)
    assert store.last_seq("T1") == 0


def test_lone_surrogates_round_trip(store: TableStore) -> None:
    store.create_table("T1", {"m": "a\udc80b"})
    store.append("T1", 0, [("guess", {"text": "x\ud800y", "ok": "é"})])
    assert store.table_meta("T1") == {"m": "a\udc80b"}
    assert store.load("T1")[0].payload == {"text": "x\ud800y", "ok": "é"}


def test_invalid_arguments(store: TableStore) -> None:
    for bad_id in ("", "\ud800", None, 7):
        with pytest.raises(StoreError):
            store.create_table(bad_id, {})  # type: ignore[arg-type]
        with pytest.raises(StoreError):
            store.table_exists(bad_id)  # type: ignore[arg-type]
    with pytest.raises(StoreError):
        store.create_table("T2", {"x": {1, 2}})
    assert not store.table_exists("T2")
    store.create_table("T1", {})
    for bad in (-1, 1.0, True, "0"):
        with pytest.raises(StoreError):
            store.append("T1", bad, [tick(1)])
        with pytest.raises(StoreError):
            store.load("T1", bad)


def marker_after_change(backend: Backend, store: TableStore, old: object) -> object:
    """``store``'s marker once another handle's committed change has reached it: at once, except
    through ``dichotomy serve``'s relay (pg-relayed), which passes it on within milliseconds."""
    if backend.kind != "pg-relayed":
        return store.change_marker()
    deadline = time.monotonic() + 10
    while (new := store.change_marker()) == old and time.monotonic() < deadline:
        time.sleep(0.005)
    return new


def relayed(backend: Backend, count: int) -> None:
    """pg-relayed: wait until the relay has passed on ``count`` notifications (others: nothing to wait for)."""
    deadline = time.monotonic() + 10
    while backend.relay is not None and backend.relay.notices < count and time.monotonic() < deadline:
        time.sleep(0.005)


@RELAYED
def test_change_marker_changes_after_another_writer(backend: Backend) -> None:
    a, b = backend.open(), backend.open()
    b.create_table("T1", {})
    relayed(backend, 1)  # the new table's notice has reached the relay's file
    marker = a.change_marker()
    assert a.change_marker() == marker  # stable while nothing happens
    a.load("T1")
    assert a.change_marker() == marker  # reads do not change it
    b.append("T1", 0, [tick(1)])
    after_other = marker_after_change(backend, a, marker)
    assert after_other != marker
    a.append("T1", 1, [tick(2)])  # own writes count too
    assert a.change_marker() != after_other


@RELAYED
def test_change_marker_changes_after_create_table(backend: Backend) -> None:
    a, b = backend.open(), backend.open()
    marker = a.change_marker()
    b.create_table("T1", {})
    assert marker_after_change(backend, a, marker) != marker


@RELAYED
def test_wait_for_change_wakes_on_another_writer(backend: Backend) -> None:
    a, b = backend.open(), backend.open()
    a.create_table("T1", {})
    relayed(backend, 1)

    async def main() -> tuple[object, object, float]:
        marker = a.change_marker()
        writer = threading.Timer(0.15, lambda: b.append("T1", 0, [tick(1)]))
        start = time.perf_counter()
        writer.start()
        new = await a.wait_for_change(marker, timeout=60.0)
        elapsed = time.perf_counter() - start
        writer.join()
        return marker, new, elapsed

    marker, new, elapsed = asyncio.run(main())
    assert new != marker
    # woken by the write (after the writer's 0.15 s), not by the 60 s timeout; bench/store.py times it
    assert 0.1 <= elapsed < 45.0
    assert a.load("T1")[0].payload == {"i": 1}


@RELAYED
def test_wait_for_change_returns_at_once_if_already_changed(backend: Backend) -> None:
    a, b = backend.open(), backend.open()
    marker = a.change_marker()
    b.create_table("T1", {})
    start = time.perf_counter()
    new = asyncio.run(a.wait_for_change(marker, timeout=60.0))
    assert new != marker and time.perf_counter() - start < 45.0  # at once, not after the timeout


def test_wait_for_change_times_out(store: TableStore) -> None:
    marker = store.change_marker()
    start = time.perf_counter()
    new = asyncio.run(store.wait_for_change(marker, timeout=0.2))
    elapsed = time.perf_counter() - start
    assert new == marker
    assert elapsed >= 0.15  # it waited for the timeout (an upper bound would only measure the machine's load)


@RELAYED
def test_wait_for_change_many_waiters(backend: Backend) -> None:
    a, b = backend.open(), backend.open()
    a.create_table("T1", {})

    async def main() -> list[object]:
        marker = a.change_marker()
        waits = [asyncio.create_task(a.wait_for_change(marker, 5.0)) for _ in range(10)]
        await asyncio.sleep(0.05)
        await asyncio.to_thread(b.append, "T1", 0, [tick(1)])
        return [marker, *await asyncio.wait_for(asyncio.gather(*waits), 2.0)]

    marker, *news = asyncio.run(main())
    assert all(new != marker for new in news)


@RELAYED
def test_reopen_gives_the_same_records(backend: Backend) -> None:
    store = backend.open()
    store.create_table("T1", META)
    written = store.append("T1", 0, [tick(1), ("join", {"name": "Zoé"})])
    written += store.append("T1", 2, [tick(3)])
    again = backend.reopen(store)
    assert again.table_exists("T1")
    assert again.table_meta("T1") == META
    assert again.load("T1") == written
    assert again.last_seq("T1") == 3


def test_threads_appending_with_retry(store: TableStore) -> None:
    store.create_table("T1", {})
    per_thread = 50

    def worker(name: str) -> None:
        for i in range(per_thread):
            append_with_retry(store, "T1", [("tick", {"w": name, "i": i})])

    threads = [threading.Thread(target=worker, args=(f"t{n}",)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    check_interleaving(store.load("T1"), {f"t{n}": per_thread for n in range(4)})


def test_closed_store_refuses(store: TableStore) -> None:
    store.create_table("T1", {})
    store.close()
    store.close()  # idempotent
    for call in (
        lambda: store.load("T1"),
        lambda: store.append("T1", 0, [tick(1)]),
        lambda: store.table_exists("T1"),
        lambda: store.change_marker(),
    ):
        with pytest.raises(StoreError):
            call()


# -------------------------------------------------------------------------------------------------
# SQLite specifics


def test_sqlite_file_layout(tmp_path: Path) -> None:
    path = tmp_path / "a" / "b" / "t.sqlite3"
    with SqliteStore(path) as store:
        store.create_table("T1", {"k": 1})
        store.append("T1", 0, [tick(1)])
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert conn.execute("SELECT table_id, meta FROM tables").fetchall() == [("T1", '{"k":1}')]
        assert conn.execute("SELECT table_id, seq, type, payload FROM events").fetchall() == [
            ("T1", 1, "tick", '{"i":1}')
        ]
    finally:
        conn.close()


def test_sqlite_corrupt_file_gives_store_error(tmp_path: Path) -> None:
    path = tmp_path / "tables.sqlite3"
    path.write_bytes(b"this is not a database, just some text\n" * 100)
    with pytest.raises(StoreError) as info:
        SqliteStore(path)
    assert str(path) in info.value.message
    assert "not" in info.value.message and "Traceback" not in info.value.message
    with pytest.raises(StoreError):
        open_store(str(path))


def test_sqlite_damaged_pages_give_store_error(tmp_path: Path) -> None:
    path = tmp_path / "tables.sqlite3"
    with SqliteStore(path) as store:
        store.create_table("T1", {})
        store.append("T1", 0, [("x", {"pad": "y" * 200}) for _ in range(200)])
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    data = bytearray(path.read_bytes())
    data[4096 * 2 : 4096 * 4] = b"\xff" * (4096 * 2)  # garbage over some b-tree pages
    path.write_bytes(bytes(data))
    with pytest.raises(StoreError) as info:
        store = SqliteStore(path)
        store.load("T1")
    assert str(path) in info.value.message


def test_sqlite_foreign_database_gives_store_error(tmp_path: Path) -> None:
    path = tmp_path / "other.sqlite3"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE events (id INTEGER PRIMARY KEY, what TEXT)")
    conn.commit()
    conn.close()
    with pytest.raises(StoreError) as info:
        SqliteStore(path)
    assert str(path) in info.value.message


def test_sqlite_newer_schema_gives_store_error(tmp_path: Path) -> None:
    path = tmp_path / "t.sqlite3"
    SqliteStore(path).close()
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.close()
    with pytest.raises(StoreError, match="newer"):
        SqliteStore(path)


def test_sqlite_unopenable_path_gives_store_error(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    with pytest.raises(StoreError) as info:
        SqliteStore(tmp_path / "file" / "tables.sqlite3")  # parent is a file
    assert "tables.sqlite3" in info.value.message


# -------------------------------------------------------------------------------------------------
# open_store and import cost


def test_open_store_variants(tmp_path: Path) -> None:
    for spec in (None, "memory", ":memory:", "memory://", ""):
        assert isinstance(open_store(spec), MemoryStore)
    plain = open_store(str(tmp_path / "p.sqlite3"))
    assert isinstance(plain, SqliteStore) and plain.path == tmp_path / "p.sqlite3"
    plain.close()
    by_path = open_store(tmp_path / "q.sqlite3")
    assert isinstance(by_path, SqliteStore) and by_path.path == tmp_path / "q.sqlite3"
    by_path.close()
    url = open_store(f"sqlite://{tmp_path}/u.sqlite3")
    assert isinstance(url, SqliteStore) and url.path == tmp_path / "u.sqlite3"
    url.close()
    with pytest.raises(StoreError, match="Unknown table store"):
        open_store("redis://localhost")


def test_default_store_path() -> None:
    import platformdirs

    path = default_store_path()
    assert path == Path(platformdirs.user_data_dir("dichotomy")) / "tables.sqlite3"


def test_store_import_is_light() -> None:
    code = (
        "import sys, time\n"
        "import dichotomy_widget\n"
        "before = set(sys.modules)\n"
        "t = time.perf_counter()\n"
        "import dichotomy_widget.stores\n"
        "print(time.perf_counter() - t)\n"
        "print(' '.join(sorted(set(sys.modules) - before)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=child_env(), check=True)
    seconds, modules = out.stdout.splitlines()[0], out.stdout.splitlines()[1:]
    loaded = set(" ".join(modules).split())
    heavy = {"anywidget", "traitlets", "IPython", "ipywidgets", "asyncio", "platformdirs"}
    assert not loaded & heavy
    assert not [m for m in loaded if m.startswith("dichotomy_widget.") and m not in ("dichotomy_widget.stores", "dichotomy_widget.errors")]
    assert float(seconds) < 0.3


# -------------------------------------------------------------------------------------------------
# Race: several OS processes on one SQLite file

WORKER = r"""
import json, os, random, sys, time
from dichotomy_widget.errors import TableExists, VersionConflict
from dichotomy_widget.stores import SqliteStore

path, table, name, count, go = sys.argv[1:6]
while not os.path.exists(go):
    time.sleep(0.002)
store = SqliteStore(path)  # all processes create the file, its schema and the table at once
try:
    store.create_table(table, {"by": name})
    created = True
except TableExists:
    created = False
conflicts = 0
for i in range(int(count)):
    # every 7th action is a two-event batch that must stay contiguous
    events = [("tick", {"w": name, "i": i, "part": p}) for p in range(2 if i % 7 == 0 else 1)]
    while True:
        seq = store.last_seq(table)
        if random.random() < 0.3:
            time.sleep(0.0005)  # "deciding" between reading and writing makes races likelier
        try:
            store.append(table, seq, events)
            break
        except VersionConflict:
            conflicts += 1
store.close()
print(json.dumps({"name": name, "conflicts": conflicts, "created": created}))
"""


def child_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH", "")) if p)
    return env


def check_interleaving(records: list[Record], actions: dict[str, int]) -> None:
    """Seq 1..N without gaps; each writer's actions exactly once, in its own order; batches contiguous."""
    assert [r.seq for r in records] == list(range(1, len(records) + 1))
    by_writer: dict[str, list[tuple[int, int]]] = {name: [] for name in actions}
    previous = None
    for record in records:
        key = (record.payload["i"], record.payload.get("part", 0))
        if key[1] == 1:  # second half of a batch directly follows its first half
            assert previous is not None and previous.payload["w"] == record.payload["w"]
            assert (previous.payload["i"], previous.payload.get("part")) == (key[0], 0)
        by_writer[record.payload["w"]].append(key)
        previous = record
    for name, count in actions.items():
        got = [i for i, part in by_writer[name] if part == 0]
        assert got == list(range(count)), f"{name} lost, duplicated or reordered events"


def run_race(worker: str, target: str, go: Path, env: dict, open_result, per_process: int, settle: float) -> None:
    """Five processes append to one table at once with the retry loop; check the result.

    Every event is kept exactly once, each process's events stay in its own order, batches stay
    together, and exactly one process created the table.
    """
    names = [f"p{n}" for n in range(5)]
    procs = [
        subprocess.Popen([sys.executable, "-c", worker, target, "RACE", name, str(per_process), str(go)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        for name in names
    ]
    time.sleep(settle)  # let every process import before the start signal
    go.touch()
    start = time.perf_counter()
    results = [p.communicate(timeout=120) for p in procs]
    elapsed = time.perf_counter() - start
    for proc, (out, err) in zip(procs, results):
        assert proc.returncode == 0, err
    reports = [json.loads(out) for out, _ in results]
    assert sum(r["created"] for r in reports) == 1  # exactly one process created the table
    conflicts = sum(r["conflicts"] for r in reports)
    with open_result() as store:
        records = store.load("RACE")
    batches = sum(2 if i % 7 == 0 else 1 for i in range(per_process))
    assert len(records) == batches * len(names)
    check_interleaving(records, {name: per_process for name in names})
    print(f"\n{len(names)} processes x {per_process} appends in {elapsed:.2f} s, {conflicts} conflicts retried")


def test_processes_race_on_one_sqlite_table(tmp_path: Path) -> None:
    path = tmp_path / "fresh" / "race.sqlite3"
    run_race(WORKER, str(path), tmp_path / "go", child_env(), lambda: SqliteStore(path), 200, 0.5)


# -------------------------------------------------------------------------------------------------
# PostgreSQL specifics (a real server started by pg_server.py)


def pg_store(dsn: str) -> TableStore:
    from dichotomy_widget.stores.postgres import PostgresStore

    return PostgresStore(dsn)


def pg_schema(dsn: str) -> str:
    """The schema named by a DSN from :meth:`PostgresServer.create_schema`."""
    return dsn.rsplit("%3D", 1)[1]


def pg_admin(server: PostgresServer, dsn: str):
    """A superuser connection (autocommit) whose search_path is the DSN's schema."""
    import psycopg

    conn = psycopg.connect(server.dsn(), autocommit=True)
    conn.execute(f"SET search_path = {pg_schema(dsn)}")
    return conn


def test_postgres_layout_and_url_forms(pg_server: PostgresServer, pg_dsn: str) -> None:
    from dichotomy_widget.stores.postgres import PostgresStore

    with open_store(pg_dsn) as store:
        assert isinstance(store, PostgresStore) and isinstance(store, TableStore)
        store.create_table("T1", {"k": 1})
        store.append("T1", 0, [tick(1)])
    with pg_admin(pg_server, pg_dsn) as conn:
        assert conn.execute("SELECT version FROM dichotomy_schema").fetchall() == [(SCHEMA_VERSION,)]
        assert conn.execute("SELECT table_id, meta FROM dichotomy_tables").fetchall() == [("T1", '{"k":1}')]
        assert conn.execute("SELECT table_id, seq, type, payload FROM dichotomy_events").fetchall() == [
            ("T1", 1, "tick", '{"i":1}')
        ]
    rest = pg_dsn.split("://", 1)[1]
    for scheme in ("postgres", "postgresql+psycopg", "POSTGRESQL"):
        with open_store(f"{scheme}://{rest}") as again:
            assert isinstance(again, PostgresStore)
            assert again.load("T1")[0].payload == {"i": 1}


def test_postgres_schema_created_once_by_racing_openers(pg_server: PostgresServer) -> None:
    dsn = pg_server.create_database()
    barrier, errors, stores = threading.Barrier(8), [], []

    def opener() -> None:
        barrier.wait()
        try:
            stores.append(pg_store(dsn))
        except Exception as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=opener) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    try:
        assert errors == [] and len(stores) == 8
        stores[0].create_table("T1", {})
        assert all(s.table_exists("T1") for s in stores)
    finally:
        for s in stores:
            s.close()
    import psycopg

    with psycopg.connect(dsn) as conn:
        assert conn.execute("SELECT version FROM dichotomy_schema").fetchall() == [(SCHEMA_VERSION,)]


def test_postgres_newer_schema_gives_store_error(pg_server: PostgresServer, pg_dsn: str) -> None:
    pg_store(pg_dsn).close()
    with pg_admin(pg_server, pg_dsn) as conn:
        conn.execute("UPDATE dichotomy_schema SET version = %s", (SCHEMA_VERSION + 1,))
    with pytest.raises(StoreError, match="newer"):
        pg_store(pg_dsn)


def test_postgres_foreign_tables_give_store_error_and_stay_untouched(pg_server: PostgresServer, pg_dsn: str) -> None:
    with pg_admin(pg_server, pg_dsn) as conn:
        conn.execute("CREATE TABLE dichotomy_events (id INTEGER PRIMARY KEY, what TEXT)")
    with pytest.raises(StoreError, match="dichotomy_events") as info:
        pg_store(pg_dsn)
    assert pg_server.password not in info.value.message
    with pg_admin(pg_server, pg_dsn) as conn:  # nothing created next to someone else's table
        assert conn.execute("SELECT to_regclass('dichotomy_schema'), to_regclass('dichotomy_tables')").fetchone() == (
            None,
            None,
        )


def test_postgres_errors_never_show_passwords(pg_server: PostgresServer, pg_dsn: str) -> None:
    secret = "Hunter2-secret"
    closed_port = free_port()
    wrong = pg_dsn.replace(pg_server.password, secret)
    attempts = {
        "wrong password": wrong,
        "wrong password, key=value form": (
            f"host=127.0.0.1 port={pg_server.port} user=postgres password='{secret}' dbname=postgres"
        ),
        "nobody listening": f"postgresql://someone:{secret}@127.0.0.1:{closed_port}/db",
        "driver suffix": f"postgresql+psycopg://someone:{secret}@127.0.0.1:{closed_port}/db",
        "password parameter": f"postgresql://127.0.0.1:{closed_port}/db?password={secret}&connect_timeout=3",
        "unknown option": f"postgresql://someone:{secret}@127.0.0.1:{closed_port}/db?nonsense=1",
    }
    for what, dsn in attempts.items():
        with pytest.raises(StoreError) as info:
            (open_store if "://" in dsn else pg_store)(dsn)  # open_store takes URLs; the class takes both
        message = info.value.message
        assert secret not in message and "Hunter2" not in message, (what, message)
        assert "Traceback" not in message and ("127.0.0.1" in message or "nonsense" in message), (what, message)
    store = pg_store(pg_dsn)
    assert pg_server.password not in repr(store) and pg_server.password not in store.url
    assert f"127.0.0.1:{pg_server.port}" in repr(store)
    store.close()
    with pytest.raises(StoreError) as info:
        store.load("T1")
    assert "closed" in info.value.message and pg_server.password not in info.value.message


def test_postgres_redact() -> None:
    from dichotomy_widget.stores.postgres import redact

    assert redact("postgresql://u:p%40ss@h/db") == "postgresql://u:***@h/db"
    assert redact("x password=abc y") == "x password=*** y"
    assert redact("h/db?password=abc&sslmode=require") == "h/db?password=***&sslmode=require"
    assert "p@ss" not in redact("error near 'p@ss'", "postgresql://u:p%40ss@h/db")


def test_postgres_missing_psycopg_says_what_to_install() -> None:
    code = (
        "import sys\n"
        "sys.modules['psycopg'] = None  # as if not installed\n"
        "from dichotomy_widget.errors import StoreError\n"
        "from dichotomy_widget.stores import open_store\n"
        "try:\n"
        "    open_store('postgresql://u:secret@db.example/x')\n"
        "except StoreError as exc:\n"
        "    print(exc)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=child_env(), check=True)
    assert 'pip install "dichotomy_widget[postgres]"' in out.stdout
    assert "secret" not in out.stdout


def test_postgres_module_import_is_light() -> None:
    code = (
        "import sys\n"
        "import dichotomy_widget\n"
        "assert 'dichotomy_widget.stores.postgres' not in sys.modules\n"
        "import dichotomy_widget.stores.postgres\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('psycopg', 'psycopg_binary', 'psycopg_c')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=child_env(), check=True)
    assert out.stdout.strip() == "[]"


def test_postgres_nul_characters(pg_dsn: str) -> None:
    with pg_store(pg_dsn) as store:
        for call in (lambda: store.create_table("A\x00B", {}), lambda: store.table_exists("A\x00B")):
            with pytest.raises(StoreError, match="NUL"):
                call()
        store.create_table("T1", {"m": "a\x00b"})  # inside JSON text a NUL is escaped: fine
        with pytest.raises(StoreError, match="NUL"):
            store.append("T1", 0, [("ti\x00ck", {})])
        store.append("T1", 0, [("tick", {"text": "x\x00y"})])
        assert store.table_meta("T1") == {"m": "a\x00b"}
        assert store.load("T1")[0].payload == {"text": "x\x00y"}
        assert store.last_seq("T1") == 1


def test_postgres_huge_sequence_numbers(pg_dsn: str) -> None:
    with pg_store(pg_dsn) as store:
        store.create_table("T1", {})
        with pytest.raises(VersionConflict):
            store.append("T1", 2**70, [tick(1)])
        assert store.load("T1", 2**70) == []
        assert store.last_seq("T1") == 0


def test_postgres_reconnects_after_a_lost_connection(pg_server: PostgresServer, pg_dsn: str) -> None:
    a, b = pg_store(pg_dsn), pg_store(pg_dsn)
    try:
        a.create_table("T1", {})
        a.append("T1", 0, [tick(1)])

        async def main() -> tuple[float, object, object]:
            marker = a.change_marker()
            waiting = asyncio.create_task(a.wait_for_change(marker, 10.0))
            await asyncio.sleep(0.1)
            with pg_admin(pg_server, pg_dsn) as admin:  # the server drops a's session
                admin.execute("SELECT pg_terminate_backend(%s)", (a._pid,))  # type: ignore[attr-defined]
            start = time.perf_counter()
            new = await waiting  # the listener thread sees the connection go and wakes the waiter
            return time.perf_counter() - start, marker, new

        elapsed, marker, new = asyncio.run(main())
        assert new != marker and elapsed < 2.0
        assert [r.seq for r in a.load("T1")] == [1]  # reconnected
        assert a.append("T1", 1, [tick(2)])[0].seq == 2

        async def again() -> object:  # notifications work on the new session
            marker = a.change_marker()
            writer = threading.Timer(0.1, lambda: b.append("T1", 2, [tick(3)]))
            writer.start()
            try:
                return marker != await a.wait_for_change(marker, 5.0)
            finally:
                writer.join()

        assert asyncio.run(again()) is True
    finally:
        a.close()
        b.close()


def test_a_table_watching_postgres_sleeps_until_another_kernel_writes(pg_dsn: str) -> None:
    """An idle page on PostgreSQL wakes on NOTIFY, not on a timer: no query at all for seconds, then a
    join from another connection reaches it."""
    from dichotomy_widget import Table

    store, other = pg_store(pg_dsn), pg_store(pg_dsn)
    try:
        table = Table.create(store=store, rounds=2)
        asked: list[float] = []
        real = store.change_marker
        store.change_marker = lambda: asked.append(time.monotonic()) or real()  # type: ignore[method-assign]

        async def main() -> int:
            task = table.start_watching()
            assert task is not None
            await asyncio.sleep(0.5)
            before = len(asked)
            await asyncio.sleep(3.0)
            idle = len(asked) - before
            Table.open(table.code, other).join("Ana")
            deadline = time.monotonic() + 10
            while not table.state.seats and time.monotonic() < deadline:
                await asyncio.sleep(0.01)
            task.cancel()
            return idle

        assert asyncio.run(main()) == 0
        assert [seat.name for seat in table.state.seats] == ["Ana"]
    finally:
        store.close()
        other.close()


def test_postgres_close_wakes_waiters(pg_dsn: str) -> None:
    store = pg_store(pg_dsn)

    async def main() -> float:
        marker = store.change_marker()
        threading.Timer(0.1, store.close).start()
        start = time.perf_counter()
        with pytest.raises(StoreError, match="closed"):
            await store.wait_for_change(marker, 10.0)
        return time.perf_counter() - start

    assert asyncio.run(main()) < 2.0


def test_postgres_idle_waiter_burns_no_cpu(pg_dsn: str) -> None:
    with pg_store(pg_dsn) as store:
        marker = store.change_marker()
        cpu, start = time.process_time(), time.perf_counter()
        assert asyncio.run(store.wait_for_change(marker, 1.0)) == marker
        wall, used = time.perf_counter() - start, time.process_time() - cpu
    assert wall >= 0.95
    assert used < 0.05, f"an idle wait used {used:.3f} s of CPU in {wall:.2f} s"


# -------------------------------------------------------------------------------------------------
# Race and change feed: several OS processes on one PostgreSQL table

PG_WORKER = WORKER.replace(
    "from dichotomy_widget.stores import SqliteStore", "from dichotomy_widget.stores.postgres import PostgresStore"
).replace("store = SqliteStore(path)", "store = PostgresStore(os.environ['DICHOTOMY_TEST_DSN'])")

PG_NOTIFIER = r"""
import json, os, random, sys, time
from dichotomy_widget.stores.postgres import PostgresStore

table, count = sys.argv[1], int(sys.argv[2])
store = PostgresStore(os.environ["DICHOTOMY_TEST_DSN"])
print("ready", flush=True)
sys.stdin.readline()  # the parent is waiting now
for i in range(count):
    time.sleep(random.uniform(0.03, 0.08))
    store.append(table, i, [("tick", {"i": i, "t": time.time()})])
store.close()
"""


def test_processes_race_on_one_postgres_table(pg_server: PostgresServer) -> None:
    dsn = pg_server.create_database()  # empty: every process creates the schema and the table at once
    run_race(PG_WORKER, "-", Path(tempfile.mkdtemp()) / "go", {**child_env(), "DICHOTOMY_TEST_DSN": dsn},
             lambda: pg_store(dsn), 100, 1.0)


def test_another_process_append_wakes_wait_for_change(pg_dsn: str) -> None:
    count = 10
    with pg_store(pg_dsn) as store:
        store.create_table("NOTE", {})
        child = subprocess.Popen(
            [sys.executable, "-c", PG_NOTIFIER, "NOTE", str(count)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**child_env(), "DICHOTOMY_TEST_DSN": pg_dsn},
        )
        try:
            assert child.stdout is not None and child.stdout.readline().strip() == "ready"

            async def watch() -> list[float]:
                delays: list[float] = []
                seen, marker = 0, store.change_marker()
                assert child.stdin is not None
                child.stdin.write("go\n")
                child.stdin.flush()
                deadline = time.monotonic() + 60
                while len(delays) < count and time.monotonic() < deadline:
                    marker = await store.wait_for_change(marker, timeout=5.0)
                    now = time.time()
                    for record in store.load("NOTE", seen):
                        delays.append(now - record.payload["t"])
                        seen = record.seq
                return delays

            delays = asyncio.run(watch())
            _, err = child.communicate(timeout=60)
            assert child.returncode == 0, err
        finally:
            if child.poll() is None:
                child.kill()
                child.wait()
    assert len(delays) == count
    delays.sort()
    assert delays[len(delays) // 2] < 0.25 and delays[-1] < 1.0, delays
    print(f"\nnoticed {count} appends of another process: median {delays[len(delays) // 2] * 1000:.1f} ms, "
          f"max {delays[-1] * 1000:.1f} ms")


def test_open_store_refuses_a_key_value_dsn_instead_of_creating_a_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(StoreError) as err:
        open_store("host=127.0.0.1 port=5432 dbname=game password=secret")
    assert "postgresql://" in str(err.value) and "secret" not in str(err.value)
    assert list(tmp_path.iterdir()) == []
