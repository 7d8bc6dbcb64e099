"""Word relations from the shipped tables: near words of any frequent word (Foils, bot clues).

The tables in ``dichotomy_widget/wordrel/`` (built by ``tools/build_relations.py`` from English
WordNet and the LibreOffice thesauri; sources and licences in ``wordrel/README.md``) hold *sense
groups*: a WordNet synset or one thesaurus sense, with parent and child groups. From a word's groups
(most common sense first) :func:`neighbours` collects

* ``synonym``: another word of the same group;
* ``sister``: a word of a group under the same parent ("fork" and "spoon" under "cutlery");
* ``antonym``: an opposite the data lists;
* ``related``: a word two synonym steps away, scored by how many neighbours the two share;
* ``hypernym`` / ``hyponym``: a word of a parent or child group.

Every table word is a single word above the language's frequency floor and off its blocklist; the
word itself and its variants (:func:`dichotomy_widget.words.is_variant`) are left out here.
Pure module: no UI imports, nothing downloaded; a language's tables are parsed on first use
(English: about 0.5 s and 25 MB) and shared by every call in the process.
"""

from __future__ import annotations

import logging
import threading
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from ..errors import DependencyMissing
from .matcher import is_variant

__all__ = ["Neighbour", "KINDS", "RELATION_LANGUAGES", "has_relations", "neighbours", "frequency",
           "is_offensive", "MAX_NEIGHBOURS"]

log = logging.getLogger(__name__)

#: Languages with licence-clean relation data (Italian and European Portuguese thesauri are GPL-only).
RELATION_LANGUAGES: tuple[str, ...] = ("en", "es", "fr", "de", "pt")
KINDS: tuple[str, ...] = ("synonym", "sister", "hypernym", "hyponym", "antonym", "related")
#: At most this many neighbours per word (the best ones).
MAX_NEIGHBOURS = 60
_SENSES = 4                 # senses of the word looked at (WordNet / thesaurus order)
_BASE = {"antonym": 3.4, "sister": 3.0, "cousin": 1.9, "synonym": 3.0, "related": 2.2, "hypernym": 1.4,
         "hyponym": 1.4}
_TWO_STEP = 80              # two-step candidates scored (those reached through most neighbours)
_ZIPF_WEIGHT = 0.1          # frequency breaks ties inside a sense: common words first
_lock = threading.Lock()


@dataclass(frozen=True)
class Neighbour:
    """A word near another: how (``kind``), through what (``via``: the shared parent or sense), how good."""

    word: str
    kind: str
    via: str
    score: float


@dataclass(frozen=True)
class _Group:
    pos: str
    label: str
    parents: tuple[int, ...]
    children: tuple[int, ...]
    members: tuple[str, ...]


class _Tables:
    """One language's groups, words and blocklist, parsed from the shipped text files."""

    def __init__(self, lang: str) -> None:
        folder = resources.files("dichotomy_widget") / "wordrel"
        self.groups: list[_Group] = []
        for line in (folder / f"{lang}.groups.tsv").read_text(encoding="utf-8").splitlines():
            _, pos, label, parents, children, members = line.split("\t")
            # members as lookup keys (the build writes them NFKC; display forms are in the words table)
            self.groups.append(_Group(pos, label, _ids(parents), _ids(children), tuple(members.casefold().split())))
        # key -> (display, zipf, group ids in sense order, antonym keys)
        self.words: dict[str, tuple[str, float, tuple[int, ...], tuple[str, ...]]] = {}
        for line in (folder / f"{lang}.words.tsv").read_text(encoding="utf-8").splitlines():
            k, display, zipf, gids, ants = line.split("\t")
            self.words[k] = (display, float(zipf), _ids(gids), tuple(ants.split()))
        self.block = frozenset((folder / f"{lang}.block.txt").read_text(encoding="utf-8").split())
        self.profiles: dict[str, frozenset[str]] = {}  # word -> its neighbourhood (thesauri), filled on use


def _ids(field: str) -> tuple[int, ...]:
    return tuple(int(x) for x in field.split(",")) if field else ()


def _key(word: str) -> str:
    return unicodedata.normalize("NFKC", word).strip().casefold()


def _lang(lang: str) -> str:
    return str(lang or "").split("-")[0].split("_")[0].lower()


_cache: dict[str, _Tables] = {}


