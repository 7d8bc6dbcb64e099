"""Engine benchmark: full 7-seat games per second, and the cost of ``import dichotomy_widget``.

    python bench/engine.py [--games 300] [--seats 7] [--smoke]
    python bench/engine.py --baseline-tree /path/to/other/checkout [--runs 5]

Prints games/s for the pure rules core (decide/evolve), for the same with every seat's view rendered
after every event, and for the Table on an in-memory store (wall clock, and per CPU second of this
process, which a busy machine disturbs less); then the import time in a fresh process. The bots pick
uniformly among :func:`rules.legal_moves`. ``--smoke``: 6 games, one import (for CI).

``--baseline-tree``: the same measurement of this script, in fresh processes, alternately with this
tree's package and the other checkout's (its ``PYTHONPATH``), ``--runs`` times each; prints the
median of each side and their ratio, with the load average before and after (a noisy machine
disturbs both sides alike).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

from dichotomy_widget import Table, rules
from dichotomy_widget.decks import load_deck
from dichotomy_widget.events import SeatJoined, TableCreated
from dichotomy_widget.options import TableOptions
from dichotomy_widget.views import seat_view

CLUES = ["anchor", "velvet", "meadow", "compass", "trumpet", "saddle", "anchor", "lantern"]


def choose(rng: random.Random, state: rules.GameState, seat: int, kind: str) -> dict:
    action: dict = {"type": kind}
    if kind == "pick":
        action["pair"] = rng.randint(1, 5)
    elif kind == "clue":
        action["text"] = rng.choice(CLUES)
    elif kind == "guess":
        action["text"] = rng.choice([state.target, state.foil, "nothing", ""])
    return action


def core_game(cards: tuple, seats: int, seed: int, with_views: bool) -> int:
    """One full game through decide/evolve; returns the number of events."""
    rng = random.Random(seed)
    state = rules.initial_state()
    events = [TableCreated(seed=seed, lang="en", deck_name="en", cards=cards, options=TableOptions(rounds=13))]
    events += [SeatJoined(seat=i, name=f"P{i}", token_hash="") for i in range(seats)]
    state = rules.replay(events)
    state = rules.replay(rules.decide(state, rules.parse_action(None, {"type": "start"})), state)
    count = len(events) + 1
    while state.phase != "over":
        seat, kind = rng.choice(rules.legal_moves(state))
        try:
            new = rules.decide(state, rules.parse_action(seat, choose(rng, state, seat, kind)))
        except rules.RuleViolation:
            continue
        for event in new:
            state = rules.evolve(state, event)
            count += 1
            if with_views:
                for viewer in (None, *state.order):
                    seat_view(state, viewer)
    return count


def table_game(deck, seats: int, seed: int) -> None:
    rng = random.Random(seed)
    table = Table.create(deck=deck, seed=seed)
    for i in range(seats):
        table.join(f"P{i}")
    table.start()
    while table.state.phase != "over":
        state = table.state
        seat, kind = rng.choice(rules.legal_moves(state))
        try:
            table.act(seat, choose(rng, state, seat, kind))
        except rules.RuleViolation:
            pass


def rate(fn, games: int) -> tuple[float, float, float]:
    """``(games per wall second, wall seconds, games per CPU second of this process)``."""
    start, cpu = time.perf_counter(), time.process_time()
    for i in range(games):
        fn(i)
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
    return games / elapsed, elapsed, games / max(cpu, 1e-9)


def import_cost(repeats: int = 7) -> float:
    times = []
    for _ in range(repeats):
        out = subprocess.run([sys.executable, "-c", "import time; t=time.perf_counter(); import dichotomy_widget; "
                              "print(time.perf_counter()-t)"], capture_output=True, text=True, check=True)
        times.append(float(out.stdout))
    return statistics.median(times)


def measure(games: int, seats: int) -> list[tuple[str, tuple[float, float, float]]]:
    """The three rows: ``(what, rate(...))``."""
    deck = load_deck("en")
    cards = tuple(c.to_json() for c in deck.cards)
    core_game(cards, seats, 0, False)  # warm caches (stemmer, word data)
    return [
        ("rules core (decide/evolve)", rate(lambda i: core_game(cards, seats, i, False), games)),
        ("rules core + every seat's view per event",
         rate(lambda i: core_game(cards, seats, i, True), max(1, games // 3))),
        ("Table on MemoryStore", rate(lambda i: table_game(deck, seats, i), max(1, games // 3))),
    ]


def _child(tree: str, games: int, seats: int) -> list:
    """:func:`measure` in a fresh process importing ``dichotomy_widget`` from ``tree``."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (tree, os.environ.get("PYTHONPATH", "")) if p))
    out = subprocess.run([sys.executable, __file__, "--child", "--games", str(games), "--seats", str(seats)],
                         capture_output=True, text=True, env=env, cwd=tree, check=True)
    result = json.loads(out.stdout.splitlines()[-1])
    if not Path(result["package"]).is_relative_to(tree):
        raise SystemExit(f"the run for {tree} imported dichotomy_widget from {result['package']}")
    return result["rows"]


