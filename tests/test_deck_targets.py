"""A deck from a plain word list (dichotomy_widget.deck_targets, Deck.from_targets): the Python API."""

from __future__ import annotations

import pytest

from dichotomy_widget import Deck, DeckError, Table
from dichotomy_widget.deck_targets import MAX_TARGETS, one_column_list, shortlists, single_column
from dichotomy_widget.i18n import translator
from dichotomy_widget.words import is_variant, suggest_foils

WORDS = ["cat", "coffee", "knife", "rain", "king", "apple", "horse", "bread", "teacher", "river"]


def pairs(deck: Deck) -> dict[str, str]:
    return {p.target: p.foil for card in deck.cards for p in card.pairs}


def test_from_targets_takes_the_first_suggestion_unless_told_otherwise():
    deck = Deck.from_targets(WORDS, lang="en", foils={"knife": "fork", "King": "queen"}, name="Week 12")
    assert deck.name == "Week 12" and deck.lang == "en" and len(deck) == 2
    chosen = pairs(deck)
    assert list(chosen) == WORDS
    assert chosen["knife"] == "fork" and chosen["king"] == "queen"  # a chosen Foil, matched like a word
    for target in set(WORDS) - {"knife", "king"}:
        assert chosen[target] == suggest_foils(target, "en", 1)[0].word
        assert not is_variant(target, chosen[target], "en")
    table = Table.create(deck=deck, rounds=1, seed=1)
    assert table.state.deck_name == "Week 12"


def test_shortlists_rank_five_to_ten_suggestions_each():
    lists = shortlists(WORDS, "en")
    assert list(lists) == WORDS
    for target, suggestions in lists.items():
        assert 5 <= len(suggestions) <= 10, target
        assert len({s.word for s in suggestions}) == len(suggestions)
    assert [s.word for s in shortlists(["cat"], "en", limit=3)["cat"]] == [s.word for s in lists["cat"][:3]]


def test_a_target_without_a_foil_is_named_and_nothing_is_made():
    with pytest.raises(DeckError) as err:
        Deck.from_targets(["gatto", "mare", "mela", "pane", "sole"], lang="it", foils={"mela": "pera"})
    assert err.value.code == "deck_foil_missing"
    text = str(err.value)
    assert "“gatto”" in text and "“sole”" in text and "“mela”" not in text
    assert "not available for this language" in text
    assert "«gatto»" in translator("es").error(err.value)
    deck = Deck.from_targets(["gatto", "mare", "mela", "pane", "sole"], lang="it",
                             foils={"gatto": "cane", "mare": "lago", "mela": "pera", "pane": "riso", "sole": "luna"})
    assert pairs(deck)["sole"] == "luna"
    # "" means the teacher is still typing: asked for, not filled in
    with pytest.raises(DeckError, match="“cat”"):
        Deck.from_targets(WORDS[:5], lang="en", foils={"cat": ""})


def test_the_usual_deck_rules_apply():
    with pytest.raises(DeckError, match="incomplete"):
        Deck.from_targets(WORDS[:7], lang="en")
    with pytest.raises(DeckError, match="variant|same word|forms"):
        Deck.from_targets(WORDS[:5], lang="en", foils={"cat": "cats"})
    with pytest.raises(DeckError) as err:
        Deck.from_targets(["cat"] * (MAX_TARGETS + 5), lang="en")
    assert err.value.code == "deck_too_many_targets"
    with pytest.raises(DeckError) as err:
        Deck.from_targets(["zzkq", "qqxv", "vvbz", "kkzq", "xxqz"])  # no language to be seen in these
    assert err.value.code == "deck_lang_missing"
    spanish = ["perro", "ventana", "cuchillo", "lluvia", "manzana", "caballo", "leche", "cuchara", "zapato", "hermano"]
    assert Deck.from_targets(spanish, foils={w: "x" + w for w in spanish}).lang == "es"  # seen in the words


def test_a_one_column_list_is_told_from_a_deck():
    assert single_column("# lang: fr\n# name: Semaine 3\ntarget\nchat\n\nmer\n") == (["chat", "mer"], "fr", "Semaine 3")
    assert single_column("chat,chien\nmer,océan\n") is None
    assert single_column("chat\nmer;océan\n") is None
    assert single_column("# lang: en\n") is None
    assert one_column_list("cat\ndog\n".encode(), "list.txt") == (["cat", "dog"], "", "")
    assert one_column_list(b'{"cards": []}', "deck.txt") is None
    assert one_column_list("café\n".encode("latin-1"), "list.csv") is None
    assert one_column_list(b"cat\n", "deck.json") is None
