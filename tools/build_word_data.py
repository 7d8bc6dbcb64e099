#!/usr/bin/env python3
"""Build the word data's text sources in ``dichotomy_widget/wordsdata/`` from the upstream dictionaries.

    apt-get install wordnet-base hunspell-fr hunspell-es   # WordNet 3.0, French and Spanish dictionaries
    apt-get install mythes-es mythes-fr mythes-de          # thesauri: the sense check of es/fr/de links
    pip install -e ".[wordsdata]"          # simplemma 2.0.0, lemminflect 0.2.3, spylls 0.1.7
    python tools/build_word_data.py       # writes dichotomy_widget/wordsdata/<lang>.forms.tsv and .links.tsv
    python tools/build_word_data.py --langs it,pt   # only those two (apt-get install hunspell-pt-pt)
    python tools/build_word_data.py --langs de --out /tmp/wd --sqlite /tmp/wd   # elsewhere, plus the table

Each language gets two sorted text files, one fact per line with the build step that gave it
(``Origins``): ``<lang>.forms.tsv`` (``lemma<TAB>source<TAB>forms``: a case-folded lemma and its
forms; a form can belong to several lemmas, e.g. "saw" -> see, saw) and ``<lang>.links.tsv``
(``a<TAB>b<TAB>strong|weak<TAB>source``: a word-family link). *Strong* links are transparent (-ly,
-ness, negation prefixes, WordNet adverb pertainyms and un-/in- antonyms) and followed up to three
times; *weak* ones (any other WordNet derivation link or affix rule checked against the lemma list)
once, so chains such as organ -> organize -> organization do not join false friends. The package
compiles the text into the SQLite table the matcher reads (``wordsdata/table_build.py``).

Sources: simplemma 2.0.0 lemma lists (MIT code; data from lemmatization-lists (ODbL),
Wiktionary/Kaikki, FreeLing, spaCy lookups, UniMorph, Wikinflection (CC BY 4.0)),
lemminflect 0.2.3 (MIT; NIH SPECIALIST Lexicon), Princeton WordNet 3.0 (WordNet licence) and
the French (Grammalecte/Dicollecte, MPL 2.0), Spanish (RLA-ES, used under MPL 1.1+) and European
Portuguese (pt_PT, used under MPL 1.1+) hunspell dictionaries, whose entries are expanded with
their suffix classes (read with spylls): inflections become forms of the headword, Spanish and
Portuguese derivation classes become family links.  For es, fr and de the LibreOffice thesauri
(mythes) drop rule links, and es/fr diminutive links, whose two words' senses conflict
(``drop_sense_conflicts``).  Italian
and Portuguese regular verb forms are left out where the matcher's rule finds them again
(``prune_rule_verbs``).  See ``dichotomy_widget/wordsdata/README.md``.  Nothing here reads the
project's dev pairs (one threshold, ``MIN_SENSE_SYNONYMS``, was chosen by measuring on them).
"""

from __future__ import annotations

import argparse
import csv
import gzip
import os
import re
import sys
import unicodedata
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from dichotomy_widget.words import affix_rules as rules  # noqa: E402
from dichotomy_widget.wordsdata import table_build  # noqa: E402
OUT = ROOT / "dichotomy_widget" / "wordsdata"
WORDNET = Path("/usr/share/wordnet")
LANGS = ("en", "es", "fr", "de", "it", "pt")
RULE_VERB_LANGS = ("it", "pt")  # regular verb forms are found by rule at run time, not listed
WORD_RE = re.compile(r"^[^\W\d_]+(?:['-][^\W\d_]+)*$")


def fold(word: str) -> str:
    """The lookup key: NFKC, trimmed, case-folded (same as ``words.normalize``)."""
    return unicodedata.normalize("NFKC", word).strip().casefold()


class Lexicon(table_build.Lexicon):
    """The package's lexicon plus what the build needs: checked adds and English parts of speech."""

    def __init__(self) -> None:
        super().__init__()
        self.pos: dict[str, set[str]] = defaultdict(set)  # English only (WordNet index)

    def add_form(self, form: str, lemma: str) -> None:
        f, l = fold(form), fold(lemma)
        if f and l and WORD_RE.match(f) and WORD_RE.match(l) and len(f) <= 40:
            self.forms[f].add(l)
            self.forms[l].add(l)

    def add_link(self, a: str, b: str, strong: bool = False) -> None:
        a, b = fold(a), fold(b)
        if a != b and a in self.forms and b in self.forms:
            links = self.strong if strong else self.weak
            links[a].add(b)
            links[b].add(a)


