"""Word normalisation and variant matching for en, es, fr and de.

Public contract (the engine depends on exactly these):

- ``normalize(text) -> str``: trimmed, NFKC, case-folded, look-alikes folded (``confusables.fold``).
- ``variant_reason(a, b, lang) -> str | None``: why two words count as the same word for clues
  ("same", "spelling", "accents", "inflection", "family", "compound") or ``None``.
- ``is_variant(a, b, lang) -> bool``: ``variant_reason(...) is not None``.
- ``guess_reason(guess, word, lang) -> str | None``: the stricter judgement of a guess.
- ``SUPPORTED_LANGUAGES``: languages with full support.

How it decides (in this order; every rule is symmetric, so ``variant_reason(a, b) ==
variant_reason(b, a)``; ``guess_reason`` reads its second word as the card's, see below):

1. ``same``: equal after ``normalize`` (NFKC, trim, case fold; German ß folds to ss, so
   "Maße"/"Masse" are the same here: a known, accepted limit of case folding; a letter of another
   script that looks like a Latin one is read as that letter by its Unicode TR39 skeleton, so
   "mаp" with a Cyrillic а is "map").
2. ``spelling`` (English): British/American spelling (colour/color, organise/organize,
   travelled/traveled, grey/gray), also under inflection (colours/colored).
3. ``accents``: equal once accents are dropped *and* at least one side is not a known word, so a
   learner's "cafe" matches "café" but Spanish "el"/"él" or German "schon"/"schön" (two real
   words) stay apart.  Dropping accents blindly would merge such pairs; ignoring them would
   punish learners without an accent key.
4. ``inflection``: the two forms share a lemma in the shipped lexicon (``wordsdata/<lang>.sqlite``,
   built by ``tools/build_word_data.py`` from simplemma, lemminflect, WordNet and the French and
   Spanish hunspell paradigms): mice/mouse, went/go, tengo/tener, ging/gehen, tío/tía,
   martyr/martyre; German participles filed as adjectives are linked to their verb
   (plombiert/plombieren).  Two words that are both headwords and meet only in a third lemma
   are two words (es/fr/de): "casa" and "caso" are both forms of "casar", but not variants.
   A German or unknown form may also be a regular conjugated form of a known infinitive
   (aufgemacht/aufmachen).  A word missing from the lexicon is looked up again without an
   inflection ending ("antes" -> "ante"; German also undoes declension, comparison and
   participles: "bespritztes" -> "bespritzen"); a word no source lists matches its regular
   inflections (plugin/plugins) and, in German, a compound matches when its last parts are forms
   of one word (Schreianfall/Schreianfälle); only then (clues only) are Snowball stems compared.
5. ``family``: the lemmas are linked by derivation (WordNet links for English, affix rules checked
   against the lemma list for all four): teach/teacher, decide/decision, prince/princess,
   happy/unhappiness.  In es, fr and de two headwords the lexicon lists are also one family when
   one is the other's base by a suffix rule checked at run time (``affix_rules.checked_bases``,
   with the spelling changes qu/c, gu/g, c/z, ge/g, ç/c and a German umlaut): lechero/leche,
   menteur/mentir, Müdigkeit/müde; guards keep out look-alikes (a base of five letters or more
   for a short ending, an -eur needs its -euse, a nearer headword base wins, diminutives get no
   spelling change: veneur/venir, entero/ente, Gefälligkeit/Gefälle, mosquito/mosca stay apart).
   Portuguese: a learned prefix (``affix_rules.CHECKED_PREFIXES``) plus a headword of five
   letters or more is of its family (bioquímico/químico; hipoteca/teca stay apart).
   Stems alone never count for two known words, so universe/university,
   organ/organization, pero/pera, pape/papa are not variants.
6. ``compound`` (German only): one word is the other with a known word or prefix in front
   (Halbmond/Mond, Bahnhof/Hof).

Guesses (``guess_reason``) are judged more strictly, since accepting a wrong guess is the worse
mistake: only ``same``, ``spelling``, ``accents`` and ``inflection`` count (a plural or a verb
form of the word is right); a word of the same family ("teacher" for "teach"), a compound or a
stem-only match is not.  The card's word is read as its own headword, so for "casa" the guess
"casas" is right but "casar" is not (though "casa" is also a form of "casar"); for "vino",
"venir" is wrong.

Languages other than en, es, fr, de (``lang`` is read as its first subtag: "en-GB" is "en") fall
back to ``same`` and ``accents`` only: exact match after normalisation, plus accent-insensitive
match; no inflection is guessed.  Nothing is downloaded: the lexicon files ship in the package
and are opened read-only (shared by all kernels through the page cache); ``snowballstemmer`` is
imported lazily, only for words missing from the lexicon.  Odd input (empty, very long, emoji,
markup, non-strings) never raises: it is simply not a variant. A missing word list or stemmer
raises ``DependencyMissing`` (never a silent "no match"); any other failure is logged (the log line
names no word) and judged as no match.
"""

