"""Look-alike letters (TR39 skeletons) and words that mix scripts, in the matcher and the clue rules."""

from __future__ import annotations

import unicodedata

import pytest

from dichotomy_widget import Table, words
from dichotomy_widget.decks import Card, Deck, Pair, load_deck, packaged_decks
from dichotomy_widget.errors import InvalidClue, InvalidGuess
from dichotomy_widget.words.confusables import fold, has_letter_or_digit, mixes_scripts
from game_helpers import write

DISGUISED = {  # what a hostile student types -> the Target it spells
    "m\u0430p": "map",        # Cyrillic a
    "\u0455yrup": "syrup",    # Cyrillic dze
    "\u04bboney": "honey",    # Cyrillic shha
}
ACCENTED = {"es": ["niño", "camión", "pingüino", "árbol"], "fr": ["cœur", "garçon", "élève", "forêt", "naïf"],
            "de": ["schön", "Straße", "Bäckerei", "über", "Mädchen"], "en": ["café", "naïve", "fiancée"]}


@pytest.mark.parametrize("text, target", DISGUISED.items())
def test_disguised_words_fold_to_the_target_and_mix_scripts(text, target):
    assert fold(text) == target
    assert words.variant_reason(text, target, "en") == "same"
    assert mixes_scripts(text)


def test_a_whole_word_in_look_alike_letters_folds_too():
    cyrillic_pop = "\u0440\u043e\u0440"  # р о р: one script, looks like "pop"
    assert not mixes_scripts(cyrillic_pop)
    assert words.is_variant(cyrillic_pop, "pop", "en")
    assert words.is_variant("m\u0251p", "map", "en")  # Latin alpha, not a letter TR39 recommends


@pytest.mark.parametrize("lang, word", [(lang, w) for lang, ws in ACCENTED.items() for w in ws])
def test_accented_words_of_the_deck_script_are_untouched(lang, word):
    plain = unicodedata.normalize("NFC", word).casefold()
    assert fold(word) == plain
    assert not mixes_scripts(word)


def test_ordinary_lookalikes_of_one_script_stay_apart():
    assert not words.is_variant("burn", "bum", "en")  # "rn" looks like "m" but both are Latin
    assert not words.is_variant("clog", "dog", "en")


@pytest.mark.parametrize("lang", sorted(packaged_decks()))
def test_every_packaged_deck_word_is_one_script_and_folds_to_itself(lang):
    for card in load_deck(lang).cards:
        for pair in card.pairs:
            for word in (pair.target, pair.foil):
                assert not mixes_scripts(word), word
                assert fold(word) == unicodedata.normalize("NFKC", word).casefold(), word


def test_japanese_mix_is_one_writing_system():
    assert not mixes_scripts("漢字かな")


@pytest.mark.parametrize("text, expected", [("a", True), ("7", True), ("ñ", True), ("🍯", False),
                                            ("?!", False), ("", False), ("...a", True)])
def test_has_letter_or_digit(text, expected):
    assert has_letter_or_digit(text) is expected


# --- through the rules ------------------------------------------------------------------------
def _table_on(pair: int) -> Table:
    card = Card(tuple(Pair(t, f) for t, f in [("map", "atlas"), ("syrup", "treacle"), ("honey", "jam"),
                                              ("pop", "rock"), ("cafe", "tea")]))
    table = Table.create(deck=Deck(name="look-alikes", lang="en", cards=(card,)), seed=3, rounds=1)
    for name in ("Ana", "Ben", "Cy"):
        table.join(name)
    table.start()
    table.act(table.state.drawer, {"type": "pick", "pair": pair})
    return table


@pytest.mark.parametrize("pair, clue", [(1, "m\u0430p"), (2, "\u0455yrup"), (3, "\u04bboney")])
def test_disguised_target_clues_are_refused_and_keep_the_turn(pair, clue):
    table = _table_on(pair)
    writer, before = table.state.current_writer, len(table.events)
    with pytest.raises(InvalidClue) as err:
        table.act(writer, {"type": "clue", "text": clue})
    assert err.value.code == "mixed_scripts"
    assert table.state.target not in err.value.message
    assert table.state.current_writer == writer and len(table.events) == before


def test_a_one_script_look_alike_of_the_target_is_refused_as_the_target():
    table = _table_on(4)  # pop
    with pytest.raises(InvalidClue) as err:
        table.act(table.state.current_writer, {"type": "clue", "text": "\u0440\u043e\u0440"})
    assert err.value.code == "clue_matches_target"


@pytest.mark.parametrize("clue", ["🍯", "?!", "—", "$"])
def test_a_clue_without_letter_or_digit_is_refused(clue):
    table = _table_on(1)
    writer = table.state.current_writer
    with pytest.raises(InvalidClue) as err:
        table.act(writer, {"type": "clue", "text": clue})
    assert err.value.code == "clue_no_letter"
    assert table.state.current_writer == writer


def test_accented_clue_is_accepted_and_a_mixed_guess_refused():
    table = _table_on(2)  # syrup
    write(table, ["café", "Straße"])
    assert [c.text for c in table.state.clues] == ["café", "Straße"]
    with pytest.raises(InvalidGuess) as err:
        table.act(table.state.guesser, {"type": "guess", "text": "\u0455yrup"})
    assert err.value.code == "mixed_scripts"
    table.act(table.state.guesser, {"type": "guess", "text": "syrup"})
    assert table.state.recap.outcome == "correct"


def test_each_case_of_a_look_alike_folds_as_unicode_lists_it():
    """Capital palochka looks like l, small palochka like i (Unicode's confusables.txt)."""
    assert fold("\u04c0amp") == "lamp"
    assert fold("\u04cfnk") == "ink"
    assert words.is_variant("\u04cfnk", "ink", "en")


@pytest.mark.parametrize("clue, target", [("\u0422\u041d\u0415\u041c\u0415", "theme"),  # ТНЕМЕ
                                          ("\u0412\u041e\u0410\u0422", "boat"),      # ВОАТ
                                          ("\u0397\u0391\u03a4", "hat"),             # ΗΑΤ
                                          ("\u0184urrito", "burrito")])              # Ƅurrito
def test_look_alike_capitals_are_refused_as_clues(clue, target):
    assert words.normalize(clue) == target
    assert words.variant_reason(clue, target, "en") == "same"
    assert fold(clue) == target and fold(clue.upper()) == target.casefold()
