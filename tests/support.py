"""Small helpers shared by the tests and the bench scripts (which put tests/ on sys.path)."""

from __future__ import annotations

from pathlib import Path

from dichotomy_widget.errors import VersionConflict
from dichotomy_widget.stores import TableStore


def append_with_retry(store: TableStore, table_id: str, events: list[tuple[str, dict]]) -> int:
    """The table layer's loop: read the last seq, append, and on conflict try again. Returns conflicts."""
    conflicts = 0
    while True:
        try:
            store.append(table_id, store.last_seq(table_id), events)
            return conflicts
        except VersionConflict:
            conflicts += 1


def child_pids(pid: int) -> set[int]:
    """The direct children of process ``pid`` (read from /proc)."""
    out = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                out.add(int(entry.name))
    return out