class Origins:
    """Which build step first gave each (form, lemma) pair and each link: the text sources' second
    (forms) and fourth (links) column."""

    def __init__(self) -> None:
        self.forms: dict[tuple[str, str], str] = {}
        self.links: dict[tuple[str, str, str], str] = {}

    def step(self, lex: Lexicon, source: str, run, *args) -> None:
        """Run one build step and credit ``source`` with every pair or link it added."""
        run(*args)
        forms = self.forms
        for form, lemmas in lex.forms.items():
            for lemma in lemmas:
                if (form, lemma) not in forms:
                    forms[(form, lemma)] = source
        for kind, table in (("strong", lex.strong), ("weak", lex.weak)):
            for a, others in table.items():
                for b in others:
                    if a < b and (a, b, kind) not in self.links:
                        self.links[(a, b, kind)] = source


def load_simplemma(lex: Lexicon, lang: str) -> None:
    from simplemma.strategies.dictionaries.dictionary_factory import _load_dictionary_from_disk

    for form, lemma in _load_dictionary_from_disk(lang).items():
        form, lemma = form.decode("utf-8"), lemma.decode("utf-8")
        if lang == "es" and re.search(r"[aeií]rse$", lemma):  # pronominal verb: inclinarse -> inclinar
            lex.add_form(lemma, lemma[:-2])
            lemma = lemma[:-2]
        elif lang == "it" and re.search(r"[aei]rsi$", lemma):  # pronominal verb: infiltrarsi -> infiltrare
            lex.add_form(lemma, lemma[:-2] + "e")
            lemma = lemma[:-2] + "e"
        lex.add_form(form, lemma)


PARTICIPLES = {
    "es": [(r"ad[oa]s?$", ["ar"]), (r"id[oa]s?$", ["er", "ir"])],
    "fr": [(r"ée?s?$", ["er"]), (r"ie?s?$", ["ir"]), (r"ue?s?$", ["re", "oir"])],
    "it": [(r"at[oaie]$", ["are"]), (r"ut[oaie]$", ["ere"]), (r"it[oaie]$", ["ire"])],
    "pt": [(r"ad[oa]s?$", ["ar"]), (r"id[oa]s?$", ["er", "ir"])],
}


# French irregular past participles by infinitive ending (Bescherelle-style groups).
FR_PARTICIPLES = [
    ("quérir", "quis"), ("soudre", "solu"), ("mouvoir", "mu"), ("prendre", "pris"), ("mettre", "mis"),
    ("uire", "uit"), ("indre", "int"), ("venir", "venu"), ("tenir", "tenu"), ("courir", "couru"),
    ("naître", "né"), ("vivre", "vécu"), ("boire", "bu"), ("croire", "cru"), ("lire", "lu"),
    ("plaire", "plu"), ("aître", "u"), ("rompre", "rompu"), ("vaincre", "vaincu"), ("vrir", "vert"),
    ("frir", "fert"), ("asseoir", "assis"), ("faire", "fait"), ("dire", "dit"), ("crire", "crit"),
    ("mourir", "mort"), ("clore", "clos"), ("suivre", "suivi"), ("fuir", "fui"), ("rire", "ri"),
    ("cevoir", "çu"), ("voir", "vu"), ("pouvoir", "pu"), ("savoir", "su"), ("vouloir", "voulu"),
    ("valoir", "valu"), ("battre", "battu"), ("coudre", "cousu"), ("moudre", "moulu"), ("dre", "du"),
    ("devoir", "dû"), ("falloir", "fallu"), ("pleuvoir", "plu"),
]


def add_fr_irregular_participles(lex: Lexicon) -> None:
    """émouvoir -> ému/émue/émus/émues, acquérir -> acquis, résoudre -> résolu ..."""
    for lemma in {l for l in lex.lemmas if l.endswith(("ir", "re", "oir"))}:
        for inf, part in FR_PARTICIPLES:
            if lemma.endswith(inf):
                base = lemma[: len(lemma) - len(inf)] + part
                if len(base) >= 3:
                    forms = {base, base + "e", base + "es"} | ({base + "s"} if not base.endswith("s") else set())
                    for form in forms:
                        lex.add_form(form, lemma)
                break