from __future__ import annotations

import re
import logging
import threading
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from ..errors import DependencyMissing, where
from ..i18n import N_
from ..wordsdata import tables
from .confusables import fold

if TYPE_CHECKING:
    import sqlite3

__all__ = [
    "SUPPORTED_LANGUAGES",
    "normalize",
    "is_variant",
    "variant_reason",
    "guess_reason",
    "is_known",
    "REASON_TEXT",
]

logger = logging.getLogger(__name__)

#: The languages with full support: those the word tables are built for.
SUPPORTED_LANGUAGES = tables.LANGUAGES

#: Why two words count as one, in English; screens show it through ``i18n`` (the strings are extracted).
REASON_TEXT = {
    "same": N_("the same word"),
    "spelling": N_("a spelling variant"),
    "accents": N_("the same word without accents"),
    "inflection": N_("a form of the same word"),
    "family": N_("the same word family"),
    "compound": N_("a compound of the same word"),
}

_SNOWBALL_NAMES = {
    "en": "english", "es": "spanish", "fr": "french", "de": "german", "it": "italian", "pt": "portuguese",
}  # snowballstemmer
_MAX_LEN = 40
_WORD_RE = re.compile(r"^[^\W\d_]+(?:['’-][^\W\d_]+)*$")
_GUESS_REASONS = frozenset({"same", "spelling", "accents", "inflection"})
_DE_COMPOUND_PREFIXES = frozenset(
    "un ver ent be er zer ab an auf aus ein mit nach vor zu hoch heim rück halb unter über um durch "
    "wider wieder miss fort weg her hin zurück dar".split()
)

# British -> American rewrites (pattern, replacement); applied to both words before comparing.
_US_SPELLING_RULES = [
    (r"(?<=[a-z]{2})our(?=$|s$|ed$|ing$|ite|hood|able|ful|er|ism|less)", "or"),
    (r"(?<=[a-z]{2})is(?=e$|es$|ed$|ing$|er$|ers$|ation|ations$|able$)", "iz"),
    (r"(?<=[a-z])ys(?=e$|es$|ed$|ing$|er$|ers$)", "yz"),
    (r"(?<=[a-z]{2})([tbv])re(?=$|s$|d$)", r"\1er"),
    (r"(?<=[aeiou])ll(?=ed$|ing$|er$|ers$|or$|ors$|ation|ous|ent$|ents$)", "l"),
    (r"(?<=[a-z]{2}[aeiou])ll(?=$|s$|ment|ful)", "l"),
    (r"(?<=[a-z]{2}[^aeiou])eable$", "able"),
    (r"(?<=[a-z])ae(?=[a-z]{2})", "e"),
    (r"(?<=[a-z]{2})oe(?=[a-z])", "e"),
    (r"(?<=[a-z])oeu", "eu"),
    (r"(?<=[a-z]{2})ogue(?=$|s$)", "og"),
    (r"(?<=[a-z]{2})ence(?=$|s$)", "ense"),
    (r"(?<=[a-z])gement", "gment"),
    (r"(?<=[a-z]{2})ible(?=$|s$)", "able"),
    (r"(?<=[a-z]{3})ie(?=$|s$)", "y"),
    (r"(?<=[a-z]{2})mme(?=$|s$)", "m"),
]


# Whole-word British/American pairs that no rule above covers (British first).
_US_WORDS = {
    "aeroplane": "airplane", "aluminium": "aluminum", "cheque": "check", "chequered": "checkered",
    "cosy": "cozy", "doughnut": "donut", "draught": "draft", "grey": "gray", "jewellery": "jewelry",
    "kerb": "curb", "mould": "mold", "moult": "molt", "moustache": "mustache", "plough": "plow",
    "pyjamas": "pajamas", "sceptic": "skeptic", "sceptical": "skeptical", "smoulder": "smolder",
    "storey": "story", "sulphur": "sulfur", "tyre": "tire", "ageing": "aging", "artefact": "artifact",
    "axe": "ax", "carat": "karat", "gaol": "jail", "manoeuvre": "maneuver", "mum": "mom",
    "practise": "practice", "programme": "program", "whisky": "whiskey", "yoghurt": "yogurt",
}


