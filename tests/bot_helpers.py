"""A tiny word-relation source for bot tests, passed to the bots by dependency injection.

Its neighbour lists are random links between real deck words plus traps a bot must never write: the
Target or Foil themselves and their forms, words linked to the Foil, two-word phrases, words outside
the clue limits, an offensive word, rare words, and pairs of neighbours that are forms of each other.
"""

from __future__ import annotations

import random

from dichotomy_widget.decks import load_deck
from dichotomy_widget.words import normalize
from dichotomy_widget.words.relations import Neighbour

OFFENSIVE = {"darn"}
RARE = {"quux"}


class TinyRelations:
    """Neighbours for the words of some cards, random but seeded; knows only ``langs``."""

    def __init__(self, cards: list, seed: int = 0, langs: tuple[str, ...] = ("en",), size: int = 12) -> None:
        rng = random.Random(seed)
        self.langs = langs
        vocab = sorted({w for card in cards for pair in card for w in pair})
        foils = {t: f for card in cards for t, f in card}
        foils.update({f: t for card in cards for t, f in card})
        extra = [f"{w}{i}" for w in ("lumo", "kest", "varn", "pello", "trisk") for i in range(8)]
        self.graph: dict[str, list[str]] = {}
        for word in vocab:
            other = foils.get(word, "")
            picks = rng.sample(vocab + extra, k=min(size, len(vocab) + len(extra)))
            traps = [word, word + "s", word.upper(), other, other + "s", "two words", "x" * 41, "darn", "quux",
                     "a\u0430b"]  # "a", Cyrillic "а", "b": mixes scripts
            nb = picks + rng.sample(traps, k=rng.randint(2, len(traps)))
            if picks:
                nb.append(picks[0] + "s")  # a form of another neighbour: two bots must not write both
            rng.shuffle(nb)
            self.graph[normalize(word)] = nb
        for word in extra:
            self.graph[normalize(word)] = rng.sample(vocab, k=3)

    def has_relations(self, lang: str) -> bool:
        return lang in self.langs

    def neighbours(self, word: str, lang: str) -> tuple[Neighbour, ...]:
        found = self.graph.get(normalize(word), [])
        return tuple(Neighbour(w, "related", "test", 1.0 - i / 100) for i, w in enumerate(found))

    def frequency(self, word: str, lang: str) -> float:
        return 1.0 if word in RARE else 4.5

    def is_offensive(self, word: str, lang: str) -> bool:
        return word in OFFENSIVE


def deck_cards(name: str = "en", count: int | None = None) -> list:
    """The cards of a packaged deck as lists of (target, foil) pairs."""
    cards = [[(p.target, p.foil) for p in card.pairs] for card in load_deck(name).cards]
    return cards[:count] if count else cards
