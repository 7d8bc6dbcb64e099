"""Soak: 20 tables x 5 scripted seats in 8 OS processes on one store, random legal moves for N seconds.

    python bench/soak.py [--seconds 120] [--tables 20] [--seats 5] [--procs 8] [--dir D]
    python bench/soak.py --postgres [--fast]      # a throwaway PostgreSQL server (tests/pg_server.py)

Every seat of every table is played by one of the worker processes (seat ``j`` of table ``i`` by
process ``(5 i + j) mod 8``, so every table is shared by several processes and their appends race);
seat 0's process is also the table's host (it starts the game, now and then confirms a recap for
absent seats, and when a game is over creates the table's next game, which every seat moves on to).
A worker picks a random move among the engine's ``allowed_actions`` for each of its seats in turn:
a pair, a clue (sometimes empty, sometimes a duplicate so clues cancel), a guess (right, wrong or a
pass), Continue. A move refused because another process moved first is counted, not an error.

Afterwards it checks, per table, that the events in the store are exactly the ones the workers were
told were appended (none lost, duplicated or reordered: same seq, type and payload), that seqs run
1..N without a gap, and that the replay of the stored events equals each worker's folded state.
It prints p50/p95/max latency of ``Table.act`` (decide + append, retries included), beside a
same-run baseline: one process playing one table alone for a few seconds.
"""

from __future__ import annotations

import argparse
import hashlib
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

from dichotomy_widget import DichotomyError, Table  # noqa: E402
from dichotomy_widget.events import event_from_dict  # noqa: E402
from dichotomy_widget.rules import allowed_actions, replay  # noqa: E402
from dichotomy_widget.stores import open_store  # noqa: E402
from dichotomy_widget.table import CODE_ALPHABET  # noqa: E402

STORE_ENV = "DICHOTOMY_SOAK_STORE"  # children get the store URL here (never on a command line)
ROUNDS = 13
CLUES = ["zebra", "anchor", "velvet", "compass", "meadow", "trumpet", "saddle", "quartz", "banjo", "nectar"]


def digest(kind: str, payload: dict) -> str:
    return hashlib.sha1(json.dumps([kind, payload], sort_keys=True).encode()).hexdigest()[:16]


def choose(rng: random.Random, table: Table, seat: int | None) -> dict | None:
    """A random legal move for ``seat`` (None: the host) in the table's current state, or None."""
    s = table.state
    kinds = [k for k in allowed_actions(s, seat) if k not in ("end", "reorder", "remove", "timeout", "random_pick")]
    if seat is None:  # the host: start, and now and then confirm a recap for seats that are slow
        kinds = [k for k in kinds if k == "start" or (k == "confirm_absent" and rng.random() < 0.05)]
    if not kinds:
        return None
    kind = rng.choice(kinds)
    if kind == "pick":
        return {"type": "pick", "pair": rng.randint(1, 5)}
    if kind == "clue":
        roll = rng.random()
        text = "" if roll < 0.05 else ("zebra" if roll < 0.25 else rng.choice(CLUES[1:]) + rng.choice("abcdefgh"))
        return {"type": "clue", "text": text}
    if kind == "guess":
        roll = rng.random()
        if roll < 0.1:
            return {"type": "pass"}
        return {"type": "guess", "text": s.target if roll < 0.6 else "saxophone"}
    return {"type": kind}


def replay_differs(table: Table) -> bool:
    """True when this process's folded state differs from a replay of the stored events up to the
    same seq (other processes may have appended more since)."""
    records = [r for r in table.store.load(table.code) if r.seq <= table.seq]
    return replay(event_from_dict(r.type, r.payload, table.code) for r in records) != table.state


def code_for(tag: str, slot: int, gen: int) -> str:
    """The table code of game ``gen`` at table ``slot`` (a finished game is followed by a new one)."""
    a = CODE_ALPHABET
    return f"{tag}{a[slot // len(a)]}{a[slot % len(a)]}{a[gen // len(a) % len(a)]}{a[gen % len(a)]}"


def new_game(store, tag: str, slot: int, gen: int, seats: int, seed: int) -> tuple[Table, list[list]]:
    """Create game ``gen`` of ``slot`` with its seats; the records appended (all acknowledged)."""
    table = Table.create(deck="en", seed=seed * 7919 + slot * 131 + gen, rounds=ROUNDS, store=store,
                         code=code_for(tag, slot, gen))
    for j in range(seats):
        table.join(f"P{j}")
    return table, [[table.code, r.seq, r.type, digest(r.type, r.payload)] for r in store.load(table.code)]


