"""Benchmark the SQLite table store.

Prints appends/s for one writer and for several concurrent writer processes (each using the table
layer's "read last seq, append, retry on VersionConflict" loop), the median/p95 time for another
process to notice a change through ``wait_for_change``, and the CPU an idle watcher burns.

    python bench/store.py [--appends 2000] [--procs 4] [--notices 100] [--dir /tmp/x]
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

from dichotomy_widget.errors import VersionConflict  # noqa: E402
from dichotomy_widget.store import MemoryStore, SqliteStore, TableStore  # noqa: E402


def append_with_retry(store: TableStore, table_id: str, events: list[tuple[str, dict]]) -> int:
    """Read the last seq, append, retry on conflict; returns the number of conflicts."""
    conflicts = 0
    while True:
        try:
            store.append(table_id, store.last_seq(table_id), events)
            return conflicts
        except VersionConflict:
            conflicts += 1


def one_writer(store: TableStore, n: int) -> float:
    """Appends/s of single-event appends with the retry loop, no contention."""
    store.create_table("ONE", {})
    start = time.perf_counter()
    for i in range(n):
        append_with_retry(store, "ONE", [("tick", {"i": i, "word": "bonjour"})])
    return n / (time.perf_counter() - start)


def child(*args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, __file__, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def worker_race(path: str, table: str, name: str, n: int, go: str) -> None:
    """Child: wait for the start file, then append ``n`` events with the retry loop."""
    store = SqliteStore(path)
    while not os.path.exists(go):
        time.sleep(0.001)
    conflicts = 0
    for i in range(n):
        conflicts += append_with_retry(store, table, [("tick", {"w": name, "i": i})])
    store.close()
    print(json.dumps({"conflicts": conflicts}))


def many_writers(path: Path, procs: int, n: int) -> tuple[float, int]:
    """Total appends/s and conflicts for ``procs`` processes appending to one table at once."""
    with SqliteStore(path) as store:
        store.create_table("MANY", {})
    go = path.with_suffix(".go")
    children = [child("--worker-race", str(path), "MANY", f"p{k}", str(n), str(go)) for k in range(procs)]
    time.sleep(0.5 + 0.1 * procs)  # imports and connections out of the measurement
    start = time.perf_counter()
    go.touch()
    outputs = [c.communicate() for c in children]
    elapsed = time.perf_counter() - start
    for c, (_, err) in zip(children, outputs):
        if c.returncode:
            raise SystemExit(f"worker failed:\n{err}")
    with SqliteStore(path) as store:
        assert store.last_seq("MANY") == procs * n
    return procs * n / elapsed, sum(json.loads(out)["conflicts"] for out, _ in outputs)


def worker_notify(path: str, table: str, n: int) -> None:
    """Child: append ``n`` events at random 20-80 ms gaps, each stamped with its commit time."""
    store = SqliteStore(path)
    time.sleep(0.3)
    for i in range(n):
        time.sleep(random.uniform(0.02, 0.08))
        append_with_retry(store, table, [("tick", {"i": i, "t": time.time()})])
    store.close()


async def watch(store: SqliteStore, table: str, n: int) -> list[float]:
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


def notice_latency(path: Path, n: int) -> list[float]:
    with SqliteStore(path) as store:
        store.create_table("NOTICE", {})
        writer = child("--worker-notify", str(path), "NOTICE", str(n))
        delays = asyncio.run(watch(store, "NOTICE", n))
    writer.communicate()
    return delays


def idle_cpu(path: Path, seconds: float) -> float:
    """CPU seconds per wall second of one idle wait_for_change loop."""
    with SqliteStore(path) as store:

        async def idle() -> None:
            marker = store.change_marker()
            end = time.perf_counter() + seconds
            while time.perf_counter() < end:
                marker = await store.wait_for_change(marker, timeout=1.0)

        cpu = time.process_time()
        asyncio.run(idle())
        return (time.process_time() - cpu) / seconds


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--appends", type=int, default=2000, help="appends for the one-writer run")
    parser.add_argument("--procs", type=int, default=4, help="concurrent writer processes")
    parser.add_argument("--per-proc", type=int, default=500, help="appends per writer process")
    parser.add_argument("--notices", type=int, default=100, help="changes to notice across processes")
    parser.add_argument("--dir", type=Path, default=None, help="where to put the SQLite files")
    args = parser.parse_args()
    tmp = args.dir or Path(tempfile.mkdtemp(prefix="dichotomy-bench-"))
    tmp.mkdir(parents=True, exist_ok=True)
    print(f"SQLite files in {tmp} ({os.cpu_count()} CPUs, Python {sys.version.split()[0]})")

    rate = one_writer(MemoryStore(), args.appends)
    print(f"memory, 1 writer:                {rate:9.0f} appends/s")
    with SqliteStore(tmp / "one.sqlite3") as store:
        rate = one_writer(store, args.appends)
    print(f"sqlite, 1 writer:                {rate:9.0f} appends/s")
    rate, conflicts = many_writers(tmp / "many.sqlite3", args.procs, args.per_proc)
    print(
        f"sqlite, {args.procs} writer processes:      {rate:9.0f} appends/s in total"
        f" ({args.procs * args.per_proc} appends, {conflicts} conflicts retried)"
    )
    delays = [d * 1000 for d in notice_latency(tmp / "notice.sqlite3", args.notices)]
    print(
        f"notice in another process:       median {statistics.median(delays):5.1f} ms,"
        f" p95 {percentile(delays, 0.95):5.1f} ms, max {max(delays):5.1f} ms ({len(delays)} changes)"
    )
    print(f"idle watcher CPU:                {idle_cpu(tmp / 'notice.sqlite3', 3.0) * 100:6.2f} % of one core")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--worker-race":
        worker_race(*sys.argv[2:5], int(sys.argv[5]), sys.argv[6])
    elif len(sys.argv) > 1 and sys.argv[1] == "--worker-notify":
        worker_notify(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    else:
        main()