# Italian strong verbs by infinitive ending (grammar-book groups): the participle's stem and the
# passato remoto's (decidere: deciso, decisi / decise / decisero; leggere: letto, lessi).
IT_STRONG_VERBS = [
    ("ledere", "les", "les"), ("idere", "is", "is"), ("udere", "us", "us"), ("ondere", "ost", "os"),
    ("fondere", "fus", "fus"), ("endere", "es", "es"), ("erdere", "ers", "ers"), ("ordere", "ors", "ors"),
    ("ardere", "ars", "ars"), ("orrere", "ors", "ors"), ("ggere", "tt", "ss"), ("gliere", "lt", "ls"),
    ("ncere", "nt", "ns"), ("ngere", "nt", "ns"), ("mettere", "mess", "mis"), ("durre", "dott", "duss"),
    ("porre", "post", "pos"), ("trarre", "tratt", "trass"), ("scrivere", "scritt", "scriss"),
    ("rompere", "rott", "rupp"), ("muovere", "moss", "moss"), ("primere", "press", "press"),
    ("cuotere", "coss", "coss"), ("mergere", "mers", "mers"), ("olvere", "olt", "ols"),
    ("ccedere", "ccess", "ccess"), ("ncedere", "ncess", "ncess"), ("chiedere", "chiest", "chies"),
    ("manere", "mast", "mas"), ("vivere", "vissut", "viss"), ("nascere", "nat", "nacqu"),
    ("venire", "venut", "venn"), ("tenere", "tenut", "tenn"), ("volere", "volut", "voll"),
    ("sapere", "saput", "sepp"), ("bere", "bevut", "bevv"), ("vedere", "vist", "vid"),
    ("prire", "pert", ""), ("frire", "fert", ""), ("morire", "mort", ""), ("fare", "fatt", "fec"),
    ("dire", "dett", "diss"),
]


def add_it_strong_verbs(lex: Lexicon) -> None:
    """Irregular participles and passato remoto forms that simplemma files under the participle
    as an adjective (diviso, divisi) or not at all also belong to their verb (dividere); only
    forms the lexicon already lists are touched."""
    for lemma in {l for l in lex.lemmas if l.endswith("re")}:
        for inf, part, past in IT_STRONG_VERBS:
            if lemma.endswith(inf) and len(lemma) > len(inf) - 1:
                head = lemma[: len(lemma) - len(inf)]
                forms = {head + part + e for e in "oaie"} | ({head + past + e for e in ("i", "e", "ero")} if past else set())
                for form in forms:
                    if form in lex.forms and len(form) >= 4:
                        lex.forms[form].add(lemma)
                break


# Italian adjective endings whose feminine simplemma files as a lemma of its own (tremenda,
# tremende -> tremenda): the feminine also belongs to the masculine.  Noun-prone endings (-ino,
# -etto, -ico, -ano, short words: pero/pera, olivo/oliva) are left out: they pair false friends.
IT_ADJECTIVE_ENDINGS = ("ivo", "oso", "iano", "eno", "ato", "uto", "ito", "ario", "ero", "endo", "esco", "orio")


def add_it_feminines(lex: Lexicon) -> None:
    lemmas = lex.lemmas
    masculine = {
        l: l[:-1] + "o" for l in lemmas
        if len(l) >= 6 and l.endswith("a") and (l[:-1] + "o").endswith(IT_ADJECTIVE_ENDINGS) and l[:-1] + "o" in lemmas
    }
    for form_lemmas in lex.forms.values():
        form_lemmas |= {masculine[l] for l in form_lemmas if l in masculine}


FR_FEMININES = [("euse", "eux"), ("euse", "eur"), ("ive", "if"), ("ienne", "ien"), ("rice", "eur")]


def add_fr_feminines(lex: Lexicon) -> None:
    """Feminine forms that the lemma list files as nouns (précieuse) also belong to the masculine."""
    lemmas = lex.lemmas
    for form in list(lex.forms):
        for fem, masc in FR_FEMININES:
            for plural in ("", "s"):
                if form.endswith(fem + plural) and len(form) > len(fem + plural) + 1:
                    base = form[: len(form) - len(fem + plural)] + masc
                    if base in lemmas:
                        lex.forms[form].add(base)


