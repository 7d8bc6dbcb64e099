"""Live-update latency and idle cost across kernels, on SQLite and on PostgreSQL.

Measures, on this machine:

1. ``process``: one process acts (``Table.act``); another OS process, following the same store
   with ``Table.start_watching()``, refreshes and builds every seat's view. Time from the call to the
   other process's listener having the new views.
2. ``kernel``: the same, but the other side is a real ipykernel running the seat page
   (``seat_page(...)``, a ``SeatWidget``); time until the widget's new state arrives on iopub (what
   voila forwards to the browser). On PostgreSQL also *relayed*, as ``dichotomy serve`` runs its
   kernels (the server LISTENs and appends each change to a file the kernels watch; a kernel's
   connection lingers after use), once with short pauses and once with ``--idle-gap`` s between moves.
   The kernel's steps are time-stamped (functions wrapped from the outside, in the kernel) and printed
   as a breakdown: ``commit`` (the act: decide + append, in the acting process), ``wake`` (until the
   seat kernel's ``wait_for_change`` returns; ``notice`` is when inotify told the kernel's watch
   thread), ``trouble`` (the write-trouble check on every wake), ``read`` (``store.load``), ``fold``,
   ``view`` (``Table.view`` of the seat), ``sync`` (the traits set, until the widget's ``_send``),
   ``serialise + send`` (``_send``) and ``deliver`` (iopub to this client).
3. ``browser`` (``--browser``, needs voila + Chromium): ``dichotomy serve`` with three seat pages;
   time from a click (or Enter) on one page to the first DOM change on another page.
4. Memory (RSS) of an idle seat kernel next to a bare voila kernel, and the CPU both burn while idle.

    python bench/latency.py [--samples 120] [--stores sqlite,postgres] [--browser] [--browser-samples 40]
                            [--idle 10] [--skip-kernels] [--idle-gap 8] [--smoke]
    python bench/latency.py --against DIR [--rounds 4] ...   # before/after: DIR is a checkout of the base,
                                                             # e.g. git worktree add DIR <commit>

PostgreSQL is a throwaway server (tests/pg_server.py; durable defaults, ``--fast``: no WAL flush), or the
one ``$DICHOTOMY_TEST_DSN`` names (e.g. a test's). Actions are spaced 20-120 ms apart (random).
``--smoke`` (CI): 6 samples per path and store (one after a 2 s pause), 1 s of idle measurement.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Iterator

REPO = Path(__file__).resolve().parents[1]
#: An existing PostgreSQL (a DSN) to measure on instead of starting a throwaway server (a test's own).
PG_DSN_ENV = "DICHOTOMY_TEST_DSN"


def _tree(argv: list[str]) -> Path:
    """The checkout whose ``dichotomy_widget`` is measured: ``--tree DIR`` (used by ``--against``), else
    this one. Read before the package is imported."""
    for i, arg in enumerate(argv):
        if arg == "--tree" and i + 1 < len(argv):
            return Path(argv[i + 1]).resolve()
        if arg.startswith("--tree="):
            return Path(arg.split("=", 1)[1]).resolve()
    return REPO


TREE = _tree(sys.argv[1:])
sys.path.insert(0, str(TREE))
sys.path.insert(1, str(REPO / "tests"))

from dichotomy_widget import Table  # noqa: E402
from dichotomy_widget.pages.entry import packaged_pages  # noqa: E402
from support import child_pids  # noqa: E402  (tests/support.py)

ENV = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (str(TREE), os.environ.get("PYTHONPATH", "")) if p))


# --------------------------------------------------------------------------------------------------
# A bot that keeps a table busy: one action at a time, games after games


class Bot:
    """Plays the table: pick pair 1, distinct one-word clues, pass, everyone continues; new game at the end."""

    def __init__(self, store: str, seats: int = 3, rounds: int = 13) -> None:
        self.store, self.seats, self.rounds = store, seats, rounds
        self.clue = 0
        self.table = self._new_table()

    def _new_table(self) -> Table:
        table = Table.create(deck="en", rounds=self.rounds, store=self.store, seed=random.randrange(1 << 30))
        for i in range(self.seats):
            table.join(f"P{i}")
        table.start()
        return table

    def next_action(self) -> tuple[int | None, dict]:
        s = self.table.state
        if s.phase == "recap":
            seat = next((x for x in s.order if x not in s.confirmed), None)
            if seat is not None:
                return seat, {"type": "continue"}
        if s.drawer_can_pick:
            return s.drawer, {"type": "pick", "pair": 1}
        if s.phase == "clues":
            self.clue += 1
            return s.current_writer, {"type": "clue", "text": f"zq{self.clue}x"}
        if s.phase == "guess":
            return s.guesser, {"type": "pass"}
        raise RuntimeError(f"bot stuck in phase {s.phase}")

    def step(self) -> None:
        self.table.refresh(notify=False)
        if self.table.state.phase == "over":
            self.table = self._new_table()
        seat, action = self.next_action()
        self.table.act(seat, action)


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))]


# --------------------------------------------------------------------------------------------------
# 1. two OS processes

WATCHER = r"""
import asyncio, json, sys, time
from dichotomy_widget import Table
store = sys.argv[1]
async def main():
    tables = {}
    def told(t):
        [t.view(s.id) for s in t.state.seats]; t.view(None)
        print(json.dumps({"code": t.code, "seq": t.seq, "at": time.time()}), flush=True)
    loop = asyncio.get_running_loop()
    while True:
        line = await loop.run_in_executor(None, sys.stdin.readline)
        if not line:
            return
        code = line.strip()
        if code not in tables:
            t = Table.open(code, store)
            t.subscribe(told)
            t.start_watching()
            tables[code] = t
            print(json.dumps({"code": code, "ready": True, "package": __import__("dichotomy_widget").__file__}), flush=True)
