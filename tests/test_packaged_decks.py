"""The decks shipped in dichotomy_widget/decks/ are valid and playable."""

from __future__ import annotations

import json
from collections import Counter
from importlib import resources

import pytest

from dichotomy_widget import words
from dichotomy_widget.decks import PAIRS_PER_CARD, load_deck, packaged_decks

MIN_CARDS = {"en": 110, "es": 40, "fr": 40, "de": 40, "it": 60, "pt": 60}


def _raw(lang: str) -> tuple[str, dict]:
    text = (resources.files("dichotomy_widget") / "decks" / f"{lang}.json").read_text(encoding="utf-8")
    return text, json.loads(text)


def test_all_packaged_decks_present():
    assert set(MIN_CARDS) <= set(packaged_decks())


@pytest.mark.parametrize("lang", sorted(MIN_CARDS))
def test_deck_loads_with_enough_cards(lang):
    deck = load_deck(lang)
    assert len(deck) >= MIN_CARDS[lang]
    assert all(len(card.pairs) == PAIRS_PER_CARD for card in deck.cards)


@pytest.mark.parametrize("lang", sorted(MIN_CARDS))
def test_metadata(lang):
    _, data = _raw(lang)
    assert data["lang"] == lang
    assert load_deck(lang).lang == lang
    assert data.get("name", "").strip()
    assert data.get("description", "").strip()


@pytest.mark.parametrize("lang", sorted(MIN_CARDS))
def test_one_card_per_line(lang):
    text, data = _raw(lang)
    card_lines = [line for line in text.splitlines() if line.lstrip().startswith("[[")]
    assert len(card_lines) == len(data["cards"])


@pytest.mark.parametrize("lang", sorted(MIN_CARDS))
def test_no_duplicate_targets(lang):
    deck = load_deck(lang)
    counts = Counter(words.normalize(p.target) for card in deck.cards for p in card.pairs)
    assert [w for w, n in counts.items() if n > 1] == []


@pytest.mark.parametrize("lang", sorted(MIN_CARDS))
def test_foils_rarely_repeat(lang):
    deck = load_deck(lang)
    counts = Counter(words.normalize(p.foil) for card in deck.cards for p in card.pairs)
    assert [w for w, n in counts.items() if n > 2] == []


@pytest.mark.parametrize("lang", sorted(MIN_CARDS))
def test_no_word_twice_on_a_card(lang):
    deck = load_deck(lang)
    for number, card in enumerate(deck.cards, start=1):
        on_card = [words.normalize(w) for p in card.pairs for w in (p.target, p.foil)]
        repeated = [w for w, n in Counter(on_card).items() if n > 1]
        assert repeated == [], f"card {number}: {repeated}"


@pytest.mark.parametrize("lang", sorted(MIN_CARDS))
def test_no_target_foil_variants(lang):
    deck = load_deck(lang)
    flagged = [
        (p.target, p.foil, words.variant_reason(p.target, p.foil, lang))
        for card in deck.cards
        for p in card.pairs
        if words.is_variant(p.target, p.foil, lang)
    ]
    assert flagged == []


@pytest.mark.parametrize("lang", sorted(MIN_CARDS))
def test_words_are_clean(lang):
    deck = load_deck(lang)
    for card in deck.cards:
        for p in card.pairs:
            for w in (p.target, p.foil):
                assert w == w.strip() and 1 <= len(w) <= 40 and " " not in w, repr(w)
