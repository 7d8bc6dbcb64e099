#!/usr/bin/env python3
"""Recall of dichotomy_widget.words on derivations that held-out hunspell dictionaries list,
per language and per kind (one suffix ending or one prefix).

    apt-get install hunspell-en-us hunspell-de-de hunspell-it hunspell-pt-br && pip install spylls
    python bench/words_derivations.py                      # the matcher of this checkout
    python bench/words_derivations.py --root DIR           # another checkout's matcher
    python bench/words_derivations.py --baseline DIR       # this checkout and DIR, side by side
    python bench/words_derivations.py --langs en,it --pairs 300 --misses 5
    python bench/words_derivations.py --half dev            # only the half rules may be written against

Sources, none read by the table build, so these are held-out figures: en_US (SCOWL), de_DE
(igerman98), it_IT and pt_BR (VERO; the Portuguese tables are built from European Portuguese).
The French and Spanish hunspell files are build inputs, so they are left out (they would only
show that the build kept what it read).

Each entry (lower-case headwords only, except in German) is expanded with one derivation class
at a time, read off the .aff files (``SUFFIXES``, ``PREFIXES``; inflection, clitic, elision and
compound-numeral classes are left out).  A suffixed form is kept in its citation form only (-ness,
not -nesses; -issimo, not -issime), and only forms that are one alphabetic word.  Every class is
reported, so readers can judge each line: some derived words are not variants of their base in
meaning (achten / verachten), and some lines are mostly the dictionary's packing, not morphology
(en_US disaster under aster/dis-, consonant under sonant/con-; flamen under flam/-en).

For each kind a seeded sample of distinct (headword, derived) pairs is checked with
``is_variant(headword, derived, lang)``; ``--baseline`` checks the same pairs in the same run
with another checkout's matcher (each checkout in a process of its own).  The "all" lines pool a
language's samples (at most --pairs per kind).  Recall only: precision on look-alikes is
``bench/words_false_friends.py``.

Each kind's pairs are split into a "dev" and a "test" half by a stable hash of (language,
headword, derived word, --split-seed); each half is sampled and reported on its own (``--half``).
Missed pairs are listed from the dev half only: write rules against dev misses, and judge them on
the test half, which no rule was written against.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
DICTIONARIES = {"en": "/usr/share/hunspell/en_US", "de": "/usr/share/hunspell/de_DE",
                "it": "/usr/share/hunspell/it_IT", "pt": "/usr/share/hunspell/pt_BR"}
PARTICIPLE_GRADES = ("damente", "dão", "dinho", "dinha", "díssimo", "dona")  # pt_BR L, b: vendidinho
# Suffix class flag -> citation endings (a form is kept, under the longest ending it ends with).
SUFFIXES: dict[str, dict[str, tuple[str, ...]]] = {
    # en_US: R is the agent -er only on entries without T (with T it is the comparative);
    # N is -ion / -ication, and -en on other stems (wooden, darken); H the ordinal -th.
    # X, Z, J are the plurals of N, R and -ing; G, D, S, T inflections; M the possessive.
    "en": {"P": ("ness",), "Y": ("ly",), "B": ("able",), "L": ("ment",), "N": ("ion", "en"),
           "V": ("ive",), "R": ("er",), "H": ("th",)},
    # de_DE (igerman98): feminine -in, -ung, -bar, diminutive -chen, -lich.
    "de": {"F": ("in",), "J": ("ung",), "B": ("bar",), "M": ("chen",), "L": ("lich",)},
    # it_IT: Y -mente (and -issimamente), W and y the superlative -issimo / -errimo, N the
    # diminutives -ina / -etta and augmentative -ona of nouns in -a, @ the ordinal -esimo.
    "it": {"Y": ("mente", "issimamente"), "W": ("issimo", "errimo"), "y": ("issimo",),
           "N": ("ina", "etta", "ona"), "@": ("esimo",)},
    # pt_BR (VERO): grade (E G O-W 6 7: -zinho, -inha, -ão, -ona ...), superlative H I, adverbs
    # J K, participle grades L b, -mento M, -tório N, -idade X, -nte Y, -ismo Z 1, -ista 2 3,
    # -ógico 4, -dor j.  The clitic classes (k-s v), states and countries (5 8 9) are left out.
    # W (-ona) also turns every noun in -ção / -são into "-çona" / "-sona" (ação / "açona",
    # prisão / "prisona"), which are no words: those forms are dropped.
    "pt": {"E": ("zão", "zinho"), "G": ("zão", "zinho"), "H": ("íssimo", "issimamente"),
           "I": ("íssimo", "issimamente"), "J": ("mente",), "K": ("mente",),
           "L": PARTICIPLE_GRADES, "b": PARTICIPLE_GRADES,
           "M": ("mento",), "N": ("tório",), "O": ("inha",), "P": ("inho",), "Q": ("zinha", "inha"),
           "R": ("zinho", "inho"), "S": ("zinha",), "T": ("zinho",), "U": ("zinho",), "V": ("ão", "zão"),
           "W": ("ona",), "X": ("idade",), "Y": ("nte",), "Z": ("ismo",), "1": ("ismo",),
           "2": ("ista",), "3": ("ista",), "4": ("ógico",), "6": ("ão",), "7": ("zinha",), "j": ("dor",)},
}
# Prefix classes (every rule of a class adds the same prefix, give or take a doubled r/s or a hyphen).
PREFIXES: dict[str, str] = {
    "en": "AIUCEFK",  # re- in- un- de- dis- con- pro-
    "de": "UV",  # un- ver-
    "it": "Jde",  # ri- stra- pre-; the other PFX classes are elisions and numerals
    "pt": "ÀÁÂÃÄÈÉÊËÌÍÎÏÒÓÔÕÖÙÚÛÜÑàáâãäèéêëìíîïòóôõöùúûüñ",  # re- anti- des- auto- in- sub- ...
}


def derivations(lang: str) -> dict[str, set[tuple[str, str]]]:
    """(headword, derived word) pairs per kind ("suffix -ness", "prefix re-") of one dictionary."""
    from spylls.hunspell import Dictionary

    dictionary = Dictionary.from_files(DICTIONARIES[lang])
    aff, suffixes, prefixes = dictionary.aff, SUFFIXES[lang], set(PREFIXES[lang])
    out: dict[str, set[tuple[str, str]]] = defaultdict(set)
    for entry in dictionary.dic.words:
        stem = entry.stem
        if not stem or not stem.isalpha() or (lang != "de" and not stem[0].islower()):
            continue
        for flag in sorted(entry.flags):  # a set: sorted, so every run lists the same pairs
            if flag in suffixes and not (lang == "en" and flag == "R" and "T" in entry.flags):
                endings = sorted(suffixes[flag], key=len, reverse=True)
                for rule in aff.SFX.get(flag, ()):
                    if stem.endswith(rule.strip) and rule.cond_regexp.search(stem):
                        form = stem[: len(stem) - len(rule.strip)] + rule.add
                        ending = next((e for e in endings if form.endswith(e)), None)
                        if lang == "pt" and flag == "W" and stem.endswith(("ção", "são")):
                            continue
                        if ending and form.isalpha() and form.lower() != stem.lower():
                            out[f"suffix -{ending}"].add((stem, form))
            if flag in prefixes:
                rules = aff.PFX.get(flag, ())
                for rule in rules:
                    if stem.startswith(rule.strip) and rule.cond_regexp.search(stem):
                        form = rule.add + stem[len(rule.strip):]
                        if form.isalpha() and form.lower() != stem.lower():
                            out[f"prefix {rules[0].add.rstrip('-')}-"].add((stem, form))
    return out


def half_of(lang: str, pair: tuple[str, str], split_seed: int) -> str:
    """"dev" or "test": the half a pair falls in, by a stable hash (the same in every run)."""
    digest = hashlib.sha256(f"{split_seed}\t{lang}\t{pair[0]}\t{pair[1]}".encode()).digest()
    return "dev" if digest[0] % 2 == 0 else "test"


def judge(root: Path, pairs: list[tuple[str, str, str]]) -> tuple[str, list[bool]]:
    """``is_variant(headword, derived, lang)`` of each pair with the matcher of checkout ``root``,
    in a process of its own: the module's file and the answers."""
    env = dict(os.environ, PYTHONPATH=str(root))
    proc = subprocess.run([sys.executable, __file__, "--judge"], input=json.dumps(pairs), env=env,
                          capture_output=True, text=True)
    if proc.returncode:
        raise SystemExit(f"the matcher of {root} failed:\n{proc.stderr[-3000:]}")
    answer = json.loads(proc.stdout)
    return answer["module"], answer["found"]


