#!/usr/bin/env python3
"""Benchmark bot players on the packaged decks: bot writers with a bot Guesser, beside a baseline.

    python bench/bots.py                  # every packaged deck, 30 games of 13 cards each
    python bench/bots.py --smoke          # 2 short games per language over 20 cards: a quick check that it runs (CI)
    python bench/bots.py --langs en,fr --games 50 --writers 3 --level 3

Per language, games on the rules core (every move checked by ``rules.decide``, as ``Table.act`` does):
``--writers`` bot writers and one bot Guesser who guesses every round (a practice table's shape).

* bot: cards scored of the round deck (13), Foil guesses, wrong guesses and passes per game;
* baseline: the same games (same seeds, same bot writers) where the Guesser names a random deck word
  not played yet, measured in the same run;
* refused: bot moves the rules refused (must be 0: the script exits 1 otherwise);
* cancelled: bot clues eliminated because they matched another bot's clue (must be 0 too), and
  empty clues (a writer with no clue left for that pair);
* a language without relation data (Italian) is reported as such: bots cannot play it.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from dichotomy_widget.bots import Bot, default_source, knowledge  # noqa: E402
from dichotomy_widget.bots.simulate import new_game, play  # noqa: E402
from dichotomy_widget.decks import load_deck, packaged_decks  # noqa: E402


def random_guesser(vocabulary: list[str], rng: random.Random):
    """The baseline Guesser: a random deck word not played yet (never a pass)."""
    def decide(view: dict) -> dict:
        played = {w for r in view["history"] for w in (r["target"], r["foil"])}
        return {"type": "guess", "text": rng.choice([w for w in vocabulary if w not in played])}
    return decide


def summarize(games: list) -> dict:
    n = len(games)
    outcomes = [r.outcome for g in games for r in g.state.history]
    return {"games": n, "scored": round(sum(len(g.state.score_pile) for g in games) / n, 2),
            "foil": round(outcomes.count("foil") / n, 2), "wrong": round(outcomes.count("wrong") / n, 2),
            "pass": round(outcomes.count("pass") / n, 2), "correct_rounds": f"{outcomes.count('correct')}/{len(outcomes)}"}


def bench_language(lang: str, games: int, writers: int, rounds: int, level: int, seed: int,
                   cards_limit: int | None = None) -> dict:
    source = default_source()
    know = knowledge(source, lang)
    if not know.playable:
        return {"lang": lang, "playable": False}
    deck = load_deck(lang)
    cards = [[(p.target, p.foil) for p in card.pairs] for card in deck.cards][:cards_limit]
    vocabulary = sorted({w for c in cards for p in c for w in p})
    bot = Bot(know, vocabulary, level=level)
    rounds = min(rounds, len(cards))
    began = time.perf_counter()
    played, baseline = [], []
    for game in range(games):
        state = new_game(cards, writers + 1, seed=seed + game, rounds=rounds, lang=lang, fixed_guesser=True)
        bots = {s: bot for s in range(writers + 1)}
        played.append(play(state, bots))
        baseline.append(play(state, bots, guesser=random_guesser(vocabulary, random.Random(seed + game))))
    took = time.perf_counter() - began
    clues = sum(g.clues for g in played)
    slots = sum(g.clues + g.empty for g in played)
    return {"lang": lang, "playable": True, "rounds": rounds, "bot": summarize(played),
            "baseline": summarize(baseline), "refused": sum(len(g.refused) for g in played + baseline),
            "cancelled": sum(g.cancelled for g in played), "clues": clues,
            "empty_share": round(1 - clues / slots, 3) if slots else 0.0,
            "unfinished": sum(g.state.phase != "over" for g in played + baseline),
            "deck_cards": len(cards), "seconds": round(took, 1)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="2 short games per language (CI)")
    parser.add_argument("--langs", default=",".join(packaged_decks()), help="comma-separated deck languages")
    parser.add_argument("--games", type=int, default=30)
    parser.add_argument("--writers", type=int, default=3, help="bot writers (2 to 6)")
    parser.add_argument("--rounds", type=int, default=13)
    parser.add_argument("--level", type=int, default=3, help="the Guesser bot's level (1 to 3)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--cards", type=int, default=None, help="use only the deck's first N cards")
    parser.add_argument("--json", action="store_true", help="print JSON rows instead of a table")
    args = parser.parse_args(argv)
    games, rounds, cards = (2, 3, 20) if args.smoke else (args.games, args.rounds, args.cards)
    rows = [bench_language(lang, games, args.writers, rounds, args.level, args.seed, cards)
            for lang in args.langs.split(",") if lang]
    if args.json:
        print(json.dumps(rows, indent=1))
    else:
        print(f"{args.writers} bot writers, a level-{args.level} bot Guesser; {games} games per language"
              f"{f' over the first {cards} cards' if cards else ''}; per game:")
        print(f"{'lang':4} {'cards':>5} | {'bot scored':>10} {'foil':>5} {'wrong':>5} {'pass':>5} | "
              f"{'random scored':>13} {'foil':>5} | {'refused':>7} {'cancelled':>9} {'empty':>6} {'s':>6}")
        for r in rows:
            if not r["playable"]:
                print(f"{r['lang']:4} bots cannot play this language: no word relations")
                continue
            b, z = r["bot"], r["baseline"]
            print(f"{r['lang']:4} {r['rounds']:>5} | {b['scored']:>10} {b['foil']:>5} {b['wrong']:>5} {b['pass']:>5} | "
                  f"{z['scored']:>13} {z['foil']:>5} | {r['refused']:>7} {r['cancelled']:>9} "
                  f"{r['empty_share']:>6.1%} {r['seconds']:>6}")
    bad = [r["lang"] for r in rows if r["playable"] and (r["refused"] or r["cancelled"] or r["unfinished"])]
    if bad:
        print(f"FAIL: refused, cancelled or unfinished bot games in {', '.join(bad)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