asyncio.run(main())
"""


def process_latency(store: str, samples: int) -> list[float]:
    proc = subprocess.Popen([sys.executable, "-c", WATCHER, store], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True, env=ENV, cwd=TREE)  # cwd: `python -c` imports from it first
    lines: "queue.Queue[dict]" = queue.Queue()
    threading.Thread(target=lambda: [lines.put(json.loads(x)) for x in proc.stdout], daemon=True).start()
    bot = Bot(store)
    watched = set()
    out = []
    try:
        while len(out) < samples:
            bot.table.refresh(notify=False)
            if bot.table.state.phase == "over":
                bot.table = bot._new_table()
            if bot.table.code not in watched:
                proc.stdin.write(bot.table.code + "\n")
                proc.stdin.flush()
                while "ready" not in (ready := lines.get(timeout=30)):
                    pass
                assert ready["package"].startswith(str(TREE)), (ready["package"], TREE)  # the tree measured
                watched.add(bot.table.code)
                time.sleep(0.2)
                while not lines.empty():
                    lines.get()
            time.sleep(random.uniform(0.02, 0.12))
            t0 = time.time()
            bot.step()
            want = (bot.table.code, bot.table.seq)
            while True:
                msg = lines.get(timeout=10)
                if (msg.get("code"), msg.get("seq")) == want:
                    out.append(msg["at"] - t0)
                    break
    finally:
        proc.kill()
        proc.wait()
    return out


# --------------------------------------------------------------------------------------------------
# 2. a real ipykernel running the seat page


#: Run in the seat kernel after each new page: wraps the table's, store's and widget's steps (per
#: instance) so each appends ``(step, time.time())`` to ``_stamps``. Nothing changes in the package.
INSTRUMENT = r"""
import time as _time
_stamps = globals().setdefault("_stamps", [])
def _wrap(obj, name, step, when=lambda result: True):
    inner = getattr(obj, name)
    def wrapped(*args, **kwargs):
        result = inner(*args, **kwargs)
        if when(result):
            _stamps.append((step, _time.time()))
        return result
    setattr(obj, name, wrapped)
def _wrap_entry(obj, name, step):
    inner = getattr(obj, name)
    def wrapped(*args, **kwargs):
        _stamps.append((step, _time.time()))
        return inner(*args, **kwargs)
    setattr(obj, name, wrapped)
