"""Thirty joined students wait in their seat pages: what the idle kernels cost, and how fast a change
reaches the other kernels.

Starts ``dichotomy serve`` (an SQLite store; ``--postgres``: a throwaway PostgreSQL server,
tests/pg_server.py), seats ``--students`` players at tables of 6, and opens every
seat page like a browser does (tests/browser/wire_student.py: the page over HTTP, then the kernel's
websocket and the widget protocol), so each seat kernel is a real voila kernel following the store
through its real watch path (inotify on the SQLite files, and the server's one write-trouble check
announces changes; PostgreSQL: LISTEN/NOTIFY; a 30 s safety-net check in each kernel). Then:

* **idle CPU**: the CPU time of the seat kernels (and of voila itself) over ``--seconds`` (60) while
  nobody acts, as a percentage of one core, side by side with the same number of bare voila pages (one
  ipywidgets Text each, also held open by a wire client) measured over the same seconds, the floor any
  voila page costs on this machine. Run time comes from ``/proc/*/task/*/schedstat`` (nanoseconds; the
  ``/proc/*/stat`` tick counts are too coarse for kernels that use a few ms a second);
* **change to the other kernels**: the host reorders a table's seats ``--changes`` times (another
  process, as the host page's kernel would); the time from the change's commit until each of that
  table's seat pages has received its new view over the websocket: p50 / p95 / max.

    python bench/idle_seats.py [--students 30] [--seconds 60] [--changes 30] [--no-baseline] [--postgres]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Callable

REPO = Path(__file__).resolve().parents[1]
for extra in (REPO, REPO / "tests", REPO / "tests" / "browser"):
    sys.path.insert(0, str(extra))

from dichotomy_widget import Table  # noqa: E402
from join_burst import Server, pct, start  # noqa: E402
from support import free_port, server_env  # noqa: E402  (tests/support.py)
from support import tree_pids, _is_kernel  # noqa: E402
from wire_student import WireStudent  # noqa: E402


def run_seconds(pids: list[int]) -> float:
    """Seconds on a CPU so far of every thread of ``pids`` (exact, from schedstat)."""
    total = 0
    for pid in pids:
        try:
            tasks = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for task in tasks:
            try:
                total += int(Path(f"/proc/{pid}/task/{task}/schedstat").read_text().split()[0])
            except (OSError, IndexError, ValueError):
                continue
    return total / 1e9


def kernels_of(server: Server) -> list[int]:
    return [p for p in tree_pids(server.proc.pid) if _is_kernel(p)]


def open_pages(urls: list[str], bound: float) -> list[WireStudent | None]:
    """Open every page (6 at a time) as a wire client; None for a page not open within ``bound`` seconds
    in all (a stalled response: voila's heartbeats keep its socket busy, so no socket timeout fires)."""
    pool = ThreadPoolExecutor(6)
    futures = [pool.submit(WireStudent, url, "127.0.0.1", timeout=bound) for url in urls]
    deadline = time.monotonic() + bound
    opened: list[WireStudent | None] = []
    for future in futures:
        try:
            opened.append(future.result(timeout=max(0.0, deadline - time.monotonic())))
        except Exception:  # noqa: BLE001 - refused, failed or still waiting at the bound: stalled
            opened.append(None)
            future.add_done_callback(lambda f: not f.cancelled() and f.exception() is None and f.result().close())
    pool.shutdown(wait=False, cancel_futures=True)  # a stalled one ends when its server stops
    return opened


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--students", type=int, default=30)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--changes", type=int, default=30)
    parser.add_argument("--no-baseline", dest="baseline", action="store_false",
                        help="skip the bare voila pages measured beside the seat pages")
    parser.add_argument("--postgres", action="store_true", help="the pages share a throwaway PostgreSQL "
                        "server (durable settings) instead of an SQLite file")
    parser.add_argument("--smoke", action="store_true", help="CI: 2 students, 2 s idle, 2 changes, no baseline")
    args = parser.parse_args()
    if args.smoke:
        args.students, args.seconds, args.changes, args.baseline = 2, 2.0, 2, False
    if args.postgres:
        from pg_server import PostgresServer  # tests/pg_server.py

        with PostgresServer() as pg:
            print(f"temporary PostgreSQL on 127.0.0.1:{pg.port}", flush=True)
            return measure(args, pg.create_schema(), lambda: tree_pids(pg.proc.pid))
    return measure(args, None)