def add_participles(lex: Lexicon, lang: str) -> None:
    """Past participles that the lemma list files as adjectives also belong to their verb."""
    lemmas = lex.lemmas
    for form in list(lex.forms):
        for pattern, endings in PARTICIPLES.get(lang, ()):
            match = re.search(pattern, form)
            if match and match.start() >= 2:
                for ending in endings:
                    verb = form[: match.start()] + ending
                    if verb in lemmas:
                        lex.forms[form].add(verb)
        if lang == "fr" and "è" in form and re.search(r"(?:e|es|ent)$", form):
            stem = re.sub(r"(?:e|es|ent)$", "", form)
            i = stem.rfind("è")
            for accent in ("é", "e"):
                verb = stem[:i] + accent + stem[i + 1 :] + "er"
                if verb in lemmas:
                    lex.forms[form].add(verb)


# French (MPL 2.0), Spanish (MPL 1.1+/LGPL 3+/GPL 3+) and European Portuguese (GPL 2/LGPL 2.1/MPL 1.1)
# hunspell dictionaries, the last two used under the MPL.  German's igerman98 and Italian's it_IT
# are GPL only, so German uses rules instead (add_de_participles) and Italian simplemma and rules.
HUNSPELL = {"fr": "/usr/share/hunspell/fr", "es": "/usr/share/hunspell/es_ES", "pt": "/usr/share/hunspell/pt_PT"}
HUNSPELL_PACKAGES = {"fr": "hunspell-fr", "es": "hunspell-es", "pt": "hunspell-pt-pt"}
# Suffix classes that make a new word rather than a form of the same one, read off each .aff
# (fr.aff has none: Dicollecte's classes are all inflection).  es_ES: -ción, -dura, -aje, -cia,
# -azo, -ilidad, -idad, -ería, -ez, -illo, -ismo, -miento, -ión, -ble, -ito.  pt_PT: -mente,
# -ólogo, -ógico, -íssimo, -inho, -idade, -ismo, -ista, -ção, -mento, -nte, -dor, -ável,
# -damente, -dela, -eiro, -oso, -izar, -ice, -ódromo.  Their forms become family links, not
# inflections.
HUNSPELL_DERIVATION = {"es": frozenset("ABCFHJKLMNOPQTU"), "pt": frozenset("mHqrNWsdithlzcCMnDvBoywjGJ")}
# Classes left out: pt_PT L and P add clitic pronouns (falar-lhe, fá-lo), hundreds of rare forms.
HUNSPELL_SKIP = {"pt": frozenset("LP")}


def hunspell_forms(dictionary, stem: str, flags, lang: str) -> list[tuple[str, str]]:
    """(form, lemma) for every suffixed form a hunspell entry allows (two levels of suffixes).
    The lemma is ``stem`` for an inflection, or the derived word (-ción, -ismo ...) for a derivation."""
    sfx, derivation = dictionary.aff.SFX, HUNSPELL_DERIVATION.get(lang, frozenset())
    skip = HUNSPELL_SKIP.get(lang, frozenset())
    out = []

    def apply(word: str, flag: str):
        if flag in skip:
            return
        for rule in sfx.get(flag, ()):
            if word.endswith(rule.strip) and rule.cond_regexp.search(word):
                yield word[: len(word) - len(rule.strip)] + rule.add, rule.flags

    for flag in flags:
        for form, more in apply(stem, flag):
            lemma = form if flag in derivation else stem
            out.append((form, lemma))
            for flag2 in more:
                for form2, _ in apply(form, flag2):
                    out.append((form2, form2 if flag2 in derivation else lemma))
    return out


def hunspell_lemma_notes(path: Path) -> dict[tuple[str, frozenset[str]], set[str]]:
    """pt_PT lists irregular verb forms as entries of their own with the infinitive in the
    morphological note ("perca/L [$perder$CAT=v,...]"): (stem, flags) -> infinitives."""
    notes: dict[tuple[str, frozenset[str]], set[str]] = defaultdict(set)
    for line in path.with_suffix(".dic").read_text(encoding="utf-8").splitlines()[1:]:
        word, _tab, note = line.partition("\t")
        match = re.search(r"\[\$([^$\s]+)\$", note)
        if match:
            stem, _slash, flags = word.strip().partition("/")
            notes[(stem, frozenset(flags))].add(match.group(1))
    return notes


