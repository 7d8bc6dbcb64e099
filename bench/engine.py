"""Engine benchmark: full 7-seat games per second, and the cost of ``import dichotomy_widget``.

    python bench/engine.py [--games 300] [--seats 7]

Prints games/s for the pure rules core (decide/evolve), for the same with every seat's view rendered
after every event, and for the Table on an in-memory store; then the import time in a fresh process.
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import time

from dichotomy_widget import Table, rules
from dichotomy_widget.decks import load_deck
from dichotomy_widget.events import SeatJoined, TableCreated
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


def legal_moves(state: rules.GameState) -> list[tuple[int, str]]:
    """Every (seat, action type) that may be sent now; asks only the seats that can have a move."""
    candidates = {state.drawer, state.current_writer, state.guesser}
    if state.phase == "recap":
        candidates.update(state.order)
    return [(s, a) for s in state.order if s in candidates for a in rules.allowed_actions(state, s)]


def core_game(cards: tuple, seats: int, seed: int, with_views: bool) -> int:
    """One full game through decide/evolve; returns the number of events."""
    rng = random.Random(seed)
    state = rules.initial_state()
    events = [TableCreated(seed=seed, lang="en", rounds=13, deck_name="en", cards=cards)]
    events += [SeatJoined(seat=i, name=f"P{i}", token_hash="") for i in range(seats)]
    state = rules.replay(events)
    state = rules.replay(rules.decide(state, rules.parse_action(None, {"type": "start"})), state)
    count = len(events) + 1
    while state.phase != "over":
        seat, kind = rng.choice(legal_moves(state))
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
        seat, kind = rng.choice(legal_moves(state))
        try:
            table.act(seat, choose(rng, state, seat, kind))
        except rules.RuleViolation:
            pass


def rate(fn, games: int) -> tuple[float, float]:
    start = time.perf_counter()
    for i in range(games):
        fn(i)
    elapsed = time.perf_counter() - start
    return games / elapsed, elapsed


def import_cost(repeats: int = 7) -> float:
    times = []
    for _ in range(repeats):
        out = subprocess.run([sys.executable, "-c", "import time; t=time.perf_counter(); import dichotomy_widget; "
                              "print(time.perf_counter()-t)"], capture_output=True, text=True, check=True)
        times.append(float(out.stdout))
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--seats", type=int, default=7)
    args = parser.parse_args()
    deck = load_deck("en")
    cards = tuple(c.to_json() for c in deck.cards)
    core_game(cards, args.seats, 0, False)  # warm caches (stemmer, word data)
    rows = [
        ("rules core (decide/evolve)", rate(lambda i: core_game(cards, args.seats, i, False), args.games)),
        ("rules core + every seat's view per event", rate(lambda i: core_game(cards, args.seats, i, True), args.games // 3)),
        ("Table on MemoryStore", rate(lambda i: table_game(deck, args.seats, i), args.games // 3)),
    ]
    print(f"{args.seats}-seat games of 13 rounds, English deck, Python {sys.version.split()[0]}")
    print(f"{'what':45} {'games/s':>10} {'seconds':>9}")
    for name, (per_s, secs) in rows:
        print(f"{name:45} {per_s:10.1f} {secs:9.2f}")
    print(f"{'import dichotomy_widget (median of 7, fresh process)':45} {import_cost():9.3f} s")


if __name__ == "__main__":
    main()
