#!/usr/bin/env python3
"""The lemma pairs that the run-time derivation rules (es, fr, de) join and the tables do not,
over the whole shipped lexicon, with a random sample to judge by eye.

    python bench/words_derivation_links.py es            # counts per rule and 50 sampled pairs
    python bench/words_derivation_links.py de --sample 100 --seed 3

Every lemma is run through ``affix_rules.checked_bases``; a pair counts as new when the matcher
joins it with the rules and not without them (``matcher._checked_derivation`` switched off).
There is no gold standard here: the sample is for reading (which rules join strangers), and the
precision figures in docs/matching.md were judged from such samples.  Takes a minute or two.
"""

from __future__ import annotations

import argparse
import collections
import random
import sqlite3
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from dichotomy_widget.words import affix_rules as rules  # noqa: E402
from dichotomy_widget.words import matcher  # noqa: E402
from dichotomy_widget.wordsdata import tables  # noqa: E402


def rule_of(word: str, base: str, lang: str) -> tuple[str, str] | None:
    """The first run-time rule that makes ``base`` from ``word``."""
    for candidates in rules._checked_rules(lang).values():
        for derived, base_end in candidates:
            stem = word[: len(word) - len(derived)]
            if word.endswith(derived) and len(stem) >= 3 and any(
                rules.derivation_key(s + base_end, lang) == rules.derivation_key(base, lang)
                for s in rules._checked_stems(stem, derived, lang)
            ):
                return derived, base_end
    return None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("lang", nargs="?", choices=("es", "fr", "de"))
    ap.add_argument("--sample", type=int, default=50)
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--smoke", action="store_true", help="CI: es, 5 links")
    args = ap.parse_args(argv)
    if args.smoke:
        args.lang, args.sample = args.lang or "es", 5
    if args.lang is None:
        ap.error("which language? es, fr or de")
    lang = args.lang
    db = sqlite3.connect(f"file:{tables.table_path(lang)}?mode=ro&immutable=1", uri=True)
    words = sorted({w for (w,) in db.execute("SELECT word FROM lem") if matcher._is_word(w)})
    db.close()
    by_key: dict[str, set[str]] = collections.defaultdict(set)
    for word in words:
        by_key[rules.derivation_key(word, lang)].add(word)
    known = set(words)
    pairs = [
        (word, target)
        for word in words
        for base, _plain, _witness in rules.checked_bases(word, lang)
        for target in ({base} if base in known else by_key.get(rules.derivation_key(base, lang), ()))
        if target != word
    ]
    rules_on = matcher._checked_derivation
    try:
        matcher._checked_derivation = lambda *_args: False
        matcher._clear_caches()
        before = {p for p in pairs if matcher._morph_reason(p[0], p[1], lang, False)}
    finally:
        matcher._checked_derivation = rules_on
        matcher._clear_caches()
    new = sorted({p for p in pairs if p not in before and matcher._morph_reason(p[0], p[1], lang, False)})
    print(f"{lang}: {len(words):,} lemmas, {len(set(pairs)):,} rule pairs, {len(new):,} newly joined")
    counts = collections.Counter(rule_of(a, b, lang) for a, b in new)
    print("by rule:", ", ".join(f"-{d}/-{e or '∅'} {n}" for (d, e), n in counts.most_common(25) if d))
    for a, b in random.Random(args.seed).sample(new, min(args.sample, len(new))):
        print(f"  {a} / {b}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