def normalize(text: str) -> str:
    """Trim, apply Unicode NFKC, case-fold and fold look-alike characters (TR39 skeletons)."""
    if not isinstance(text, str):
        return ""
    return fold(unicodedata.normalize("NFKC", text).strip())  # fold case-folds after looking capitals up


_normal = lru_cache(maxsize=20_000)(normalize)  # per word, for the matcher's hot path


@lru_cache(maxsize=20_000)
def _strip_accents(word: str) -> str:
    """Drop combining marks: "café" -> "cafe", "schön" -> "schon"."""
    return "".join(c for c in unicodedata.normalize("NFD", word) if not unicodedata.combining(c))


def _is_word(word: str) -> bool:
    """A plausible dictionary word (letters, inner hyphen or apostrophe; not too long)."""
    return 0 < len(word) <= _MAX_LEN and _WORD_RE.match(word) is not None


class _Lexicon:
    """Read-only view of one language's SQLite table (one connection per thread)."""

    def __init__(self, path: Path) -> None:
        self._uri = f"file:{path}?mode=ro&immutable=1"
        self._local = threading.local()

    def _db(self) -> sqlite3.Connection:
        db = getattr(self._local, "db", None)
        if db is None:
            import sqlite3  # lazy: most imports of the package never match a word

            db = sqlite3.connect(self._uri, uri=True, check_same_thread=False)
            db.execute("PRAGMA cache_size=-2000")
            self._local.db = db
        return db

    def lemmas(self, form: str) -> frozenset[int]:
        row = self._db().execute("SELECT lems FROM lex WHERE form=?", (form,)).fetchone()
        return frozenset(int(x) for x in row[0].split()) if row else frozenset()

    def describe(self, lemmas: frozenset[int]) -> tuple[dict[int, str], frozenset[int]]:
        """The spelling of each lemma and their united word families (one query)."""
        if not lemmas:
            return {}, frozenset()
        marks = ",".join("?" * len(lemmas))
        rows = self._db().execute(
            f"SELECT lem.id, lem.word, fam.rel FROM lem LEFT JOIN fam ON fam.lem = lem.id WHERE lem.id IN ({marks})",
            tuple(lemmas),
        ).fetchall()
        family = frozenset(int(x) for _id, _word, rel in rows if rel for x in rel.split())
        return {lemma: word for lemma, word, _rel in rows}, family

    def word(self, lemma: int) -> str:
        return self._word(lemma)

    @lru_cache(maxsize=20_000)  # noqa: B019 - one _Lexicon per language, kept for the process
    def _word(self, lemma: int) -> str:
        row = self._db().execute("SELECT word FROM lem WHERE id=?", (lemma,)).fetchone()
        return row[0] if row else ""


@lru_cache(maxsize=8)
def _lexicon(lang: str) -> _Lexicon | None:
    """The lexicon of a supported language (None for others), built from its text sources on first
    use (``wordsdata.tables``); DependencyMissing if it is missing or cannot be built."""
    if lang not in SUPPORTED_LANGUAGES:
        return None
    return _Lexicon(tables.table_path(lang))


@lru_cache(maxsize=8)
def _stemmer(lang: str):
    try:
        import snowballstemmer  # lazy and light (nltk takes seconds to import)
    except ImportError as err:
        raise DependencyMissing("The snowballstemmer package is missing, so clues cannot be compared. "
                                "Install it (pip install snowballstemmer).") from err
    return snowballstemmer.stemmer(_SNOWBALL_NAMES[lang])


@dataclass(frozen=True)
class _Word:
    """What the lexicon knows about one normalised word."""

    text: str
    lemmas: frozenset[int]
    family: frozenset[int]
    exact: bool = False  # found in the lexicon as written (not guessed)
    own: frozenset[int] = frozenset()  # the lemmas spelled like the word itself (casa -> casa)
    spellings: frozenset[str] = frozenset()  # the word and its lemmas as written

    @property
    def known(self) -> bool:
        return bool(self.lemmas)

    def as_headword(self, lang: str) -> _Word:
        """The word read as its own lemma only ("casa" the noun, not a form of "casar")."""
        return _headword(self.text, lang)


