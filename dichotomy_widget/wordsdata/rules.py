"""Derivational affix rules: used by tools/build_word_data.py and, for unknown words, at run time.

A rule proposes a *base* for a derived word ("cotización" -> "cotizar"); the builder keeps a
link only when the base is itself a known lemma, so the rules only need to be plausible, not
exhaustive.  English leans on WordNet links and uses only transparent suffixes here (no -ize,
-al, -ic: those join false friends such as organ/organize).  Written from grammar books, not
from the project's dev pairs.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator

# (derived ending, base ending): word = stem + derived ending -> stem + base ending
SUFFIXES: dict[str, list[tuple[str, str]]] = {
    "en": [
        ("iness", "y", "a", True), ("ness", "", "a", True),
        ("ily", "y", "a", True), ("ally", "al", "a", True), ("ally", "", "a", True),
        ("bly", "ble", "a", True), ("ly", "", "a", True), ("ly", "le", "a", True),
        ("er", "", "v"), ("er", "e", "v"), ("or", "", "v"), ("or", "e", "v"),
        ("ess", "", "n"), ("ess", "e", "n"), ("tress", "ter", "n"), ("tress", "tor", "n"),
        ("ment", "", "v"), ("iful", "y", "n"), ("ful", "", "n"), ("iless", "y", "n"), ("less", "", "n"),
        ("hood", "", "n"), ("ship", "", "n"), ("dom", "", "n"),
        ("ability", "able", "a"), ("ibility", "ible", "a"), ("ity", "", "a"), ("ity", "e", "a"),
        ("able", "", "v"), ("able", "e", "v"), ("iable", "y", "v"),
    ],
    "es": [
        ("ación", "ar"), ("ición", "ir"), ("ición", "er"), ("sión", "der"),
        ("ador", "ar"), ("adora", "ar"), ("edor", "er"), ("edora", "er"), ("idor", "ir"), ("idora", "ir"),
        ("amiento", "ar"), ("imiento", "er"), ("imiento", "ir"),
        ("ante", "ar"), ("iente", "er"), ("iente", "ir"), ("ente", "er"), ("ente", "ir"),
        ("mente", "", "", True), ("amente", "o", "", True),
        ("ista", "o"), ("ista", "a"), ("ista", "e"), ("ista", ""), ("ismo", "o"), ("ismo", "a"), ("ismo", ""),
        ("ismo", "e"), ("idad", "o"), ("idad", "e"), ("idad", ""), ("edad", "o"), ("ez", "o"), ("eza", "o"),
        ("ito", "o"), ("ita", "a"), ("illo", "o"), ("illa", "a"), ("ito", "a"), ("ito", "e"), ("cito", ""),
        ("ecito", "o"), ("eta", ""), ("ete", "o"), ("ote", "o"), ("ón", "o"), ("azo", "o"),
        ("cidad", "z"), ("adero", ""), ("adería", ""), ("ería", ""), ("ero", ""),
        ("ero", "a"), ("ero", "o"), ("era", "a"), ("ería", "ero"), ("ería", "o"),
        ("izar", ""), ("izar", "o"), ("ificar", "o"), ("ear", "o"), ("ear", "a"), ("ear", ""),
        ("ar", "a"), ("ar", "o"), ("ar", ""), ("ar", "e"),
        ("ado", "ar"), ("ada", "ar"), ("ido", "er"), ("ido", "ir"), ("ida", "er"), ("ida", "ir"),
        ("oso", "o"), ("oso", "a"), ("oso", ""), ("ivo", "ar"), ("ativo", "ar"),
        ("ional", "ión"), ("al", "o"), ("al", "a"), ("al", ""), ("ía", "o"), ("ía", "a"), ("ia", "o"),
        ("ble", "r"), ("able", "ar"), ("ible", "er"), ("ible", "ir"), ("áceo", ""), ("uno", "a"),
    ],
    "fr": [
        ("ation", "er"), ("ition", "ir"), ("ement", "er"), ("issement", "ir"), ("ment", "", "", True),
        ("eur", "er"), ("euse", "er"), ("rice", "eur"), ("ateur", "er"), ("atrice", "er"),
        ("age", "er"), ("ure", "er"), ("ance", "ant"), ("ence", "ent"), ("ance", "er"),
        ("ité", ""), ("ité", "e"), ("ité", "ique"), ("iste", ""), ("iste", "e"), ("isme", ""), ("isme", "e"),
        ("istique", "iste"), ("ique", "e"), ("ique", "ie"),
        ("ueux", "e"), ("eux", "e"), ("eux", ""), ("euse", "e"), ("eux", "eur"),
        ("ière", ""), ("ier", ""), ("ier", "e"), ("ière", "e"), ("ière", "ier"),
        ("ette", ""), ("ette", "e"), ("et", "e"), ("elle", "e"), ("on", "e"),
        ("able", "er"), ("ible", "ir"), ("ant", "er"), ("ent", "er"), ("iser", ""), ("iser", "e"),
        ("ifier", "e"), ("er", "e"), ("er", ""), ("ir", "e"), ("aliste", "au"), ("ine", ""), ("ine", "e"),
        ("oyer", "u"), ("oureux", "eur"), ("eux", "eur"), ("aliste", "eau"), ("ien", ""), ("ien", "e"),
        ("ienne", ""), ("ienne", "e"), ("ais", ""), ("ois", ""), ("aise", ""), ("oise", ""),
        ("erie", "er"), ("erie", "e"), ("esse", ""), ("esse", "e"), ("ise", ""), ("itude", ""),
        ("ité", "if"), ("ivité", "if"), ("iser", "ique"), ("ification", "ifier"), ("ateur", "ation"),
        ("ement", "e"), ("age", "e"), ("eur", "e"), ("oir", "er"), ("oire", "er"), ("ude", "e"),
    ],
    "de": [
        ("ung", "en"), ("ung", "n"), ("er", "en"), ("er", "n"), ("er", ""), ("erin", "en"),
        ("heit", "", "", True), ("keit", "", "", True), ("igkeit", "ig", "", True), ("igkeit", ""),
        ("lichkeit", "lich", "", True), ("erweise", "", "", True), ("in", "", "", True),
        ("lich", ""), ("lich", "en"), ("ig", ""), ("ig", "en"), ("isch", ""), ("isch", "en"), ("ist", ""),
        ("bar", "en"), ("chen", ""), ("chen", "e"), ("lein", ""), ("end", "en"),
        ("e", ""), ("sam", "en"), ("igen", "ig"), ("ern", "er"), ("los", ""), ("schaft", ""), ("tum", ""), ("ler", "en"),
    ],
}

PREFIXES: dict[str, list[str]] = {
    "en": ["un", "non", "mis", "counter", "self"],
    "es": ["des", "in", "im", "i", "re", "anti", "co", "en", "em", "a", "pre", "sobre", "super", "sub",
           "contra", "entre", "inter", "trans", "kilo", "mini", "multi", "ex", "dis", "auto"],
    "fr": ["re", "ré", "r", "res", "dé", "dés", "in", "im", "il", "ir", "mé", "mes", "dis", "a", "pré", "par",
           "sur", "sous", "co", "anti", "géo", "en", "em", "contre", "entre", "inter", "trans", "para"],
    "de": ["un", "ver", "ent", "be", "er", "zer", "ab", "an", "auf", "aus", "ein", "mit", "nach", "vor",
           "zu", "hoch", "heim", "rück", "halb", "unter", "über", "um", "durch", "wider", "wieder",
           "miss", "emp", "fort", "weg", "her", "hin", "los", "zurück", "voran", "vorbei", "dar"],
}

NEGATION_PREFIXES: dict[str, tuple[str, ...]] = {
    "en": ("un", "in", "im", "il", "ir", "dis", "non", "de", "a", "an", "mis", "anti", "counter"),
    "es": ("in", "im", "i", "des", "anti", "a"),
    "fr": ("in", "im", "il", "ir", "dé", "dés", "mé", "mes", "a", "anti"),
    "de": ("un", "miss", "anti"),
}

MIN_BASE = 3


def strip_accents(word: str) -> str:
    """Drop combining marks (é -> e, ü -> u); used only to match derived bases."""
    return "".join(c for c in unicodedata.normalize("NFD", word) if not unicodedata.combining(c))


def undouble(stem: str) -> Iterator[str]:
    """'runn' -> 'run' (English doubled final consonant)."""
    yield stem
    if len(stem) > 3 and stem[-1] == stem[-2] and stem[-1] not in "aeiousl":
        yield stem[:-1]


def suffix_bases(word: str, lang: str) -> Iterator[tuple[str, str, bool]]:
    """(base, required base part of speech or "", strong link?) by suffix rules."""
    for rule in SUFFIXES.get(lang, ()):
        derived, base_end = rule[0], rule[1]
        pos, strong = (rule[2], rule[3] if len(rule) > 3 else False) if len(rule) > 2 else ("", False)
        stem = word[: len(word) - len(derived)]
        if word.endswith(derived) and len(stem) >= 2 and len(stem) + len(base_end) >= MIN_BASE:
            for s in undouble(stem) if lang == "en" else (stem,):
                yield s + base_end, pos, strong


def bases(word: str, lang: str) -> Iterator[tuple[str, str, bool]]:
    """Candidate bases of a derived ``word`` (folded): (base, base part of speech, strong link?)."""
    yield from suffix_bases(word, lang)
    for prefix in PREFIXES.get(lang, ()):
        if word.startswith(prefix) and len(word) - len(prefix) >= 4:
            rest = word[len(prefix):]
            strong = is_negation_pair(word, rest, lang)
            yield rest, "", strong
            if lang != "en":
                for base, _pos, _strong in suffix_bases(rest, lang):
                    yield base, "", False
                if lang == "de" and rest.endswith("en") and len(rest) >= 6:
                    yield rest[:-2], "", False  # ent-mutig-en


def is_negation_pair(a: str, b: str, lang: str) -> bool:
    """True for 'adequate'/'inadequate': one word is a negation prefix plus the other."""
    long, short = (a, b) if len(a) > len(b) else (b, a)
    return any(long == p + short or long == p + "-" + short for p in NEGATION_PREFIXES.get(lang, ()))
