"""Derivational affix rules: used by tools/build_word_data.py and, for unknown words, at run time.

A rule proposes a *base* for a derived word ("cotización" -> "cotizar"); the builder keeps a
link only when the base is itself a known lemma, so the rules only need to be plausible, not
exhaustive.  ``CHECKED_SUFFIXES`` (es, fr, de, it) are read at run time only, by the matcher, on two
words the lexicon both lists (``checked_bases``); the build does not read them, so the shipped
tables do not depend on them.  English leans on WordNet links and uses only transparent
suffixes here (no -ize, -al, -ic: those join false friends such as organ/organize).  Written
from grammar books, not from the project's dev pairs.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Collection, Iterator
from functools import lru_cache

# (derived ending, base ending): word = stem + derived ending -> stem + base ending
SUFFIXES: dict[str, list[tuple[str, str]]] = {
    "en": [
        ("iness", "y", "a", True), ("ness", "", "a", True),
        ("ily", "y", "a", True), ("ally", "al", "a", True), ("ally", "", "a", True),
        ("bly", "ble", "a", True), ("ly", "", "a", True), ("ly", "le", "a", True),
        # no bare -er/-or rule: letter/let, number/numb, summer/sum (WordNet links real agents)
        ("ess", "", "n"), ("ess", "e", "n"), ("tress", "ter", "n"), ("tress", "tor", "n"),
        ("iful", "y", "n"), ("ful", "", "n"), ("iless", "y", "n"), ("less", "", "n"),
        ("hood", "", "n"), ("ship", "", "n"), ("dom", "", "n"),
        # no -ment or -ity rules: WordNet links the real pairs (agreement/agree, stability/stable)
        # and the rules only added false friends (department/depart, pigment/pig)
        ("able", "", "v"), ("able", "e", "v"), ("iable", "y", "v"),
    ],
    "es": [
        ("ación", "ar"), ("ición", "ir"), ("ición", "er"), ("sión", "der"),
        ("ador", "ar"), ("adora", "ar"), ("edor", "er"), ("edora", "er"), ("idor", "ir"), ("idora", "ir"),
        ("amiento", "ar"), ("imiento", "er"), ("imiento", "ir"),
        ("ante", "ar"), ("iente", "er"), ("iente", "ir"), ("ente", "er"), ("ente", "ir"),
        ("mente", "", "", True), ("amente", "o", "", True),
        ("ista", "o"), ("ista", "a"), ("ista", "e"), ("ista", ""), ("ismo", "o"), ("ismo", "a"), ("ismo", ""),
        ("ismo", "e"), ("idad", "o", "a"), ("idad", "e"), ("idad", ""), ("edad", "o", "a"), ("ez", "o", "a"),
        ("eza", "o", "a"),  # quality nouns on -o: an adjective base only (see ADJECTIVE_BASE_RULES)
        ("ito", "o"), ("ita", "a"), ("illo", "o"), ("illa", "a"), ("ito", "a"), ("ito", "e"), ("cito", ""),
        ("ecito", "o"), ("eta", ""), ("ete", "o"), ("ote", "o"), ("ón", "o"), ("azo", "o"),
        ("cción", "cir"), ("cción", "ir"), ("sión", "dir"), ("sión", "tir"), ("sión", "sar"), ("anza", "ar"),
        ("encia", "ente"), ("ancia", "ante"), ("encia", "er"), ("ura", "o"), ("ura", "ar"), ("aje", "ar"),
        ("aje", ""), ("ico", "ía"), ("ico", "a"), ("ano", ""), ("ano", "a"), ("ense", ""), ("eño", "o"),
        ("ón", "ar"), ("ada", "a"), ("udo", "a"), ("udo", "o"), ("isa", "a"), ("triz", "tor"), ("ista", "ía"),
        ("or", "ar"), ("arín", "ar"), ("eza", "e"),
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
        ("amment", "ant", "", True), ("emment", "ent", "", True), ("eté", "e"), ("té", ""),
        ("el", "e"), ("al", ""), ("ial", "e"), ("ical", "ique"), ("if", ""), ("atif", "er"), ("aire", ""),
        ("aire", "e"), ("ée", "e"), ("ade", "e"), ("ard", ""), ("sion", "der"), ("ssion", "ttre"),
        ("ption", "voir"), ("ction", "ire"), ("iste", "ie"), ("ien", "ie"), ("isme", "ie"),
        ("ir", ""), ("deur", "d"), ("ueur", ""), ("cheur", "c"), ("eur", "re"), ("ibilité", "ible"), ("abilité", "able"), ("iture", "ir"),
        ("eture", "er"), ("ure", "re"), ("ture", "re"), ("erture", "rir"), ("aissance", "aître"),
        ("on", ""), ("iste", "o"), ("isme", "o"), ("tesse", ""), ("itié", "i"), ("ance", "re"), ("ence", "re"),
        ("inture", "indre"), ("isme", "ique"), ("iste", "ique"), ("otique", "ose"), ("iel", "e"), ("iel", "ie"),
        ("teur", "ture"), ("ciation", "cer"),
    ],
    "de": [
        ("ung", "en"), ("ung", "n"), ("er", "en"), ("er", "n"), ("er", ""), ("erin", "en"),
        ("heit", "", "", True), ("keit", "", "", True), ("igkeit", "ig", "", True), ("igkeit", ""),
        ("lichkeit", "lich", "", True), ("erweise", "", "", True), ("in", "", "", True),
        ("lich", ""), ("lich", "en"), ("ig", ""), ("ig", "en"), ("isch", ""), ("isch", "en"), ("ist", ""),
        ("bar", "en"), ("chen", ""), ("chen", "e"), ("lein", ""), ("end", "en"),
        ("e", ""), ("sam", "en"), ("igen", "ig"), ("ern", "er"), ("ei", ""), ("erei", "en"), ("nis", "en"),
        ("ismus", ""), ("ismus", "isch"), ("ation", "ieren"), ("ität", ""), ("ur", "ieren"), ("ant", "ieren"),
        ("ent", "ieren"), ("ner", "en"), ("ling", ""), ("ler", ""), ("en", ""), ("en", "e"), ("eln", "el"), ("ieren", ""), ("los", ""), ("schaft", ""), ("tum", ""), ("ler", "en"),
    ],
    "it": [
        ("azione", "are"), ("izione", "ire"), ("uzione", "uire"), ("amento", "are"), ("imento", "ire"),
        ("imento", "ere"), ("atore", "are"), ("atrice", "are"), ("itore", "ire"), ("itrice", "ire"),
        ("itore", "ere"), ("itrice", "ere"), ("trice", "tore"), ("essa", "e"), ("essa", "o"),
        ("mente", "", "", True), ("lmente", "le", "", True), ("rmente", "re", "", True),
        ("ità", "o"), ("ità", "e"), ("ilità", "ile"), ("ezza", "o"), ("ezza", "e"), ("izia", "o"),
        ("ista", "o"), ("ista", "a"), ("ista", "e"), ("ista", "ia"), ("ismo", "o"), ("ismo", "a"), ("ismo", "e"),
        ("ino", "o"), ("ina", "a"), ("ino", "e"), ("etto", "o"), ("etta", "a"), ("ello", "o"), ("ella", "a"),
        ("one", "o"), ("ona", "a"), ("one", "a"), ("accio", "o"), ("uccio", "o"), ("aio", "o"), ("aio", "a"),
        ("aia", "a"), ("iere", "o"), ("iere", "a"), ("iera", "a"), ("iera", "o"), ("eria", "o"), ("eria", "a"),
        ("eria", "iere"), ("oso", "o"), ("oso", "a"), ("oso", "e"), ("abile", "are"), ("ibile", "ere"),
        ("ibile", "ire"), ("ante", "are"), ("ente", "ere"), ("ente", "ire"), ("anza", "are"), ("anza", "ante"),
        ("enza", "ere"), ("enza", "ire"), ("enza", "ente"), ("ale", "o"), ("ale", "a"), ("ale", "e"),
        ("ico", "o"), ("ico", "a"), ("ico", "ia"), ("izzare", "o"), ("izzare", "a"), ("izzare", "e"),
        ("izzare", ""), ("ificare", "o"), ("ificare", "e"), ("eggiare", "o"), ("eggiare", "a"),
        ("are", "o"), ("are", "a"), ("are", "e"), ("ire", "o"), ("ire", "e"), ("ata", "a"), ("ata", "o"),
        ("ata", "are"), ("ita", "ire"), ("uta", "ere"), ("ura", "are"), ("tura", "re"), ("iano", "ia"),
        ("iano", "o"), ("ano", "a"), ("ese", "o"), ("ese", "a"), ("ese", ""), ("ivo", "are"), ("ativo", "are"),
        ("aggio", "are"), ("aggio", "o"), ("ame", "e"), ("ame", "o"), ("ume", "o"), ("ume", "e"),
        # adverbs of adjectives in -o (chiaramente: the stem "chiara" may be a lemma of its own);
        # the absolute superlative -issimo (bellissimo, vorace / voracissimo, ricco / ricchissimo)
        ("amente", "o", "", True), ("issimo", "o", "", True), ("issimo", "e", "", True),
        ("issima", "o", "", True), ("issima", "e", "", True), ("chissimo", "co", "", True),
        ("ghissimo", "go", "", True), ("issimamente", "o", "", True), ("issimamente", "e", "", True),
    ],
    "pt": [
        ("ação", "ar"), ("ição", "ir"), ("ição", "er"), ("ução", "uir"), ("amento", "ar"), ("imento", "er"),
        ("imento", "ir"), ("ador", "ar"), ("adora", "ar"), ("edor", "er"), ("edora", "er"), ("idor", "ir"),
        ("idora", "ir"), ("triz", "tor"), ("esa", "e"), ("essa", "e"), ("isa", "a"),
        ("mente", "", "", True), ("amente", "o", "", True),
        ("idade", "o"), ("idade", "e"), ("idade", ""), ("ilidade", "il"), ("ividade", "ivo"), ("dade", "e"),
        ("ez", "o"), ("eza", "o"), ("eza", "e"), ("ície", "o"), ("ice", "o"), ("ice", "e"),
        ("ista", "o"), ("ista", "a"), ("ista", "e"), ("ista", ""), ("ista", "ia"),
        ("ismo", "o"), ("ismo", "a"), ("ismo", "e"), ("ismo", ""), ("ismo", "ia"),
        ("inho", "o"), ("inha", "a"), ("inho", "e"), ("zinho", ""), ("zinha", ""), ("ito", "o"), ("ita", "a"),
        ("ão", "o"), ("ão", "a"), ("ona", "a"), ("ete", "o"), ("eta", "a"),
        ("eiro", "o"), ("eiro", "a"), ("eiro", ""), ("eira", "a"), ("eira", "o"), ("eira", ""),
        ("aria", "o"), ("aria", "a"), ("aria", "eiro"), ("oso", "o"), ("oso", "a"), ("oso", ""),
        ("ável", "ar"), ("ível", "er"), ("ível", "ir"), ("ante", "ar"), ("ente", "er"), ("ente", "ir"),
        ("ância", "ante"), ("ência", "ente"), ("ança", "ar"), ("ência", "er"), ("ência", "ir"),
        ("al", "o"), ("al", "a"), ("al", ""), ("ico", "o"), ("ico", "a"), ("ico", "ia"),
        ("izar", "o"), ("izar", "a"), ("izar", ""), ("izar", "e"), ("ificar", "o"), ("ear", "o"), ("ear", "a"),
        ("ar", "o"), ("ar", "a"), ("ar", "e"), ("ar", ""), ("ecer", "o"), ("ecer", "e"),
        ("ada", "a"), ("ada", "o"), ("ada", "ar"), ("ida", "er"), ("ida", "ir"), ("agem", "ar"), ("agem", ""),
        ("agem", "o"), ("ura", "ar"), ("ura", "o"), ("ês", ""), ("ês", "a"), ("ês", "o"), ("ense", ""),
        ("ense", "a"), ("ano", "a"), ("ano", ""), ("iano", "ia"), ("ivo", "ar"), ("ativo", "ar"),
        ("ume", "o"), ("ume", "e"), ("ia", "o"), ("ia", "e"),
        # the absolute superlative -íssimo (dadivosíssimo, cultíssimo, rico / riquíssimo, amável /
        # amabilíssimo) and its adverb -issimamente; see ACCENT_DROPPING_ENDINGS
        ("íssimo", "o", "", True), ("íssimo", "e", "", True), ("íssimo", "", "", True),
        ("íssima", "o", "", True), ("íssima", "e", "", True), ("quíssimo", "co", "", True),
        ("guíssimo", "go", "", True), ("abilíssimo", "ável", "", True), ("ibilíssimo", "ível", "", True),
        ("issimamente", "o", "", True), ("issimamente", "e", "", True), ("issimamente", "", "", True),
        ("abilissimamente", "ável", "", True), ("ibilissimamente", "ível", "", True),
    ],
}

PREFIXES: dict[str, list[str]] = {
    "en": ["un", "non", "mis", "counter", "self"],
    "es": ["des", "in", "im", "i", "re", "anti", "co", "en", "em", "a", "pre", "sobre", "super", "sub",
           "contra", "entre", "inter", "trans", "kilo", "mini", "multi", "ex", "dis", "auto", "mal", "extra",
           "hiper", "ultra", "micro", "semi", "bi", "tri", "vice", "pos", "post", "sin", "neo", "tele"],
    "fr": ["re", "ré", "r", "res", "dé", "dés", "in", "im", "il", "ir", "mé", "mes", "dis", "a", "pré", "par",
           "mal", "extra", "super", "hyper", "ultra", "micro", "mini", "bi", "tri", "semi", "demi", "non",
           "télé", "ex", "post", "pour", "auto", "inter", "milli", "centi", "déci", "kilo", "méga", "nano",
           "sur", "sous", "co", "anti", "géo", "en", "em", "contre", "entre", "inter", "trans", "para"],
    "de": ["un", "ver", "ent", "be", "er", "zer", "ab", "an", "auf", "aus", "ein", "mit", "nach", "vor",
           "zu", "hoch", "heim", "rück", "halb", "unter", "über", "um", "durch", "wider", "wieder",
           "miss", "emp", "fort", "weg", "her", "hin", "los", "zurück", "voran", "vorbei", "dar", "weiter",
           "gegen", "bei", "neben", "zusammen", "heraus", "herein", "hinaus", "hinein", "herum", "voraus",
           "entgegen", "fest", "frei", "teil"],
    # no bare "s" (scala/cala) or "a" (avere/vere) in Italian, no "a" or "i" in Portuguese
    "it": ["ri", "dis", "in", "im", "il", "ir", "de", "pre", "anti", "contro", "sopra", "sotto", "super",
           "inter", "multi", "auto", "co", "con", "semi", "ultra", "extra", "mini", "micro", "tele", "bi",
           "tri", "ex", "post", "sovra", "stra", "iper", "sub", "trans", "neo", "non", "mal", "bis"],
    "pt": ["re", "des", "in", "im", "ir", "anti", "pré", "pre", "pós", "sub", "super", "hiper", "ultra",
           "inter", "multi", "auto", "co", "contra", "entre", "sobre", "mini", "micro", "tele", "bi", "tri",
           "ex", "semi", "vice", "trans", "neo", "mal", "extra", "arqui", "en", "em"],
}

NEGATION_PREFIXES: dict[str, tuple[str, ...]] = {
    "en": ("un", "in", "im", "il", "ir", "dis", "non", "de", "a", "an", "mis", "anti", "counter"),
    "es": ("in", "im", "i", "des", "anti", "a"),
    "fr": ("in", "im", "il", "ir", "dé", "dés", "mé", "mes", "a", "anti"),
    "de": ("un", "miss", "anti"),
    "it": ("in", "im", "il", "ir", "dis", "s", "anti", "non"),
    "pt": ("in", "im", "i", "ir", "des", "anti", "a"),
}

MIN_BASE = 3

# Portuguese: the written accent of a base falls before these endings (rápido / rapidamente /
# rapidíssimo, poluível / poluivelmente), so ``suffix_bases`` also proposes the base with one
# accent put back (the build and the matcher keep only a base that is a known lemma).
ACCENT_DROPPING_ENDINGS: dict[str, tuple[str, ...]] = {"pt": ("mente", "íssimo", "íssima", "issimamente")}
# Endings made from a whole adjective or participle (impreciso / imprecisissimo, calciato /
# calciatissimo, fisso / fissamente): ``bases`` does not try them after stripping a prefix
# (ridottissimo is no "ri-dotto", prestissimo no "pre-sto"), and the matcher also takes a base
# that is a regular verb form (``matcher._rule_verb_lemmas``: calciato, a form of calciare).
WHOLE_WORD_ENDINGS: dict[str, tuple[str, ...]] = {
    "it": ("mente", "issimo", "issima", "errimo"), "pt": ("mente", "íssimo", "íssima"),
}
_ACCENTS = {"a": "áâ", "e": "éê", "i": "í", "o": "óô", "u": "ú"}


def accented(base: str) -> Iterator[str]:
    """``base`` with one accent put on one of its vowels (none when it has one already)."""
    if strip_accents(base) != base:
        return
    for i, c in enumerate(base):
        for a in _ACCENTS.get(c, ""):
            yield base[:i] + a + base[i + 1:]


# Learned prefixes (Greek and Latin combining forms) checked at run time: a word that is one of
# them plus a headword of five letters or more (``MIN_PREFIXED_BASE``) is of that headword's
# family (bioquímico / químico, macroeconomia / economia, infraestrutura / estrutura).  Portuguese
# doubles an r or s after them (microssatélite, biorritmo).  The build does not read them.
CHECKED_PREFIXES: dict[str, tuple[str, ...]] = {
    "pt": ("aero", "ante", "bio", "hipo", "infra", "intra", "macro", "micro", "poli", "proto", "pseudo",
           "supra", "hexa", "hepta", "penta"),
}
MIN_PREFIXED_BASE = 5


def checked_prefix(word: str, base: str, lang: str) -> str | None:
    """The ``CHECKED_PREFIXES`` prefix that makes ``word`` from ``base`` (with a hyphen, or, in
    Portuguese, a doubled r or s), or None."""
    if len(base) < MIN_PREFIXED_BASE:
        return None
    for prefix in CHECKED_PREFIXES.get(lang, ()):
        if word.startswith(prefix):
            rest = word[len(prefix):].removeprefix("-")
            if rest == base or lang == "pt" and rest[:1] in "rs" and rest[1:] == base and base[0] == rest[0]:
                return prefix
    return None

# Spanish quality nouns in -idad, -edad, -ez, -eza are made from adjectives (rapidez/rápido,
# seguridad/seguro, pureza/puro); on a base in -o that is only a noun they join look-alikes
# (cabeza/cabo, pereza/pero, cantidad/canto).  Those rules carry the part of speech "a" in
# ``SUFFIXES``: the base must be an adjective by ``is_adjective``, which the build
# (``tools/build_word_data.py``) and the matcher (``checked_bases``, unknown words) both ask.
ADJECTIVE_BASE_RULES: dict[str, frozenset[tuple[str, str]]] = {
    lang: frozenset((r[0], r[1]) for r in rules if len(r) > 2 and r[2] == "a")
    for lang, rules in SUFFIXES.items() if lang != "en"  # English reads WordNet's parts of speech
}
ADJECTIVE_WITNESS = "~"  # ``checked_bases``: the base must be an adjective (``is_adjective``)


def is_adjective(base: str, lang: str, lemmas_of: Callable[[str], Collection[str]]) -> bool:
    """Whether ``base`` is an adjective by the forms data, ``lemmas_of(form)`` giving the lemmas
    (as spelled) a form is filed under.  Spanish, a base in -o: its feminine in -a is filed under
    it (rápida -> rápido), its adverb in -amente is a word (enfermamente: enferma is a lemma
    of its own), or it ends in the adjective suffix -ivo (reactivo, whose reactiva is a noun);
    cabo has none of these, pero's "pera" is a lemma of its own and canto's "canta" a form of
    cantar.  True where the language has no such test."""
    if lang != "es" or not base.endswith("o") or len(base) < 3:
        return True
    stem = base[:-1]
    return base.endswith("ivo") or base in lemmas_of(stem + "a") or bool(lemmas_of(stem + "amente"))


# Derivations checked at run time (es, fr, de, it) on two words that the lexicon *both* lists as
# headwords: the matcher joins them when one is the other's base by one of these rules (or by
# ``SUFFIXES``), with the spelling changes of ``_checked_stems``.  Because both words must be
# known headwords these rules may be wider than ``SUFFIXES`` (whose links the build wrote into the
# tables and which also guess the family of unknown words).  Grammar-book suffixes, not the
# project's dev pairs; rules that mostly joined unrelated words when run over the whole lemma
# list (bench/words_derivation_links.py) are left out, as the comments say.
CHECKED_SUFFIXES: dict[str, tuple[tuple[str, str], ...]] = {
    "es": (
        # -ero/-era/-ería on a noun in -e (lechero, viajero, mensajera), -ario (bancario, millonario)
        ("ero", "e"), ("era", "e"), ("ería", "e"), ("era", "o"), ("ería", "a"), ("era", ""),
        ("ario", "o"), ("ario", ""),  # no -ario on -a: calvario/calva, cancelario/cancela
        # -ción/-sión on the verb's own stem (contribución, inclusión, atención, descripción,
        # composición, corrección) and the matching agents (conductor)
        ("ución", "uir"), ("usión", "uir"), ("usión", "undir"), ("ención", "ender"), ("ensión", "ender"),
        ("pción", "bir"), ("osición", "oner"), ("ositor", "oner"), ("cción", "gir"), ("cción", "ger"),
        ("ctor", "cir"), ("ctora", "cir"),
        # -ilidad on -ble (posibilidad), -dad/-tad on a consonant (crueldad, lealtad), -itud
        ("ilidad", "le"), ("dad", ""), ("tad", ""), ("itud", "o"),
        # -ico on a noun that keeps its accent (volcánico, metálico)
        ("ico", ""),
    ),
    "fr": (
        # -eur/-euse/-rice on a verb in -ir or -ire (menteur, dormeuse, traducteur, lectrice);
        # an agent in -eur on -ir must have its feminine (see WITNESSES: veneur is no "venir-er")
        ("eur", "ir"), ("euse", "ir"), ("cteur", "ire"), ("ctrice", "ire"),
        # -ution on -uer (évolution, distribution), -ature (signature), -aison/-ison (livraison, guérison);
        # no -issage on -ir: tapissage is from tapisser, not tapir
        ("ution", "uer"), ("ature", "er"), ("aison", "er"), ("ison", "ir"),
        # -erie on -ier or the bare noun (épicerie, laiterie), -osité on -eux (curiosité)
        ("erie", "ier"), ("erie", ""), ("osité", "eux"),
        # -eux on -ie/-i (joyeux, ennuyeux), -cieux on -ce (silencieux), -elet/-elette (porcelet)
        ("yeux", "ie"), ("yeux", "i"), ("cieux", "ce"), ("tieux", "tion"), ("elet", ""), ("elette", "e"),
    ),
    "de": (
        # -heit/-keit/-igkeit on an adjective in -e (Müdigkeit, Feigheit), -schaft on -e (Botschaft)
        ("heit", "e"), ("igkeit", "e"), ("keit", "e"), ("schaft", "e"),
        # -nis on an adjective (Finsternis), -sal on a verb (Schicksal); no -tum on a verb:
        # Reichtum is reich's, not reichen's
        ("nis", ""), ("sal", "en"),
        # -haft, -los and -voll on a noun or verb, with the linking -s (fehlerhaft, arbeitslos, sinnvoll)
        ("haft", ""), ("haft", "en"), ("haft", "e"), ("slos", ""), ("los", "e"), ("voll", ""), ("svoll", ""),
        # verbs in -eln / -ern lose their e (Sammlung, Händler, veränderbar); -in replaces the
        # -e of a masculine noun (Griechin, Kollegin: it needs its plural -innen, see WITNESSES)
        ("lung", "eln"), ("ler", "eln"), ("bar", "n"), ("in", "e"),
    ),
    "it": (
        # the learned superlative -errimo of adjectives in -re (acre / acerrimo, celebre / celeberrimo)
        ("errimo", "re"),
    ),
}
# Rules that join only when the lexicon also lists a sister form made from the same stem, the
# sign of a living derivation: an agent in -eur has its -euse (menteur/menteuse/mentir; veneur,
# honneur have none, and are not from venir, honnir); a German feminine in -in its -innen.
WITNESSES: dict[tuple[str, str], str] = {("eur", "ir"): "euse", ("euse", "ir"): "eur", ("in", "e"): "innen"}
# Rules that do not join when the lexicon lists as a headword the nearer base made from the
# same stem, which the word is then derived from: Gefälligkeit is gefällig's (not Gefälle's),
# wahrhaft is wahr's (not wahren's); Müdigkeit has no "müdig", so it is müde's.
BLOCKERS: dict[tuple[str, str], str] = {("igkeit", "e"): "ig", ("haft", "en"): ""}
# Rules whose stem may not end so: German -haft, -voll, -los on a word in -en is made from a
# plural (sagenhaft from Sagen, legends; launenhaft), which the lemma list reads as a verb (sagen).
BAD_STEM_ENDINGS: dict[str, dict[tuple[str, str], str]] = {
    "de": {("haft", ""): "en", ("voll", ""): "en", ("los", ""): "en"},
}
_BAD_STEM_RULES = frozenset(rule for rules in BAD_STEM_ENDINGS.values() for rule in rules)
# Suffix rules of ``SUFFIXES`` that are not run again on known words: a third-group French -ir is
# no suffix (courir/cour, soupir/soupe; the build checks the verb's conjugation for these).
# Nor are diminutives and augmentatives, which often name a thing of their own (mosquito is
# no small mosca, ratón no big rata): the build's links for them stand, no spelling change is
# added (es -ito, -illo, -ete, -ón, -azo; fr -ette, -et, -on; de -chen, -lein).
_EVALUATIVE = {
    "es": ("ito", "ita", "illo", "illa", "cito", "ecito", "eta", "ete", "ote", "ón", "azo"),
    "fr": ("ette", "et", "on"),
    "de": ("chen", "lein"),
}
_NOT_RECHECKED = {
    lang: frozenset(
        {(r[0], r[1]) for r in SUFFIXES[lang] if r[0] in _EVALUATIVE[lang]}
        | ({("ir", "e"), ("ir", "")} if lang == "fr" else set())
    )
    for lang in ("es", "fr", "de")
}
# No base shorter than this (pan/pánico, mot/moteur, ente/entero, esto/estera, Rate/ratlos) ...
MIN_CHECKED_BASE = 5
# ... but for a rule that adds nothing to the stem (Sinn/sinnvoll, Teil/teilhaft) or has a long
# ending (müde/Müdigkeit, Bote/Botschaft), where a look-alike is much less likely
MIN_CHECKED_BASE_LONG_RULE = 4


_UMLAUT_UNDO = {"ä": "a", "ö": "o", "ü": "u"}
# German suffixes that umlaut their base (Käufer, Ärztin, täglich, bärtig, städtisch, Häuschen,
# Künstler, Gärtner); -ung, -bar, -end and the adjective endings never do (Zählung is zählen's).
_DE_UMLAUT_SUFFIXES = frozenset({
    "er", "in", "erin", "lich", "ig", "isch", "chen", "lein", "ler", "ner", "ling",
})


def _checked_stems(stem: str, derived: str, lang: str) -> Collection[str]:
    """``stem`` and the stems a base may have under its spelling rules: Spanish writes c, g, z
    as qu, gu, c before e and i (banquero/banco, hormiguero/hormiga, cervecero/cerveza); French
    adds e after g and writes ç before a, o (mangeable/manger, nageoire/nager) and doubles a final
    consonant (garçonnet); a German derivation may add an umlaut to its base's last vowel
    (Käufer/kaufen, Ärztin/Arzt), never take one away."""
    if lang == "es" and derived[0] not in "eiéí" or lang == "de" and derived not in _DE_UMLAUT_SUFFIXES:
        return (stem,)  # the usual case: no spelling change
    out = {stem}
    if lang == "es":
        if stem.endswith("qu"):
            out.add(stem[:-2] + "c")
        elif stem.endswith("gu"):
            out.add(stem[:-1])
        elif stem.endswith("c"):
            out.add(stem[:-1] + "z")
    elif lang == "fr":
        if derived[:1] in ("a", "o", "â") and stem.endswith("ge"):
            out.add(stem[:-1])
        elif derived[:1] in ("a", "o", "â") and stem.endswith("ç"):
            out.add(stem[:-1] + "c")
        out |= set(undouble(stem, lang))
    elif lang == "de":
        last = max(stem.rfind(u) for u in _UMLAUT_UNDO)
        if last >= 0:
            out.add(stem[:last] + _UMLAUT_UNDO[stem[last]] + stem[last + 1:])
    return out


def derivation_key(word: str, lang: str) -> str:
    """How the run-time derivation rules compare a base: without accents, except Spanish ñ (a
    letter of its own: paño/panudo), French final é (a suffix of its own: centre/centré) and
    German umlauts (only ``_checked_stems`` undoes them, in one direction)."""
    if lang == "de":
        return word
    if lang == "fr" and word.endswith("é"):
        return strip_accents(word[:-1]) + "é"
    if lang == "es" and "ñ" in word:
        return "ñ".join(strip_accents(part) for part in word.split("ñ"))
    return strip_accents(word)


def _may_change_spelling(derived: str, lang: str) -> bool:
    """Whether ``_checked_stems`` may change the stem before this derived ending."""
    if lang == "es":
        return derived[0] in "eiéí"
    if lang == "fr":
        return derived[0] in "aoâ"  # ge -> g, ç -> c (the build undid doubled consonants)
    return lang == "de" and derived in _DE_UMLAUT_SUFFIXES


@lru_cache(maxsize=8)
def _checked_rules(lang: str) -> dict[str, tuple[tuple[str, str], ...]]:
    """The run-time rules of a language (``CHECKED_SUFFIXES`` then ``SUFFIXES`` less
    ``_NOT_RECHECKED``), filed by the last two letters of their derived ending (one for an
    ending of one letter)."""
    if lang not in CHECKED_SUFFIXES:
        return {}
    skip = _NOT_RECHECKED.get(lang, frozenset())
    # the build linked every SUFFIXES pair already; run again only those whose base may take
    # a spelling change the build did not try (Spanish endings in e/i, French in a/o, German
    # umlauting ones, whose table link can go to an umlauted look-alike lemma)
    rechecked = [(r[0], r[1]) for r in SUFFIXES.get(lang, ()) if _may_change_spelling(r[0], lang)]
    by_last: dict[str, list[tuple[str, str]]] = {}
    for rule in (*CHECKED_SUFFIXES.get(lang, ()), *rechecked):
        if rule not in skip and rule[0]:
            by_last.setdefault(rule[0][-2:], []).append(rule)
    return {last: tuple(dict.fromkeys(rules)) for last, rules in by_last.items()}


@lru_cache(maxsize=8)
def derived_endings_index(lang: str) -> dict[tuple[int, str], tuple[str, ...]]:
    """The run-time rules' derived endings filed by (how much longer a derived word is than its
    base, its last letter): the length of the derived ending less that of the base ending, and
    one more when a spelling change shortens the stem (banqu-ero / banc-o, garçonn-et / garçon).
    A pair of words that finds no entry here cannot be joined by ``checked_bases``."""
    index: dict[tuple[int, str], set[str]] = {}
    for rules in _checked_rules(lang).values():
        for derived, base_end in rules:
            for delta in (len(derived) - len(base_end), len(derived) - len(base_end) + 1):
                index.setdefault((delta, derived[-1]), set()).add(derived)
    return {key: tuple(sorted(ends)) for key, ends in index.items()}


def may_derive(word: str, base: str, lang: str) -> bool:
    """Cheap test that ``word`` could be ``base`` plus a run-time rule's suffix: their lengths
    differ as some rule's endings do and ``word`` ends like that rule.  ``checked_bases`` and
    the matcher decide; this only lets most pairs skip them."""
    ends = derived_endings_index(lang).get((len(word) - len(base), word[-1:]))
    return ends is not None and word.endswith(ends)


@lru_cache(maxsize=4_096)  # a game's words: small, and each entry a short tuple
def checked_bases(word: str, lang: str) -> tuple[tuple[str, str, str], ...]:
    """(base, plain base, witness) triples that ``word`` (a headword) may be derived from by
    ``CHECKED_SUFFIXES`` or ``SUFFIXES``: the plain base is the rule's own output, the base may
    carry a spelling change of ``_checked_stems`` (es, fr, de; else empty).  The matcher takes a
    changed base only when the plain one is no word (aufzählung -> "aufzählen", not "aufzahlen"),
    and a base equal by ``derivation_key`` only when it is no word itself (centrisme -> "centre",
    never the participle "centré").  A witness, when not empty, is a word the lexicon must
    also list (``WITNESSES``), or, after a "!", one it must not list (``BLOCKERS``), or "~":
    the base must be an adjective (``ADJECTIVE_BASE_RULES``, ``is_adjective``)."""
    out: list[tuple[str, str, str]] = []
    by_last = _checked_rules(lang)
    for rule in (*by_last.get(word[-2:], ()), *by_last.get(word[-1:], ())):
        derived, base_end = rule
        if not word.endswith(derived):
            continue
        stem = word[: len(word) - len(derived)]
        if len(stem) < 3:
            continue
        if rule in _BAD_STEM_RULES and stem.endswith(BAD_STEM_ENDINGS[lang].get(rule) or ()):
            continue
        witness = stem + WITNESSES[rule] if rule in WITNESSES else ""
        if rule in ADJECTIVE_BASE_RULES.get(lang, ()):
            witness = ADJECTIVE_WITNESS  # the base (spelling changed or not) must be an adjective
        if rule in BLOCKERS:
            witness = "!" + stem + BLOCKERS[rule]  # a word that must *not* be listed
        plain = stem + base_end
        shortest = MIN_CHECKED_BASE_LONG_RULE if not base_end or len(derived) >= 5 else MIN_CHECKED_BASE
        for s in _checked_stems(stem, derived, lang):
            base = s + base_end
            if len(base) >= shortest and base != word:
                out.append((base, plain, witness))
    return tuple(dict.fromkeys(out))


def strip_accents(word: str) -> str:
    """Drop combining marks (é -> e, ü -> u); used only to match derived bases."""
    return "".join(c for c in unicodedata.normalize("NFD", word) if not unicodedata.combining(c))


def undouble(stem: str, lang: str = "en") -> Iterator[str]:
    """'runn' -> 'run' (English), 'détaill' -> 'détail' (French doubles l, n, t too)."""
    yield stem
    keep = "aeious" if lang == "fr" else "aeiousl"
    if len(stem) > 3 and stem[-1] == stem[-2] and stem[-1] not in keep:
        yield stem[:-1]


def suffix_bases(word: str, lang: str) -> Iterator[tuple[str, str, bool]]:
    """(base, required base part of speech or "", strong link?) by suffix rules."""
    for rule in SUFFIXES.get(lang, ()):
        derived, base_end = rule[0], rule[1]
        pos, strong = (rule[2], rule[3] if len(rule) > 3 else False) if len(rule) > 2 else ("", False)
        stem = word[: len(word) - len(derived)]
        if word.endswith(derived) and len(stem) >= 2 and len(stem) + len(base_end) >= MIN_BASE:
            for s in undouble(stem, lang) if lang in ("en", "fr") else (stem,):
                if lang != "de" or len(s + base_end) >= 4:
                    yield s + base_end, pos, strong
            if derived.endswith(ACCENT_DROPPING_ENDINGS.get(lang, ())) and strip_accents(base_end) == base_end:
                for s in accented(stem):
                    yield s + base_end, pos, strong


def bases(word: str, lang: str) -> Iterator[tuple[str, str, bool]]:
    """Candidate bases of a derived ``word`` (folded): (base, base part of speech, strong link?)."""
    yield from suffix_bases(word, lang)
    for prefix in PREFIXES.get(lang, ()):
        if word.startswith(prefix) and len(word) - len(prefix) >= 4:
            rest = word[len(prefix):]
            strong = is_negation_pair(word, rest, lang)
            yield rest, "", strong
            if lang != "en" and not word.endswith(WHOLE_WORD_ENDINGS.get(lang, ())):
                for base, pos, _strong in suffix_bases(rest, lang):
                    yield base, pos, False
                if lang == "de" and rest.endswith("en") and len(rest) >= 6:
                    yield rest[:-2], "", False  # ent-mutig-en


def is_negation_pair(a: str, b: str, lang: str) -> bool:
    """True for 'adequate'/'inadequate': one word is a negation prefix plus the other."""
    long, short = (a, b) if len(a) > len(b) else (b, a)
    return any(long == p + short or long == p + "-" + short for p in NEGATION_PREFIXES.get(lang, ()))


# Regular conjugation endings by infinitive ending (grammar-book paradigms), used at run time to
# see that a form belongs to a verb even where the lemma list files it under a noun
# (es "levante" -> levantar, fr "ferme" -> fermer, fr "bâtis" -> bâtir).
_ES_AR = ("o as a amos áis an é aste ó asteis aron aba abas ábamos abais aban aré arás ará aremos "
          "aréis arán aría arías aríamos aríais arían e es emos éis en ara aras áramos arais aran ase "
          "ases ásemos aseis asen ando ado ada ados adas ad")
_ES_ER = ("o es e emos éis en í iste ió imos isteis ieron ía ías íamos íais ían eré erás erá eremos "
          "eréis erán ería erías eríamos eríais erían a as amos áis an iera ieras iéramos ierais ieran "
          "iese ieses iésemos ieseis iesen iendo ido ida idos idas ed")
_ES_IR = _ES_ER.replace("eré erás erá eremos eréis erán ería erías eríamos eríais erían",
                        "iré irás irá iremos iréis irán iría irías iríamos iríais irían") + " ís id"
# Italian: -are/-ere/-ire (with the -isc- class), simple tenses, gerund, participles.
_IT_ARE = ("o i a iamo ate ano avo avi ava avamo avate avano ai asti ò ammo aste arono erò erai erà "
           "eremo erete eranno erei eresti erebbe eremmo ereste erebbero iate ino assi asse assimo "
           "assero ando ato ata ati ate ante anti are")
_IT_ERE = ("o i e iamo ete ono evo evi eva evamo evate evano ei etti esti é ette emmo este erono "
           "ettero erò erai erà eremo erete eranno erei eresti erebbe eremmo ereste erebbero a iate ano "
           "essi esse essimo essero endo uto uta uti ute ente enti ere")
_IT_IRE = ("o i e iamo ite ono ivo ivi iva ivamo ivate ivano ii isti ì immo iste irono irò irai irà "
           "iremo irete iranno irei iresti irebbe iremmo ireste irebbero a iate ano issi isse issimo "
           "issero endo ito ita iti ite ente enti iente isco isci isce iscono isca iscano ire")
# Portuguese: -ar/-er/-ir, simple tenses (both norms: amámos/amamos), personal infinitive,
# future subjunctive, gerund, participles.
_PT_AR = ("o as a amos ámos ais am ava avas ávamos áveis avam ei aste ou astes aram ara aras áramos "
          "áreis arei arás ará aremos areis arão aria arias aríamos aríeis ariam e es emos eis em asse "
          "asses ássemos ásseis assem ar ares armos ardes arem ando ado ada ados adas ai")
_PT_ER = ("o es e emos eis em ia ias íamos íeis iam i este eu estes eram era eras êramos êreis erei "
          "erás erá eremos ereis erão eria erias eríamos eríeis eriam a as amos ais am esse esses "
          "êssemos êsseis essem er eres ermos erdes erem endo ido ida idos idas ei")
_PT_IR = ("o es e imos is em ia ias íamos íeis iam i iste iu istes iram ira iras íramos íreis irei "
          "irás irá iremos ireis irão iria irias iríamos iríeis iriam a as amos ais am isse isses "
          "íssemos ísseis issem ir ires irmos irdes irem indo ido ida idos idas")
VERB_ENDINGS: dict[str, dict[str, frozenset[str]]] = {
    "it": {"are": frozenset(_IT_ARE.split()), "ere": frozenset(_IT_ERE.split()), "ire": frozenset(_IT_IRE.split())},
    "pt": {"ar": frozenset(_PT_AR.split()), "er": frozenset(_PT_ER.split()), "ir": frozenset(_PT_IR.split())},
    "es": {"ar": frozenset(_ES_AR.split()), "er": frozenset(_ES_ER.split()), "ir": frozenset(_ES_IR.split())},
    "fr": {
        "er": frozenset("e es ent ons ez ais ait ions iez aient ai as a âmes âtes èrent erai eras era "
                        "erons erez eront erais erait erions eriez eraient asse asses ât assions "
                        "assiez assent é ée és ées ant".split()),
        "ir": frozenset("is it issons issez issent issais issait issions issiez issaient îmes îtes "
                        "irent irai iras ira irons irez iront irais irait irions iriez iraient isse "
                        "isses ît i ie ies issant".split()),
        "re": frozenset("s t ons ez ent ais ait ions iez aient is it îmes îtes irent rai ras ra rons "
                        "rez ront rais rait rions riez raient e es u ue us ues ant".split()),
        # connaître, paraître: connais, connaît, connaissons ... (tried before the plain -re class)
        "aître": frozenset("ais ait aît aissons aissez aissent aissais aissait aissions aissiez "
                           "aissaient aisse aisses aissant aîtrai aîtras aîtra aîtrons aîtrez "
                           "aîtront aîtrais aîtrait aîtrions aîtriez aîtraient".split()),
        # traire, distraire, extraire: distrais, distrayons, distrayant, distrait
        "aire": frozenset("ais ait ayons ayez aient ayais ayait ayions ayiez ayaient aie aies ayant "
                          "aite aits aites airai airas aira airons airez airont".split()),
    },
    "de": {
        "en": frozenset("e st t en et end ete est test ten tet".split()),
        "ern": frozenset("ere erst ert ern ert ernd erte ertest erten ertet re".split()),
        "eln": frozenset("le elst elt eln elnd elte eltest elten eltet".split()),
    },
}
_DE_NO_GE = ("be", "ge", "er", "ver", "zer", "ent", "emp", "miss")


def _stem_variants(stem: str, lang: str) -> set[str]:
    """The stem and its usual vowel alternations (es e->ie/i, o->ue; fr é->è, e->è)."""
    out = {stem}
    if lang == "es":
        for old, news in (("e", ("ie", "i")), ("o", ("ue",)), ("u", ("ue",))):
            i = stem.rfind(old)
            if i >= 0:
                out |= {stem[:i] + new + stem[i + 1:] for new in news}
        if stem.endswith("c"):
            out |= {stem[:-1] + "qu", stem[:-1] + "z", stem[:-1] + "zc"}
        if stem.endswith("g"):
            out |= {stem[:-1] + "gu", stem[:-1] + "j"}
        if stem.endswith("z"):
            out.add(stem[:-1] + "c")
    elif lang == "it":
        if stem.endswith(("c", "g")):
            out.add(stem + "h")  # cercare: cerchi, cercherò
        if stem.endswith("i") and len(stem) >= 3:
            out.add(stem[:-1])  # mangiare: mangi, mangerò; studiare: studi
    elif lang == "pt":
        if stem.endswith("c"):
            out |= {stem[:-1] + "qu", stem[:-1] + "ç"}  # ficar: fique; conhecer: conheço
        if stem.endswith("g"):
            out |= {stem + "u", stem[:-1] + "j"}  # pagar: pague; proteger: protejo
        if stem.endswith("gu"):
            out.add(stem[:-1])  # erguer: ergo
        if stem.endswith("ç"):
            out.add(stem[:-1] + "c")  # começar: comece
    elif lang == "fr":
        for old in ("é", "e"):
            i = stem.rfind(old)
            if i >= 0:
                out.add(stem[:i] + "è" + stem[i + 1:])
        if stem.endswith("c"):
            out.add(stem[:-1] + "ç")
        if stem.endswith("g"):
            out.add(stem + "e")
        if stem.endswith(("el", "et")):
            out.add(stem + stem[-1])
        if stem.endswith("y"):
            out.add(stem[:-1] + "i")
    return out


def is_regular_verb_form(form: str, infinitive: str, lang: str) -> bool:
    """True when ``form`` is a regular conjugated form of ``infinitive`` (both folded)."""
    for inf_end, endings in VERB_ENDINGS.get(lang, {}).items():
        if not infinitive.endswith(inf_end) or len(infinitive) - len(inf_end) < 2:
            continue
        stem = infinitive[: len(infinitive) - len(inf_end)]
        for s in _stem_variants(stem, lang):
            if form.startswith(s) and form[len(s):] in endings:
                return True
        if lang == "de" and inf_end == "en":
            if stem.startswith(_DE_NO_GE) and form == stem + "t":
                return True
            if form in ("ge" + stem + "t", "ge" + stem + "et"):
                return True
            for prefix in PREFIXES["de"]:  # separable: aufgemacht / aufmachen
                if stem.startswith(prefix) and form == prefix + "ge" + stem[len(prefix):] + "t":
                    return True
    return False


def regularity_probes(infinitive: str, lang: str) -> set[str]:
    """Forms that a regular verb has (es 1sg, fr 1pl, de 3sg); if the lexicon files none of them
    under the infinitive, the verb is irregular (venir: no "veno") and the endings are not trusted."""
    probes: set[str] = set()
    for inf_end in sorted(VERB_ENDINGS.get(lang, {}), key=len, reverse=True):
        if infinitive.endswith(inf_end):
            stem = infinitive[: len(infinitive) - len(inf_end)]
            if lang in ("it", "pt"):
                probes |= {s + "o" for s in _stem_variants(stem, lang)}
                probes |= {stem + "isco"} if lang == "it" and inf_end == "ire" else set()
            elif lang == "es":
                probes |= {s + "o" for s in _stem_variants(stem, lang)}
                probes.add(stem + ("ando" if inf_end == "ar" else "iendo"))
            elif lang == "fr" and inf_end in ("aître", "aire"):
                probes |= {stem + "aissons", stem + "ayons"}
            elif lang == "fr":
                probes |= {stem + ("issons" if inf_end == "ir" else "ons"), stem + "geons"}
            else:
                probes |= {stem + "t", stem + "et", stem + {"en": "e", "ern": "ere", "eln": "le"}[inf_end]}
            break
    return probes


DE_INSEPARABLE = ("be", "ver", "ent", "er", "zer", "emp", "miss", "über", "unter", "hinter", "wider")


def _de_infinitive(stem: str) -> str:
    """feier -> feiern, wechsel -> wechseln, trenn -> trennen."""
    return stem + ("n" if stem.endswith(("el", "er")) else "en")


def de_participle_verbs(word: str) -> list[str]:
    """Infinitives a German participle may come from: rappelnd -> rappeln, plombiert ->
    plombieren, verheddert -> verheddern, gebadet -> baden, aufgemacht -> aufmachen,
    ausverkauft -> ausverkaufen."""
    if word.endswith("nd") and len(word) >= 7:  # present participle: infinitive + d
        return [word[:-1]]
    if not word.endswith("t") or len(word) < 6:
        return []
    verbs = []
    for prefix in ("", *PREFIXES["de"]):  # a separable prefix stays in front (auf-ge-macht)
        if not word.startswith(prefix):
            continue
        rest = word[len(prefix) :]
        stem = rest[:-2] if rest.endswith("et") else rest[:-1]
        verbs += [prefix + rest[:-1] + "en"] if rest.endswith("iert") else []  # -ieren: no ge-
        if rest.startswith("ge") and len(stem) >= 5:
            verbs.append(prefix + _de_infinitive(stem[2:]))
        elif rest.startswith(DE_INSEPARABLE) and len(stem) >= 4:
            verbs.append(prefix + _de_infinitive(stem))
    return verbs


# Undo the stem alternations of ``_stem_variants`` (it, pt): a form's stem -> the infinitive's.
_STEM_UNDO: dict[str, tuple[tuple[str, str], ...]] = {
    "it": (("ch", "c"), ("gh", "g"), ("c", "ci"), ("g", "gi"), ("", "i")),
    "pt": (("qu", "c"), ("ç", "c"), ("c", "ç"), ("gu", "g"), ("j", "g"), ("g", "gu")),
}


# Clitic pronouns joined to a verb: Italian writes them on (presentarsi, sviluppandosi, perdetevi,
# dammelo), Portuguese after a hyphen (lembrar-se, comprá-lo, dá-me).
_IT_CLITICS = tuple(sorted(
    {a + b for a in ("me", "te", "ce", "ve", "se", "glie") for b in ("lo", "la", "li", "le", "ne")}
    | {"gli", "si", "ti", "mi", "ci", "vi", "lo", "la", "li", "le", "ne"},
    key=len, reverse=True,
))  # glielo, ce-le, te-ne ... before the single pronouns
_PT_CLITICS = ("-lhes", "-lhe", "-nos", "-vos", "-los", "-las", "-me", "-te", "-se", "-lo", "-la", "-os",
               "-as", "-no", "-na", "-o", "-a")
_PT_ACCENTED_INFINITIVE = {"á": "ar", "ê": "er", "í": "ir", "ô": "or"}


def verb_infinitives(form: str, lang: str) -> list[str]:
    """Infinitives of which ``form`` may be a regular conjugated form (it, pt), nearest first:
    "parlavamo" -> ["parlare"], "fique" -> ["ficar", ...], also with clitic pronouns
    ("presentarsi" -> "presentare", "comprá-lo" -> "comprar").  Each candidate passes
    :func:`is_regular_verb_form`; whether it is a known, regular verb is for the caller to check
    (the table build keeps out of its lists only the forms that this function finds again)."""
    out = _plain_verb_infinitives(form, lang)
    for clitic in _IT_CLITICS if lang == "it" else _PT_CLITICS if lang == "pt" else ():
        base = form[: len(form) - len(clitic)]
        if not form.endswith(clitic) or len(base) < 4:
            continue
        if lang == "it" and base.endswith(("ar", "er", "ir")):
            out += [base + "e"]  # presentar-si
        elif lang == "pt" and base[-1] in _PT_ACCENTED_INFINITIVE:
            out += [base[:-1] + _PT_ACCENTED_INFINITIVE[base[-1]]]  # comprá-lo
        out += _plain_verb_infinitives(base, lang)
        if lang == "it":
            break  # the longest clitic only (glielo, not lo)
    return list(dict.fromkeys(out))


def _plain_verb_infinitives(form: str, lang: str) -> list[str]:
    out: list[str] = []
    for inf_end, endings in VERB_ENDINGS.get(lang, {}).items():
        for cut in range(1, min(len(form), 9)):
            ending, stem = form[-cut:], form[:-cut]
            if ending not in endings or len(stem) < 2:
                continue
            stems = [stem] + [stem[: len(stem) - len(a)] + b for a, b in _STEM_UNDO.get(lang, ()) if stem.endswith(a)]
            for s in stems:
                infinitive = s + inf_end
                if infinitive not in out and is_regular_verb_form(form, infinitive, lang):
                    out.append(infinitive)
    return out