@lru_cache(maxsize=20_000)
def _analyse(word: str, lang: str) -> _Word:
    lex = _lexicon(lang)
    if lex is None or not _is_word(word):
        return _Word(word, frozenset(), frozenset(), spellings=frozenset({word}))
    lemmas = lex.lemmas(word) or _rule_verb_lemmas(word, lang, lex)
    if lemmas:
        written, family = lex.describe(lemmas)
        own = frozenset(l for l, w in written.items() if w == word)
        return _Word(word, lemmas, family, True, own, frozenset({word, *written.values()}))
    # unknown word: guess its lemma by dropping an ending ("antes" -> "ante") and its family
    # with the affix rules ("géophysique" -> "physique", "Emder" -> "Emden")
    from . import affix_rules as rules

    lemmas = _guess_lemmas(word, lang, lex)
    written, family = lex.describe(lemmas)
    # it/pt: a superlative's or adverb's base may be a participle the tables leave out (calciatissimo)
    participle_base = word.endswith(rules.WHOLE_WORD_ENDINGS.get(lang, ()))
    family = family.union(*(
        lex.lemmas(base) or (_rule_verb_lemmas(base, lang, lex) if participle_base else frozenset())
        for base, pos, _strong in rules.bases(word, lang)
        # es -idad/-ez/-eza on -o want an adjective base (English parts of speech: build only)
        if not (pos == "a" and lang != "en" and not _is_adjective(base, lang, lex))
    ))
    return _Word(word, lemmas, family, False, spellings=frozenset({word, *written.values()}))


# Languages whose tables leave out the regular verb forms that ``_rule_verb_lemmas`` finds again
# (the build checks each one), to keep the files small.
_RULE_VERB_LANGS = frozenset({"it", "pt"})
# Italian: simplemma lists no invariant headword (città, così, legenda), so an unknown Italian
# word is mostly such a word, and Snowball's short stems would join it to strangers (legenda
# / legare, così / coso): no stem fallback there.
_NO_STEM_LANGS = frozenset({"it"})


def _rule_verb_lemmas(word: str, lang: str, lex: _Lexicon) -> frozenset[int]:
    """it/pt: the verbs of which ``word`` is a regular form ("parlavamo" -> parlare): known
    infinitives, spelled as their own lemma, that the lexicon shows to be regular (their first
    person singular is filed under them).  The table build drops exactly the forms this finds."""
    if lang not in _RULE_VERB_LANGS:
        return frozenset()
    from . import affix_rules as rules

    found: set[int] = set()
    for infinitive in rules.verb_infinitives(word, lang):
        own = {l for l in lex.lemmas(infinitive) if lex.word(l) == infinitive}
        if own and any(own & lex.lemmas(p) for p in rules.regularity_probes(infinitive, lang)):
            found |= own
    return frozenset(found)


@lru_cache(maxsize=2_000)
def _headword(word: str, lang: str) -> _Word:
    """``word`` (a headword in the lexicon) as its own lemma only, with that lemma's family."""
    own = _analyse(word, lang).own
    _written, family = _lexicon(lang).describe(own)
    return _Word(word, own, family, True, own, frozenset({word}))


# Inflection endings tried on a word missing from the lexicon (ending, replacement).
_OOV_ENDINGS = {
    "en": (("ies", "y"), ("es", ""), ("s", ""), ("ed", ""), ("ed", "e"), ("ing", ""), ("ing", "e"),
           ("iest", "y"), ("est", ""), ("est", "e"), ("ier", "y"), ("er", ""), ("er", "e")),
    "es": (("ces", "z"), ("es", ""), ("s", "")),
    "fr": (("aux", "al"), ("s", ""), ("x", ""), ("e", "")),
    "de": (("en", ""), ("n", ""), ("e", ""), ("er", ""), ("es", ""), ("s", "")),
    "it": (("chi", "co"), ("ghi", "go"), ("che", "ca"), ("ghe", "ga"), ("i", "o"), ("i", "e"), ("e", "a"),
           ("a", "o"), ("e", "o"), ("i", "a")),
    "pt": (("ões", "ão"), ("ães", "ão"), ("éis", "el"), ("óis", "ol"), ("ns", "m"), ("is", "l"), ("es", ""),
           ("s", ""), ("as", "o"), ("a", "o")),
}


def _regular_ending(a: str, b: str, lang: str) -> bool:
    """One word is the other plus a regular inflection ending (``_OOV_ENDINGS``): cellmates/cellmate."""
    for form, base in ((a, b), (b, a)):
        for ending, repl in _OOV_ENDINGS.get(lang, ()):
            if len(base) >= 3 and form.endswith(ending) and form[: len(form) - len(ending)] + repl == base:
                return True
    return False


def _inflected_compound(a: str, b: str, lang: str) -> bool:
    """German: the same first part and last parts that are forms of one word, though the whole
    compound is in no list (Schreianfall / Schreianfälle: anfall / anfälle)."""
    if lang != "de":
        return False
    common = 0
    for x, y in zip(a, b):
        if x != y:
            break
        common += 1
    for cut in range(min(common, len(a) - 4, len(b) - 4), 2, -1):
        head_a, head_b = _analyse(a[cut:], lang), _analyse(b[cut:], lang)
        if head_a.exact and head_b.exact and head_a.lemmas & head_b.lemmas:
            return True
    return False


