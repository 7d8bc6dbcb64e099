"""Faults with real processes: a full disk, a read-only store, a store file replaced by garbage.

Each "kernel" here is a separate Python process opening the SQLite store on its own, as a voila page's
kernel does. The disk is a real tmpfs of a few hundred KB (mounted for the test: needs root, as CI has);
read-only is that tmpfs remounted read-only. The server and kernel kills (voila, Chromium) are in
``tests/browser/test_faults_browser.py``.
"""

from __future__ import annotations

import asyncio
import json
import os
import queue
import shutil
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from dichotomy_widget import SeatWidget, SqliteStore, Table
from dichotomy_widget.stores import sqlite as sqlite_module
from dichotomy_widget.pages.entry import seat_page
from dichotomy_widget.server.trouble_watch import TroubleWatch

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
        pytest.fail("mounting a small tmpfs needs root (CI runs as root)")
    mount = tmp_path / "disk"
    mount.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=512k", "tmpfs", str(mount)], check=True)
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def fill(disk: Path) -> Path:
    """Fill the disk to the last block with a junk file; its path (unlink it to free the space)."""
    filler = disk / "filler"
    try:
        with open(filler, "wb") as f:
            while True:
                f.write(b"\0" * 4096)
                f.flush()
    except OSError:
        pass
    return filler


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
    filler = fill(small_disk)
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


# --- every watching page hears of a full disk or a read-only store, without acting -----------------

class served:
    """What ``dichotomy serve`` runs beside the kernels: one write-trouble check of the store file every
    0.2 s (:class:`~dichotomy_widget.server.trouble_watch.TroubleWatch`), announcing each change."""

    def __init__(self, path: Path) -> None:
        self.watch = TroubleWatch(SqliteStore(path, watch_files=False))
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.wait(0.2):
            self.watch.check()

    def __enter__(self) -> "served":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(5)
        self.watch.close()


#: Banners must show well before a watching kernel's own safety-net check: only the announcement can
#: make them that fast.
ANNOUNCED_WITHIN = sqlite_module.WATCHED_RECHECK / 3