def _wrap_async(obj, name, step):
    inner = getattr(obj, name)
    async def wrapped(*args, **kwargs):
        result = await inner(*args, **kwargs)
        _stamps.append((step, _time.time()))
        return result
    setattr(obj, name, wrapped)
_t, _w = page.table, page.widget
_watch = getattr(_t.store, "_watch", None)
if _watch is not None and hasattr(_watch, "on_change"):
    _wrap(_watch, "on_change", "notice")
_relay = getattr(_t.store, "_relay", None)  # PostgreSQL relayed by the server: the change file's watch
if _relay is not None and hasattr(_relay, "watch"):
    _wrap(_relay.watch, "on_change", "notice")
_wrap_async(_t.store, "wait_for_change", "wake")
_wrap(_t, "check_store", "trouble")
_wrap(_t.store, "load", "read", when=bool)
_wrap(_t, "fold", "fold")
_wrap(_t, "view", "view")
_wrap(_w, "_send", "sent")
_wrap_entry(_w, "_send", "sync")
"""

#: The breakdown's steps in the order they happen, each measured from the step before it.
STEPS = ("commit", "wake", "trouble", "read", "fold", "view", "sync", "sent", "deliver")
STEP_NAMES = {"commit": "commit (act: decide + append)", "wake": "wake (wait_for_change returns)",
              "trouble": "write-trouble check", "read": "read (store.load)", "fold": "fold",
              "view": "view (Table.view)", "sync": "sync (traits set, state taken)",
              "sent": "serialise + send (comm._send)", "deliver": "deliver (iopub to client)"}
#: Stamps this long after the update arrived still count (``_send`` may return after the client
#: already has the message: its stamp is then clamped to the arrival).
LATE = 0.05


def breakdown(windows: list[tuple[float, float, float]], stamps: list[tuple[str, float]]) -> dict[str, list[float]]:
    """Per step, its duration in each sample: ``windows`` are (act called, act returned, update
    received); a step's time is from the previous step to the first stamp of it after that step in
    that window (what happened before the act returned counts 0, a stamp after the arrival counts as
    the arrival)."""
    out: dict[str, list[float]] = {step: [] for step in (*STEPS, "notice")}
    stamps = sorted(stamps, key=lambda item: item[1])
    for t0, committed, received in windows:
        inside = [(step, at) for step, at in stamps if t0 <= at <= received + LATE]
        out["commit"].append(committed - t0)
        last = committed
        notice = next((at for step, at in inside if step == "notice" and at >= t0), None)
        if notice is not None:
            out["notice"].append(min(notice, received) - committed)
        since = t0  # the other kernel may wake before the act has returned (PostgreSQL: NOTIFY at commit)
        for step in STEPS[1:-1]:
            at = next((at for name, at in inside if name == step and at >= since), None)
            if at is None:
                break
            at = min(at, received)
            out[step].append(max(0.0, at - last))  # what happened before the act returned counts 0
            since, last = at, max(at, last)
        else:
            out["deliver"].append(received - last)
    return out


def kernel_latency(store: str, samples: int, env: dict[str, str] | None = None,
                   gap: tuple[float, float] = (0.02, 0.12)) -> tuple[list[float], dict[str, list[float]]]:
    """``samples`` times: an action in this process, then the seat kernel's update on iopub (total
    seconds and the breakdown). ``env``: the kernel's environment (default :data:`ENV`); ``gap``: the
    range of the random pause before each action (after the previous update has been drained)."""
    import jupyter_client

    bot = Bot(store, rounds=13)
    km = jupyter_client.KernelManager(kernel_name="python3")
    km.start_kernel(env=env or ENV, cwd=str(TREE))  # the kernel imports from its cwd first
    kc = km.client()
    kc.start_channels()
    out: list[float] = []
    try:
        kc.wait_for_ready(timeout=60)
        code_seat: dict = {}

        def open_seat() -> None:
            # a fresh table whose seat 0 the kernel shows (tables are started, so join before start)
            t = Table.create(deck="en", rounds=13, store=store, seed=random.randrange(1 << 30))
            ticket = t.join("P0")
            for i in (1, 2):
                t.join(f"P{i}")
            t.start()
            bot.table = t
            code_seat["q"] = f"table={t.code}&seat={ticket.token}"
            reply = kc.execute_interactive(
                f"import dichotomy_widget\nassert dichotomy_widget.__file__.startswith({str(TREE)!r})\n"
                "from dichotomy_widget.pages.entry import seat_page\n"
                f"page = seat_page({code_seat['q']!r}, store={store!r})\nassert page.state == 'seat'",
                timeout=60, output_hook=lambda m: None)
            assert reply["content"]["status"] == "ok", reply["content"]
            reply = kc.execute_interactive(INSTRUMENT, timeout=60, output_hook=lambda m: None)
            assert reply["content"]["status"] == "ok", reply["content"]
            drain()

        def drain() -> None:
            while True:
                try:
                    kc.get_iopub_msg(timeout=0.3)
                except queue.Empty:
                    return

        open_seat()
        windows: list[tuple[float, float, float]] = []
        warm = 2  # the first wakes after a new page ran through wait_for_change calls begun unwrapped
        while len(out) < samples:
            bot.table.refresh(notify=False)
            if bot.table.state.phase == "over":
                open_seat()
                warm = 2
            time.sleep(random.uniform(*gap))
            t0 = time.time()
            bot.step()
            committed = time.time()
            deadline = time.time() + 10
            while time.time() < deadline:
                try:
                    msg = kc.get_iopub_msg(timeout=1)
                except queue.Empty:
                    continue
                if msg["msg_type"] == "comm_msg" and msg["content"].get("data", {}).get("method") == "update" \
                        and "view" in msg["content"]["data"].get("state", {}):
                    received = time.time()
                    if warm:
                        warm -= 1
                    else:
                        out.append(received - t0)
                        windows.append((t0, committed, received))
                    break
            drain()
        printed: list[str] = []
        reply = kc.execute_interactive("import json; print(json.dumps(_stamps))", timeout=60,
                                       output_hook=lambda m: printed.append(m["content"].get("text", ""))
                                       if m["msg_type"] == "stream" else None)
        assert reply["content"]["status"] == "ok", reply["content"]
        stamps = [tuple(item) for item in json.loads("".join(printed))]
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
    return out, breakdown(windows, stamps)


def stop_group(proc: subprocess.Popen, wait: float) -> None:
    """SIGTERM the server's process group; SIGKILL it if it has not ended after ``wait`` s."""
    os.killpg(proc.pid, 15)
    try:
        proc.wait(wait)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, 9)


