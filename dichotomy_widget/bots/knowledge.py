"""What a bot knows about the words of one language, asked of a relation source and cached.

Two questions matter: which clues fit a Target and avoid its Foil (:meth:`Knowledge.clues`), and how
well the surviving clues fit each word of the deck (:meth:`Knowledge.index`).
"""

from __future__ import annotations

import threading
from functools import lru_cache
from typing import Iterable

from ..config import MAX_CLUE_LENGTH
from ..words import has_letter_or_digit, is_variant, mixes_scripts, normalize, variant_reason
from .relations import RelationSource

__all__ = ["Knowledge", "VocabularyIndex", "knowledge", "MIN_CLUE_ZIPF", "MAX_CLUES"]

#: A clue is a frequent word: at least this Zipf frequency (3 = once per million words).
MIN_CLUE_ZIPF = 3.0
#: At most this many ranked clues are kept per pair (a table has at most 6 writers).
MAX_CLUES = 8
#: Added to a neighbour's score when ranking clues: a word under or over the Target, or the same word,
#: points back at it better than a sister (milk and coffee are both drinks; espresso is a coffee).
CLUE_KIND_BONUS = {"hyponym": 0.8, "synonym": 0.6, "hypernym": 0.6, "related": 0.3}


def fits_clue_shape(word: str) -> bool:
    """True when ``word`` is one word the rules accept as a clue (length, spaces, letters, one script)."""
    return (0 < len(word) <= MAX_CLUE_LENGTH and word.strip() == word and not any(ch.isspace() for ch in word)
            and word.isprintable() and has_letter_or_digit(word) and not mixes_scripts(word))


class Knowledge:
    """Cached answers from ``source`` about the words of ``lang``."""

    def __init__(self, source: RelationSource, lang: str) -> None:
        self.source = source
        self.lang = lang
        self.playable = bool(source.has_relations(lang))
        self._links: dict[str, dict[str, float]] = {}
        self._clues: dict[tuple[str, str], tuple[str, ...]] = {}
        self._indexes: dict[tuple[tuple[str, ...], int | None], VocabularyIndex] = {}
        self._index_lock = threading.Lock()

    def links(self, word: str) -> dict[str, float]:
        """The normalised neighbours of ``word`` with a weight in (0, 1], the best ranked first."""
        key = _norm(word)
        found = self._links.get(key)
        if found is None:
            ranked = list(self.source.neighbours(word, self.lang)) if self.playable else []
            found = {}
            for i, n in enumerate(ranked):
                found.setdefault(_norm(n.word), 1.0 - i / (2 * len(ranked)))
            self._links[key] = found
        return found

    def related(self, a: str, b: str) -> float:
        """How strongly ``a`` and ``b`` are linked, either way (0: not at all)."""
        return max(self.links(a).get(_norm(b), 0.0), self.links(b).get(_norm(a), 0.0))

    def clues(self, target: str, foil: str) -> tuple[str, ...]:
        """Ranked clues for ``target``: frequent, linked to it and not to ``foil``, never a variant of
        either nor of each other, never offensive, each one word the rules accept."""
        key = (target, foil)
        found = self._clues.get(key)
        if found is not None:
            return found
        out: list[str] = []
        if self.playable:
            src, lang = self.source, self.lang
            ranked = sorted(src.neighbours(target, lang),
                            key=lambda n: -(float(getattr(n, "score", 0.0)) + CLUE_KIND_BONUS.get(getattr(n, "kind", ""), 0.0)))
            for n in ranked:
                word = n.word
                if not fits_clue_shape(word) or self.related(word, foil) > 0:
                    continue
                if src.is_offensive(word, lang) or src.frequency(word, lang) < MIN_CLUE_ZIPF:
                    continue
                if is_variant(word, target, lang) or is_variant(word, foil, lang):
                    continue
                if any(variant_reason(word, chosen, lang) is not None for chosen in out):
                    continue
                out.append(word)
                if len(out) >= MAX_CLUES:
                    break
        found = self._clues[key] = tuple(out)
        return found

    def index(self, vocabulary: tuple[str, ...], depth: int | None = None) -> "VocabularyIndex":
        """A :class:`VocabularyIndex` of ``vocabulary`` (cached per word list and depth)."""
        key = (vocabulary, depth)
        with self._index_lock:  # bots warming on threads build each index once
            found = self._indexes.get(key)
            if found is None:
                found = self._indexes[key] = VocabularyIndex(self, vocabulary, depth)
        return found


class VocabularyIndex:
    """Which words of a word list each clue points at, both ways: a clue among a word's first ``depth``
    neighbours (``depth`` None: all), or the word among the clue's."""

    def __init__(self, knowledge: Knowledge, vocabulary: tuple[str, ...], depth: int | None) -> None:
        self.knowledge = knowledge
        self.depth = depth
        self.words = {_norm(w): w for w in vocabulary}
        self.pointing: dict[str, dict[str, float]] = {}
        for key, word in self.words.items():
            for linked, weight in _top(knowledge.links(word), depth).items():
                self.pointing.setdefault(linked, {})[key] = weight

    def scores(self, clues: Iterable[str]) -> dict[str, float]:
        """For each word of the list some clue fits: the sum over clues of the strongest link."""
        total: dict[str, float] = {}
        for clue in clues:
            key = _norm(clue)
            best = dict(self.pointing.get(key, {}))
            for linked, weight in _top(self.knowledge.links(clue), self.depth).items():
                if linked in self.words and weight > best.get(linked, 0.0):
                    best[linked] = weight
            for word_key, weight in best.items():
                total[self.words[word_key]] = total.get(self.words[word_key], 0.0) + weight
        return total


def _top(links: dict[str, float], depth: int | None) -> dict[str, float]:
    if depth is None or len(links) <= depth:
        return links
    return dict(list(links.items())[:depth])


_norm = lru_cache(maxsize=1 << 16)(normalize)
norm = _norm  #: :func:`~dichotomy_widget.words.normalize`, cached


_CACHE: dict[tuple[int, str], tuple[RelationSource, Knowledge]] = {}
_LOCK = threading.Lock()


def knowledge(source: RelationSource, lang: str) -> Knowledge:
    """One shared :class:`Knowledge` per source and language (bots at one table share their clue
    lists, which is how they never write the same clue)."""
    with _LOCK:
        held = _CACHE.get((id(source), lang))
        if held is None or held[0] is not source:
            held = _CACHE[(id(source), lang)] = (source, Knowledge(source, lang))
        return held[1]
