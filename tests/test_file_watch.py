"""The SQLite store's file watch: a waiting kernel is woken by another process's write, not by a timer."""

from __future__ import annotations

import asyncio
import os
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from dichotomy_widget.stores import SqliteStore
from dichotomy_widget.stores import sqlite as sqlite_module
from dichotomy_widget.stores.file_watch import FileWatch

REPO = Path(__file__).resolve().parents[1]
#: The safety-net recheck, poll step and wait timeout in the wake tests: far beyond any wake, so only a
#: file notice can end the wait before it. On a loaded CI machine the other process alone (a Python
#: start and an import) can take tens of seconds, so the wake bound is generous too.
NEVER = 600.0
WOKEN_WITHIN = 400.0

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify is Linux's")


def _append_in_another_process(path: Path, table_id: str) -> None:
    code = (
        "import sys; from dichotomy_widget.stores import SqliteStore\n"
        "s = SqliteStore(sys.argv[1]); s.append(sys.argv[2], s.last_seq(sys.argv[2]), [('Ping', {})]); s.close()\n"
    )
    subprocess.run([sys.executable, "-c", code, str(path), table_id], check=True, cwd=REPO, timeout=240)


def test_another_process_write_wakes_a_waiter_with_polling_and_recheck_off(tmp_path: Path, monkeypatch) -> None:
    """With the safety-net re-read and polling out of reach, only the file notice can wake the waiter."""
    monkeypatch.setattr(sqlite_module, "WATCHED_RECHECK", NEVER)
    path = tmp_path / "tables.sqlite3"
    store = SqliteStore(path, poll_interval=NEVER)
    store.create_table("T1", {})

    async def scenario() -> tuple[object, object, float]:
        marker = store.change_marker()
        loop = asyncio.get_running_loop()
        start = loop.time()
        waiting = asyncio.create_task(store.wait_for_change(marker, timeout=NEVER))
        await asyncio.sleep(0.3)  # the waiter is asleep before the other process writes
        await asyncio.to_thread(_append_in_another_process, path, "T1")
        return marker, await waiting, loop.time() - start

    marker, new, elapsed = asyncio.run(scenario())
    assert new != marker
    assert elapsed < WOKEN_WITHIN  # woken by the notice, not the timeout
    assert store.last_seq("T1") == 1
    store.close()


def test_a_write_while_another_settles_wakes_the_waiter_at_once(tmp_path: Path, monkeypatch) -> None:
    """Within the settle time after a write (a busy class file, quick moves), the next write's notice
    wakes the waiter: the re-read step (here NEVER) is only its timeout, not a sleep."""
    for name, value in (("WATCHED_RECHECK", NEVER), ("SETTLE_TIME", 2 * NEVER), ("SETTLE_FIRST", NEVER),
                        ("SETTLE_STEP", NEVER)):
        monkeypatch.setattr(sqlite_module, name, value)
    path = tmp_path / "tables.sqlite3"
    store = SqliteStore(path, poll_interval=NEVER)
    store.create_table("T1", {})

    async def scenario() -> tuple[object, object, float]:
        marker = store.change_marker()
        first = asyncio.create_task(store.wait_for_change(marker, timeout=NEVER))
        await asyncio.sleep(0.3)
        await asyncio.to_thread(_append_in_another_process, path, "T1")
        marker = await first  # the first write was noticed: the store now settles
        loop = asyncio.get_running_loop()
        start = loop.time()
        second = asyncio.create_task(store.wait_for_change(marker, timeout=NEVER))
        await asyncio.sleep(0.3)
        await asyncio.to_thread(_append_in_another_process, path, "T1")
        return marker, await second, loop.time() - start

    marker, new, elapsed = asyncio.run(scenario())
    assert new != marker
    assert elapsed < WOKEN_WITHIN  # the notice, not the timeout
    assert store.last_seq("T1") == 2
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
    kinds: list[bool] = []
    watch = FileWatch(tmp_path, {"db.sqlite3-wal"}, lambda written: (kinds.append(written), seen.set()))
    assert watch.start()
    try:
        (tmp_path / "other.txt").write_text("x")
        assert not seen.wait(0.5)
        (tmp_path / "db.sqlite3-wal").write_bytes(b"x")
        assert seen.wait(10.0)
        assert kinds and all(kinds)  # a write, not only a touch
    finally:
        watch.stop()
    assert not watch.running