def worker(index: int, procs: int, seconds: float, tag: str, tables: int, seats: int, seed: int) -> None:
    """Play this process's seats until the deadline; print one JSON line of results."""
    store = open_store(os.environ[STORE_ENV])
    rng = random.Random(seed * 1000 + index)
    mine: list[tuple[int, int | None]] = []  # (slot, seat id or None for the host)
    for i in range(tables):
        for j in range(seats):
            if (seats * i + j) % procs == index:
                mine.append((i, j))
                if j == 0:
                    mine.append((i, None))  # the host of this table
    games: dict[int, Table] = {}
    acked: list[list] = []  # [code, seq, type, digest] of every event this process appended
    latencies: list[float] = []
    refused = mismatched = 0
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and mine:
        slot, seat = rng.choice(mine)
        table = games.get(slot) or games.setdefault(slot, Table.open(code_for(tag, slot, 0), store))
        table.refresh(notify=False)
        if table.state.phase == "over":  # check the finished game, then move on to the next one
            mismatched += replay_differs(table)
            gen = CODE_ALPHABET.index(table.code[-2]) * len(CODE_ALPHABET) + CODE_ALPHABET.index(table.code[-1]) + 1
            if seat is None:
                table, records = new_game(store, tag, slot, gen, seats, seed)
                acked += records
                games[slot] = table
            elif store.table_exists(code_for(tag, slot, gen)):
                games[slot] = Table.open(code_for(tag, slot, gen), store)
            continue
        action = None if seat is not None and table.state.seat_record(seat) is None else choose(rng, table, seat)
        if action is None:
            time.sleep(0.002)
            continue
        start = time.perf_counter()
        try:
            events = table.act(seat, action)
        except DichotomyError:  # another process moved first (or a clue matched the card): try again
            refused += 1
            continue
        finally:
            latencies.append(time.perf_counter() - start)
        first = table.seq - len(events) + 1
        for k, event in enumerate(events):
            acked.append([table.code, first + k, event.type, digest(event.type, event.payload())])
    for table in games.values():
        table.refresh(notify=False)
        mismatched += replay_differs(table)
    print(json.dumps({"acked": acked, "latencies": latencies, "refused": refused, "mismatched": mismatched}))


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def setup(url: str, tag: str, tables: int, seats: int, seed: int) -> list[list]:
    store = open_store(url)
    acked = []
    for slot in range(tables):
        acked += new_game(store, tag, slot, 0, seats, seed)[1]
    store.close()
    return acked