def compare(baseline: str, runs: int, games: int, seats: int) -> None:
    """This tree against ``baseline``, alternating fresh processes; medians side by side."""
    here = str(Path(__file__).resolve().parents[1])
    load_before = os.getloadavg()
    results: dict[str, list] = {"this": [], "base": []}
    for i in range(runs):
        order = [("this", here), ("base", baseline)] if i % 2 == 0 else [("base", baseline), ("this", here)]
        for side, tree in order:
            results[side].append(_child(tree, games, seats))
    load_after = os.getloadavg()
    print(f"{seats}-seat games of 13 rounds, English deck, Python {sys.version.split()[0]}; "
          f"{runs} alternating runs per tree, medians")
    print(f"this tree: {here}\nbaseline:  {baseline}")
    print(f"{'what':45} {'games/s':>9} {'base':>9} {'ratio':>6} {'games/CPU-s':>12} {'base':>9} {'ratio':>6}")
    for row, (name, _) in enumerate(results["this"][0]):
        wall = [statistics.median(r[row][1][0] for r in results[side]) for side in ("this", "base")]
        cpu = [statistics.median(r[row][1][2] for r in results[side]) for side in ("this", "base")]
        print(f"{name:45} {wall[0]:9.1f} {wall[1]:9.1f} {wall[0] / wall[1]:6.2f} "
              f"{cpu[0]:12.1f} {cpu[1]:9.1f} {cpu[0] / cpu[1]:6.2f}")
    print(f"load average {load_before[0]:.2f} before, {load_after[0]:.2f} after, on {os.cpu_count()} cores")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--seats", type=int, default=7)
    parser.add_argument("--smoke", action="store_true", help="a few games and one import: checks that the bench runs")
    parser.add_argument("--baseline-tree", default=None,
                        help="another checkout to measure alternately with this one (e.g. a git worktree of main)")
    parser.add_argument("--runs", type=int, default=5, help="with --baseline-tree: runs per tree")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.smoke:
        args.games = min(args.games, 6)
    if args.child:
        import dichotomy_widget

        print(json.dumps({"package": str(Path(dichotomy_widget.__file__).parent), "rows": measure(args.games, args.seats)}))
        return
    if args.baseline_tree:
        compare(str(Path(args.baseline_tree).resolve()), 1 if args.smoke else args.runs, args.games, args.seats)
        return
    rows = measure(args.games, args.seats)
    print(f"{args.seats}-seat games of 13 rounds, English deck, Python {sys.version.split()[0]}")
    print(f"{'what':45} {'games/s':>10} {'seconds':>9} {'games/CPU-s':>12}")
    for name, (per_s, secs, per_cpu_s) in rows:
        print(f"{name:45} {per_s:10.1f} {secs:9.2f} {per_cpu_s:12.1f}")
    print(f"{'import dichotomy_widget (median of ' + str(1 if args.smoke else 7) + ', fresh process)':45} "
          f"{import_cost(1 if args.smoke else 7):9.3f} s")
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores (games/CPU-s moves less with it)")


if __name__ == "__main__":
    main()