def wait_for_voila(port: int, tries: int) -> None:
    """Poll the voila server on ``port`` until it answers (``tries`` x 0.2 s at most)."""
    for _ in range(tries):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/voila/tree", timeout=2)
            return
        except OSError:
            time.sleep(0.2)


# --------------------------------------------------------------------------------------------------
# 3. memory and idle CPU of voila kernels


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def voila_kernels(store: str, idle: float) -> dict[str, dict[str, float]]:
    work = Path(tempfile.mkdtemp(prefix="dichotomy-bench-"))
    shutil.copy(packaged_pages() / "seat.ipynb", work / "seat.ipynb")
    bare = json.loads((work / "seat.ipynb").read_text())
    bare["cells"][0]["source"] = ["1"]
    (work / "bare.ipynb").write_text(json.dumps(bare))
    port = _free_port()
    env = dict(ENV, DICHOTOMY_STORE=store)
    proc = subprocess.Popen([sys.executable, "-m", "voila", str(work), "--no-browser", f"--port={port}",
                             "--Voila.ip=127.0.0.1", "--show_tracebacks=False"], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    table = Table.create(deck="en", rounds=13, store=store)
    ticket = table.join("Ada")
    table.join("Ben")
    table.join("Cy")
    table.start()
    results = {}
    try:
        base = f"http://127.0.0.1:{port}/voila/render/"
        wait_for_voila(port, tries=200)
        for name, url in (("bare voila kernel", base + "bare.ipynb"),
                          ("seat kernel (watching)", base + f"seat.ipynb?table={table.code}&seat={ticket.token}")):
            before = child_pids(proc.pid)
            body = urllib.request.urlopen(url, timeout=120).read().decode()
            assert "Traceback" not in body
            new = child_pids(proc.pid) - before
            kernel = max(new)
            time.sleep(3)  # let imports settle
            cpu0, t0 = _cpu_seconds(kernel), time.monotonic()
            time.sleep(idle)
            cpu = (_cpu_seconds(kernel) - cpu0) / (time.monotonic() - t0) * 100
            results[name] = {"rss": _rss_mb(kernel), "cpu": cpu}
    finally:
        stop_group(proc, wait=15)
        shutil.rmtree(work, ignore_errors=True)
    return results


# --------------------------------------------------------------------------------------------------
# 4. a real browser against dichotomy serve

OBSERVE = """(root) => {
  window.__changedAt = null;
  if (window.__obs) window.__obs.disconnect();
  window.__obs = new MutationObserver(() => { if (window.__changedAt === null) window.__changedAt = Date.now(); });
  window.__obs.observe(document.querySelector('.dw-root'), {subtree: true, childList: true, attributes: true, characterData: true});
}"""


def browser_latency(store: str, samples: int) -> list[float]:
    from playwright.sync_api import sync_playwright

    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "dichotomy_widget.server.serve", "serve", "--store", store,
                             "--port", str(port), "--ip", "127.0.0.1"], env=ENV, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    out: list[float] = []
    try:
        wait_for_voila(port, tries=300)
        table = Table.create(deck="en", rounds=13, store=store)
        tickets = [table.join(n) for n in ("Ada", "Ben", "Cy")]
        table.start()
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=[
                "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-background-networking", "--no-first-run"])
            ctx = browser.new_context()
            pages = {}
            for t in tickets:
                p = ctx.new_page()
                p.goto(f"http://127.0.0.1:{port}/voila/render/seat.ipynb?table={table.code}&seat={t.token}")
                p.locator("html[data-dichotomy-ready]").wait_for(state="attached", timeout=120_000)
                p.locator(".dw-root[data-phase]").wait_for(timeout=60_000)
                pages[t.seat] = p
            clue = 0
            while len(out) < samples:
                table.refresh(notify=False)
                s = table.state
                if s.phase == "over":
                    break
                if s.phase == "recap" and any(x not in s.confirmed for x in s.order):
                    seat = next(x for x in s.order if x not in s.confirmed)
                    sel, prep = "button[data-action=continue]", None
                elif s.drawer_can_pick:
                    seat, sel, prep = s.drawer, ".dw-pair[data-pair='1']", None
                elif s.phase == "clues":
                    seat, sel = s.current_writer, "[data-testid=clue-input]"
                    clue += 1
                    prep = f"zq{clue}x"
                elif s.phase == "guess":
                    seat, sel, prep = s.guesser, "button[data-action=pass]", None
                else:
                    raise RuntimeError(s.phase)
                actor = pages[seat]
                observer = pages[next(x for x in s.order if x != seat)]
                target = actor.locator(sel).first
                target.wait_for(timeout=30_000)
                if prep is not None:
                    target.fill(prep)
                time.sleep(random.uniform(0.05, 0.15))
                observer.evaluate(OBSERVE)
                if prep is not None:
                    t0 = target.evaluate("(el) => { const t = Date.now(); el.form.requestSubmit(); return t; }")
                else:
                    t0 = target.evaluate("(el) => { const t = Date.now(); el.click(); return t; }")
                observer.wait_for_function("() => window.__changedAt !== null", timeout=30_000)
                out.append((observer.evaluate("() => window.__changedAt") - t0) / 1000)
                seq = table.seq
                for _ in range(200):  # let every page settle before the next action
                    table.refresh(notify=False)
                    if table.seq > seq:
                        break
                    time.sleep(0.05)
                time.sleep(0.3)
            browser.close()
    finally:
        stop_group(proc, wait=20)
    return out