def _guess_lemmas(word: str, lang: str, lex: _Lexicon) -> frozenset[int]:
    """Lemmas of an unknown word found by removing one inflection ending ("antes" -> "ante");
    German also undoes adjective declension, comparison and participles (see ``_de_bases``)."""
    for ending, repl in _OOV_ENDINGS.get(lang, ()):
        if word.endswith(ending) and len(word) - len(ending) + len(repl) >= 3:
            lemmas = lex.lemmas(word[: len(word) - len(ending)] + repl)
            if lemmas:
                return lemmas
    if lang == "de":
        for base in _de_bases(word):
            lemmas = lex.lemmas(base)
            if lemmas:
                return lemmas
    return frozenset()


_DE_DECLENSION = ("em", "en", "er", "es", "e")
_DE_COMPARISON = ("est", "st", "er")


def _de_bases(word: str) -> list[str]:
    """Possible bases of an unknown German adjective or participle, nearest first: declension
    (bespritztes -> bespritzt), comparison (glaubhafteste -> glaubhaft), and a participle's verb
    (rappelnde -> rappeln, inspiziertem -> inspizieren, verheddertes -> verheddern)."""
    from . import affix_rules as rules

    adjectives = [word] + [word[: -len(e)] for e in _DE_DECLENSION if word.endswith(e) and len(word) - len(e) >= 4]
    adjectives += [a[: -len(c)] for a in adjectives for c in _DE_COMPARISON if a.endswith(c) and len(a) - len(c) >= 4]
    bases = adjectives[1:] + [verb for adjective in adjectives for verb in rules.de_participle_verbs(adjective)]
    return list(dict.fromkeys(bases))


@lru_cache(maxsize=20_000)
def _stems(word: str, lang: str) -> frozenset[str]:
    """Snowball stems of a word and of its lemmas (the fallback for unknown words)."""
    lex, stem = _lexicon(lang), _stemmer(lang).stemWord
    lemmas = _analyse(word, lang).lemmas
    return frozenset({stem(word)} | {stem(lex.word(l)) for l in lemmas})


@lru_cache(maxsize=1)
def _us_rules() -> tuple[re.Pattern[str], list[tuple[re.Pattern[str], str]]]:
    """The British -> American rewrites, compiled on first use (not at import), and one pattern
    that finds whether any of them applies (most words need none)."""
    any_rule = re.compile("|".join(f"(?:{p})" for p, _ in _US_SPELLING_RULES))
    return any_rule, [(re.compile(p), r) for p, r in _US_SPELLING_RULES]


@lru_cache(maxsize=20_000)
def _us_spelling(word: str) -> str:
    """American spelling of an English word (a no-op for words already American)."""
    if word in _US_WORDS:
        word = _US_WORDS[word]
    elif word.endswith("s") and word[:-1] in _US_WORDS:
        word = _US_WORDS[word[:-1]] + "s"
    any_rule, rules = _us_rules()
    if any_rule.search(word):
        for pattern, repl in rules:
            word = pattern.sub(repl, word)
    return word


def _us_known(word: str) -> str:
    """The American spelling of a word when the lexicon knows it ("colours" -> "colors"), else the
    word itself: a rewrite that makes no known word ("movie" -> "movy") is not tried further."""
    us = _us_spelling(word)
    return us if us != word and _analyse(us, "en").exact else word


def _morph_reason(a: str, b: str, lang: str, strict: bool) -> str | None:
    """Inflection / family / compound relation of two different normalised words.  When judging
    a guess (``strict``), ``b`` is the card's word and is read as its own headword: "casas" is
    right for "casa", but "casar" is not, though "casa" is also a form of "casar"."""
    wa, wb = _analyse(a, lang), _analyse(b, lang)
    if strict and wb.own:
        wb = wb.as_headword(lang)
    shared = wa.lemmas & wb.lemmas
    if lang != "en" and shared and wa.own and wb.own and not shared & (wa.own | wb.own):
        # es/fr/de: two headwords that only meet in a third lemma are two words: "casa" and
        # "caso" are both forms of "casar", "marche" and "marché" of "marcher".  (English lemma
        # lists make headwords of participles, so there "stopped"/"stopping" must still meet.)
        wa, wb = wa.as_headword(lang), wb.as_headword(lang)
        shared = frozenset()
    if shared or _regular_verb_form(wa, wb, lang):
        return "inflection"
    if not (wa.exact and wb.exact) and (_regular_ending(a, b, lang) or _inflected_compound(a, b, lang)):
        return "inflection"  # a word no source lists, with a regular ending: plugin/plugins
    if strict:
        return None
    if wa.family & wb.lemmas or wb.family & wa.lemmas or _checked_derivation(wa, wb, lang):
        return "family"
    if _checked_prefix(wa, wb, lang):
        return "family"
    if lang not in _NO_STEM_LANGS and not (wa.exact and wb.exact) and _stems(a, lang) & _stems(b, lang):
        return "inflection"
    if lang == "de" and _is_compound(wa, wb, lang):
        return "compound"
    return None