def load_hunspell(lex: Lexicon, lang: str) -> None:
    """Expand a hunspell dictionary's entries (spylls reads the .dic/.aff): inflected forms map
    to the headword (pt: irregular verb forms to their infinitive); derived words (es, pt) become
    lemmas linked to it.  Capitalised entries are proper nouns and are skipped."""
    from spylls.hunspell import Dictionary

    path = Path(HUNSPELL[lang])
    if not path.with_suffix(".dic").is_file():
        raise SystemExit(f"{lang} hunspell dictionary not found: apt-get install {HUNSPELL_PACKAGES[lang]}")
    dictionary = Dictionary.from_files(str(path))
    notes = hunspell_lemma_notes(path) if lang == "pt" else {}
    for entry in dictionary.dic.words:
        stem = entry.stem
        if not stem or " " in stem or not stem[0].islower():
            continue
        if lang == "fr" and "po" not in (entry.data or {}):
            continue
        heads = notes.get((stem, frozenset(entry.flags)), set())
        for head in heads or {stem}:
            lex.add_form(stem, head)
            for form, lemma in hunspell_forms(dictionary, stem, entry.flags, lang):
                lemma = head if lemma == stem else lemma
                lex.add_form(form, lemma)
                lex.add_link(lemma, head)


def add_de_participles(lex: Lexicon) -> None:
    """German participles that the lemma lists file as adjectives (plombiert, verhagelnd, and
    their declined forms) also belong to their verb, when the verb is a known lemma with a
    regular past tense in the lexicon (so "gesamt" does not become a form of "Samen")."""
    lemmas = lex.lemmas

    def is_weak_verb(verb: str) -> bool:
        stem = verb[:-2] if verb.endswith("en") else verb[:-1]
        return any(verb in lex.forms.get(stem + end, ()) for end in ("te", "ete"))

    verbs = {}
    for lemma in lemmas:
        for verb in rules.de_participle_verbs(lemma):
            if verb in lemmas and (lemma.endswith("nd") or is_weak_verb(verb)):
                verbs[lemma] = verb
                break
    for form_lemmas in lex.forms.values():
        form_lemmas |= {verbs[l] for l in form_lemmas if l in verbs}


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
        letter = {"adv": "r"}.get(pos, pos[0])
        with open(WORDNET / f"index.{pos}", encoding="utf-8") as f:
            for line in f:
                if not line.startswith(" "):
                    parts = line.split()
                    lex.pos[parts[0]].add(letter)
                    n = int(parts[2])
                    for rank, off in enumerate(parts[-n:]):  # synsets, most frequent sense first
                        SENSE_RANK[(parts[0], off)] = rank
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


SENSE_RANK: dict[tuple[str, str], int] = {}
MAX_SENSE_RANK = int(os.environ.get("WN_MAX_SENSE_RANK", "99"))


def _common_sense(word: str, offset: str) -> bool:
    """Is this synset among the word's most frequent senses? (drops letter 'lessor' / let)"""
    return SENSE_RANK.get((word.lower(), offset), 0) < MAX_SENSE_RANK


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
        if sym == "+" and not (_common_sense(src, parts[0]) and _common_sense(dst, off)):
            continue
        lex.add_form(a, a)
        lex.add_form(b, b)
        strong = sym == "!" or (sym == "\\" and parts[2] == "r")
        lex.add_link(a, b, strong)


def is_fr_third_group_ending(word: str, base: str, lex: Lexicon) -> bool:
    """French verbs made with -ir from a noun or adjective are second group (grand -> grandir,
    nous grandissons); the -ir of a third-group verb is no suffix, so courir/cour, sortir/sort,
    soupir/soupe are not linked by the -ir rules (prefixes still are: ressortir/sortir)."""
    return (
        word.endswith("ir") and not word.endswith("oir") and not base.endswith("ir")
        and word[:-2] + "issons" not in lex.forms
    )


def add_rule_links(lex: Lexicon, lang: str) -> None:
    """Affix rules (dichotomy_widget/words/affix_rules.py) whose base is itself a known lemma."""
    lemmas = lex.lemmas
    plain: dict[str, set[str]] = defaultdict(set)
    if lang != "en":
        for lemma in lemmas:
            plain[rules.strip_accents(lemma)].add(lemma)
    for word in lemmas:
        for base, base_pos, strong in rules.bases(word, lang):
            if base_pos and lang == "en" and not (lex.pos.get(base, set()) & set(base_pos)):
                continue
            if lang == "fr" and is_fr_third_group_ending(word, base, lex):
                continue
            targets = {base} if base in lemmas else plain.get(rules.strip_accents(base), set())
            # rápidamente -> rápida -> rápido; French feminines are often nouns too (précieuse)
            if strong and base in lex.forms and (not targets or lang == "fr"):
                targets = set(targets) | lex.forms[base]
            if base_pos == "a" and lang != "en":  # es -idad/-ez/-eza on -o: an adjective base
                targets = {t for t in targets if rules.is_adjective(t, lang, lambda f: lex.forms.get(f, ()))}
            for target in targets:
                if target != word:
                    lex.add_link(word, target, strong)