async def _until(check, what: str, timeout: float = 60.0) -> None:
    """Await ``check()`` being true (the watch loop runs meanwhile); fail with ``what`` after ``timeout``."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not check():
        assert loop.time() < deadline, f"never happened: {what}"
        await asyncio.sleep(0.1)


def test_a_watching_table_sees_a_full_disk_and_its_end_without_acting(small_disk):
    path = small_disk / "tables.sqlite3"
    code = new_table(path)

    async def scenario() -> None:
        store = SqliteStore(path)
        watcher = Table.open(code, store)  # a page that only watches (another kernel did the acting)
        heard: list[str] = []
        watcher.subscribe(lambda t: heard.append(t.store_trouble))
        task = watcher.start_watching()
        try:
            await asyncio.sleep(0.5)
            assert watcher.store_trouble == "" and heard == []
            events = len(watcher.events)
            filler = fill(small_disk)
            await _until(lambda: watcher.store_trouble, "the full disk shown", ANNOUNCED_WITHIN)
            assert "full" in watcher.store_trouble and "Free some space" in watcher.store_trouble
            assert heard[-1] == watcher.store_trouble  # the listeners were told
            assert len(watcher.events) == events  # it only watched: nothing was written
            filler.unlink()
            await _until(lambda: not watcher.store_trouble, "the trouble cleared", ANNOUNCED_WITHIN)
            assert heard[-1] == ""
        finally:
            task.cancel()
            store.close()

    with served(small_disk / "tables.sqlite3"):
        asyncio.run(scenario())
    assert kernel(path, code, {"type": "pick", "pair": 1, "seat": "drawer"})["phase"] == "clues"


def test_a_write_that_fails_on_a_full_disk_wakes_the_other_waiting_pages(small_disk):
    """No server checks here (notebook play): the failed write itself wakes the other watching kernels
    (its file notice, and its announcement), so a page that only waits shows the trouble long before
    its own safety-net check."""
    path = small_disk / "tables.sqlite3"
    code = new_table(path)

    async def scenario() -> None:
        store = SqliteStore(path)
        watcher = Table.open(code, store)
        task = watcher.start_watching()
        try:
            await asyncio.sleep(0.5)
            filler = fill(small_disk)
            assert watcher.store_trouble == ""
            answer = await asyncio.to_thread(kernel, path, code, {"type": "pick", "pair": 1, "seat": "drawer"})
            assert answer["ok"] is False and answer["code"] == "store_full"
            await _until(lambda: watcher.store_trouble, "the full disk shown", ANNOUNCED_WITHIN)
            assert "full" in watcher.store_trouble
            filler.unlink()
        finally:
            task.cancel()
            store.close()

    asyncio.run(scenario())
    assert kernel(path, code, {"type": "pick", "pair": 1, "seat": "drawer"})["phase"] == "clues"


WATCHER = textwrap.dedent('''
    import asyncio, json, sys
    from dichotomy_widget import SqliteStore, Table
    path, code = sys.argv[1], sys.argv[2]

    async def main():
        table = Table.open(code, SqliteStore(path))
        table.subscribe(lambda t: print(json.dumps(t.store_trouble), flush=True))
        table.start_watching()
        print(json.dumps("watching"), flush=True)
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)  # until stdin closes

    asyncio.run(main())
''')


def _without_dac_override() -> None:
    """In the child before exec: root without CAP_DAC_OVERRIDE, so a file's mode binds it as it
    binds a teacher (prctl PR_CAPBSET_DROP; the exec then drops the capability)."""
    import ctypes

    if ctypes.CDLL(None, use_errno=True).prctl(24, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP, CAP_DAC_OVERRIDE)")


def test_a_watching_kernel_sees_its_store_file_made_read_only_and_writable_again(tmp_path):
    # A mounted file system cannot be remounted read-only while a kernel has the file open for
    # writing (EBUSY), so here the file itself is made read-only, as its owner would (chmod a-w).
    path = tmp_path / "tables.sqlite3"
    code = new_table(path)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.Popen([sys.executable, "-c", WATCHER, str(path), code], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            preexec_fn=_without_dac_override if os.geteuid() == 0 else None)
    lines: "queue.Queue[str]" = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in proc.stdout], daemon=True).start()

    def next_line() -> str:
        try:
            return json.loads(lines.get(timeout=60))
        except queue.Empty:
            proc.kill()
            raise AssertionError(f"the watching kernel said nothing: {proc.stderr.read()}") from None

    try:
        assert next_line() == "watching"
        os.chmod(path, 0o444)
        shown = next_line()
        assert "read-only" in shown and str(path) in shown and "Make it writable again" in shown
        os.chmod(path, 0o644)
        assert next_line() == ""  # cleared, and the page never acted
    finally:
        os.chmod(path, 0o644)
        proc.stdin.close()
        proc.wait(timeout=60)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr.read()
    assert kernel(path, code, {"type": "pick", "pair": 1, "seat": "drawer"})["phase"] == "clues"


def test_every_seat_widget_syncs_the_store_trouble_and_no_hidden_word(small_disk):
    path = small_disk / "tables.sqlite3"
    code = new_table(path)

    async def scenario() -> None:
        store = SqliteStore(path)
        table = Table.open(code, store)
        widgets = [SeatWidget(table, seat) for seat in range(3)]  # starts the watch (a loop is running)
        try:
            await asyncio.sleep(0.5)
            assert all(w.store_trouble == "" for w in widgets)
            filler = fill(small_disk)
            await _until(lambda: all(w.store_trouble for w in widgets), "every seat's banner", ANNOUNCED_WITHIN)
            assert all("full" in w.store_trouble for w in widgets)
            expected = (f"The disk holding the table store {path} is full, so nothing was saved. "
                        "Free some space on it, then try again.")  # the acting page's words, no more
            for w in widgets:  # the synced state carries the notice
                assert w.get_state()["store_trouble"] == expected
            filler.unlink()
            await _until(lambda: all(w.store_trouble == "" for w in widgets), "every banner removed", ANNOUNCED_WITHIN)
        finally:
            for w in widgets:
                w.close()
            table._watch_task.cancel()
            store.close()

    with served(small_disk / "tables.sqlite3"):
        asyncio.run(scenario())


def test_the_class_pages_show_the_store_trouble_too(small_disk):
    from dichotomy_widget import Classroom
    from dichotomy_widget.pages.student_page import class_page
    from dichotomy_widget.pages.class_projector_page import class_view_page
    from dichotomy_widget.pages.report_page import report_page

    path = small_disk / "tables.sqlite3"
    setup = SqliteStore(path)
    room = Classroom.create("Class 4B", deck="en", rounds=2, table_size=4, store=setup)
    code = room.code
    ticket = room.join("Ana")
    setup.close()

    async def scenario() -> None:
        store = SqliteStore(path)
        view = class_view_page(f"class={code}", store=store)  # the class projector
        lobby = class_page(f"class={code}&student={ticket.token}", store=store)  # a waiting student
        report = report_page(f"class={code}", store=store)
        banners = [view.trouble, lobby.trouble, report.trouble]
        try:
            await asyncio.sleep(0.5)
            assert lobby.state == "lobby" and all(b.value == "" for b in banners)
            filler = fill(small_disk)
            await _until(lambda: all("is full" in b.value for b in banners), "every class page's banner", ANNOUNCED_WITHIN)
            assert all('role="alert"' in b.value and str(path) in b.value for b in banners)
            filler.unlink()
            await _until(lambda: all(b.value == "" for b in banners), "every banner removed", ANNOUNCED_WITHIN)
        finally:
            for page in (view, lobby, report):
                page.room.stop_watching()
            store.close()

    with served(small_disk / "tables.sqlite3"):
        asyncio.run(scenario())


def test_garbage_written_over_the_store_under_a_running_server_is_noticed_by_new_pages(tmp_path):
    """The running server's kernels keep the -wal and -shm files; a page opened after the file was
    overwritten in place must not read the write-ahead log and play on."""
    from dichotomy_widget.class_mode.classroom import Classroom
    from dichotomy_widget.pages.student_page import class_page

    path = tmp_path / "tables.sqlite3"
    store = SqliteStore(path)  # a running kernel: its connection keeps the WAL alive
    table = Table.create(deck="en", seed=4, rounds=2, store=store)
    table.join("Ana")
    room = Classroom.create("Garbage", deck="en", rounds=1, store=store)
    assert seat_page(f"table={table.code}", store=str(path)).state == "form"  # the page's store is cached now
    assert Path(f"{path}-wal").exists()
    with open(path, "r+b") as handle:  # overwritten in place: same file, garbage inside
        handle.write(os.urandom(path.stat().st_size))
    page = seat_page(f"table={table.code}", store=str(path))
    assert page.state == "refused" and "not a dichotomy table store" in page.message
    student = class_page(f"class={room.code}", store=str(path))
    assert student.state == "refused" and "not a dichotomy table store" in student.message
    store.close()
