#!/usr/bin/env python3
"""What the run-time derivation rules (es, fr, de) cost: ``is_variant`` with and without them,
in one process, on the same pairs.

    python bench/words_derivation_cost.py                  # es,fr,de, 20,000 pairs, best of 9
    python bench/words_derivation_cost.py --langs de --repeat 15

The pairs are those of ``bench/words.py`` (random words of the shipped lexicon, half of them
neighbours in sorted order, which share a stem).  Each round clears every cache and answers all
pairs twice, once with ``matcher._checked_derivation`` switched off (the matcher as before) and
once with it on; the best round of each is shown, in CPU time of this process, so a busy shared
machine disturbs the comparison less than wall-clock runs in separate processes.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import words as bench_words  # noqa: E402  (bench/words.py: the same sampling)

from dichotomy_widget.words import matcher  # noqa: E402
from dichotomy_widget.wordsdata import tables  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--langs", default="es,fr,de")
    ap.add_argument("--pairs", type=int, default=20_000)
    ap.add_argument("--repeat", type=int, default=9)
    ap.add_argument("--smoke", action="store_true", help="CI: es, 200 pairs, one pass")
    args = ap.parse_args(argv)
    if args.smoke:
        args.langs, args.pairs, args.repeat = "es", 200, 1
    rules_on = matcher._checked_derivation
    print(f"{'lang':4} {'without rules':>16} {'with rules':>16} {'cost':>7}   (new pairs per CPU second)")
    for lang in args.langs.split(","):
        pairs = bench_words.make_pairs(bench_words.sample_words(str(tables.table_path(lang)), max(2000, args.pairs // 5)), args.pairs)
        matcher.is_variant("rivers", "river", lang)  # open the lexicon
        best = {"off": float("inf"), "on": float("inf")}
        try:
            for _ in range(args.repeat):
                for name, check in (("off", lambda *_a: False), ("on", rules_on)):
                    matcher._checked_derivation = check
                    matcher._clear_caches()
                    t0 = time.process_time()
                    for a, b in pairs:
                        matcher.is_variant(a, b, lang)
                    best[name] = min(best[name], time.process_time() - t0)
        finally:
            matcher._checked_derivation = rules_on
            matcher._clear_caches()
        off, on = len(pairs) / best["off"], len(pairs) / best["on"]
        print(f"{lang:4} {off:16,.0f} {on:16,.0f} {best['on'] / best['off'] - 1:+7.0%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
