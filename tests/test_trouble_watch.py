"""The server's one write-trouble check (server/trouble_watch.py): it tells the watching kernels only when
the answer changes, and a failing write announces too."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from dichotomy_widget.config import STORE_ENV
from dichotomy_widget.stores import SqliteStore
from dichotomy_widget.server.trouble_watch import TroubleWatch


def test_the_watch_wakes_the_watching_kernels_only_on_a_change(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "tables.sqlite3"
    watcher = SqliteStore(path)  # a waiting page's store, with its file watch
    watch = TroubleWatch(SqliteStore(path, watch_files=False))
    try:
        async def woken_by(action) -> tuple[bool, bool]:
            await watcher.wait_for_change(watcher.change_marker(), 0.0)  # the file watch runs
            before = watcher.change_marker()
            changed = action()
            return changed, await watcher.wait_for_change(before, 5.0) != before

        assert asyncio.run(woken_by(watch.check)) == (False, False)  # nothing changed: nobody woken
        monkeypatch.setattr(watch.store, "write_trouble", watch.store._full_error)
        assert asyncio.run(woken_by(watch.check)) == (True, True)  # the real announcement woke it
        assert "full" in watch.trouble
    finally:
        watch.close()
        watcher.close()


def test_a_full_or_read_only_answer_is_announced_and_cleared(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "tables.sqlite3"
    store = SqliteStore(path, watch_files=False)
    announced: list[str] = []
    monkeypatch.setattr(store, "announce", lambda: announced.append("x") or True)
    watch = TroubleWatch(store)
    assert watch.trouble == ""
    full = store._full_error()
    monkeypatch.setattr(store, "write_trouble", lambda: full)
    assert watch.check() is True and watch.trouble == full.message and announced == ["x"]
    assert watch.check() is False and announced == ["x"]  # told once, not every check
    monkeypatch.setattr(store, "write_trouble", lambda: None)
    assert watch.check() is True and watch.trouble == "" and announced == ["x", "x"]
    store.close()


@pytest.mark.parametrize("location", ["", "postgresql://u@localhost/db"])
def test_no_watch_without_an_sqlite_store(location: str) -> None:
    assert TroubleWatch.for_server({STORE_ENV: location} if location else {}) is None


def test_the_server_watches_its_sqlite_store(tmp_path: Path) -> None:
    watch = TroubleWatch.for_server({STORE_ENV: str(tmp_path / "tables.sqlite3")})
    assert watch is not None
    try:
        assert watch.trouble == "" and watch.check() is False
    finally:
        watch.close()