# LibreOffice thesauri (Debian mythes-*; MyThes format: "word|n", then n lines "(pos)|syn|syn...").
# A build-time input only, like hunspell: nothing reads them at run time.
MYTHES = Path("/usr/share/mythes")
THESAURI = {"en": "th_en_US_v2", "es": "th_es_ES_v2", "fr": "thes_fr", "de": "th_de_DE_v2",
            "it": "th_it_IT_v2", "pt": "th_pt_PT_v2"}
THESAURUS_PACKAGES = {"en": "mythes-en-us", "es": "mythes-es", "fr": "mythes-fr", "de": "mythes-de",
                      "it": "mythes-it", "pt": "mythes-pt-pt"}
# Tuned on the dev pairs and tests/data/false_friends.tsv only: 8 keeps every language's dev F1
# within 0.005 (fr loses fanfare/fanfaron) and separates 49 of 102 false friends; 16 separates 44.
# it, pt and en are not checked yet (no false-friend pairs to tune on).
MIN_SENSE_SYNONYMS = 8
SENSE_CHECK_LANGS = ("es", "fr", "de")
# Diminutives and augmentatives (``affix_rules._EVALUATIVE``: es -ito, -illo, -ón, -azo ...; fr -ette,
# -et, -on) keep their base's part of speech and mean a small or big one of it, so a thesaurus that
# knows both words relates them; when it does not, the word names a thing of its own (castillo /
# casto, cepillo / cepo, jouet / joue, poison / pois).  For these a thinner entry is evidence
# (``MIN_EVALUATIVE_SYNONYMS`` each) and hunspell's diminutive classes (-illo, -ito, -azo) are
# checked too.  -ión / -ion (action nouns) are no evaluative endings.  de (-chen, -lein) not yet.
# Judged by reading the links it drops, not on the dev pairs: with 4 and only a shared synonym or a
# synonym in the other's family as a relation, about half of the Spanish links dropped were real.
EVALUATIVE_CHECK_LANGS = ("es", "fr")
EVALUATIVE_ENDINGS = {lang: tuple(rules._EVALUATIVE[lang]) for lang in EVALUATIVE_CHECK_LANGS}
MIN_EVALUATIVE_SYNONYMS = 5


def load_thesaurus(lang: str) -> dict[str, frozenset[str]]:
    """Each thesaurus headword (folded) -> its synonyms over all its senses (folded, without the
    bracketed notes such as "(término genérico)")."""
    path = MYTHES / f"{THESAURI[lang]}.dat"
    if not path.is_file():
        raise SystemExit(f"{lang} thesaurus not found: apt-get install {THESAURUS_PACKAGES[lang]}")
    with open(path, "rb") as f:
        encoding = f.readline().decode("ascii").strip().replace("ISO8859-1", "latin-1")
    lines = path.read_text(encoding=encoding).splitlines()[1:]
    out: dict[str, set[str]] = defaultdict(set)
    i = 0
    while i < len(lines):
        head, _bar, count = lines[i].rpartition("|")
        word, n = fold(head), int(count)
        for line in lines[i + 1 : i + 1 + n]:
            for synonym in line.split("|")[1:]:
                synonym = fold(re.sub(r"\(.*?\)", "", synonym))
                if synonym and synonym != word:
                    out[word].add(synonym)
        i += 1 + n
    return {word: frozenset(synonyms) for word, synonyms in out.items()}


INFINITIVE_ENDINGS = {"es": ("ar", "er", "ir"), "fr": ("er", "ir"), "de": ("en", "n")}


def is_conversion(verb: str, word: str, lang: str) -> bool:
    """``verb`` is ``word`` plus an infinitive ending, its last letter maybe doubled (détail ->
    détailler, Fisch -> fischen): a verb made from the word by conversion, no suffix."""
    for ending in INFINITIVE_ENDINGS.get(lang, ()):
        stem = verb[: len(verb) - len(ending)]
        if verb.endswith(ending) and (stem == word or stem == word + word[-1:]):
            return True
    return False