_CHECKED_DERIVATION_LANGS = frozenset({"es", "fr", "de", "it"})


@lru_cache(maxsize=1)
def _affix_rules():
    """The affix rules module, imported on first use (most imports of the package match no word)."""
    from . import affix_rules

    return affix_rules


def _checked_derivation(wa: _Word, wb: _Word, lang: str) -> bool:
    """es/fr/de/it: two headwords the lexicon lists, one derived from the other by a suffix rule
    (``affix_rules.CHECKED_SUFFIXES``, or ``SUFFIXES`` with its spelling changes): menteur/mentir,
    lechero/leche, Müdigkeit/müde.  Both must be known, so a rule never invents a word."""
    if lang not in _CHECKED_DERIVATION_LANGS or not (wa.exact and wb.exact):
        return False
    index = _derivation_index(lang)
    # a word as a headword: itself when the lexicon lists it as one ("calva" the bald patch,
    # not a form of "calvo"), else the lemmas it is a form of ("lecheras" -> lechera)
    a_heads = (wa.text,) if wa.own else wa.spellings
    b_heads = (wb.text,) if wb.own else wb.spellings
    for a in a_heads:
        if a == wa.text and not wa.own:
            continue
        for b in b_heads:
            if b == wb.text and not wb.own:
                continue
            # most pairs stop here: a suffix keeps the stem's first letter (an umlaut or accent
            # aside), and the two lengths must fit some rule's endings
            if a[0] != b[0] and (
                a[0].isascii() and b[0].isascii() or _strip_accents(a[0]) != _strip_accents(b[0])
            ):
                continue
            ends = index.get((len(a) - len(b), a[-1]))
            if ends is not None and a.endswith(ends) and _derives(a, b, lang):
                return True
            ends = index.get((len(b) - len(a), b[-1]))
            if ends is not None and b.endswith(ends) and _derives(b, a, lang):
                return True
    return False


def _checked_prefix(wa: _Word, wb: _Word, lang: str) -> bool:
    """pt: one word (or a lemma it is a form of) is a learned prefix plus the other, a headword
    (``affix_rules.CHECKED_PREFIXES``): bioquímico/químico, bioplástico/plástico."""
    rules = _affix_rules()
    if lang not in rules.CHECKED_PREFIXES:
        return False
    lex = _lexicon(lang)
    for long, short in ((wa, wb), (wb, wa)):
        if len(long.text) <= len(short.text) or not short.known:
            continue
        bases = [s for s in short.spellings if _is_citation_form(s, lex)]
        if any(rules.checked_prefix(word, base, lang) for word in long.spellings for base in bases):
            return True
    return False


_DERIVATION_INDEX: dict[str, dict[tuple[int, str], tuple[str, ...]]] = {}


def _derivation_index(lang: str) -> dict[tuple[int, str], tuple[str, ...]]:
    """``affix_rules.derived_endings_index`` of a language, kept here for the hot path."""
    index = _DERIVATION_INDEX.get(lang)
    if index is None:
        index = _DERIVATION_INDEX[lang] = _affix_rules().derived_endings_index(lang)
    return index