# --------------------------------------------------------------------------------------------------


def row(name: str, values: list[float]) -> str:
    ms = [v * 1000 for v in values]
    return (f"| {name:<40} | {len(ms):>4} | {statistics.median(ms):>7.1f} | {pct(ms, 95):>7.1f} | "
            f"{max(ms):>7.1f} |")


def ms_row(name: str, values: list[float]) -> str:
    if not values:
        return f"| {name:<40} | {0:>4} | {'-':>7} | {'-':>7} | {'-':>7} |"
    return row(name, values)


def print_breakdown(parts: dict[str, list[float]]) -> None:
    print("| step (from the step before)              |    n |     p50 |     p95 |     max |")
    print("|------------------------------------------|------|---------|---------|---------|")
    for step in STEPS:
        print(ms_row(STEP_NAMES[step], parts[step]))
    if parts["notice"]:
        print(ms_row("  (of wake: inotify notice after commit)", parts["notice"]))


def measure_store(label: str, store: str, args: argparse.Namespace,
                  parts_out: dict[str, dict[str, list[float]]] | None = None) -> list[tuple[str, list[float]]]:
    """The process and kernel paths on one store; prints the kernel path's breakdown (and keeps it in
    ``parts_out[label]``)."""
    lat = [(f"{label}: process -> process (watch + views)", process_latency(store, args.samples))]
    totals, parts = kernel_latency(store, args.samples)
    lat.append((f"{label}: table.act -> seat kernel iopub", totals))
    print(f"\nWhere the time goes, {label}: table.act -> seat kernel iopub update, milliseconds")
    print_breakdown(parts)
    if parts_out is not None:
        parts_out[label] = parts
    return lat


