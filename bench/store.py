"""Benchmark the table stores (SQLite by default, PostgreSQL with ``--postgres``).

Prints appends/s for one writer and for several concurrent writer processes (each using the table
layer's "read last seq, append, retry on VersionConflict" loop), the median/p95 time for another
process to notice a change through ``wait_for_change``, and the CPU an idle watcher burns.

    python bench/store.py [--appends 2000] [--procs 4] [--per-proc 500] [--notices 100] [--dir D]
    python bench/store.py --postgres [--fast]        # a throwaway PostgreSQL server (tests/pg_server.py)
    python bench/store.py --store postgresql://...   # an existing, empty scratch database

With ``--postgres`` the server keeps PostgreSQL's durable defaults (every append waits for its WAL
flush); ``--fast`` turns fsync and synchronous_commit off, as the tests do.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))

from dichotomy_widget.stores import MemoryStore, SqliteStore, TableStore, open_store  # noqa: E402
from support import append_with_retry  # noqa: E402  (tests/support.py)

STORE_ENV = "DICHOTOMY_BENCH_STORE"  # children get the store URL here (never on a command line)


def one_writer(store: TableStore, n: int) -> float:
    """Appends/s of single-event appends with the retry loop, no contention."""
    store.create_table("ONE", {})
    start = time.perf_counter()
    for i in range(n):
        append_with_retry(store, "ONE", [("tick", {"i": i, "word": "bonjour"})])
    return n / (time.perf_counter() - start)


def child(url: str, *args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, __file__, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env={**os.environ, STORE_ENV: url})


def finish(children: list[subprocess.Popen]) -> list[str]:
    outputs = [c.communicate() for c in children]
    for c, (_, err) in zip(children, outputs):
        if c.returncode:
            raise SystemExit(f"worker failed:\n{err}")
    return [out for out, _ in outputs]


def worker_race(table: str, name: str, n: int, go: str) -> None:
    """Child: wait for the start file, then append ``n`` events with the retry loop."""
    store = open_store(os.environ[STORE_ENV])
    while not os.path.exists(go):
        time.sleep(0.001)
    conflicts = sum(append_with_retry(store, table, [("tick", {"w": name, "i": i})]) for i in range(n))
    store.close()
    print(json.dumps({"conflicts": conflicts}))


def many_writers(url: str, procs: int, n: int, tmp: Path) -> tuple[float, int]:
    """Total appends/s and conflicts for ``procs`` processes appending to one table at once."""
    store = open_store(url)
    store.create_table("MANY", {})
    go = tmp / "many.go"
    children = [child(url, "--worker-race", "MANY", f"p{k}", str(n), str(go)) for k in range(procs)]
    time.sleep(1.0 + 0.2 * procs)  # imports and connections out of the measurement
    start = time.perf_counter()
    go.touch()
    outputs = finish(children)
    elapsed = time.perf_counter() - start
    assert store.last_seq("MANY") == procs * n
    store.close()
    return procs * n / elapsed, sum(json.loads(out)["conflicts"] for out in outputs)


def worker_notify(table: str, n: int) -> None:
    """Child: append ``n`` events at random 20-80 ms gaps, each stamped with its commit time."""
    store = open_store(os.environ[STORE_ENV])
    time.sleep(0.3)
    for i in range(n):
        time.sleep(random.uniform(0.02, 0.08))
        append_with_retry(store, table, [("tick", {"i": i, "t": time.time()})])
    store.close()


async def watch(store: TableStore, table: str, n: int) -> list[float]:
    """Wake on each change and measure how late it was noticed (seconds)."""
    delays: list[float] = []
    seen = 0
    marker = store.change_marker()
    while len(delays) < n:
        marker = await store.wait_for_change(marker, timeout=5.0)
        now = time.time()
        for record in store.load(table, seen):
            delays.append(now - record.payload["t"])
            seen = record.seq
    return delays


def open_watcher(url: str, polling: bool) -> TableStore:
    """The watching side's store; ``polling``: an SQLite store that polls instead of file notices."""
    return SqliteStore(url, watch_files=False) if polling else open_store(url)


def notice_latency(url: str, n: int, polling: bool = False) -> list[float]:
    store = open_watcher(url, polling)
    store.create_table("NOTICE", {})
    writer = child(url, "--worker-notify", "NOTICE", str(n))
    delays = asyncio.run(watch(store, "NOTICE", n))
    finish([writer])
    store.close()
    return delays


