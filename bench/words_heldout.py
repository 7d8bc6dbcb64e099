#!/usr/bin/env python3
"""Recall of dichotomy_widget.words on inflections that a hunspell dictionary lists.

    apt-get install hunspell-en-us hunspell-de-de hunspell-fr hunspell-es hunspell-it hunspell-pt-br
    pip install spylls
    python bench/words_heldout.py                  # 3000 pairs per language
    python bench/words_heldout.py --langs de --pairs 10000 --misses 30

Each dictionary entry is expanded with its inflection suffix classes only (plural, verb forms,
declension, comparison; derivations such as -ung, -bar, -ness, -ción are left out), and random
(headword, form) pairs are checked with ``is_variant`` (clues) and ``guess_reason`` (guesses).

The English (SCOWL), German (igerman98), Italian (it_IT) and Brazilian Portuguese (pt_BR, VERO)
dictionaries are *not* used to build the shipped tables, so for en, de, it and pt these are
held-out figures (the Portuguese tables are built from European Portuguese pt_PT and simplemma).
The French and Spanish dictionaries are build inputs; their lines only show that the build kept
what it read.
"""

from __future__ import annotations

import argparse
import random
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from dichotomy_widget.words import guess_reason, is_variant  # noqa: E402

DICTIONARIES = {
    "en": "/usr/share/hunspell/en_US",
    "de": "/usr/share/hunspell/de_DE",
    "fr": "/usr/share/hunspell/fr",
    "es": "/usr/share/hunspell/es_ES",
    "it": "/usr/share/hunspell/it_IT",
    "pt": "/usr/share/hunspell/pt_BR",
}
HELD_OUT = {"en", "de", "it", "pt"}
# Inflection classes per .aff file (read off the files; every other class derives a new word).
# en_US: S plural, D past, G -ing, T superlative; R (comparative, but also agent -er) only
# for entries that also have T.  es_ES: all but the derivation classes listed.
INFLECTION = {
    "en": lambda flag, flags: flag in "SDGT" or (flag == "R" and "T" in flags),
    "de": lambda flag, flags: flag not in ("F", "L", "M", "J", "B", "g", "j", "e"),
    "fr": lambda flag, flags: True,
    "es": lambda flag, flags: flag not in "ABCFHJKLMNOPQTU",
    # it_IT: conjugation (A B C P V Z À f t z) and number/gender classes; clitic, -mente,
    # -issimo, -ino and numeral classes are derivations or pronoun forms.
    "it": lambda flag, flags: flag in "ABCPVZÀftzGHOQRSonpuga",
    # pt_BR (VERO): number/gender (A-D, F) and conjugation classes (a-i, t, u, w); -zinho, -zão,
    # -íssimo, -mente, -dor, -nte and the hyphenated clitic classes are left out.
    "pt": lambda flag, flags: flag in "ABCDFabcdefghituw",
}
# Forms of an inflection class that are still no inflection: superlatives, adverbs, diminutives,
# and Portuguese verb stems cut for a clitic (falá- in falá-lo).
NOT_INFLECTED = {
    "it": re.compile(r"(issim[oaie]|mente)$"),
    "pt": re.compile(r"(íssim[oa]s?|issim[oa]s?|mente|inh[oa]s?|z[ãõ]o|zões|[áêôí])$"),
}


def inflections(lang: str) -> list[tuple[str, str]]:
    """(headword, inflected form) pairs from one hunspell dictionary."""
    from spylls.hunspell import Dictionary

    dictionary = Dictionary.from_files(DICTIONARIES[lang])
    keep = INFLECTION[lang]
    skip = NOT_INFLECTED.get(lang)
    pairs = []
    for entry in dictionary.dic.words:
        stem = entry.stem
        if not stem or " " in stem or (lang != "de" and not stem[0].islower()):
            continue
        entry_pairs = []
        for flag in sorted(entry.flags):  # a set: sorted, so every run samples the same pairs
            if not keep(flag, entry.flags):
                continue
            for rule in dictionary.aff.SFX.get(flag, ()):
                if stem.endswith(rule.strip) and rule.cond_regexp.search(stem):
                    form = stem[: len(stem) - len(rule.strip)] + rule.add
                    if form.lower() != stem.lower() and form.isalpha() and not (skip and skip.search(form)):
                        entry_pairs.append((stem, form))
        if lang == "pt":  # pt_BR also lists verb forms cut before a clitic: agradamo(-lo)
            forms = {form for _stem, form in entry_pairs}
            entry_pairs = [(a, f) for a, f in entry_pairs if not (f.endswith("mo") and f + "s" in forms)]
        pairs += entry_pairs
    return pairs


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--langs", default="en,de,fr,es,it,pt")
    ap.add_argument("--pairs", type=int, default=3000)
    ap.add_argument("--misses", type=int, default=12, help="missed pairs to list per language")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--smoke", action="store_true", help="CI: en and de (hunspell-en-us, hunspell-de-de), 50 pairs")
    args = ap.parse_args(argv)
    if args.smoke:
        args.langs, args.pairs, args.misses = "en,de", 50, 2
    print(f"{'lang':4} {'source':10} {'listed':>8} {'sampled':>8} {'clue recall':>12} {'guess recall':>13}")
    for lang in args.langs.split(","):
        if not Path(DICTIONARIES[lang] + ".dic").is_file():
            print(f"{lang:4} missing {DICTIONARIES[lang]}.dic (apt-get install the hunspell package)")
            continue
        pairs = inflections(lang)
        sample = random.Random(args.seed).sample(pairs, min(args.pairs, len(pairs)))
        clue_misses = [p for p in sample if not is_variant(p[0], p[1], lang)]
        guess_misses = [p for p in sample if guess_reason(p[1], p[0], lang) is None]
        source = "held out" if lang in HELD_OUT else "build input"
        print(f"{lang:4} {source:10} {len(pairs):8,} {len(sample):8,} "
              f"{1 - len(clue_misses) / len(sample):12.2%} {1 - len(guess_misses) / len(sample):13.2%}")
        if clue_misses and args.misses:
            print("     missed:", ", ".join(f"{a}/{b}" for a, b in clue_misses[: args.misses]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