def relayed(label: str, dsn: str, args: argparse.Namespace,
            parts_out: dict[str, dict[str, list[float]]]) -> list[tuple[str, list[float]]]:
    """The kernel path on PostgreSQL as ``dichotomy serve`` runs it: the server's one LISTEN relays
    changes through a file the kernel watches, and the kernel's connection lingers
    :data:`~dichotomy_widget.stores.postgres.LINGER` s after its last use. Measured with the usual short
    pauses and with ``--idle-gap`` s between actions (fewer samples): a pause between moves."""
    from dichotomy_widget.stores.pg_relay import start_server_relay

    relay_env, stop = start_server_relay(dsn, pool=4)
    lat = []
    try:
        env = dict(ENV, **relay_env)
        runs = [(f"{label} relayed", args.samples, (0.02, 0.12))]
        if args.idle_gap > 0:
            gap = args.idle_gap
            runs.append((f"{label} relayed, {gap:g} s apart", args.gap_samples, (gap, gap + 0.1)))
        for name, samples, gap_range in runs:
            totals, parts = kernel_latency(dsn, samples, env=env, gap=gap_range)
            lat.append((f"{name}: table.act -> seat kernel iopub", totals))
            print(f"\nWhere the time goes, {name}: table.act -> seat kernel iopub update, milliseconds")
            print_breakdown(parts)
            parts_out[name] = parts
    finally:
        stop()
    return lat


@contextmanager
def postgres(fast: bool) -> Iterator[tuple[str, str]]:
    """(label, DSN) of the PostgreSQL to measure on: ``$DICHOTOMY_TEST_DSN`` if set (a server someone
    else runs, e.g. a test's), else a throwaway server (tests/pg_server.py) for the ``with`` block."""
    dsn = os.environ.get(PG_DSN_ENV)
    if dsn:
        yield "PostgreSQL", dsn
        return
    from pg_server import FAST_SETTINGS, PostgresServer, PostgresUnavailable  # tests/pg_server.py

    try:
        server = PostgresServer(settings=FAST_SETTINGS if fast else {}).start()
    except PostgresUnavailable as exc:
        raise SystemExit(f"latency.py: PostgreSQL: {exc} (or set ${PG_DSN_ENV}, or pass --stores sqlite)")
    try:
        yield ("PostgreSQL (fast)" if fast else "PostgreSQL"), server.create_database("bench")
    finally:
        server.stop()


