"""Several servers on one PostgreSQL store: connections, cross-server change latency, pages through
the proxy. One run prints, each beside its baseline measured in the same run:

* **PostgreSQL connections** held with 10, 30 and 60 open seats on 1 and on 2 servers, *today* (every
  seat's store holds its own connection and LISTENs) vs *after* (``dichotomy serve``'s model: the
  server LISTENs once through :mod:`dichotomy_widget.stores.pg_relay`, seats borrow one of ``--pool``
  connection slots while they work). "idle" is counted once every seat has opened and gone quiet;
  "busy" is the peak while a seat writes ``--writes`` changes that every seat follows.
* **Change latency**, seat on server A -> seats on server B (p50 / p95), beside seats on server A
  itself: from the writer's commit to a follower having read the new event (the store's part of the
  shared wake -> read -> fold -> view path), today vs after. Both models run at once on two databases,
  their writes alternating, so both see the same load on a shared machine. Each line also counts the
  follower reads served from the events the relay passed on and the connections the seats opened.
* **Pages per second** through HAProxy vs directly to a server (real ``dichotomy serve`` processes, a
  PostgreSQL store): the cheap page list (``/voila/tree``) and the seat page with its kernel.

A "server" in the first two parts is a process holding that many seat stores, each following its
table on its own asyncio task, as the seat kernels of one ``dichotomy serve`` do (without voila: 60
real kernels would need 5 GB; the writer writes in a thread, as a seat kernel is its own process and
its wait for a slot stalls no other seat). Six seats follow each table (five students and the teacher's
dashboard), dealt to the servers in turn, so every table has seats on both; the writes go round the
tables from a seat on server A. ``--smoke``: the same in a few seconds with small numbers (for CI).

    python bench/scale_out.py [--smoke] [--writes 200] [--pool 8] [--pages 8]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
for extra in (REPO, REPO / "tests"):
    sys.path.insert(0, str(extra))

TABLE = "BENCH"  # tables BENCH0, BENCH1, ...: one per TABLE_SIZE seats
TABLE_SIZE = 6  # five students and their teacher's dashboard follow a table


def table_of(host: int, local: int, servers: int) -> str:
    """The table a host's ``local``-th seat follows: seats are dealt to hosts in turn, so every table
    has seats on every server."""
    return f"{TABLE}{(local * servers + host) // TABLE_SIZE}"


def tables_for(seats: int) -> list[str]:
    return [f"{TABLE}{i}" for i in range((seats + TABLE_SIZE - 1) // TABLE_SIZE)]
#: The seats' connection linger here: short, so the idle count below need not wait out the default (60 s).
LINGER = 5.0


# --- a "server": seats following one table -------------------------------------------------------------
def seat_host(dsn: str, mode: str, seats: int, pool: int, host: int, servers: int) -> None:
    """Child process: ``seats`` stores, each following its table; prints ``ready``, then ``lat <s>`` per
    event each follower reads; on ``write TABLE`` from stdin, a seat at that table appends an event
    stamped with the time."""
    from dichotomy_widget.stores.pg_relay import start_server_relay
    from dichotomy_widget.stores.postgres import PostgresStore

    stop_relay = lambda: None  # noqa: E731
    relay_dir = None
    if mode.startswith("after"):  # "after" or "after-N": N slots instead of --pool
        env, stop_relay = start_server_relay(dsn, int(mode.split("-")[1]) if "-" in mode else pool)
        relay_dir = next(iter(env.values()))
    stores = [PostgresStore(dsn, relay_dir=relay_dir, linger=LINGER) for _ in range(seats)]
    out = threading.Lock()

    def say(text: str) -> None:
        with out:
            sys.stdout.write(text + "\n")
            sys.stdout.flush()

    tables = [table_of(host, i, servers) for i in range(seats)]

    async def follow(store: PostgresStore, table: str) -> None:
        marker = store.change_marker()
        seq = store.last_seq(table)
        while True:
            marker = await store.wait_for_change(marker, 30.0)
            records = store.load(table, after_seq=seq)
            now = time.time()
            for record in records:
                say(f"lat {now - record.payload['t']:.6f}")
            if records:
                seq = records[-1].seq

    async def main() -> None:
        loop = asyncio.get_running_loop()
        tasks = [asyncio.ensure_future(follow(s, t)) for s, t in zip(stores, tables)]  # noqa: F841 - run forever
        await asyncio.sleep(0.2)
        say("ready")
        writers = {}
        for store, table in zip(stores, tables):
            writers.setdefault(table, store)
        while True:
            line = await loop.run_in_executor(None, sys.stdin.readline)
            if not line or line.strip() == "quit":
                return
            table = line.split()[1]
            writer = writers[table]
            # in a thread, as a seat kernel is its own process: a writer waiting for a slot must not
            # stall this host's followers
            await loop.run_in_executor(None, lambda: writer.append(table, writer.last_seq(table),
                                                                   [("tick", {"t": time.time()})]))

    try:
        asyncio.run(main())
    finally:
        relayed = sum(getattr(getattr(s, "_relay", None), "hits", 0) for s in stores)
        say(f"counts {sum(getattr(s, 'connects', 0) for s in stores)} {relayed}")
        for store in stores:
            store.close()
        stop_relay()


class Host:
    """A seat-host child process."""

    def __init__(self, dsn: str, mode: str, seats: int, pool: int, host: int, servers: int) -> None:
        self.proc = subprocess.Popen([sys.executable, __file__, "--seat-host", dsn, mode, str(seats), str(pool),
                                      str(host), str(servers)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        self.latencies: list[float] = []
        self.counts = (0, 0)  # connections the seats opened, reads served from the relay's events
        self.ready = threading.Event()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            if line.startswith("ready"):
                self.ready.set()
            elif line.startswith("lat "):
                self.latencies.append(float(line.split()[1]))
            elif line.startswith("counts "):
                self.counts = (int(line.split()[1]), int(line.split()[2]))

    def write(self, table: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(f"write {table}\n")
        self.proc.stdin.flush()

    def stop(self) -> None:
        try:
            assert self.proc.stdin is not None
            self.proc.stdin.write("quit\n")
            self.proc.stdin.flush()
            self.proc.wait(20)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()
        self._reader.join(5)


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q / 100 * (len(ordered) - 1))))] if ordered else float("nan")


def scenario(pg, dsns: dict[str, str], servers: int, seats: int, pool: int, writes: int) -> dict:
    """Both models at once, each on its own database (so both see the same machine load): start the
    hosts, count idle connections, then ``writes`` changes from a seat on each model's first host,
    alternating between the models."""
    from scale_out_support import client_connections

    def db(dsn: str) -> str:
        return dsn.rsplit("/", 1)[1].split("?")[0]

    hosts = {mode: [Host(dsn, mode, seats // servers, pool, h, servers) for h in range(servers)]
             for mode, dsn in dsns.items()}
    try:
        for group in hosts.values():
            for host in group:
                if not host.ready.wait(180):
                    raise RuntimeError("a seat host did not start")
        time.sleep(LINGER + 1.0)  # every seat's first reads done; relayed connections closed after their linger
        idle = {mode: client_connections(pg.dsn(), db(dsn)) for mode, dsn in dsns.items()}
        peak = {mode: [n] for mode, n in idle.items()}
        sampling = threading.Event()

        def sample() -> None:
            while not sampling.is_set():
                for mode, dsn in dsns.items():
                    peak[mode].append(client_connections(pg.dsn(), db(dsn)))
                time.sleep(0.05)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        tables = tables_for(seats)
        for i in range(writes):
            for group in hosts.values():
                group[0].write(tables[i % len(tables)])
                time.sleep(0.03)
        per_table = {t: [0] * servers for t in tables}
        for h in range(servers):
            for local in range(seats // servers):
                per_table[table_of(h, local, servers)][h] += 1
        expected = [sum(per_table[tables[i % len(tables)]][h] for i in range(writes)) for h in range(servers)]
        deadline = time.monotonic() + 60
        while any([len(h.latencies) for h in g] != expected for g in hosts.values()) and time.monotonic() < deadline:
            time.sleep(0.05)
        sampling.set()
        sampler.join()
        for group in hosts.values():
            for host in group:
                host.stop()
        return {mode: {"idle": idle[mode], "busy": max(peak[mode]), "same": group[0].latencies,
                       "cross": group[1].latencies if servers > 1 else [],
                       "connects": sum(h.counts[0] for h in group), "relayed": sum(h.counts[1] for h in group)}
                for mode, group in hosts.items()}
    finally:
        for group in hosts.values():
            for host in group:
                host.stop()


def table_rate(pg, mode: str, events: int, pool: int) -> float:
    """Events/s a seat appends to one table, each after reading the last seq (a move's store work)."""
    from dichotomy_widget.stores.pg_relay import start_server_relay
    from dichotomy_widget.stores.postgres import PostgresStore

    dsn = pg.create_database()
    stop = lambda: None  # noqa: E731
    relay_dir = None
    if mode == "after":
        env, stop = start_server_relay(dsn, pool)
        relay_dir = next(iter(env.values()))
    store = PostgresStore(dsn, relay_dir=relay_dir)
    try:
        store.create_table("RATE", {})
        start = time.perf_counter()
        for _ in range(events):
            store.append("RATE", store.last_seq("RATE"), [("tick", {"t": time.time()})])
        return events / (time.perf_counter() - start)
    finally:
        store.close()
        stop()


# --- pages through the proxy ---------------------------------------------------------------------------
def pages_per_second(urls: list[str], workers: int) -> float:
    from support import http_get

    start = time.perf_counter()
    with ThreadPoolExecutor(workers) as pool:
        statuses = list(pool.map(lambda u: http_get(u, timeout=300)[0], urls))
    elapsed = time.perf_counter() - start
    bad = [s for s in statuses if s != 200]
    if bad:
        raise RuntimeError(f"pages failed: {bad[:5]}")
    return len(urls) / elapsed


def pages_part(pg, pages: int, trees: int, pool: int, settle: float = 12.0) -> dict:
    from scale_out_support import HAProxy, Serve, wait_http

    dsn = pg.create_database("pages")
    work = Path(tempfile.mkdtemp(prefix="scale-out-bench-"))
    servers = [Serve(n, dsn, work, pool=pool, extra=["--connect-timeout", "10"]) for n in "ab"]
    proxy = None
    try:
        for server in servers:
            server.wait_ready(180)
        proxy = HAProxy([(s.name, s.port) for s in servers], work)
        wait_http(f"{proxy.base}/voila/tree", 60, proxy.proc)
        out = {}
        for label, base in (("direct", servers[0].base), ("proxy", proxy.base)):
            out[f"tree {label}"] = pages_per_second([f"{base}/voila/tree"] * trees, 4)
        for label, base in (("direct", servers[0].base), ("proxy", proxy.base)):
            out[f"seat {label}"] = pages_per_second([f"{base}/voila/render/seat.ipynb"] * pages, 4)
            time.sleep(settle)  # the unconnected kernels are shut down (--connect-timeout 10) before the next
        return out
    finally:
        if proxy is not None:
            proxy.stop()
        for server in servers:
            server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--smoke", action="store_true", help="small numbers, a few seconds (CI)")
    parser.add_argument("--writes", type=int, default=200, help="changes per latency scenario (default 200)")
    parser.add_argument("--pool", type=int, default=8, help="connection slots per server (default 8, as dichotomy serve)")
    parser.add_argument("--pages", type=int, default=8, help="seat pages per path (default 8)")
    args = parser.parse_args()
    from dichotomy_widget.stores.postgres import PostgresStore
    from pg_server import PostgresServer

    seat_counts = (4,) if args.smoke else (10, 30, 60)
    writes = 10 if args.smoke else args.writes
    settings = {"fsync": "off", "synchronous_commit": "off", "full_page_writes": "off", "max_connections": "200"}
    print(f"bench/scale_out.py: {os.cpu_count()} cores, pool {args.pool} per server"
          f"{' (smoke)' if args.smoke else ''}", flush=True)
    with PostgresServer(settings=settings) as pg:
        print(f"PostgreSQL {pg.version()}", flush=True)
        print("\nPostgreSQL connections (seats' own; idle = all seats open and quiet, busy = peak while "
              f"{writes} changes are followed)")
        print(f"{'seats':>6} {'servers':>8} | {'today idle':>10} {'today busy':>10} | {'after idle':>10} {'after busy':>10}")
        latencies: dict[str, dict] = {}
        for seats in seat_counts:
            for servers in (2,) if args.smoke else (1, 2):  # smoke: the two-server path only
                dsns = {}
                for mode in ("today", "after"):
                    dsns[mode] = pg.create_database()
                    store = PostgresStore(dsns[mode])
                    for table in tables_for(seats):
                        store.create_table(table, {})
                    store.close()
                row = scenario(pg, dsns, servers, seats, args.pool, writes)
                if servers == 2 and seats == seat_counts[-1]:
                    latencies = row
                print(f"{seats:>6} {servers:>8} | {row['today']['idle']:>10} {row['today']['busy']:>10} | "
                      f"{row['after']['idle']:>10} {row['after']['busy']:>10}", flush=True)
        n = seat_counts[-1]
        wide = f"after-{n // 2}"  # a pool as large as a server's seats: the relay's wake path without waiting for slots
        dsns = {}
        for mode in ("today", wide):
            dsns[mode] = pg.create_database()
            store = PostgresStore(dsns[mode])
            for table in tables_for(n):
                store.create_table(table, {})
            store.close()
        latencies[wide] = scenario(pg, dsns, 2, n, args.pool, writes)[wide]
        print(f"\nChange latency, commit -> follower has read it ({n} seats on 2 servers, {writes} changes), ms")
        print(f"{'':>8} | {'same server p50':>15} {'p95':>7} | {'A -> B p50':>10} {'p95':>7}")
        for mode in ("today", "after", wide):
            same, cross = latencies[mode]["same"], latencies[mode]["cross"]
            print(f"{mode:>8} | {pct(same, 50) * 1e3:>15.1f} {pct(same, 95) * 1e3:>7.1f} | "
                  f"{pct(cross, 50) * 1e3:>10.1f} {pct(cross, 95) * 1e3:>7.1f}   ({len(same)}+{len(cross)} reads; "
                  f"{latencies[mode]['relayed']} from the relay, {latencies[mode]['connects']} connections opened)")
        print("\nEvents per second one table takes, appended one at a time by one seat (load + append each)")
        for mode in ("today", "after"):
            print(f"  {mode}: {table_rate(pg, mode, 50 if args.smoke else 500, args.pool):7.0f} events/s")
        trees, pages = (20, 2) if args.smoke else (200, args.pages)
        rates = pages_part(pg, pages, trees, args.pool, settle=0.0 if args.smoke else 12.0)
        print("\nPages per second, 4 at a time, 2 servers (after), HAProxy vs direct to one server")
        print(f"  /voila/tree ({trees}):       direct {rates['tree direct']:7.1f}   proxy {rates['tree proxy']:7.1f}")
        print(f"  seat page + kernel ({pages}): direct {rates['seat direct']:7.2f}   proxy {rates['seat proxy']:7.2f}")


if __name__ == "__main__":
    if len(sys.argv) == 8 and sys.argv[1] == "--seat-host":
        seat_host(sys.argv[2], sys.argv[3], *(int(a) for a in sys.argv[4:]))
    else:
        main()
