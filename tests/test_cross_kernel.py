"""Live updates across kernels: two OS processes (and a real ipykernel) on one SQLite file.

One process acts; the other's ``Table.watch`` loop (``start_watching``) sees the change and tells its
listeners with no polling by the test, the way a voila seat kernel pushes a new view to its widget.
"""

from __future__ import annotations

import importlib
import json
import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from dichotomy_widget import Table

ROOT = Path(__file__).resolve().parent.parent

WATCHER = r"""
import asyncio, json, sys, time
from dichotomy_widget import Table

code, store = sys.argv[1], sys.argv[2]

async def main():
    table = Table.open(code, store)
    def told(t):
        print(json.dumps({"at": time.time(), "seq": t.seq, "phase": t.state.phase,
                          "names": [s.name for s in t.state.seats]}), flush=True)
    table.subscribe(told)
    table.start_watching()
    print(json.dumps({"ready": table.seq}), flush=True)
    loop = asyncio.get_running_loop()
    while True:  # commands from the test on stdin: act here, in this process
        line = await loop.run_in_executor(None, sys.stdin.readline)
        if not line:
            return
        cmd = json.loads(line)
        if cmd["do"] == "join":
            table.join(cmd["name"])
        elif cmd["do"] == "act":
            table.act(cmd["seat"], cmd["action"])
        elif cmd["do"] == "dump":
            table.refresh(notify=False)
            print(json.dumps({"dump": [table.view(None)] + [table.view(s.id) for s in table.state.seats],
                              "seq": table.seq}), flush=True)

asyncio.run(main())
"""


class Watcher:
    """A second OS process that watches (and can act on) one table in the same SQLite file."""

    def __init__(self, code: str, store: str) -> None:
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
        self.proc = subprocess.Popen([sys.executable, "-c", WATCHER, code, store], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, env=env, start_new_session=True)
        self.lines: "queue.Queue[dict]" = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        assert "ready" in self.next(30)

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(json.loads(line))

    def next(self, timeout: float = 30.0) -> dict:
        return self.lines.get(timeout=timeout)

    def wait_for(self, pred, timeout: float = 30.0) -> dict:
        """The first message matching ``pred``; ``queue.Empty`` after ``timeout`` s (generous for CI)."""
        deadline = time.monotonic() + timeout
        while True:
            msg = self.next(max(0.01, deadline - time.monotonic()))
            if pred(msg):
                return msg

    def send(self, **cmd) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(cmd) + "\n")
        self.proc.stdin.flush()

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(10)


@pytest.fixture()
def store(tmp_path) -> str:
    return str(tmp_path / "tables.sqlite3")


def test_the_other_process_sees_each_action_promptly(store):
    table = Table.create(deck="en", rounds=2, seed=11, store=store)
    watcher = Watcher(table.code, store)
    try:
        for name in ("Ada", "Ben", "Cy"):  # each within wait_for's bound; bench/latency.py times it
            table.join(name)
            watcher.wait_for(lambda m, n=name: n in m.get("names", []))
        table.start()
        msg = watcher.wait_for(lambda m: m.get("phase") == "reveal")
        assert msg["seq"] == table.seq
    finally:
        watcher.close()


def test_actions_in_the_other_process_reach_this_one_and_replay_identically(store):
    table = Table.create(deck="en", rounds=2, seed=5, store=store)
    watcher = Watcher(table.code, store)
    seen = []
    table.subscribe(lambda t: seen.append(t.seq))
    try:
        for name in ("Ada", "Ben", "Cy"):
            watcher.send(do="join", name=name)
        watcher.wait_for(lambda m: len(m.get("names", [])) == 3)
        table.start()  # this process acts too: both write to the same event stream
        watcher.wait_for(lambda m: m.get("phase") == "reveal")
        drawer = table.state.drawer
        watcher.send(do="act", seat=drawer, action={"type": "pick", "pair": 3})
        watcher.wait_for(lambda m: m.get("phase") == "clues")
        for _ in range(len(table.state.writers)):
            table.refresh()
            writer = table.state.current_writer
            watcher.send(do="act", seat=writer, action={"type": "clue", "text": f"clue{writer}x"})
            watcher.wait_for(lambda m, s=table.seq: m.get("seq", 0) > s)
        table.refresh()
        assert table.state.phase == "guess"
        watcher.send(do="dump")
        dump = watcher.wait_for(lambda m: "dump" in m)

        opened = Table.open(table.code, store)  # a fresh kernel replays the stored events
        assert opened.state == table.state == table.replayed()
        assert dump["seq"] == opened.seq
        mine = [opened.view(None)] + [opened.view(s.id) for s in opened.state.seats]
        assert json.loads(json.dumps(mine)) == dump["dump"]
    finally:
        watcher.close()


def test_a_real_kernel_pushes_widget_updates_with_no_cell_run(store):
    """A voila seat kernel: the widget's new view goes out on iopub while no cell is running."""
    jupyter_client = importlib.import_module("jupyter_client")
    table = Table.create(deck="en", rounds=2, seed=5, store=store)
    ada = table.join("Ada")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    km = jupyter_client.KernelManager(kernel_name="python3")
    km.start_kernel(env=env)
    kc = km.client()
    kc.start_channels()
    try:
        kc.wait_for_ready(timeout=60)
        code = (f"from dichotomy_widget.pages.entry import seat_page\n"
                f"page = seat_page('table={table.code}&seat={ada.token}', store={store!r})\n"
                f"print(page.state, page.seat)")
        out = []
        reply = kc.execute_interactive(code, timeout=60,
                                       output_hook=lambda m: out.append(m["content"].get("text", "")))
        assert reply["content"]["status"] == "ok", reply["content"]
        assert "".join(out).strip() == f"seat {ada.seat}"
        while True:  # drain
            try:
                kc.get_iopub_msg(timeout=0.5)
            except queue.Empty:
                break
        t0 = time.time()
        table.join("Ben")  # another kernel acts
        deadline = time.time() + 60  # generous for a loaded CI machine; bench/latency.py measures it
        got = None
        while time.time() < deadline and got is None:
            try:
                msg = kc.get_iopub_msg(timeout=1)
            except queue.Empty:
                continue
            data = msg["content"].get("data", {})
            if msg["msg_type"] == "comm_msg" and "Ben" in json.dumps(data.get("state", {})):
                got = time.time() - t0
        assert got is not None, "the watching kernel never pushed the new view within 60 s"
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
