#!/usr/bin/env python3
"""Benchmark dichotomy_widget.words: import time, per-language load time and memory, pairs per second.

    python bench/words.py                # all six languages, one fresh subprocess each
    python bench/words.py --langs en,de --pairs 20000

For each language a fresh interpreter imports the package, measures its RSS, answers one pair
(this opens the language's lexicon: the "load"), measures RSS again, then times
``is_variant`` on random pairs of real words from the lexicon: a cold pass (every pair new)
and a warm pass (the same pairs again, served by the caches, as in a game where the same
clues and words recur). Budgets from issue 5: load adds <= 60 MB, first answer <= 0.5 s,
> 50,000 pairs/s after caching, ``import dichotomy_widget`` < 0.3 s.
"""

from __future__ import annotations

import argparse
import json
import random
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LANGS = ("en", "es", "fr", "de", "it", "pt")


def rss_mb() -> float:
    """Resident set size of this process in MB (Linux /proc)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def sample_words(table: str, n: int, seed: int = 5) -> list[str]:
    """``n`` word forms drawn from a language's lexicon table (read before the timed part)."""
    db = sqlite3.connect(table)
    total = db.execute("SELECT count(*) FROM lex").fetchone()[0]
    rng = random.Random(seed)
    rows = db.execute("SELECT form FROM lex").fetchall()
    db.close()
    return [rows[rng.randrange(total)][0] for _ in range(n)]


def make_pairs(words: list[str], n: int, seed: int = 7) -> list[tuple[str, str]]:
    """Random pairs, half of them a word against a near neighbour in sorted order (shared stems)."""
    rng = random.Random(seed)
    ordered = sorted(words)
    pairs = []
    for i in range(n):
        if i % 2:
            j = rng.randrange(len(ordered) - 1)
            pairs.append((ordered[j], ordered[j + 1]))
        else:
            pairs.append((rng.choice(words), rng.choice(words)))
    return pairs


def child(lang: str, n_pairs: int, repeat: int, table: str) -> dict:
    """Run in a fresh interpreter: measure one language (its table already built by the parent)."""
    sys.path.insert(0, str(ROOT))
    pairs = make_pairs(sample_words(table, max(2000, n_pairs // 5)), n_pairs)
    rss0 = rss_mb()
    t0 = time.perf_counter()
    import dichotomy_widget  # noqa: F401
    from dichotomy_widget.words import matcher as words

    import_s = time.perf_counter() - t0
    rss_import = rss_mb()
    t0 = time.perf_counter()
    words.is_variant("rivers", "river", lang)
    first_s = time.perf_counter() - t0
    rss_loaded = rss_mb()
    cold = float("inf")
    for attempt in range(repeat):  # best of a few cold passes: the machine may be shared
        if attempt:
            words._clear_caches()
        t0 = time.perf_counter()
        for a, b in pairs:
            words.is_variant(a, b, lang)
        cold = min(cold, time.perf_counter() - t0)
        if not attempt:
            rss_cold = rss_mb()
    t0 = time.perf_counter()
    for _ in range(3):
        for a, b in pairs:
            words.is_variant(a, b, lang)
    warm = (time.perf_counter() - t0) / 3  # three passes over pairs already answered
    return {
        "lang": lang,
        "import_s": import_s,
        "first_answer_s": first_s,
        "rss_start_mb": rss0,
        "rss_after_import_mb": rss_import,
        "load_added_mb": rss_loaded - rss_import,
        "added_after_pairs_mb": rss_cold - rss_import,
        "pairs": len(pairs),
        "cold_pairs_per_s": len(pairs) / cold,
        "warm_pairs_per_s": len(pairs) / warm,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--langs", default=",".join(LANGS))
    ap.add_argument("--pairs", type=int, default=20_000)
    ap.add_argument("--repeat", type=int, default=3, help="cold passes per language (the best is shown)")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--table", help=argparse.SUPPRESS)
    ap.add_argument("--smoke", action="store_true", help="CI: en and de, 200 pairs, one pass")
    args = ap.parse_args(argv)
    if args.smoke:
        args.langs, args.pairs, args.repeat = "en,de", 200, 1
    if args.child:
        print(json.dumps(child(args.child, args.pairs, args.repeat, args.table)))
        return 0
    print(f"{'lang':4} {'import s':>8} {'first s':>8} {'load MB':>8} {'MB after':>9} "
          f"{'cold pairs/s':>13} {'warm pairs/s':>13}")
    sys.path.insert(0, str(ROOT))
    from dichotomy_widget.wordsdata import tables

    for lang in args.langs.split(","):
        table = tables.table_path(lang)  # built first if its sources changed: not part of the figures
        out = subprocess.run(
            [sys.executable, __file__, "--child", lang, "--pairs", str(args.pairs), "--repeat", str(args.repeat),
             "--table", str(table)],
            capture_output=True, text=True, check=True,
        )
        r = json.loads(out.stdout.strip().splitlines()[-1])
        print(f"{lang:4} {r['import_s']:8.3f} {r['first_answer_s']:8.3f} {r['load_added_mb']:8.1f} "
              f"{r['added_after_pairs_mb']:9.1f} {r['cold_pairs_per_s']:13,.0f} {r['warm_pairs_per_s']:13,.0f}")
    print("load MB: RSS added by opening the language and answering one pair; MB after: RSS added "
          f"after {args.pairs:,} distinct pairs (caches filled); cold: best of {args.repeat} passes from empty "
          "caches (every word looked up in SQLite); warm: the same pairs again.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
