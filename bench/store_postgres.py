"""Benchmark the PostgreSQL table store (the figures bench/store.py gives for SQLite).

Starts its own throwaway PostgreSQL server (tests/pg_server.py: initdb in a temporary directory,
127.0.0.1, a free port; as root through ``runuser -u postgres``), then prints appends/s for one
writer and for several concurrent writer processes (each using the table layer's "read last seq,
append, retry on VersionConflict" loop), the median/p95 time for another process to notice a change
through ``wait_for_change`` (LISTEN/NOTIFY), and the CPU an idle watcher burns.

    python bench/store_postgres.py [--appends 2000] [--procs 4] [--per-proc 500] [--notices 100] [--fast] [--dsn URL]

By default the server runs with PostgreSQL's defaults (fsync on, synchronous_commit on: every
append waits for its WAL flush, like a production server). ``--fast`` turns fsync and
synchronous_commit off (what the tests use). ``--dsn postgresql://...`` measures an existing server
instead (it must be empty of dichotomy tables named ONE, MANY, NOTICE: use a scratch database).
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

from dichotomy_widget.errors import VersionConflict  # noqa: E402
from dichotomy_widget.store import TableStore  # noqa: E402
from dichotomy_widget.store_postgres import PostgresStore  # noqa: E402

DSN_ENV = "DICHOTOMY_BENCH_DSN"  # children get the DSN here, not on their command line


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


def child(dsn: str, *args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, __file__, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, DSN_ENV: dsn},
    )


def worker_race(table: str, name: str, n: int, go: str) -> None:
    """Child: wait for the start file, then append ``n`` events with the retry loop."""
    store = PostgresStore(os.environ[DSN_ENV])
    while not os.path.exists(go):
        time.sleep(0.001)
    conflicts = 0
    for i in range(n):
        conflicts += append_with_retry(store, table, [("tick", {"w": name, "i": i})])
    store.close()
    print(json.dumps({"conflicts": conflicts}))


def many_writers(dsn: str, procs: int, n: int, tmp: Path) -> tuple[float, int]:
    """Total appends/s and conflicts for ``procs`` processes appending to one table at once."""
    with PostgresStore(dsn) as store:
        store.create_table("MANY", {})
    go = tmp / "many.go"
    children = [child(dsn, "--worker-race", "MANY", f"p{k}", str(n), str(go)) for k in range(procs)]
    time.sleep(1.0 + 0.2 * procs)  # imports and connections out of the measurement
    start = time.perf_counter()
    go.touch()
    outputs = [c.communicate() for c in children]
    elapsed = time.perf_counter() - start
    for c, (_, err) in zip(children, outputs):
        if c.returncode:
            raise SystemExit(f"worker failed:\n{err}")
    with PostgresStore(dsn) as store:
        assert store.last_seq("MANY") == procs * n
    return procs * n / elapsed, sum(json.loads(out)["conflicts"] for out, _ in outputs)


def worker_notify(table: str, n: int) -> None:
    """Child: append ``n`` events at random 20-80 ms gaps, each stamped with its commit time."""
    store = PostgresStore(os.environ[DSN_ENV])
    time.sleep(0.3)
    for i in range(n):
        time.sleep(random.uniform(0.02, 0.08))
        append_with_retry(store, table, [("tick", {"i": i, "t": time.time()})])
    store.close()


async def watch(store: PostgresStore, table: str, n: int) -> list[float]:
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


def notice_latency(dsn: str, n: int) -> list[float]:
    with PostgresStore(dsn) as store:
        store.create_table("NOTICE", {})
        writer = child(dsn, "--worker-notify", "NOTICE", str(n))
        delays = asyncio.run(watch(store, "NOTICE", n))
    _, err = writer.communicate()
    if writer.returncode:
        raise SystemExit(f"notifier failed:\n{err}")
    return delays


def idle_cpu(dsn: str, seconds: float) -> float:
    """CPU seconds per wall second of one idle wait_for_change loop (this process, all threads)."""
    with PostgresStore(dsn) as store:

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


def run(dsn: str, args: argparse.Namespace, tmp: Path) -> None:
    with PostgresStore(dsn) as store:
        rate = one_writer(store, args.appends)
    print(f"postgres, 1 writer:              {rate:9.0f} appends/s")
    rate, conflicts = many_writers(dsn, args.procs, args.per_proc, tmp)
    print(
        f"postgres, {args.procs} writer processes:    {rate:9.0f} appends/s in total"
        f" ({args.procs * args.per_proc} appends, {conflicts} conflicts retried)"
    )
    delays = [d * 1000 for d in notice_latency(dsn, args.notices)]
    print(
        f"notice in another process:       median {statistics.median(delays):5.1f} ms,"
        f" p95 {percentile(delays, 0.95):5.1f} ms, max {max(delays):5.1f} ms ({len(delays)} changes, LISTEN/NOTIFY)"
    )
    print(f"idle watcher CPU:                {idle_cpu(dsn, 3.0) * 100:6.2f} % of one core")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--appends", type=int, default=2000, help="appends for the one-writer run")
    parser.add_argument("--procs", type=int, default=4, help="concurrent writer processes")
    parser.add_argument("--per-proc", type=int, default=500, help="appends per writer process")
    parser.add_argument("--notices", type=int, default=100, help="changes to notice across processes")
    parser.add_argument("--fast", action="store_true", help="fsync and synchronous_commit off (as in the tests)")
    parser.add_argument("--dsn", default=None, help="use this (empty, scratch) database instead of a temporary server")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="dichotomy-bench-pg-"))
    print(f"{os.cpu_count()} CPUs, Python {sys.version.split()[0]}")
    if args.dsn:
        with PostgresStore(args.dsn) as store:
            print(f"server: {store.url}")
        run(args.dsn, args, tmp)
        return
    from pg_server import FAST_SETTINGS, PostgresServer

    with PostgresServer(settings=FAST_SETTINGS if args.fast else {}) as server:
        import psycopg

        with psycopg.connect(server.dsn()) as conn:
            version = conn.execute("SHOW server_version").fetchone()[0]
            sync = conn.execute("SHOW synchronous_commit").fetchone()[0]
            fsync = conn.execute("SHOW fsync").fetchone()[0]
        print(
            f"temporary PostgreSQL {version} on 127.0.0.1:{server.port} in {server.dir}"
            f" (fsync={fsync}, synchronous_commit={sync})"
        )
        run(server.create_database("bench"), args, tmp)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--worker-race":
        worker_race(sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5])
    elif len(sys.argv) > 1 and sys.argv[1] == "--worker-notify":
        worker_notify(sys.argv[2], int(sys.argv[3]))
    else:
        main()