def _tables(lang: str) -> _Tables | None:
    lang = _lang(lang)
    if lang not in RELATION_LANGUAGES:
        return None
    with _lock:
        if lang not in _cache:
            try:
                _cache[lang] = _Tables(lang)
            except (OSError, ValueError) as err:
                log.error("word relation tables for %s cannot be read: %s", lang, type(err).__name__)
                raise DependencyMissing("The {lang} word relation tables ({file}) are missing or damaged in this "
                                        "installation, so Foils cannot be suggested. Reinstall dichotomy_widget.",
                                        params={"lang": lang, "file": "wordrel/" + lang + ".*"}) from err
        return _cache[lang]


def has_relations(lang: str) -> bool:
    """True when ``lang`` has licence-clean relation data (en, es, fr, de, pt; not it)."""
    return _lang(lang) in RELATION_LANGUAGES


def frequency(word: str, lang: str) -> float:
    """The word's Zipf frequency from the shipped table (wordfreq at build time); 0.0 if unknown."""
    t = _tables(lang)
    if t is None or not isinstance(word, str):
        return 0.0
    entry = t.words.get(_key(word))
    return entry[1] if entry else 0.0


def is_offensive(word: str, lang: str) -> bool:
    """True when the word is on the language's blocklist (LDNOOBW list, data tagged vulgar)."""
    t = _tables(lang)
    if t is None or not isinstance(word, str):
        return False
    k = _key(word)
    return k in t.block or any(part in t.block for part in k.replace("-", " ").split() if part != k)


def neighbours(word: str, lang: str) -> tuple[Neighbour, ...]:
    """Frequent single words near ``word``, best first (at most :data:`MAX_NEIGHBOURS`).

    Empty for an unknown word or a language without data. Never the word itself, one of its
    variants, a multi-word entry, a rare word or a blocked word; same part of speech as the word's
    first sense where the data gives one.
    """
    return best_neighbours(word, lang, MAX_NEIGHBOURS)


def best_neighbours(word: str, lang: str, n: int) -> tuple[Neighbour, ...]:
    """The first ``n`` of :func:`neighbours` (cheaper: fewer candidates go through the variant check)."""
    if not isinstance(word, str) or not word.strip() or n <= 0:
        return ()
    return _ranked(_key(word), _lang(lang), min(n, MAX_NEIGHBOURS))


@lru_cache(maxsize=4096)
def _scored(k: str, lang: str) -> tuple[tuple[str, float, str, str], ...]:
    """Every candidate of ``k`` as (key, score, kind, via), best first, before the variant check."""
    t = _tables(lang)
    if t is None or k not in t.words:
        return ()
    found = _candidates(t, k) if lang == "en" else _thesaurus_candidates(t, k)
    ranked = sorted(found.items(), key=lambda kv: (-kv[1][0], kv[0]))
    return tuple((c, score, kind, via) for c, (score, kind, via) in ranked if c not in t.block)


@lru_cache(maxsize=4096)
def _ranked(k: str, lang: str, n: int) -> tuple[Neighbour, ...]:
    t = _tables(lang)
    if t is None:
        return ()
    out: list[Neighbour] = []
    for cand, score, kind, via in _scored(k, lang):
        if len(out) >= n:
            break
        if not is_variant(k, cand, lang):
            out.append(Neighbour(t.words[cand][0], kind, via, round(score, 3)))
    return tuple(out)