def test_file_watch_tells_a_touch_from_a_write(tmp_path: Path) -> None:
    target = tmp_path / "db.sqlite3"
    target.write_bytes(b"x")
    seen = threading.Event()
    kinds: list[bool] = []
    watch = FileWatch(tmp_path, {target.name}, lambda written: (kinds.append(written), seen.set()))
    assert watch.start()
    try:
        os.utime(target)  # what SqliteStore.announce does
        assert seen.wait(10.0)
        assert kinds == [False]
    finally:
        watch.stop()


def test_an_announcement_wakes_a_waiting_kernel_in_another_process(tmp_path: Path, monkeypatch) -> None:
    """Nothing is written, the safety-net recheck is out of reach: only the announcement can wake it."""
    monkeypatch.setattr(sqlite_module, "WATCHED_RECHECK", NEVER)
    path = tmp_path / "tables.sqlite3"
    store = SqliteStore(path, poll_interval=NEVER)
    store.create_table("T1", {})
    code = "import sys; from dichotomy_widget.stores import SqliteStore\nassert SqliteStore(sys.argv[1]).announce()\n"

    async def scenario() -> tuple[object, object, float]:
        marker = store.change_marker()
        loop = asyncio.get_running_loop()
        start = loop.time()
        waiting = asyncio.ensure_future(store.wait_for_change(marker, NEVER))
        await asyncio.sleep(0.3)
        assert not waiting.done()
        await asyncio.to_thread(subprocess.run, [sys.executable, "-c", code, str(path)], check=True, cwd=REPO,
                                timeout=240)
        return marker, await waiting, loop.time() - start

    try:
        before, after, waited = asyncio.run(scenario())
    finally:
        store.close()
    assert after != before
    assert waited < WOKEN_WITHIN
    with sqlite3.connect(path) as conn:  # the announcement wrote nothing
        assert conn.execute("SELECT COUNT(*) FROM events").fetchone()[0] == 0


def test_a_watching_store_checks_its_trouble_rarely_and_a_polling_one_often(tmp_path: Path) -> None:
    watched = SqliteStore(tmp_path / "a.sqlite3")
    polled = SqliteStore(tmp_path / "b.sqlite3", watch_files=False)
    try:
        async def wait_once(store: SqliteStore) -> None:
            await store.wait_for_change(store.change_marker(), 0.0)

        asyncio.run(wait_once(watched))
        asyncio.run(wait_once(polled))
        assert watched.trouble_every == sqlite_module.WATCHED_RECHECK >= 10.0
        assert polled.trouble_every == sqlite_module.POLLED_TROUBLE_EVERY <= 2.0
    finally:
        watched.close()
        polled.close()


def test_a_folder_that_cannot_be_watched_falls_back_to_polling(tmp_path: Path) -> None:
    watch = FileWatch(tmp_path / "missing", {"x"}, lambda written: None)
    assert watch.start() is False
    assert not watch.running


def test_a_write_and_an_announcement_in_one_read_tell_both() -> None:
    """Run R2 (loaded): the announcing process opened the store (a write notice) and touched it (the
    announcement) so close together that inotify gave both in one read; that read counted as a write
    alone, the announcement was lost and the waiting kernel slept until its deadline (600 s)."""
    from inotify_simple import Event, flags

    from dichotomy_widget.stores.file_watch import notice_kinds

    names = frozenset({"tables.sqlite3", "tables.sqlite3-wal"})
    both = [Event(1, flags.CLOSE_WRITE, 0, "tables.sqlite3"), Event(1, flags.ATTRIB, 0, "tables.sqlite3")]
    assert notice_kinds(both, names, flags) == [True, False]
    assert notice_kinds([Event(1, flags.ATTRIB, 0, "tables.sqlite3")], names, flags) == [False]
    assert notice_kinds([Event(1, flags.MODIFY, 0, "tables.sqlite3-wal")], names, flags) == [True]
    assert notice_kinds([Event(1, flags.ATTRIB, 0, "other.txt")], names, flags) == []
    assert notice_kinds([Event(-1, flags.Q_OVERFLOW, 0, "")], names, flags) == [True, False]
