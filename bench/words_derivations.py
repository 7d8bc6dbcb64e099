#!/usr/bin/env python3
"""Recall of dichotomy_widget.words on German derivations that the igerman98 dictionary lists.

    apt-get install hunspell-de-de && pip install spylls
    python bench/words_derivations.py                  # the matcher of this checkout
    python bench/words_derivations.py --root DIR       # another checkout (a baseline)

The German hunspell dictionary (igerman98, GPL: *not* read by the table build, so these are
held-out figures) marks some entries with derivation classes: F (feminine -in: Lehrerin),
J (-ung: Sammlung), B (-bar: veränderbar), M (-chen: Häuschen) and L (-tlich: wesentlich).  Each
(headword, derived word) pair, the derived word in its citation form, is checked with
``is_variant``.  Recall only: precision on look-alikes is ``bench/words_false_friends.py``.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

DICTIONARY = "/usr/share/hunspell/de_DE"
CLASSES = {"F": "in", "J": "ung", "B": "bar", "M": "chen", "L": "lich"}  # flag -> citation ending


def derivations() -> dict[str, list[tuple[str, str]]]:
    """(headword, derived word) pairs per derivation class, in dictionary order."""
    from spylls.hunspell import Dictionary

    dictionary = Dictionary.from_files(DICTIONARY)
    out: dict[str, list[tuple[str, str]]] = {flag: [] for flag in CLASSES}
    for entry in dictionary.dic.words:
        stem = entry.stem
        if not stem or not stem.isalpha():
            continue
        for flag in sorted(entry.flags & set(CLASSES)):
            for rule in dictionary.aff.SFX.get(flag, ()):
                if stem.endswith(rule.strip) and rule.cond_regexp.search(stem):
                    form = stem[: len(stem) - len(rule.strip)] + rule.add
                    if form.endswith(CLASSES[flag]) and form.isalpha() and form.lower() != stem.lower():
                        out[flag].append((stem, form))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[1],
                    help="checkout whose dichotomy_widget is measured (default: this one)")
    ap.add_argument("--pairs", type=int, default=1500, help="pairs sampled per class")
    ap.add_argument("--misses", type=int, default=10, help="missed pairs to list per class")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--smoke", action="store_true", help="CI: 50 pairs per class")
    args = ap.parse_args(argv)
    if args.smoke:
        args.pairs, args.misses = 50, 2
    if not Path(DICTIONARY + ".dic").is_file():
        print(f"missing {DICTIONARY}.dic (apt-get install hunspell-de-de)")
        return 1
    sys.path.insert(0, str(args.root))
    from dichotomy_widget.words import is_variant

    found = total = 0
    for flag, pairs in derivations().items():
        pairs = sorted(set(pairs))
        sample = random.Random(args.seed).sample(pairs, min(args.pairs, len(pairs)))
        misses = [p for p in sample if not is_variant(p[0], p[1], "de")]
        found, total = found + len(sample) - len(misses), total + len(sample)
        print(f"de -{CLASSES[flag]:5} listed {len(pairs):6,}  sampled {len(sample):5,}  "
              f"recall {1 - len(misses) / len(sample):7.2%}")
        if misses and args.misses:
            print("     missed:", ", ".join(f"{a}/{b}" for a, b in misses[: args.misses]))
    print(f"de all    sampled {total:5,}  recall {found / total:7.2%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