def load_average() -> float:
    return os.getloadavg()[0]


def measure(args: argparse.Namespace, stores: list[str]) -> dict:
    """Every path asked for; prints the tables and returns the raw figures (seconds)."""
    tmp = Path(tempfile.mkdtemp(prefix="dichotomy-latency-"))
    store = str(tmp / "tables.sqlite3")
    lat: list[tuple[str, list[float]]] = []
    parts: dict[str, dict[str, list[float]]] = {}
    loads = [load_average()]
    try:
        if "sqlite" in stores:
            lat += measure_store("SQLite", store, args, parts)
        if "postgres" in stores:
            with postgres(args.fast) as (label, dsn):
                lat += measure_store(label, dsn, args, parts)
                lat += relayed(label, dsn, args, parts)
        if args.browser:
            lat.append(("SQLite: click -> DOM change, other page", browser_latency(store, args.browser_samples)))
        loads.append(load_average())
        print(f"\nLive-update latency ({os.cpu_count()} CPUs, load average {loads[0]:.1f} -> {loads[1]:.1f}), "
              "milliseconds")
        print("| path                                     |    n |     p50 |     p95 |     max |")
        print("|------------------------------------------|------|---------|---------|---------|")
        for name, values in lat:
            print(ms_row(name, values))
        if not args.skip_kernels:
            kern = voila_kernels(store, args.idle)
            print(f"\nIdle voila kernels (RSS after start; CPU averaged over {args.idle:.0f} s idle)")
            print("| kernel                       |  RSS MB | idle CPU % |")
            print("|------------------------------|---------|------------|")
            for name, r in kern.items():
                print(f"| {name:<28} | {r['rss']:>7.1f} | {r['cpu']:>10.2f} |")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return {"totals": dict(lat), "parts": parts, "loads": loads}


# --------------------------------------------------------------------------------------------------
# 5. before / after in one run


