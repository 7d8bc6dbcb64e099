"""Faults with real processes: a full disk, a read-only store, a store file replaced by garbage.

Each "kernel" here is a separate Python process opening the SQLite store on its own, as a voila page's
kernel does. The disk is a real tmpfs of a few hundred KB (mounted for the test: needs root, as CI has);
read-only is that tmpfs remounted read-only. The server and kernel kills (voila, Chromium) are in
``tests/browser/test_faults_browser.py``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from dichotomy_widget import SqliteStore, Table
from dichotomy_widget.ui.entry import seat_page

pytestmark = pytest.mark.faults

REPO = Path(__file__).resolve().parent.parent

CHILD = textwrap.dedent('''
    import json, sys
    from dichotomy_widget import DichotomyError, SqliteStore, Table
    path, code, action = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
    try:
        table = Table.open(code, SqliteStore(path))
        seat = action.pop("seat", None)
        if seat == "drawer":
            seat = table.state.drawer
        elif seat == "writer":
            seat = table.state.current_writer
        table.act(seat, action)
        print(json.dumps({"ok": True, "events": len(table.events), "phase": table.state.phase}))
    except DichotomyError as err:
        print(json.dumps({"ok": False, **err.to_dict()}))
''')


def kernel(path: Path, code: str, action: dict) -> dict:
    """One action from a fresh process (a page's kernel); its JSON answer. Never a traceback."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.run([sys.executable, "-c", CHILD, str(path), code, json.dumps(action)],
                          capture_output=True, text=True, timeout=120, env=env)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    return json.loads(proc.stdout)


@pytest.fixture()
def small_disk(tmp_path):
    """A real 512 KB tmpfs, unmounted afterwards."""
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a small tmpfs needs root (CI runs as root)")
    mount = tmp_path / "disk"
    mount.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=512k", "tmpfs", str(mount)], check=True)
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def new_table(path: Path) -> str:
    store = SqliteStore(path)
    table = Table.create(deck="en", seed=4, rounds=2, store=store)
    for name in ("Ana", "Ben", "Cy"):
        table.join(name)
    table.start()
    store.close()
    return table.code


def count(path: Path, code: str) -> int:
    store = SqliteStore(path)
    try:
        return len(Table.open(code, store).events)
    finally:
        store.close()


def check_intact(path: Path, code: str, events: int) -> None:
    """Exactly ``events`` events, and the replay is the state (no half-written event)."""
    store = SqliteStore(path)
    table = Table.open(code, store)
    assert len(table.events) == events and table.replayed() == table.state
    store.close()


def test_a_full_disk_gives_a_clear_message_saves_nothing_and_play_resumes(small_disk):
    path = small_disk / "tables.sqlite3"
    code = new_table(path)
    before = count(path, code)
    filler = small_disk / "filler"
    try:  # fill the disk to the last block
        with open(filler, "wb") as f:
            while True:
                f.write(b"\0" * 4096)
                f.flush()
    except OSError:
        pass
    answer = kernel(path, code, {"type": "pick", "pair": 1, "seat": "drawer"})
    assert answer["ok"] is False and answer["code"] == "store_full", answer
    assert "full" in answer["message"] and "nothing was saved" in answer["message"]
    filler.unlink()
    check_intact(path, code, before)
    assert kernel(path, code, {"type": "pick", "pair": 1, "seat": "drawer"})["phase"] == "clues"
    check_intact(path, code, before + 1)


def test_a_read_only_store_gives_a_clear_message_and_play_resumes(small_disk):
    path = small_disk / "tables.sqlite3"
    code = new_table(path)
    before = count(path, code)
    subprocess.run(["mount", "-o", "remount,ro", str(small_disk)], check=True)
    try:
        answer = kernel(path, code, {"type": "pick", "pair": 1, "seat": "drawer"})
    finally:
        subprocess.run(["mount", "-o", "remount,rw", str(small_disk)], check=True)
    assert answer["ok"] is False and answer["code"] == "store_read_only", answer
    assert "read-only" in answer["message"] and "nothing was saved" in answer["message"]
    check_intact(path, code, before)
    assert kernel(path, code, {"type": "pick", "pair": 1, "seat": "drawer"})["phase"] == "clues"
    check_intact(path, code, before + 1)


def test_a_store_replaced_by_garbage_gives_a_clear_message_not_a_traceback(tmp_path):
    path = tmp_path / "tables.sqlite3"
    code = new_table(path)
    good = path.read_bytes()
    for suffix in ("-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    path.write_bytes(os.urandom(64 * 1024))
    answer = kernel(path, code, {"type": "pick", "pair": 1, "seat": "drawer"})
    assert answer["ok"] is False and answer["code"] == "store_corrupt"
    assert "not a dichotomy table store" in answer["message"]
    page = seat_page(f"table={code}", store=str(path))  # what a new seat page shows
    assert page.state == "refused" and "not a dichotomy table store" in page.message
    path.write_bytes(good)  # the teacher puts the file back: play resumes
    assert kernel(path, code, {"type": "pick", "pair": 1, "seat": "drawer"})["phase"] == "clues"


def test_a_store_replaced_under_a_running_kernel_is_noticed_not_written_to(tmp_path):
    path = tmp_path / "tables.sqlite3"
    code = new_table(path)
    running = Table.open(code, SqliteStore(path))  # a kernel that has the file open
    before = len(running.events)
    garbage = tmp_path / "garbage"
    garbage.write_bytes(os.urandom(64 * 1024))
    saved = tmp_path / "saved.sqlite3"
    os.replace(path, saved)  # the teacher's file is moved away ...
    os.replace(garbage, path)  # ... and garbage takes its place
    with pytest.raises(Exception) as err:
        running.act(running.state.drawer, {"type": "pick", "pair": 1})
    assert getattr(err.value, "code", None) == "store_replaced" and "Reload the page" in str(err.value)
    os.replace(saved, path)  # the real file is back: a reloaded page (a new kernel) plays on
    assert kernel(path, code, {"type": "pick", "pair": 1, "seat": "drawer"})["phase"] == "clues"
    check_intact(path, code, before + 1)