def _derives(word: str, base: str, lang: str) -> bool:
    """``base`` is a rule base of ``word`` (``affix_rules.checked_bases``; the caller has seen
    that their lengths and ``word``'s ending fit some rule): as spelled, or equal
    but for accents when the rule's base is no word of its own (poliste -> "pole" -> pôle); a
    base with a spelling change only when the rule's plain base is no word (aufzählung ->
    aufzählen, never aufzahlen), and then only as spelled (batteur -> "batir" is not bâtir)."""
    rules = _affix_rules()
    if word[:2] != base[:2] and _strip_accents(word[:2]) != _strip_accents(base[:2]):
        return False  # a suffix keeps the stem's first letters (an umlaut or accent aside)
    lex = _lexicon(lang)
    key = None  # ``base`` without accents, made only when needed
    for candidate, plain, witness in rules.checked_bases(word, lang):
        if candidate == base:
            found = candidate == plain or not lex.lemmas(plain)
        elif candidate == plain and len(candidate) == len(base) and candidate[-1] == base[-1]:
            # equal but for accents (which keep the length; a final é is a suffix of its own)
            key = rules.derivation_key(base, lang) if key is None else key
            found = rules.derivation_key(candidate, lang) == key and not lex.lemmas(candidate)
        else:
            continue
        if not found:
            continue
        if not witness:
            return True
        if witness == rules.ADJECTIVE_WITNESS:  # es -idad/-ez/-eza on -o: an adjective base
            if _is_adjective(base, lang, lex):
                return True
            continue
        blocker = witness[0] == "!"  # a nearer base that must not be a headword
        if blocker and not _is_citation_form(witness[1:], lex) or not blocker and lex.lemmas(witness):
            return True
    return False


def _is_adjective(base: str, lang: str, lex: _Lexicon) -> bool:
    """``affix_rules.is_adjective`` on the tables (es: rápida filed under rápido, or a word
    enfermamente), the test the build applies to the same rules."""
    return _affix_rules().is_adjective(base, lang, lambda form: {lex.word(l) for l in lex.lemmas(form)})


_RULE_VERB_INFINITIVES = {"it": ("are", "ere", "ire"), "pt": ("ar", "er", "ir")}
_INFINITIVE_ENDINGS = frozenset({"ar", "er", "ir", "re", "en", "rn", "ln"})


def _regular_verb_form(wa: _Word, wb: _Word, lang: str) -> bool:
    """es/fr/de: one word is a regular conjugated form of the other, a known infinitive.

    In es and fr a form the lexicon knows is judged by the lexicon alone (the hunspell expansions
    list every form of a verb, participles included), so the irregular "vino" (venir) cannot make
    "vena" a form of venir.  German lemma lists lack many verb forms, so there the rule also
    applies to a known form, unless it is a headword itself: "recht" is also a form of "rechen"
    (to rake), but as a clue it is the adjective (participles filed as adjectives, such as
    "geerdet", are linked to their verb when the tables are built)."""
    if lang not in ("es", "fr", "de", "it", "pt"):
        return False
    for form, inf in ((wa, wb), (wb, wa)):
        if lang in _RULE_VERB_LANGS and not inf.known and inf.text.endswith(_RULE_VERB_INFINITIVES[lang]):
            # it/pt: a rare verb that no source lists (pt "sarafuscar") still has its regular forms
            from . import affix_rules as rules

            if (not form.exact or not form.own) and rules.is_regular_verb_form(form.text, inf.text, lang):
                return True
            continue
        form_may_be_conjugated = not form.exact or (lang in ("de", "it", "pt") and not form.own)
        if form_may_be_conjugated and inf.own and inf.text[-2:] in _INFINITIVE_ENDINGS:
            from . import affix_rules as rules

            if rules.is_regular_verb_form(form.text, inf.text, lang):
                lex = _lexicon(lang)
                probes = rules.regularity_probes(inf.text, lang)
                if any(inf.lemmas & lex.lemmas(p) for p in probes):
                    return True
    return False


def _is_compound(wa: _Word, wb: _Word, lang: str) -> bool:
    """German: the longer word is a known word or prefix followed by the shorter one."""
    lex = _lexicon(lang)
    long, short = (wa, wb) if len(wa.text) > len(wb.text) else (wb, wa)
    for head in long.spellings:
        for tail in short.spellings:
            if len(tail) >= 3 and head.endswith(tail) and head != tail:
                front = head[: -len(tail)]
                if len(tail) >= 4 and front in _DE_COMPOUND_PREFIXES:
                    return True
                if any(_is_citation_form(f, lex) for f in _compound_fronts(front)):
                    return True
    return False


@lru_cache(maxsize=64)
def _language(lang: str) -> str:
    """'en-GB' / 'EN_us' -> 'en'."""
    return lang.strip().lower().replace("_", "-").split("-")[0]


def _compound_fronts(front: str) -> set[str]:
    """The first part of a compound with and without a linking element (Geburts-tag, Sonnen-schein)."""
    fronts = {front}
    for link in ("s", "es", "n", "en", "e"):
        if front.endswith(link):
            fronts.add(front[: -len(link)])
    return {f for f in fronts if len(f) >= 4}


def _is_citation_form(word: str, lex: _Lexicon) -> bool:
    """A lemma as written (Geburt, eigen), not just some inflected form (leg -> legen)."""
    return word in {lex.word(l) for l in lex.lemmas(word)}