def against(args: argparse.Namespace, stores: list[str]) -> None:
    """Alternate runs of this bench on ``args.against`` (another checkout, e.g. a git worktree of the
    base commit) and on this tree, ``args.rounds`` each, on one shared PostgreSQL; print both side by
    side."""
    base = Path(args.against).resolve()
    per_run = max(2, args.samples // args.rounds)
    results: dict[str, list[dict]] = {"base": [], "this": []}
    with tempfile.TemporaryDirectory(prefix="dichotomy-latency-ab-") as tmp, \
            (postgres(args.fast) if "postgres" in stores else nullcontext(("", ""))) as (_label, dsn):
        env = dict(os.environ, **({PG_DSN_ENV: dsn} if dsn else {}))
        for n in range(args.rounds):
            for side, tree in (("base", base), ("this", TREE)) if n % 2 == 0 else (("this", TREE), ("base", base)):
                out = Path(tmp) / f"{side}-{n}.json"
                cmd = [sys.executable, str(Path(__file__).resolve()), "--tree", str(tree), "--stores", ",".join(stores),
                       "--samples", str(per_run), "--skip-kernels", "--json", str(out), "--idle-gap", str(args.idle_gap),
                       "--gap-samples", str(max(1, args.gap_samples // args.rounds))]
                print(f"round {n + 1}/{args.rounds}: {side} ({tree}), load average {load_average():.1f}", flush=True)
                subprocess.run(cmd, env=env, cwd=tree, check=True, stdout=subprocess.DEVNULL)
                results[side].append(json.loads(out.read_text()))

    def merged(side: str, key: str) -> dict[str, list[float]]:
        out: dict[str, list[float]] = {}
        for run in results[side]:
            for name, values in run[key].items():
                if key == "parts":
                    for step, v in values.items():
                        out.setdefault(f"{name}|{step}", []).extend(v)
                else:
                    out.setdefault(name, []).extend(values)
        return out

    loads = [x for side in results.values() for run in side for x in run["loads"]]
    print(f"\nBefore ({base}) / after ({TREE}), {args.rounds} alternating runs of {per_run} samples each, "
          f"load average {min(loads):.1f}-{max(loads):.1f}; milliseconds, p50 / p95")
    for side in ("base", "this"):
        print(f"  load average at start/end of each {'before' if side == 'base' else 'after'} run: "
              + ", ".join(f"{a:.1f}/{b:.1f}" for a, b in (run["loads"] for run in results[side])))
    print("| path or step                                        | before p50 |  p95 | after p50 |  p95 |")
    print("|-----------------------------------------------------|-----------:|-----:|----------:|-----:|")

    def two(values: list[float]) -> str:
        if not values:
            return f"{'-':>10} | {'-':>4}"
        ms = [x * 1000 for x in values]
        return f"{statistics.median(ms):>10.1f} | {pct(ms, 95):>4.1f}"

    def line(name: str, before: list[float], after: list[float]) -> None:
        print(f"| {name:<51} | {two(before)} | {two(after)[1:]} |")

    tb, ta = merged("base", "totals"), merged("this", "totals")
    for name in sorted(tb.keys() | ta.keys(), key=lambda n: ("kernel" not in n, n)):
        line(name, tb.get(name, []), ta.get(name, []))
    pb, pa = merged("base", "parts"), merged("this", "parts")
    for key in sorted(pb.keys() | pa.keys(), key=lambda k: (k.split("|")[0], (*STEPS, "notice").index(k.split("|")[1]))):
        label, step = key.split("|")
        line(f"  {label}: {STEP_NAMES.get(step, '(inotify notice - act returned)')}", pb.get(key, []), pa.get(key, []))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--samples", type=int, default=120)
    ap.add_argument("--stores", default="sqlite,postgres", help="comma-separated: sqlite, postgres")
    ap.add_argument("--browser", action="store_true", help="also measure click -> DOM change in Chromium")
    ap.add_argument("--browser-samples", type=int, default=40)
    ap.add_argument("--idle", type=float, default=10.0, help="seconds to measure idle CPU")
    ap.add_argument("--skip-kernels", action="store_true", help="skip the voila memory / idle CPU part")
    ap.add_argument("--smoke", action="store_true", help="a few samples per path (CI: checks that it runs)")
    ap.add_argument("--fast", action="store_true", help="PostgreSQL with fsync and synchronous_commit off "
                    "(the commit step without the WAL flush; default: durable)")
    ap.add_argument("--idle-gap", type=float, default=8.0, help="PostgreSQL relayed: also measure actions this "
                    "many seconds apart (a pause between moves; longer than the kernel's connection lingered "
                    "before, 5 s); 0: skip")
    ap.add_argument("--gap-samples", type=int, default=12, help="samples of the --idle-gap measurement")
    ap.add_argument("--against", metavar="DIR", help="also measure the checkout DIR (e.g. `git worktree add "
                    "DIR <base commit>`): alternating runs of both, printed side by side (no browser, no idle part)")
    ap.add_argument("--rounds", type=int, default=4, help="with --against: runs per tree (--samples split among them)")
    ap.add_argument("--tree", metavar="DIR", help="measure the dichotomy_widget of checkout DIR (default: this one)")
    ap.add_argument("--json", metavar="FILE", help="also write the raw figures (seconds) to FILE")
    args = ap.parse_args(argv)
    if args.smoke:
        args.samples, args.browser_samples, args.idle = min(args.samples, 6), min(args.browser_samples, 3), 1.0
        args.rounds, args.gap_samples, args.idle_gap = min(args.rounds, 2), 1, min(args.idle_gap, 2.0)
    stores = [name.strip() for name in args.stores.split(",") if name.strip()]
    unknown = set(stores) - {"sqlite", "postgres"}
    if unknown:
        ap.error(f"unknown store(s): {', '.join(sorted(unknown))}")
    if args.against:
        if not (Path(args.against) / "dichotomy_widget").is_dir():
            ap.error(f"--against: no dichotomy_widget package in {args.against}")
        against(args, stores)
        return 0
    figures = measure(args, stores)
    if args.json:
        Path(args.json).write_text(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