def idle_cpu(url: str, seconds: float, polling: bool = False) -> float:
    """CPU seconds per wall second of one idle wait_for_change loop (this process, all threads)."""
    store = open_watcher(url, polling)

    async def idle() -> None:
        marker = store.change_marker()
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            marker = await store.wait_for_change(marker, timeout=1.0)

    cpu = time.process_time()
    asyncio.run(idle())
    store.close()
    return (time.process_time() - cpu) / seconds


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def run(kind: str, urls: dict[str, str], args: argparse.Namespace, tmp: Path) -> None:
    """Print every figure for one store; ``urls`` gives a fresh location per measurement."""
    store = open_store(urls["one"])
    print(f"{kind}, 1 writer:{'':<{22 - len(kind)}}{one_writer(store, args.appends):9.0f} appends/s")
    store.close()
    rate, conflicts = many_writers(urls["many"], args.procs, args.per_proc, tmp)
    print(f"{kind}, {args.procs} writer processes:{'':<{12 - len(kind)}}{rate:9.0f} appends/s in total"
          f" ({args.procs * args.per_proc} appends, {conflicts} conflicts retried)")
    ways = [("", False)]
    if kind == "sqlite":  # file notices beside the 50 ms polling they replaced, in the same run
        ways = [(" (file notices)", False), (" (polling, before)", True)]
    for label, polling in ways:
        url = urls["notice"] + ("-polling" if polling else "")
        delays = [d * 1000 for d in notice_latency(url, args.notices, polling)]
        print(f"notice in another process{label}:".ljust(46) + f"median {statistics.median(delays):5.1f} ms,"
              f" p95 {percentile(delays, 0.95):5.1f} ms, max {max(delays):5.1f} ms ({len(delays)} changes)")
        print(f"idle watcher CPU{label}:".ljust(46) + f"{idle_cpu(url, 3.0, polling) * 100:6.2f} % of one core")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--appends", type=int, default=2000, help="appends for the one-writer run")
    parser.add_argument("--procs", type=int, default=4, help="concurrent writer processes")
    parser.add_argument("--per-proc", type=int, default=500, help="appends per writer process")
    parser.add_argument("--notices", type=int, default=100, help="changes to notice across processes")
    parser.add_argument("--dir", type=Path, default=None, help="where to put the SQLite files")
    parser.add_argument("--postgres", action="store_true", help="measure a throwaway PostgreSQL server")
    parser.add_argument("--fast", action="store_true", help="with --postgres: fsync and synchronous_commit off")
    parser.add_argument("--store", default=None, help="an existing, empty postgresql:// scratch database")
    parser.add_argument("--smoke", action="store_true", help="CI: 50 appends, 2 writers of 20, 5 notices")
    args = parser.parse_args()
    if args.smoke:
        args.appends, args.procs, args.per_proc, args.notices = 50, 2, 20, 5
    tmp = args.dir or Path(tempfile.mkdtemp(prefix="dichotomy-bench-"))
    tmp.mkdir(parents=True, exist_ok=True)
    print(f"{os.cpu_count()} CPUs, Python {sys.version.split()[0]}")
    if args.store:
        run("postgres", dict.fromkeys(("one", "many", "notice"), args.store), args, tmp)
    elif args.postgres:
        from pg_server import FAST_SETTINGS, PostgresServer

        with PostgresServer(settings=FAST_SETTINGS if args.fast else {}) as server:
            print(f"temporary PostgreSQL on 127.0.0.1:{server.port} ({'fast' if args.fast else 'durable'} settings)")
            run("postgres", dict.fromkeys(("one", "many", "notice"), server.create_database("bench")), args, tmp)
    else:
        print(f"memory, 1 writer:                {one_writer(MemoryStore(), args.appends):9.0f} appends/s")
        print(f"SQLite files in {tmp}")
        run("sqlite", {k: str(tmp / f"{k}.sqlite3") for k in ("one", "many", "notice")}, args, tmp)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--worker-race":
        worker_race(sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5])
    elif len(sys.argv) > 1 and sys.argv[1] == "--worker-notify":
        worker_notify(sys.argv[2], int(sys.argv[3]))
    else:
        main()