def _candidates(t: _Tables, k: str) -> dict[str, tuple[float, str, str]]:
    """Candidate key -> (score, kind, via), the best reason kept per candidate."""
    display, _, gids, antonyms = t.words[k]
    best: dict[str, tuple[float, str, str]] = {}

    def offer(cand: str, base: float, kind: str, via: str, through: int | None = None) -> None:
        if cand == k or cand not in t.words:
            return
        entry = t.words[cand]
        if through is not None:  # a rare sense of the candidate counts less ("main" for "sea")
            rank = entry[2].index(through) if through in entry[2] else len(entry[2])
            base /= 1.0 + 0.5 * rank
        score = base + _ZIPF_WEIGHT * entry[1]
        if cand not in best or score > best[cand][0]:
            best[cand] = (score, kind, via)

    senses = gids[:_SENSES]
    pos = next((t.groups[g].pos for g in senses if t.groups[g].pos != "-"), "-")
    for ant in antonyms:
        offer(ant, _BASE["antonym"], "antonym", display)
    synonyms: set[str] = set()
    for rank, gid in enumerate(senses):
        group = t.groups[gid]
        if pos != "-" and group.pos not in ("-", pos):
            continue
        weight = 1.0 / (1.0 + rank)
        for m in group.members:
            offer(m, _BASE["synonym"] * weight, "synonym", group.label, gid)
            synonyms.add(m)
        for p in group.parents:
            parent = t.groups[p]
            for m in parent.members:
                offer(m, _BASE["hypernym"] * weight, "hypernym", parent.label, p)
            for c in parent.children:
                if c != gid:
                    for m in t.groups[c].members:
                        offer(m, _BASE["sister"] * weight, "sister", parent.label, c)
            for gp in parent.parents:  # cousins: "cat" (feline) and "dog" (canine) under "carnivore"
                for uncle in t.groups[gp].children:
                    if uncle != p:
                        for c in t.groups[uncle].children:
                            for m in t.groups[c].members:
                                offer(m, _BASE["cousin"] * weight, "sister", t.groups[gp].label, c)
        for c in group.children:
            for m in t.groups[c].members:
                offer(m, _BASE["hyponym"] * weight, "hyponym", group.label, c)
    # Two synonym steps away, scored by shared neighbours (thesauri have few parents).
    shared: dict[str, int] = {}
    for s in synonyms - {k}:
        for g in t.words.get(s, ("", 0.0, (), ()))[2][:_SENSES]:
            for m in t.groups[g].members:
                mk = m
                if mk != k and mk not in synonyms:
                    shared[mk] = shared.get(mk, 0) + 1
    for cand, n in shared.items():
        if n >= 2:
            offer(cand, _BASE["related"] * min(1.0, n / 4), "related", display)
    return best


def _profile(t: _Tables, k: str) -> frozenset[str]:
    """The words sharing a sense group with ``k`` (its first senses), and its parents' labels."""
    cached = t.profiles.get(k)
    if cached is not None:
        return cached
    out: set[str] = set()
    for g in t.words[k][2][:_SENSES]:
        group = t.groups[g]
        out.update(m for m in group.members)
        out.update("^" + t.groups[p].label for p in group.parents)
    out.discard(k)
    if len(t.profiles) > 200_000:  # bounded: a long-lived kernel asked about every word
        t.profiles.clear()
    t.profiles[k] = frozenset(out)
    return t.profiles[k]


def _thesaurus_candidates(t: _Tables, k: str) -> dict[str, tuple[float, str, str]]:
    """Thesaurus neighbours scored by the overlap of their neighbourhoods with the word's (cosine).

    A thesaurus lists senses in no particular order and its groups are wide, so a direct synonym is
    not always close; the words the two share decide. Direct synonyms and sisters get a bonus.
    """
    display, _, gids, antonyms = t.words[k]
    mine = _profile(t, k)
    kind_of: dict[str, tuple[str, str]] = {}
    for g in gids[:_SENSES]:
        group = t.groups[g]
        for m in group.members:
            kind_of.setdefault(m, ("synonym", display))
        for p in group.parents:
            parent = t.groups[p]
            for c in parent.children:
                for m in t.groups[c].members:
                    kind_of.setdefault(m, ("sister", parent.label))
    counts: dict[str, int] = {}
    for m in kind_of:
        if m in t.words:
            for x in _profile(t, m):
                if not x.startswith("^") and x not in kind_of:
                    counts[x] = counts.get(x, 0) + 1
    two_step = sorted((c for c in counts if counts[c] >= 2), key=lambda c: (-counts[c], c))[:_TWO_STEP]
    pool = set(kind_of) | set(two_step)
    pool.discard(k)
    best: dict[str, tuple[float, str, str]] = {}
    size = len(mine) + 1
    for cand in pool:
        if cand not in t.words:
            continue
        theirs = _profile(t, cand)
        shared = len(mine & theirs)
        kind, via = kind_of.get(cand, ("related", display))
        bonus = 1.0 if kind != "related" else 0.0
        if shared == 0 and not bonus:
            continue
        score = 3.0 * (shared + bonus) / ((size * (len(theirs) + 1)) ** 0.5) + _ZIPF_WEIGHT * t.words[cand][1]
        best[cand] = (score, kind, via)
    for ant in antonyms:
        if ant in t.words:
            best[ant] = (_BASE["antonym"], "antonym", display)
    return best


def _clear_caches() -> None:
    """Forget parsed tables and answers (tests)."""
    _scored.cache_clear()
    _ranked.cache_clear()
    with _lock:
        _cache.clear()