def drop_sense_conflicts(lex: Lexicon, origins: Origins, lang: str) -> int:
    """Drop a weak suffix link made by an affix rule (``rule:affixes``; both words share their
    first two letters) when the two words' senses conflict: both have rich thesaurus entries
    (``MIN_SENSE_SYNONYMS`` synonyms or more, so a thin entry is no evidence), they share no
    synonym, and no synonym of one (or a word of a multi-word synonym) is, or is linked to, a
    word of the other's family or of its synonyms' families (couleur/couler, pasión/pasar).
    A pair the thesaurus knows too little about keeps its link, and so does a verb made from a
    word by conversion (détail/détailler), which no synonym list can relate.  A diminutive or
    augmentative (``EVALUATIVE_ENDINGS``, from an affix rule or a hunspell class) is checked with
    thinner entries: ``MIN_EVALUATIVE_SYNONYMS`` synonyms each.  The family graph is read before
    any link is dropped, so the order of the links does not matter."""
    thesaurus = load_thesaurus(lang)
    neighbours: dict[str, set[str]] = defaultdict(set)
    for table in (lex.strong, lex.weak):
        for a, others in table.items():
            neighbours[a] |= others

    def family(word: str) -> set[str]:
        return {word} | neighbours.get(word, set())

    def wider(word: str) -> set[str]:
        """The word's synonyms, the words of its multi-word synonyms, and their linked words."""
        synonyms = set(thesaurus[word])
        synonyms |= {token for s in thesaurus[word] for token in s.split() if len(token) > 2}
        return synonyms.union(*(neighbours.get(s, ()) for s in synonyms))

    endings = EVALUATIVE_ENDINGS.get(lang, ())

    def evaluative(a: str, b: str) -> bool:
        """The longer word ends in a diminutive or augmentative ending (not -ión/-ion)."""
        word = max(a, b, key=len)
        return len(a) != len(b) and word.endswith(endings) and not word.endswith(("ión", "ion"))

    def conflict(a: str, b: str, evaluative_pair: bool) -> bool:
        if is_conversion(a, b, lang) or is_conversion(b, a, lang):
            return False  # a noun and its verb: a thesaurus lists synonyms within one part of speech
        least = MIN_EVALUATIVE_SYNONYMS if evaluative_pair else MIN_SENSE_SYNONYMS
        if len(thesaurus.get(a, ())) < least or len(thesaurus.get(b, ())) < least:
            return False
        if thesaurus[a] & thesaurus[b]:
            return False
        wide_a, wide_b = wider(a), wider(b)
        return not (wide_a & family(b) or wide_b & family(a) or wide_a & wide_b)

    drop = []
    for (a, b, kind), source in origins.links.items():
        if kind != "weak" or b not in lex.weak.get(a, ()) or rules.strip_accents(a[:2]) != rules.strip_accents(b[:2]):
            continue
        checked = evaluative(a, b)
        if (source == "rule:affixes" or checked and source == "hunspell") and conflict(a, b, checked):
            drop.append((a, b))
    for a, b in drop:
        lex.weak[a].discard(b)
        lex.weak[b].discard(a)
    return len(drop)


PT_CLITIC_STUBS = ("mo", "rde", "árei", "érei", "írei", "ávei", "ívei")


def drop_pt_clitic_stubs(lex: Lexicon) -> int:
    """simplemma's Portuguese list holds verb forms cut off before a clitic pronoun and its hyphen
    ("deliramo" from "deliramo-lo", "andárei" from "andá-lo-ei", "cantarde"): no word on its
    own.  Drop a verb form with such an ending when the same form plus "s" is a form of the same
    verb (deliramos) and it is no headword itself."""
    lemmas = lex.lemmas
    drop = [
        form for form, ls in lex.forms.items()
        if form.endswith(PT_CLITIC_STUBS) and form not in lemmas
        and all(l.endswith(("ar", "er", "ir", "or", "ôr")) for l in ls)
        and ls <= lex.forms.get(form + "s", set())
    ]
    for form in drop:
        del lex.forms[form]
    return len(drop)


def prune_rule_verbs(lex: Lexicon, lang: str) -> int:
    """it/pt: leave out every form that the matcher finds again by rule (``matcher._rule_verb_lemmas``:
    a regular form of a known, regular verb, and nothing else), so the tables stay small.  A form
    is dropped only when the rule gives back exactly its lemmas; the infinitives and the forms
    that show a verb to be regular (``rules.regularity_probes``) are always kept."""
    lemmas = lex.lemmas
    keep = set(lemmas)
    for lemma in lemmas:
        keep |= rules.regularity_probes(lemma, lang)
    drop = []
    for form, form_lemmas in lex.forms.items():
        if form in keep:
            continue
        found = {
            inf for inf in rules.verb_infinitives(form, lang)
            if inf in lex.forms.get(inf, ()) and any(inf in lex.forms.get(p, ()) for p in rules.regularity_probes(inf, lang))
        }
        if found == form_lemmas:
            drop.append(form)
    for form in drop:
        del lex.forms[form]
    return len(drop)