def _judge_stdin() -> int:
    import dichotomy_widget
    from dichotomy_widget.words import is_variant

    pairs = json.load(sys.stdin)
    found = [is_variant(a, b, lang) for lang, a, b in pairs]
    json.dump({"module": dichotomy_widget.__file__, "found": found}, sys.stdout)
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--root", type=Path, default=HERE,
                    help="checkout whose dichotomy_widget is measured (default: this one)")
    ap.add_argument("--baseline", type=Path, default=None, help="a second checkout, measured on the same pairs")
    ap.add_argument("--langs", default="en,de,it,pt")
    ap.add_argument("--pairs", type=int, default=1500, help="pairs sampled per kind")
    ap.add_argument("--misses", type=int, default=8, help="missed pairs to list per kind (--root's matcher)")
    ap.add_argument("--seed", type=int, default=1, help="seed of the sampling within each half")
    ap.add_argument("--half", choices=("dev", "test", "both"), default="both",
                    help="report the dev half, the test half, or both side by side (misses: dev only)")
    ap.add_argument("--split-seed", type=int, default=30, help="seed of the dev/test split")
    ap.add_argument("--smoke", action="store_true", help="CI: en and de, 30 pairs per kind")
    ap.add_argument("--judge", action="store_true", help=argparse.SUPPRESS)  # worker: JSON pairs on stdin
    args = ap.parse_args(argv)
    if args.judge:
        return _judge_stdin()
    if args.smoke:
        args.langs, args.pairs, args.misses = "en,de", 30, 2
    roots = [args.root.resolve()] + ([args.baseline.resolve()] if args.baseline else [])
    halves = ("dev", "test") if args.half == "both" else (args.half,)
    # (lang, kind) -> (pairs listed, {half: sampled pairs})
    samples: dict[tuple[str, str], tuple[int, dict[str, list[tuple[str, str]]]]] = {}
    for lang in args.langs.split(","):
        if not Path(DICTIONARIES[lang] + ".dic").is_file():
            print(f"{lang:4} missing {DICTIONARIES[lang]}.dic (apt-get install the hunspell package)")
            continue
        for kind, pairs in sorted(derivations(lang).items()):
            listed = sorted(pairs)
            split = {h: [p for p in listed if half_of(lang, p, args.split_seed) == h] for h in halves}
            samples[lang, kind] = len(listed), {
                h: random.Random(args.seed).sample(part, min(args.pairs, len(part))) for h, part in split.items()}
    flat = [(lang, a, b) for (lang, _kind), (_n, by_half) in samples.items()
            for h in halves for a, b in by_half[h]]
    columns = []
    for root in roots:
        module, found = judge(root, flat)
        print(f"{'matcher' if len(roots) == 1 else 'this' if root == roots[0] else 'baseline'}: {module}")
        columns.append(found)

    names = ["recall"] if len(roots) == 1 else ["this", "baseline"]
    heads = [f"{n} {h}" if len(halves) > 1 or len(roots) > 1 else f"{h}" for n in names for h in halves]
    width = max(9, *map(len, heads))
    print(f"{'lang':4} {'kind':20} {'listed':>8} " + " ".join(f"{'n ' + h:>7}" for h in halves) + " "
          + " ".join(f"{h:>{width}}" for h in heads))
    at = 0
    # (lang, "prefix"/"suffix") -> per half: [sampled, hits per root]
    totals: dict[tuple[str, str], dict[str, list[int]]] = defaultdict(
        lambda: {h: [0] * (1 + len(roots)) for h in halves})
    for n, ((lang, kind), (listed, by_half)) in enumerate(samples.items()):
        rates: dict[tuple[int, str], float] = {}
        for h in halves:
            sample = by_half[h]
            hits = [sum(found[at: at + len(sample)]) for found in columns]
            if h == "dev":
                missed = [p for p, ok in zip(sample, columns[0][at: at + len(sample)]) if not ok]
            at += len(sample)
            total = totals[lang, kind.split()[0]][h]
            for i, count in enumerate([len(sample), *hits]):
                total[i] += count
            for r, count in enumerate(hits):
                rates[r, h] = count / len(sample) if sample else float("nan")
        print(f"{lang:4} {kind:20} {listed:8,} " + " ".join(f"{len(by_half[h]):7,}" for h in halves) + " "
              + " ".join(f"{rates[r, h]:{width}.2%}" for r in range(len(roots)) for h in halves))
        if "dev" in halves and missed and args.misses:
            print("     missed (dev):", ", ".join(f"{a}/{b}" for a, b in missed[: args.misses]))
        if n + 1 == len(samples) or list(samples)[n + 1][0] != lang:  # the language's last kind
            for part in ("prefix", "suffix"):
                if (lang, part) in totals:
                    t = totals[lang, part]
                    print(f"{lang:4} {part + 'es, all':20} {'':8} " + " ".join(f"{t[h][0]:7,}" for h in halves)
                          + " " + " ".join(f"{t[h][1 + r] / max(t[h][0], 1):{width}.2%}"
                                           for r in range(len(roots)) for h in halves))
    return 0

if __name__ == "__main__":
    sys.exit(main())