def run(url: str, args: argparse.Namespace, label: str) -> dict:
    """One soak on ``url``; returns the figures."""
    tag = "".join(random.Random(label).choice(CODE_ALPHABET) for _ in range(2))
    acked = setup(url, tag, args.tables, args.seats, args.seed)
    env = {**os.environ, STORE_ENV: url}
    started = time.monotonic()
    children = [subprocess.Popen([sys.executable, __file__, "--worker", str(i), str(args.procs), str(args.seconds),
                                  tag, str(args.tables), str(args.seats), str(args.seed)],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
                for i in range(args.procs)]
    results = []
    for child in children:
        out, err = child.communicate()
        if child.returncode:
            raise SystemExit(f"worker failed:\n{err[-3000:]}")
        results.append(json.loads(out.strip().splitlines()[-1]))
    wall = time.monotonic() - started
    for r in results:
        acked += r["acked"]
    store = open_store(url)
    codes = [code_for(tag, slot, gen) for slot in range(args.tables)
             for gen in range(len(CODE_ALPHABET) ** 2) if gen == 0 or store.table_exists(code_for(tag, slot, gen))]
    expected: dict[str, dict[int, tuple[str, str]]] = {}
    duplicated = 0
    for code, seq, kind, dig in acked:
        if seq in expected.setdefault(code, {}):
            duplicated += 1  # two appends acknowledged with one seq
        expected[code][seq] = (kind, dig)
    lost = phantom = reordered = gaps = replay_diff = 0
    games_over = rounds = 0
    for code in codes:
        records = store.load(code)
        stored = {r.seq: (r.type, digest(r.type, r.payload)) for r in records}
        seqs = [r.seq for r in records]
        gaps += seqs != list(range(1, len(seqs) + 1))
        want = expected.get(code, {})
        lost += sum(1 for seq in want if seq not in stored)
        phantom += sum(1 for seq in stored if seq not in want)
        reordered += sum(1 for seq, value in want.items() if seq in stored and stored[seq] != value)
        table = Table.open(code, store)
        replay_diff += table.state != table.replayed()
        games_over += table.state.phase == "over"
        rounds += len(table.state.history)
    store.close()
    latencies = [x * 1000 for r in results for x in r["latencies"]]
    events = sum(len(v) for v in expected.values())
    figures = {
        "label": label, "wall": wall, "actions": len(latencies), "events": events,
        "refused": sum(r["refused"] for r in results), "lost": lost, "duplicated": duplicated + phantom,
        "reordered": reordered, "gaps": gaps, "replay_diff": replay_diff + sum(r["mismatched"] for r in results),
        "rounds": rounds, "games_over": games_over,
        "p50": statistics.median(latencies) if latencies else 0.0,
        "p95": percentile(latencies, 0.95) if latencies else 0.0, "max": max(latencies, default=0.0),
    }
    print(f"{label}: {args.tables} tables x {args.seats} seats in {args.procs} processes, {wall:.0f} s: "
          f"{figures['actions']} actions ({figures['actions'] / wall:.0f}/s), {events} events, "
          f"{figures['refused']} moves refused after a race, {rounds} rounds played, {games_over} of {len(codes)} games finished")
    print(f"  check: {lost} lost, {figures['duplicated']} duplicated, {reordered} reordered events, "
          f"{gaps} games with a seq gap; replay != state for {figures['replay_diff']} of {len(codes)} games "
          f"(stored, and every worker's copy)")
    print(f"  Table.act latency: p50 {figures['p50']:.1f} ms, p95 {figures['p95']:.1f} ms, max {figures['max']:.1f} ms")
    return figures


def soak(url_for, args: argparse.Namespace, kind: str) -> int:
    base = argparse.Namespace(**{**vars(args), "tables": 1, "procs": 1, "seconds": max(3.0, min(10.0, args.seconds / 6))})
    run(url_for("baseline"), base, f"{kind} baseline (1 table, 1 process)")
    figures = run(url_for("soak"), args, f"{kind} soak")
    bad = figures["lost"] + figures["duplicated"] + figures["reordered"] + figures["gaps"] + figures["replay_diff"]
    print("OK: nothing lost, duplicated or reordered; every replay equals its state" if not bad else "FAILED")
    return 1 if bad else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=120.0, help="how long the workers play (default 120)")
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--seats", type=int, default=5)
    parser.add_argument("--procs", type=int, default=8)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--dir", type=Path, default=None, help="where to put the SQLite files")
    parser.add_argument("--postgres", action="store_true", help="soak a throwaway PostgreSQL server")
    parser.add_argument("--fast", action="store_true", help="with --postgres: fsync and synchronous_commit off")
    parser.add_argument("--smoke", action="store_true", help="CI: 3 s, 2 tables of 3 seats, 2 processes")
    args = parser.parse_args()
    if args.smoke:
        args.seconds, args.tables, args.seats, args.procs = 3.0, 2, 3, 2
    print(f"{os.cpu_count()} CPUs, Python {sys.version.split()[0]}")
    if args.postgres:
        from pg_server import FAST_SETTINGS, PostgresServer

        with PostgresServer(settings=FAST_SETTINGS if args.fast else {}) as server:
            print(f"temporary PostgreSQL on 127.0.0.1:{server.port} ({'fast' if args.fast else 'durable'} settings)")
            return soak(lambda name: server.create_database(name), args, "postgres")
    tmp = args.dir or Path(tempfile.mkdtemp(prefix="dichotomy-soak-"))
    tmp.mkdir(parents=True, exist_ok=True)
    print(f"SQLite files in {tmp}")
    return soak(lambda name: str(tmp / f"{name}.sqlite3"), args, "sqlite")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        worker(int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), sys.argv[5], int(sys.argv[6]),
               int(sys.argv[7]), int(sys.argv[8]))
    else:
        sys.exit(main())
