"""Thirty joined students wait in their seat pages: what the idle kernels cost, and how fast a change
reaches the other kernels.

Starts ``dichotomy serve`` (SQLite store), seats ``--students`` players at tables of 6, and opens every
seat page like a browser does (tests/browser/wire_student.py: the page over HTTP, then the kernel's
websocket and the widget protocol), so each seat kernel is a real voila kernel following the store
through its real watch path (inotify on the SQLite files, a 2 s trouble check). Then:

* **idle CPU**: the CPU time of the seat kernels (and of voila itself) over ``--seconds`` (60) while
  nobody acts, as a percentage of one core;
* **change to the other kernels**: the host reorders a table's seats ``--changes`` times (another
  process, as the host page's kernel would); the time from the change's commit until each of that
  table's seat pages has received its new view over the websocket: p50 / p95 / max.

    python bench/idle_seats.py [--students 30] [--seconds 60] [--changes 30]
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

REPO = Path(__file__).resolve().parents[1]
for extra in (REPO, REPO / "tests", REPO / "tests" / "browser"):
    sys.path.insert(0, str(extra))

from dichotomy_widget import Table  # noqa: E402
from join_burst import Server, cpu_seconds, env_for_servers, free_port, pct  # noqa: E402
from support import tree_pids, _is_kernel  # noqa: E402
from wire_student import WireStudent  # noqa: E402


def kernel_cpu(pid: int) -> tuple[float, float]:
    """CPU seconds used so far by (the kernels, everything) in ``pid``'s process tree."""
    kernels = sum(cpu_seconds(p) for p in tree_pids(pid) if _is_kernel(p))
    return kernels, cpu_seconds(pid)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--students", type=int, default=30)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--changes", type=int, default=30)
    args = parser.parse_args()
    print(f"idle_seats: {args.students} seat kernels; load average {os.getloadavg()}, {os.cpu_count()} CPUs",
          flush=True)
    work = Path(tempfile.mkdtemp(prefix="idle-seats-"))
    store = work / "tables.sqlite3"
    port = free_port()
    cmd = [sys.executable, "-m", "dichotomy_widget.serve", "serve", "--store", str(store), "--port", str(port),
           "--ip", "127.0.0.1", "--max-kernels", "0", "--max-pages-per-device", "0"]
    server = Server(cmd, port, work, env_for_servers())
    students: list[WireStudent] = []
    try:
        server.wait_http()
        tables: list[tuple[Table, list[WireStudent]]] = []
        links = []
        while len(links) < args.students:
            table = Table.create(store=str(store), rounds=2)
            seats = [(table, table.join(f"S{len(links) + i + 1}")) for i in range(min(6, args.students - len(links)))]
            links += seats
            tables.append((table, []))
        render = f"{server.base}/voila/render/seat.ipynb"
        with ThreadPoolExecutor(6) as pool:
            opened = list(pool.map(lambda ts: (ts[0], WireStudent(
                f"{render}?table={ts[0].code}&seat={ts[1].token}", "127.0.0.1", timeout=300)), links))
        by_code = {t.code: watchers for t, watchers in tables}
        for table, student in opened:
            by_code[table.code].append(student)
            students.append(student)
        for student in students:
            student.wait(lambda v: bool(v.get("players")), timeout=300)
        server.settle(args.students + 1)  # every page has run; the tree is quiet
        time.sleep(5)
        kernels0, all0 = kernel_cpu(server.proc.pid)
        t0 = time.monotonic()
        time.sleep(args.seconds)
        wall = time.monotonic() - t0
        kernels1, all1 = kernel_cpu(server.proc.pid)
        print(f"idle CPU over {wall:.0f} s: seat kernels {100 * (kernels1 - kernels0) / wall:.2f} % of one core "
              f"({args.students} kernels), kernels and voila {100 * (all1 - all0) / wall:.2f} %", flush=True)

        delays: list[float] = []
        for i in range(args.changes):
            table, watchers = tables[i % len(tables)]
            fresh = Table.open(table.code, str(store))
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
        for student in students:
            student.close()
        server.stop()


if __name__ == "__main__":
    main()