FORMS_HEADER = [
    "{lang} word forms for the variant matcher: lemma<TAB>source<TAB>its forms (space-separated).",
    "A lemma is a form of itself. Built by tools/build_word_data.py; sources and licences in README.md.",
    "Sources: simplemma, lemminflect, wordnet, hunspell (expanded dictionary entries), rule:<name>",
    "(a rule in tools/build_word_data.py, checked against the lemmas the sources list).",
]
LINKS_HEADER = [
    "{lang} word-family links between lemmas: a<TAB>b<TAB>strong|weak<TAB>source (a < b).",
    "Strong links (-ly, -ness, negation) are followed up to three times, weak ones once",
    "(dichotomy_widget/wordsdata/table_build.py). Built by tools/build_word_data.py; see README.md.",
]


def write_text(lex: Lexicon, origins: Origins, lang: str, out: Path) -> list[Path]:
    """The language's two text sources, each sorted, one fact per line with its source."""
    pairs = {(form, lemma): origins.forms[(form, lemma)] for form, lemmas in lex.forms.items() for lemma in lemmas}
    links = {(a, b, kind): origins.links[(a, b, kind)]
             for kind, table in (("strong", lex.strong), ("weak", lex.weak))
             for a, others in table.items() for b in others if a < b}
    forms_path, links_path = out / f"{lang}.forms.tsv", out / f"{lang}.links.tsv"
    table_build.write_forms(forms_path, pairs, [line.format(lang=lang) for line in FORMS_HEADER])
    table_build.write_links(links_path, links, [line.format(lang=lang) for line in LINKS_HEADER])
    return [forms_path, links_path]


def build(lang: str, out: Path = OUT, sqlite_dir: Path | None = None) -> list[Path]:
    lex, origins = Lexicon(), Origins()
    origins.step(lex, "simplemma", load_simplemma, lex, lang)
    if lang == "en":
        origins.step(lex, "lemminflect", load_lemminflect, lex)
        origins.step(lex, "wordnet", load_wordnet, lex)
    if lang in HUNSPELL:
        origins.step(lex, "hunspell", load_hunspell, lex, lang)
    if lang == "it":
        origins.step(lex, "rule:it-strong-verbs", add_it_strong_verbs, lex)
        origins.step(lex, "rule:it-feminines", add_it_feminines, lex)
    if lang == "fr":
        origins.step(lex, "rule:fr-participles", add_fr_irregular_participles, lex)
        origins.step(lex, "rule:fr-feminines", add_fr_feminines, lex)
    origins.step(lex, "rule:participles", add_participles, lex, lang)
    if lang == "de":
        origins.step(lex, "rule:de-participles", add_de_participles, lex)
    origins.step(lex, "rule:affixes", add_rule_links, lex, lang)
    if lang in SENSE_CHECK_LANGS:
        print(f"{lang}: {drop_sense_conflicts(lex, origins, lang)} rule links dropped (senses conflict)")
    if lang == "pt":
        print(f"pt: {drop_pt_clitic_stubs(lex)} clitic stubs dropped")
    if lang in RULE_VERB_LANGS:
        print(f"{lang}: {prune_rule_verbs(lex, lang)} regular verb forms left to the rules")
    paths = write_text(lex, origins, lang, out)
    size = sum(p.stat().st_size for p in paths) / 1e6
    print(f"{lang}: {len(lex.forms)} forms, {len(lex.strong)}+{len(lex.weak)} linked lemmas, "
          f"{size:.1f} MB of text -> {', '.join(str(p) for p in paths)}")
    if sqlite_dir is not None:
        print(f"{lang}: table -> {table_build.build_table(lang, sqlite_dir / f'{lang}.sqlite', out)}")
    return paths


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--langs", default=",".join(LANGS))
    ap.add_argument("--out", type=Path, default=OUT, help="where to write the text sources")
    ap.add_argument("--sqlite", type=Path, default=None, help="also compile the tables into this folder")
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    for lang in args.langs.split(","):
        build(lang, args.out, args.sqlite)
    return 0


if __name__ == "__main__":
    sys.exit(main())
