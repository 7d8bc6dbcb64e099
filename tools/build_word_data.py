#!/usr/bin/env python3
"""Build the compact variant-matching tables shipped in ``dichotomy_widget/wordsdata/``.

    apt-get install wordnet-base          # Princeton WordNet 3.0 (English derivation links)
    pip install simplemma==2.0.0 lemminflect==0.2.3
    python tools/build_word_data.py       # writes dichotomy_widget/wordsdata/{en,es,fr,de}.sqlite

Each language gets one read-only SQLite file with two tables:

* ``lex(form TEXT PRIMARY KEY, lems TEXT)``: a case-folded word form and the ids of its lemmas
  (space separated; a form can belong to several lemmas, e.g. "saw" -> see, saw).
* ``lem(id INTEGER PRIMARY KEY, word TEXT)``: lemma ids and their spelling.
* ``fam(lem INTEGER PRIMARY KEY, rel TEXT)``: the ids of lemmas in the same word family
  (derivation links: WordNet for English, affix rules checked against the lemma list for all).

Sources: simplemma 2.0.0 lemma lists (MIT code; data from lemmatization-lists (ODbL),
Wiktionary/Kaikki, FreeLing, spaCy lookups, UniMorph, Wikinflection (CC BY 4.0)),
lemminflect 0.2.3 (MIT; NIH SPECIALIST Lexicon) and Princeton WordNet 3.0 (WordNet licence).
See ``dichotomy_widget/wordsdata/README.md``.  Nothing here reads the project's dev pairs.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import os
import re
import sqlite3
import sys
import unicodedata
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import derivation_rules as rules  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "dichotomy_widget" / "wordsdata"
WORDNET = Path("/usr/share/wordnet")
LANGS = ("en", "es", "fr", "de")
WORD_RE = re.compile(r"^[^\W\d_]+(?:['-][^\W\d_]+)*$")


def fold(word: str) -> str:
    """The lookup key: NFKC, trimmed, case-folded (same as ``words.normalize``)."""
    return unicodedata.normalize("NFKC", word).strip().casefold()


class Lexicon:
    """Form -> lemmas and lemma -> family links, keyed by folded strings."""

    def __init__(self) -> None:
        self.forms: dict[str, set[str]] = defaultdict(set)
        self.links: dict[str, set[str]] = defaultdict(set)

    def add_form(self, form: str, lemma: str) -> None:
        f, l = fold(form), fold(lemma)
        if f and l and WORD_RE.match(f) and WORD_RE.match(l) and len(f) <= 40:
            self.forms[f].add(l)
            self.forms[l].add(l)

    def add_link(self, a: str, b: str) -> None:
        a, b = fold(a), fold(b)
        if a != b and a in self.forms and b in self.forms:
            self.links[a].add(b)
            self.links[b].add(a)

    @property
    def lemmas(self) -> set[str]:
        return {l for ls in self.forms.values() for l in ls}


def load_simplemma(lex: Lexicon, lang: str) -> None:
    from simplemma.strategies.dictionaries.dictionary_factory import _load_dictionary_from_disk

    for form, lemma in _load_dictionary_from_disk(lang).items():
        lex.add_form(form.decode("utf-8"), lemma.decode("utf-8"))


def load_lemminflect(lex: Lexicon) -> None:
    import lemminflect

    res = Path(lemminflect.__file__).parent / "resources"
    with gzip.open(res / "lemma_lu.csv.gz", "rt", encoding="utf-8") as f:
        for form, _pos, lemmas in csv.reader(f):
            for lemma in lemmas.split("/"):
                lex.add_form(form, lemma)
    with gzip.open(res / "infl_lu.csv.gz", "rt", encoding="utf-8") as f:
        for row in csv.reader(f):
            for form in "/".join(row[2:]).split("/"):
                lex.add_form(form, row[0])


def load_wordnet(lex: Lexicon) -> None:
    """WordNet exception lists (irregular forms) and lexical derivation links."""
    if not WORDNET.is_dir():
        raise SystemExit("WordNet not found: apt-get install wordnet-base")
    for pos in ("noun", "verb", "adj", "adv"):
        for line in (WORDNET / f"{pos}.exc").read_text(encoding="utf-8").splitlines():
            parts = line.split()
            for lemma in parts[1:]:
                if "_" not in parts[0] and "_" not in lemma:
                    lex.add_form(parts[0], lemma)
    synsets = {}
    for pos in ("noun", "verb", "adj", "adv"):
        with open(WORDNET / f"data.{pos}", encoding="utf-8") as f:
            for line in f:
                if line.startswith(" "):
                    continue
                synsets[(line[:8], {"adv": "r"}.get(pos, pos[0]))] = line
    for pos in ("noun", "verb", "adj", "adv"):
        with open(WORDNET / f"data.{pos}", encoding="utf-8") as f:
            for line in f:
                if not line.startswith(" "):
                    _wordnet_line(lex, line, synsets)


def _synset_words(line: str) -> list[str]:
    parts = line.split(" | ")[0].split()
    n = int(parts[3], 16)
    return [re.sub(r"\(.*\)$", "", w) for w in parts[4 : 4 + 2 * n : 2]]


def _wordnet_line(lex: Lexicon, line: str, synsets: dict) -> None:
    parts = line.split(" | ")[0].split()
    n = int(parts[3], 16)
    words = _synset_words(line)
    for w in words:
        lex.add_form(w, w)
    i = 4 + 2 * n
    for _ in range(int(parts[i])):
        sym, off, pos, st = parts[i + 1 : i + 5]
        i += 4
        if sym not in ("+", "\\", "!", "<") or st == "0000":
            continue
        pos = "a" if pos == "s" else pos
        target = synsets.get((off, pos))
        if target is None:
            continue
        src = words[int(st[:2], 16) - 1]
        dst = _synset_words(target)[int(st[2:], 16) - 1]
        if "_" in src or "_" in dst:
            continue
        a, b = fold(src), fold(dst)
        if sym == "!" and not rules.is_negation_pair(a, b, "en"):
            continue
        lex.add_form(a, a)
        lex.add_form(b, b)
        lex.add_link(a, b)


def add_rule_links(lex: Lexicon, lang: str) -> None:
    """Affix rules (tools/derivation_rules.py) whose base is itself a known lemma."""
    lemmas = lex.lemmas
    plain: dict[str, set[str]] = defaultdict(set)
    if lang != "en":
        for lemma in lemmas:
            plain[rules.strip_accents(lemma)].add(lemma)
    for word in lemmas:
        for base in rules.bases(word, lang):
            for target in ({base} if base in lemmas else plain.get(base, ())):
                if target != word:
                    lex.add_link(word, target)


def family_sets(lex: Lexicon, depth: int) -> dict[str, set[str]]:
    """Lemmas reachable through at most ``depth`` derivation links."""
    out = {}
    for lemma, first in lex.links.items():
        seen, frontier = set(first), set(first)
        for _ in range(depth - 1):
            frontier = {n for f in frontier for n in lex.links.get(f, ())} - seen - {lemma}
            seen |= frontier
        out[lemma] = seen - {lemma}
    return out


def write_sqlite(lex: Lexicon, lang: str, depth: int) -> Path:
    ids: dict[str, int] = {}
    for lemma in sorted(lex.lemmas):
        ids[lemma] = len(ids)
    path = OUT / f"{lang}.sqlite"
    tmp = path.with_suffix(".tmp")
    if tmp.exists():
        tmp.unlink()
    db = sqlite3.connect(tmp)
    db.execute("PRAGMA page_size=4096")
    db.execute("CREATE TABLE lex(form TEXT PRIMARY KEY, lems TEXT NOT NULL) WITHOUT ROWID")
    db.execute("CREATE TABLE fam(lem INTEGER PRIMARY KEY, rel TEXT NOT NULL)")
    db.execute("CREATE TABLE lem(id INTEGER PRIMARY KEY, word TEXT NOT NULL)")
    db.execute("CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT) WITHOUT ROWID")
    db.executemany("INSERT INTO lem VALUES (?, ?)", ((i, l) for l, i in ids.items()))
    db.executemany(
        "INSERT INTO lex VALUES (?, ?)",
        ((f, " ".join(str(ids[l]) for l in sorted(ls))) for f, ls in sorted(lex.forms.items())),
    )
    fams = family_sets(lex, depth)
    db.executemany(
        "INSERT INTO fam VALUES (?, ?)",
        ((ids[l], " ".join(str(ids[r]) for r in sorted(rs))) for l, rs in fams.items() if rs and l in ids),
    )
    db.executemany("INSERT INTO meta VALUES (?, ?)", [("lang", lang), ("depth", str(depth))])
    db.commit()
    db.execute("VACUUM")
    db.close()
    os.replace(tmp, path)
    return path


def build(lang: str, depth: int) -> Path:
    lex = Lexicon()
    load_simplemma(lex, lang)
    if lang == "en":
        load_lemminflect(lex)
        load_wordnet(lex)
    add_rule_links(lex, lang)
    path = write_sqlite(lex, lang, depth)
    print(f"{lang}: {len(lex.forms)} forms, {len(lex.links)} linked lemmas, "
          f"{path.stat().st_size / 1e6:.1f} MB -> {path.relative_to(ROOT)}")
    return path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--langs", default=",".join(LANGS))
    ap.add_argument("--depth", type=int, default=2, help="derivation links followed for a word family")
    args = ap.parse_args(argv)
    OUT.mkdir(parents=True, exist_ok=True)
    for lang in args.langs.split(","):
        build(lang, args.depth)
    return 0


if __name__ == "__main__":
    sys.exit(main())
