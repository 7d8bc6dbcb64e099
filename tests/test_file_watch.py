"""The SQLite store's file watch: a waiting kernel is woken by another process's write, not by a timer."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from dichotomy_widget.stores import SqliteStore
from dichotomy_widget.stores import sqlite as sqlite_module
from dichotomy_widget.stores.file_watch import FileWatch

REPO = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify is Linux's")


def _append_in_another_process(path: Path, table_id: str) -> None:
    code = (
        "import sys; from dichotomy_widget.stores import SqliteStore\n"
        "s = SqliteStore(sys.argv[1]); s.append(sys.argv[2], s.last_seq(sys.argv[2]), [('Ping', {})]); s.close()\n"
    )
    subprocess.run([sys.executable, "-c", code, str(path), table_id], check=True, cwd=REPO, timeout=60)


def test_another_process_write_wakes_a_waiter_with_polling_and_recheck_off(tmp_path: Path, monkeypatch) -> None:
    """With the safety-net re-read at 60 s and no polling, only the file notice can wake the waiter."""
    monkeypatch.setattr(sqlite_module, "WATCHED_RECHECK", 60.0)
    path = tmp_path / "tables.sqlite3"
    store = SqliteStore(path, poll_interval=60.0)
    store.create_table("T1", {})

    async def scenario() -> tuple[object, object, float]:
        marker = store.change_marker()
        loop = asyncio.get_running_loop()
        start = loop.time()
        waiting = asyncio.create_task(store.wait_for_change(marker, timeout=30.0))
        await asyncio.sleep(0.3)  # the waiter is asleep before the other process writes
        await asyncio.to_thread(_append_in_another_process, path, "T1")
        return marker, await waiting, loop.time() - start

    marker, new, elapsed = asyncio.run(scenario())
    assert new != marker
    assert elapsed < 25.0  # woken by the notice, far before the 30 s timeout (generous for a loaded CI)
    assert store.last_seq("T1") == 1
    store.close()


def test_an_idle_waiter_does_not_read_the_store(tmp_path: Path, monkeypatch) -> None:
    """Idle costs nothing: while nothing changes, the marker is read once, not polled."""
    monkeypatch.setattr(sqlite_module, "WATCHED_RECHECK", 60.0)
    store = SqliteStore(tmp_path / "tables.sqlite3", poll_interval=0.01)
    store.create_table("T1", {})
    reads = 0
    real = store.change_marker

    def counting() -> object:
        nonlocal reads
        reads += 1
        return real()

    store.change_marker = counting  # type: ignore[method-assign]
    marker = real()
    asyncio.run(store.wait_for_change(marker, timeout=1.0))
    # a 10 ms poll would have read it ~100 times; the watched wait reads it on entry, on registering
    # the waiter and once at the timeout
    assert reads <= 4
    store.close()


def test_closing_the_store_stops_its_watch_thread(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "tables.sqlite3")
    asyncio.run(store.wait_for_change(store.change_marker(), timeout=0.05))
    mine = f"dichotomy-watch:{tmp_path.name}"  # other tests' stores may still be watching their folders
    assert any(t.name == mine for t in threading.enumerate())
    store.close()
    assert not any(t.name == mine and t.is_alive() for t in threading.enumerate())


def test_file_watch_reports_only_the_named_files(tmp_path: Path) -> None:
    seen = threading.Event()
    watch = FileWatch(tmp_path, {"db.sqlite3-wal"}, seen.set)
    assert watch.start()
    try:
        (tmp_path / "other.txt").write_text("x")
        assert not seen.wait(0.5)
        (tmp_path / "db.sqlite3-wal").write_bytes(b"x")
        assert seen.wait(10.0)
    finally:
        watch.stop()
    assert not watch.running


def test_a_folder_that_cannot_be_watched_falls_back_to_polling(tmp_path: Path) -> None:
    watch = FileWatch(tmp_path / "missing", {"x"}, lambda: None)
    assert watch.start() is False
    assert not watch.running