def measure(args: argparse.Namespace, dsn: str | None, store_pids: Callable[[], list[int]] | None = None) -> None:
    """The whole bench on the store ``dsn`` (None: an SQLite file in the work folder); ``store_pids``:
    the store server's processes, whose idle CPU is printed too."""
    print(f"idle_seats: {args.students} seat kernels; load average {os.getloadavg()}, {os.cpu_count()} CPUs",
          flush=True)
    work = Path(tempfile.mkdtemp(prefix="idle-seats-"))
    store = dsn or str(work / "tables.sqlite3")
    port = free_port()
    cmd = [sys.executable, "-m", "dichotomy_widget.server.serve", "serve", "--store", store, "--port", str(port),
           "--ip", "127.0.0.1", "--max-kernels", "0", "--max-pages-per-device", "0"]
    server = Server(cmd, port, work, server_env())
    bare: Server | None = None
    students: list[WireStudent] = []
    bare_pages: list[WireStudent] = []
    try:
        server.wait_http()
        if args.baseline:
            bare = start("bare", work, Path(store), 0, 30)
            opened_bare = open_pages([f"{bare.base}/voila/render/bare.ipynb"] * args.students, 300)
            bare_pages = [page for page in opened_bare if page is not None]
            if len(bare_pages) < args.students:
                print(f"  baseline: {args.students - len(bare_pages)} of {args.students} bare voila pages "
                      "stalled (their kernels still count below)", flush=True)
        tables: list[tuple[Table, list[WireStudent]]] = []
        links = []
        while len(links) < args.students:
            table = Table.create(store=store, rounds=2)
            seats = [(table, table.join(f"S{len(links) + i + 1}")) for i in range(min(6, args.students - len(links)))]
            links += seats
            tables.append((table, []))
        render = f"{server.base}/voila/render/seat.ipynb"
        opened = open_pages([f"{render}?table={table.code}&seat={ticket.token}" for table, ticket in links], 300)
        by_code = {t.code: watchers for t, watchers in tables}
        for (table, _ticket), student in zip(links, opened):
            if student is not None:
                by_code[table.code].append(student)
                students.append(student)
        if len(students) < args.students:
            print(f"  {args.students - len(students)} of {args.students} seat pages stalled", flush=True)
        for student in students:
            student.wait(lambda v: bool(v.get("players")), timeout=300)
        server.settle(args.students + 1)  # every page has run; the tree is quiet
        time.sleep(5)
        seat_kernels, bare_kernels = kernels_of(server), kernels_of(bare) if bare else []
        voilas = [p for p in {server.proc.pid, *tree_pids(server.proc.pid)} if p not in seat_kernels]
        database = store_pids() if store_pids else []
        seat0, bare0, voila0 = run_seconds(seat_kernels), run_seconds(bare_kernels), run_seconds(voilas)
        database0 = run_seconds(database)
        t0 = time.monotonic()
        time.sleep(args.seconds)
        wall = time.monotonic() - t0
        seat1, bare1, voila1 = run_seconds(seat_kernels), run_seconds(bare_kernels), run_seconds(voilas)
        database1 = run_seconds(database)
        seat_pct, bare_pct = 100 * (seat1 - seat0) / wall, 100 * (bare1 - bare0) / wall
        print(f"idle CPU over {wall:.0f} s, % of one core: {len(seat_kernels)} seat kernels {seat_pct:.2f} %"
              f" (dichotomy serve's voila {100 * (voila1 - voila0) / wall:.2f} %)", flush=True)
        if database:
            print(f"  the PostgreSQL server ({len(database)} processes), same seconds: "
                  f"{100 * (database1 - database0) / wall:.2f} %", flush=True)
        if bare_kernels:
            print(f"  baseline, same seconds: {len(bare_kernels)} bare voila kernels (one Text each) "
                  f"{bare_pct:.2f} %; seat / bare {seat_pct / bare_pct if bare_pct else float('nan'):.2f}x",
                  flush=True)

        delays: list[float] = []
        for i in range(args.changes):
            table, watchers = tables[i % len(tables)]
            fresh = Table.open(table.code, store)
            order = list(fresh.state.order)
            order = order[1:] + order[:1]
            names = [fresh.state.seat_record(s).name for s in order]
            done: list[float] = []
            lock = threading.Lock()

            def follow(student: WireStudent, names: list[str] = names) -> None:
                student.wait(lambda v: [p["name"] for p in v.get("players", [])] == names, timeout=60)
                with lock:
                    done.append(time.monotonic())

            threads = [threading.Thread(target=follow, args=(s,)) for s in watchers]
            for t in threads:
                t.start()
            committed = time.monotonic()  # before the change: its commit time counts too
            fresh.act(None, {"type": "reorder", "order": order})
            for t in threads:
                t.join(90)
            delays += [d - committed for d in done]
            time.sleep(0.5)
        ms = [d * 1000 for d in delays]
        print(f"change to the other seat pages ({len(ms)} page updates, {args.changes} changes): median "
              f"{statistics.median(ms):.1f} ms, p95 {pct(ms, 0.95):.1f} ms, max {max(ms):.1f} ms", flush=True)
        print(f"load average at the end {os.getloadavg()}")
    finally:
        for student in students + bare_pages:
            student.close()
        server.stop()
        if bare is not None:
            bare.stop()


if __name__ == "__main__":
    main()