def _reason(a: str, b: str, lang: str, strict: bool) -> str | None:
    lang = _language(lang)
    na, nb = _normal(a), _normal(b)
    if not na or not nb:
        return None
    if na == nb:
        return "same"
    if len(na) > _MAX_LEN or len(nb) > _MAX_LEN:
        return None
    if lang == "en" and _us_spelling(na) == _us_spelling(nb):
        return "spelling"
    if _strip_accents(na) == _strip_accents(nb):
        if not (_analyse(na, lang).known and _analyse(nb, lang).known):
            return "accents"
    if lang not in SUPPORTED_LANGUAGES:
        return None
    reason = _morph_reason(na, nb, lang, strict)
    if reason is None and lang == "en":
        ua, ub = _us_known(na), _us_known(nb)
        if (ua, ub) != (na, nb):
            reason = _morph_reason(ua, ub, lang, strict)
    return reason


def _safe_reason(a: str, b: str, lang: str, strict: bool) -> str | None:
    try:
        return _reason(a, b, lang, strict)
    except DependencyMissing:  # a broken installation is said, never judged as "no match"
        raise
    except Exception as err:  # noqa: BLE001 - an odd input must not crash a game: logged, judged no match
        logger.error("word matching failed for a %s pair (%s); judged as no match", lang[:20], where(err))
        return None


_cached_reason = lru_cache(maxsize=50_000)(_safe_reason)
_CACHE_MAX_CHARS = 100  # longer inputs are answered but not cached (a cache key holds the text)


def _judge(a: object, b: object, lang: object, strict: bool) -> str | None:
    """Validate, order (clues are symmetric; a guess keeps the card's word second) and answer,
    through the cache for ordinary words."""
    if not isinstance(a, str) or not isinstance(b, str) or not isinstance(lang, str):
        return None
    if not strict:
        a, b = (a, b) if a <= b else (b, a)
    if len(a) + len(b) + len(lang) > _CACHE_MAX_CHARS:
        return _safe_reason(a, b, lang[:20], strict)
    return _cached_reason(a, b, lang, strict)


def variant_reason(a: str, b: str, lang: str = "en") -> str | None:
    """Why ``a`` and ``b`` count as one word for clue purposes (a ``REASON_TEXT`` key), or ``None``."""
    return _judge(a, b, lang, False)


def variant_pairs(texts: Sequence[str], lang: str = "en") -> list[tuple[int, int, str]]:
    """``(i, j, reason)``, in that order, for every ``i < j`` whose texts :func:`variant_reason` counts as
    one word: its answers, with the checks made once for the whole list (a purge judges every pair)."""
    if (not isinstance(lang, str) or not all(isinstance(t, str) for t in texts)
            or 2 * max(map(len, texts), default=0) + len(lang) > _CACHE_MAX_CHARS):  # not every pair cached
        return [(i, j, why) for i, a in enumerate(texts) for j in range(i + 1, len(texts))
                if (why := variant_reason(a, texts[j], lang)) is not None]
    out = []
    for i, a in enumerate(texts):
        for j in range(i + 1, len(texts)):
            b = texts[j]
            why = _cached_reason(a, b, lang, False) if a <= b else _cached_reason(b, a, lang, False)
            if why is not None:
                out.append((i, j, why))
    return out


def is_known(word: str, lang: str) -> bool:
    """True when the shipped lexicon of ``lang`` lists ``word`` as written (any inflected form)."""
    lex = _lexicon(_language(lang)) if isinstance(lang, str) else None
    form = _normal(word)
    if lex is None or not _is_word(form):
        return False
    try:
        return bool(lex.lemmas(form))
    except Exception as err:  # noqa: BLE001 - a broken data file must not break a deck load
        logger.error("lexicon lookup failed for a %s word (%s)", str(lang)[:20], where(err))
        return False


def is_variant(a: str, b: str, lang: str = "en") -> bool:
    """True when ``a`` and ``b`` are the same word, an inflection or the same word family."""
    return variant_reason(a, b, lang) is not None


def guess_reason(guess: str, word: str, lang: str = "en") -> str | None:
    """Judge a guess against a Target or Foil: only same, spelling, accents or an inflection."""
    reason = _judge(guess, word, lang, True)
    return reason if reason in _GUESS_REASONS else None


def _clear_caches() -> None:
    """Forget every cached answer and word analysis (benchmarks time a cold start with it)."""
    from . import affix_rules

    for cached in (_cached_reason, _normal, _strip_accents, _analyse, _headword, _stems, _us_spelling,
                   affix_rules.checked_bases):
        cached.cache_clear()
    _lexicon.cache_clear()
