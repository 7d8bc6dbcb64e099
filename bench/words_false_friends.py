#!/usr/bin/env python3
"""Precision of dichotomy_widget.words on es/fr/de false friends that look like suffix derivations.

    python bench/words_false_friends.py              # the matcher of this checkout
    python bench/words_false_friends.py --root DIR   # another checkout (a baseline), same lists
    python bench/words_false_friends.py --show       # also list the pairs judged variants

Each pair of ``tests/data/false_friends.tsv`` (read by tests/test_words_false_friends.py too) is
two words that a suffix rule could join (derived ending + base ending, as in ``affix_rules``) but
whose dictionary senses are unrelated: *tenedor* (fork) is no agent of *tener*, *couleur* is not
made from *couler*, *Reichtum* not from *reichen*.  They were collected for this bench from the
words' senses in ordinary dictionaries (Spanish DLE, French TLFi / Larousse, German Duden), not
from the project's dev pairs, and both words are checked to be in the shipped lexicon
(``is_known``).  Pairs whose two words share their origin but not their meaning (escalera /
escala) are left out: a judge could call them either way.  A "kept apart" rate of 100 % is the
goal; each pair the matcher joins is a clue refused or cancelled without reason.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "false_friends.tsv"


def load_false_friends(path: Path = DATA) -> dict[str, list[tuple[str, str, str]]]:
    """lang -> (a, b, status) rows of the test set (``tests/data/false_friends.tsv``): status is
    ``apart`` (tests/test_words_false_friends.py asserts the matcher keeps the pair apart) or
    ``known-joined`` (a false friend the matcher still joins: the set grows as they are fixed)."""
    out: dict[str, list[tuple[str, str, str]]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            lang, a, b, status, _note = line.split("\t")
            if lang != "lang":  # the column names
                out.setdefault(lang, []).append((a, b, status))
    return out


FALSE_FRIENDS: dict[str, list[tuple[str, str]]] = {
    lang: [(a, b) for a, b, _status in rows] for lang, rows in load_false_friends().items()
}


def _links(root: Path, lang: str) -> dict[str, list[tuple[str, str, str]]]:
    """lemma -> (linked lemma, strong|weak, source) from ``wordsdata/<lang>.links.tsv``."""
    out: dict[str, list[tuple[str, str, str]]] = {}
    path = root / "dichotomy_widget" / "wordsdata" / f"{lang}.links.tsv"
    for line in path.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            a, b, kind, source = line.split("\t")
            out.setdefault(a, []).append((b, kind, source))
            out.setdefault(b, []).append((a, kind, source))
    return out


_LINKS: dict[str, dict[str, list[tuple[str, str, str]]]] = {}


def why_joined(a: str, b: str, lang: str, root: Path) -> list[str]:
    """What joins two words (``--why``): a lemma they share, the family links of the tables
    (``links.tsv`` lines, direct or through a strong link, and through which lemma of each word:
    "tomo" is also a form of "tomar"), or the run-time suffix rules (``affix_rules.checked_bases``).
    Reads the matcher's private helpers: a diagnosis for issue #30, not an API."""
    from dichotomy_widget.words import matcher as m

    links = _LINKS.setdefault(lang, _links(root, lang))
    wa, wb = m._analyse(m._normal(a), lang), m._analyse(m._normal(b), lang)
    lex = m._lexicon(lang)
    words_a = {lex.word(l): l in wa.own for l in wa.lemmas}
    words_b = {lex.word(l): l in wb.own for l in wb.lemmas}
    out = [f"shared lemma {w}" for w in sorted(set(words_a) & set(words_b))]
    if out:
        return out

    def name(word: str, own: bool) -> str:
        return word if own else f"{word} (another lemma of the form)"

    for x, x_own in sorted(words_a.items()):  # no shared lemma: x is never one of b's
        for y, kind, source in links.get(x, ()):
            if y in words_b:
                out.append(f"link {name(x, x_own)} - {name(y, words_b[y])} {kind} {source}")
                continue
            for z, kind2, source2 in links.get(y, ()):  # a path of two links, one of them strong
                if z in words_b and "strong" in (kind, kind2):
                    out.append(f"path {name(x, x_own)} -{kind} {source}- {y} -{kind2} {source2}- "
                               f"{name(z, words_b[z])}")
    if m._checked_derivation(wa, wb, lang):
        out.append("run-time suffix rule (affix_rules.checked_bases)")
    if m._regular_verb_form(wa, wb, lang):
        out.append("regular verb form (affix_rules.is_regular_verb_form)")
    return out or ["(not found: a stem or compound rule of the matcher)"]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[1],
                    help="checkout whose dichotomy_widget is measured (default: this one)")
    ap.add_argument("--show", action="store_true", help="list the pairs judged variants")
    ap.add_argument("--why", action="store_true",
                    help="with each joined pair, the mechanism that joins it (links.tsv lines, run-time rule)")
    ap.add_argument("--smoke", action="store_true",
                    help="CI: the same run, with --why for one joined pair per language (a few seconds)")
    args = ap.parse_args(argv)
    explained = 1 if args.smoke else None  # the census is part of what CI keeps working
    sys.path.insert(0, str(args.root))
    from dichotomy_widget.words import is_known, variant_reason

    total_kept = total = 0
    for lang, pairs in FALSE_FRIENDS.items():
        unknown = [w for pair in pairs for w in pair if not is_known(w, lang)]
        joined = [(a, b, variant_reason(a, b, lang)) for a, b in pairs if variant_reason(a, b, lang)]
        kept = len(pairs) - len(joined)
        total_kept, total = total_kept + kept, total + len(pairs)
        print(f"{lang}: kept apart {kept}/{len(pairs)} ({100 * kept / len(pairs):.1f} %)"
              + (f"  [not in the lexicon: {', '.join(unknown)}]" if unknown else ""))
        if args.show and joined:
            print("   joined: " + ", ".join(f"{a}/{b} ({r})" for a, b, r in joined))
        if args.why or args.smoke:
            for a, b, _reason in joined[:explained]:
                print(f"   {a}/{b}: " + "; ".join(why_joined(a, b, lang, args.root)))
    print(f"all: kept apart {total_kept}/{total} ({100 * total_kept / total:.1f} %)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
