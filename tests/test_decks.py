"""Deck formats and validation: JSON and CSV, with errors that name the line and the problem."""

from __future__ import annotations

import importlib
import json
import warnings

import pytest

from dichotomy_widget import (DeckError, DeckWarning, Table, detect_language, load_deck, packaged_decks,
                              parse_deck)

GOOD_ROWS = [
    ("sea", "ocean"), ("coffee", "tea"), ("cat", "dog"), ("spring", "autumn"), ("bread", "rice"),
    ("violin", "cello"), ("doctor", "nurse"), ("train", "bus"), ("lion", "tiger"), ("castle", "palace"),
]


FRENCH_ROWS = [("chat", "chien"), ("mer", "océan"), ("pain", "beurre"), ("soleil", "lune"),
               ("train", "avion")]


def csv_text(rows, header: bool = True, lang: str = "en", sep: str = ",") -> str:
    """A vocabulary list; its ``# lang:`` line comes last, so rows keep their line numbers."""
    lines = ([f"target{sep}foil"] if header else []) + [f"{t}{sep}{f}" for t, f in rows]
    return "\n".join(lines + ([f"# lang: {lang}"] if lang else [])) + "\n"


def json_text(cards) -> str:
    body = ",\n".join("    " + json.dumps(card) for card in cards)
    return '{\n  "name": "Test",\n  "lang": "en",\n  "cards": [\n' + body + "\n  ]\n}\n"


def test_csv_rows_are_grouped_into_cards_of_five():
    deck = parse_deck(csv_text(GOOD_ROWS), fmt="csv")
    assert len(deck) == 2
    assert deck.cards[1].pairs[0].target == "violin" and deck.cards[1].pairs[4].foil == "palace"
    assert deck.lang == "en"


def test_csv_language_comment_and_headerless_rows():
    deck = parse_deck(csv_text(GOOD_ROWS, header=False, lang="es"), fmt="csv")
    assert deck.lang == "es" and len(deck) == 2


def test_csv_incomplete_last_card_names_its_lines():
    with pytest.raises(DeckError) as err:
        parse_deck(csv_text(GOOD_ROWS[:8]), fmt="csv", source="vocab.csv")
    assert "vocab.csv, lines 7-9" in err.value.message and "(3 of 5 rows)" in err.value.message


def test_csv_row_with_wrong_cell_count_names_the_line():
    text = csv_text(GOOD_ROWS).replace("cat,dog", "cat,dog,mouse")
    with pytest.raises(DeckError) as err:
        parse_deck(text, fmt="csv", source="vocab.csv")
    assert "vocab.csv: problems in the deck (1)" in err.value.message and "- line 4: expected two cells" in err.value.message
    assert err.value.problems == ["line 4: expected two cells, a Target and a Foil separated by a comma; "
                                  "got 3 ('cat', 'dog', 'mouse')"]


def test_csv_variant_pair_and_duplicate_target_are_reported_with_lines():
    rows = list(GOOD_ROWS)
    rows[2] = ("river", "rivers")
    rows[7] = ("sea", "lake")
    with pytest.raises(DeckError) as err:
        parse_deck(csv_text(rows), fmt="csv", source="vocab.csv")
    problems = err.value.problems
    assert any("line 4" in p and "variants" in p for p in problems)
    assert any("line 9" in p and "already a target on card 1" in p for p in problems)


def test_json_card_with_four_pairs_names_card_and_line():
    cards = [[list(p) for p in GOOD_ROWS[:5]], [list(p) for p in GOOD_ROWS[5:9]]]
    with pytest.raises(DeckError) as err:
        parse_deck(json_text(cards), source="deck.json")
    assert "card 2 (line 6): a card needs 5 pairs (pairs given: 4)" in err.value.message


def test_json_word_twice_on_a_card():
    card = [list(p) for p in GOOD_ROWS[:5]]
    card[3] = ["Sea", "waves"]
    with pytest.raises(DeckError) as err:
        parse_deck(json_text([card]))
    assert "appears twice on this card" in err.value.message


def test_broken_json_gives_line_and_column():
    text = json_text([[list(p) for p in GOOD_ROWS[:5]]]).replace('["coffee"', '[coffee"', 1)
    with pytest.raises(DeckError) as err:
        parse_deck(text, source="broken.json")
    assert err.value.message.startswith("broken.json, line 5, column")


@pytest.mark.parametrize("text", ["[]", '{"cards": 3}', '{"cards": [3]}', '{"cards": [[["a"]]]}',
                                  '{"cards": [], "name": 4}'])
def test_wrong_json_shapes_are_explained(text):
    with pytest.raises(DeckError):
        parse_deck(text)


def test_long_words_and_control_characters_are_refused():
    card = [list(p) for p in GOOD_ROWS[:5]]
    card[0] = ["x" * 41, "ocean"]
    card[1] = ["cof\x00fee", "tea"]
    with pytest.raises(DeckError) as err:
        parse_deck(json_text([card]))
    assert len(err.value.problems) == 2


def test_files_load_by_extension_and_bad_bytes_are_explained(tmp_path):
    (tmp_path / "vocab.csv").write_text(csv_text(GOOD_ROWS), encoding="utf-8")
    (tmp_path / "vocab.tsv").write_text(csv_text(GOOD_ROWS, sep="\t"), encoding="utf-8")
    assert load_deck(tmp_path / "vocab.tsv").cards == load_deck(tmp_path / "vocab.csv").cards
    assert len(load_deck(tmp_path / "vocab.csv")) == 2
    (tmp_path / "bad.json").write_bytes(b'{"cards": [\xff]}')
    with pytest.raises(DeckError) as err:
        load_deck(tmp_path / "bad.json")
    assert "not UTF-8" in err.value.message
    with pytest.raises(DeckError) as err:
        load_deck(tmp_path / "missing.json")
    assert err.value.code == "deck_not_found"


def test_packaged_decks_are_listed_and_load():
    names = packaged_decks()
    assert {"en", "es", "fr", "de"} <= set(names)
    assert load_deck("en").lang == "en"


def test_a_table_from_a_csv_deck_plays(tmp_path):
    (tmp_path / "vocab.csv").write_text(csv_text(GOOD_ROWS), encoding="utf-8")
    table = Table.create(deck=tmp_path / "vocab.csv", rounds=2, seed=3)
    for name in "ABC":
        table.join(name)
    table.start()
    assert table.state.dealt == 2 and table.view(None)["deck"] == "vocab.csv"


# --- separators ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("sep", [";", "\t"])
def test_semicolon_and_tab_lists_are_read_like_commas(sep):
    deck = parse_deck(csv_text(GOOD_ROWS, sep=sep), fmt="csv", source="vocab.csv")
    assert deck.cards == parse_deck(csv_text(GOOD_ROWS), fmt="csv").cards


def test_semicolon_list_with_commas_inside_a_cell_is_split_on_semicolons():
    """A French spreadsheet export: ';' separates, a ',' inside a row is a problem of that word."""
    rows = [("chat, noir", "chien")] + FRENCH_ROWS[1:]
    with pytest.raises(DeckError) as err:
        parse_deck(csv_text(rows, sep=";", lang="fr"), fmt="csv", source="vocab.csv")
    assert err.value.problems == ["card 1 (line 2), pair 1: target 'chat, noir' is not one word (it has a comma); a card word "
                                  "is one word, like a clue: keep one word, or join them with a hyphen"]


def test_excel_sep_line_and_explicit_sep_argument():
    text = "sep=;\n" + csv_text(GOOD_ROWS, sep=";")
    assert len(parse_deck(text, fmt="csv")) == 2
    with pytest.raises(DeckError) as err:  # forced comma on a semicolon file: told which separator
        parse_deck(csv_text(GOOD_ROWS, sep=";", header=False), fmt="csv", sep=",", source="vocab.csv")
    assert "separated by a comma; got 1 ('sea;ocean')" in err.value.message
    assert "a semicolon or a tab" in err.value.message
    with pytest.raises(DeckError, match="not one of comma, semicolon or tab"):
        parse_deck(csv_text(GOOD_ROWS), fmt="csv", sep="|")


def test_one_column_list_names_the_separators_understood():
    text = "# lang: en\n" + "\n".join(t for t, _ in GOOD_ROWS) + "\n"  # sea is on line 2
    with pytest.raises(DeckError) as err:
        parse_deck(text, fmt="csv", source="words.csv")
    assert err.value.problems[0] == ("line 2: expected two cells, a Target and a Foil separated by a comma; "
                                     "got 1 ('sea')")
    assert len(err.value.problems) == len(GOOD_ROWS)  # every row is listed, not only the first
    assert err.value.message.endswith(
        "Separators understood: a comma, a semicolon or a tab, the same on every row.")


# --- empty cells and one-word card words ---------------------------------------------------------------


@pytest.mark.parametrize("row, which", [("coffee,", "Foil is"), (",tea", "Target is"),
                                        (" , ", "Target and Foil are")])
def test_an_empty_cell_says_which_word_is_missing(row, which):
    text = csv_text(GOOD_ROWS).replace("coffee,tea", row)
    with pytest.raises(DeckError) as err:
        parse_deck(text, fmt="csv", source="vocab.csv")
    assert err.value.problems == [f"line 3: the {which} empty; every row needs a Target and its Foil "
                                  f"(kettle,teapot)"]


@pytest.mark.parametrize("word, what", [("ice cream", "a space"), ("chat,noir", "a comma"),
                                        ("salt/pepper", "a slash")])
def test_a_card_word_must_be_one_word(word, what):
    card = [list(p) for p in GOOD_ROWS[:5]]
    card[2] = ["cat", word]
    with pytest.raises(DeckError) as err:
        parse_deck(json_text([card]), source="deck.json")
    assert err.value.problems == [f"card 1 (line 5), pair 3: foil {word!r} is not one word (it has {what}); "
                                  "a card word is one word, like a clue: keep one word, or join them with "
                                  "a hyphen"]


def test_hyphens_and_apostrophes_stay_one_word():
    rows = [("ice-cream", "sorbet"), ("o'clock", "hour")] + GOOD_ROWS[2:5]
    assert parse_deck(csv_text(rows), fmt="csv").cards[0].pairs[1].target == "o'clock"


# --- language --------------------------------------------------------------------------------------------


def test_a_list_without_a_language_line_is_detected_and_said():
    with pytest.warns(DeckWarning) as caught:
        deck = parse_deck(csv_text(FRENCH_ROWS, lang=""), fmt="csv", source="animaux.csv")
    assert deck.lang == "fr"
    message = str(caught[0].message)
    assert message.startswith("animaux.csv has no '# lang:' line; its words look French")
    assert "Add '# lang: fr'" in message
    assert caught[0].filename == __file__  # points at the caller, not at the package


def test_a_stated_language_is_not_second_guessed():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert parse_deck(csv_text(FRENCH_ROWS, lang="fr"), fmt="csv").lang == "fr"
        assert parse_deck(csv_text(FRENCH_ROWS, lang=""), fmt="csv", lang="es").lang == "es"


def test_words_that_do_not_tell_their_language_ask_for_it():
    rows = [("taxi", "hotel"), ("radio", "piano"), ("pizza", "pasta"), ("tango", "salsa"), ("zebra", "panda")]
    with pytest.raises(DeckError) as err:
        parse_deck(csv_text(rows, lang=""), fmt="csv", source="mixed.csv")
    assert err.value.code == "deck_lang_missing"  # the code the host page's deck form asks with
    assert "which language is this deck in?" in err.value.message and "# lang: fr" in err.value.message


def test_a_json_deck_without_lang_is_detected_too():
    text = json_text([[list(p) for p in FRENCH_ROWS]]).replace('"lang": "en",', "")
    with pytest.warns(DeckWarning, match="look French"):
        assert parse_deck(text, source="deck.json").lang == "fr"


@pytest.mark.parametrize("lang", ["en", "es", "fr", "de"])
def test_each_packaged_deck_is_recognised_from_its_first_cards(lang):
    deck = load_deck(lang)
    first = [w for card in deck.cards[:2] for p in card.pairs for w in (p.target, p.foil)]
    assert detect_language(first)[0] == lang


# --- the message alone in IPython ------------------------------------------------------------------------


def test_deck_error_renders_as_its_message_in_ipython():
    err = DeckError("vocab.csv, line 4: the Foil is empty.\nsecond line")
    assert err._render_traceback_() == ["\x1b[0;31mDeckError\x1b[0m: vocab.csv, line 4: the Foil is empty.",
                                        "second line"]
    from IPython.lib.pretty import pretty

    assert pretty(err) == "DeckError: vocab.csv, line 4: the Foil is empty.\nsecond line"


def test_an_uncaught_deck_error_in_a_real_kernel_shows_only_the_message():
    """ipykernel calls _render_traceback_: the error output holds the message, no parser frames."""
    jupyter_client = importlib.import_module("jupyter_client")
    km, kc = jupyter_client.manager.start_new_kernel(kernel_name="python3")
    try:
        reply = []
        code = ("from dichotomy_widget import parse_deck\n"
                "parse_deck('# lang: en\\nsea', fmt='csv', source='vocab.csv')")
        kc.execute_interactive(code, timeout=120, output_hook=reply.append)
        errors = [m["content"] for m in reply if m["msg_type"] == "error"]
        assert len(errors) == 1
        shown = "\n".join(errors[0]["traceback"])
        assert errors[0]["ename"] == "DeckError"
        assert shown == ("\x1b[0;31mDeckError\x1b[0m: vocab.csv: problems in the deck (1):\n"
                         "- line 2: expected two cells, a Target and a Foil separated by a comma; got 1 ('sea')\n"
                         "Separators understood: a comma, a semicolon or a tab, the same on every row.")
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


# --- limits (one place: dichotomy_widget.decks) and the upload entry point -------------------------
from dichotomy_widget.decks import MAX_DECK_BYTES, MAX_DECK_ROWS, deck_from_bytes  # noqa: E402


def test_a_file_over_the_size_bound_is_refused_before_reading(tmp_path):
    data = (csv_text(GOOD_ROWS) + "# padding " + "x" * MAX_DECK_BYTES + "\n").encode()
    with pytest.raises(DeckError) as err:
        deck_from_bytes(data, "big.csv")
    assert err.value.code == "deck_too_big" and "at most 1,000,000 bytes" in err.value.message
    (tmp_path / "big.csv").write_bytes(data)
    with pytest.raises(DeckError) as err:
        load_deck(tmp_path / "big.csv")
    assert err.value.code == "deck_too_big"


@pytest.mark.parametrize("name,data", [("vocab.xlsx", b"PK\x03\x04\x14\x00\x06\x00"),
                                       ("vocab.csv", b"PK\x03\x04\x14\x00\x06\x00"),  # renamed xlsx
                                       ("old.xls", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1\x00")])
def test_spreadsheet_binaries_are_explained(name, data):
    with pytest.raises(DeckError) as err:
        deck_from_bytes(data, name)
    assert err.value.code == "deck_spreadsheet" and "CSV UTF-8" in err.value.message


def test_latin1_bytes_are_not_utf8():
    with pytest.raises(DeckError) as err:
        deck_from_bytes("# lang: es\ncafé,té\n".encode("latin-1"), "latin.csv")
    assert err.value.code == "deck_not_utf8" and "latin.csv" in err.value.message


def test_html_in_words_is_refused_with_its_line():
    rows = list(GOOD_ROWS)
    rows[1] = ("<b>coffee</b>", "tea")
    rows[6] = ("doctor", "<img src=x onerror=alert(1)>")
    with pytest.raises(DeckError) as err:
        parse_deck(csv_text(rows), fmt="csv", source="x.csv")
    assert [p.split(":")[0] for p in err.value.problems] == ["line 3", "line 8"]
    assert all("HTML" in p for p in err.value.problems)


def test_more_than_the_row_limit_is_refused_at_once():
    rows = "\n".join(f"t{i},f{i}" for i in range(MAX_DECK_ROWS + 1))
    with pytest.raises(DeckError) as err:
        deck_from_bytes(f"# lang: en\n{rows}\n".encode(), "long.csv")
    assert err.value.code == "deck_too_many_rows" and f"line {MAX_DECK_ROWS + 2}" in err.value.message
    cards = [[[f"t{i}{j}", f"f{i}{j}"] for j in range(5)] for i in range(MAX_DECK_ROWS // 5 + 1)]
    with pytest.raises(DeckError) as err:
        deck_from_bytes(json.dumps({"lang": "en", "cards": cards}).encode(), "long.json")
    assert err.value.code == "deck_too_many_rows"


def test_a_missing_language_is_asked_for_not_assumed():
    with pytest.raises(DeckError) as err:
        deck_from_bytes(csv_text(GOOD_ROWS, lang="").encode(), "vocab.csv", default_lang=None)
    assert err.value.code == "deck_lang_missing"
    assert deck_from_bytes(csv_text(GOOD_ROWS, lang="").encode(), "vocab.csv", lang="es",
                           default_lang=None).lang == "es"
    with pytest.raises(DeckError) as err:
        parse_deck(csv_text(GOOD_ROWS, lang="<script>"), fmt="csv")
    assert err.value.code == "deck_bad_lang"


def test_tab_separated_rows_after_a_language_line_and_every_bad_row_listed():
    text = "# lang: en\n# name: Pasted\n" + "\n".join(f"{t}\t{f}" for t, f in GOOD_ROWS) + "\n"
    deck = deck_from_bytes(text.encode(), "pasted list", default_lang=None)
    assert deck.name == "Pasted" and deck.cards[0].pairs[1] == deck.cards[0].pairs[1].__class__("coffee", "tea")
    bad = text.replace("cat\tdog", "cat").replace("lion\ttiger", "lion\ttiger\tbear")
    with pytest.raises(DeckError) as err:
        deck_from_bytes(bad.encode(), "pasted list", default_lang=None)
    assert [p.split(":")[0] for p in err.value.problems] == ["line 5", "line 11"]


# --- hostile files (#26): every one refused with a DeckError that says what is wrong -------------
def _empty_cards(size: int) -> bytes:
    body = ",".join(["[]"] * ((size - 40) // 3))
    return ('{"lang": "en", "cards": [' + body + "]}").encode()


HOSTILE = {
    "deep.json": ('{"lang": "en", "cards": [' + "[" * 100_000 + "]" * 100_000 + "]}").encode(),
    "deep-object.json": ('{"lang": "en", "cards": [], "x": ' + '{"a":' * 50_000 + "1" + "}" * 50_000 + "}").encode(),
    "digits.json": ('{"lang": "en", "cards": [[["sea", "ocean"]]], "n": ' + "9" * 5_000 + "}").encode(),
    "huge-cell.csv": b"# lang: en\nsea," + b"o" * 200_000 + b"\n",
    # 1 MB of empty cards: test_many_empty_cards_are_refused_by_count_before_any_card_is_read
    "many-cards.csv": b"# lang: en\n" + b"\n".join(b"," for _ in range(300_000)),
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_deck_files_are_refused_with_a_clear_deck_error(name):
    from dichotomy_widget.decks import deck_from_bytes

    data = HOSTILE[name]
    assert len(data) <= 1_000_000
    with pytest.raises(DeckError) as refused:
        deck_from_bytes(data, name, default_lang=None)
    text = str(refused.value)
    assert name in text and "Traceback" not in text and len(text) < 2_000, text


def test_many_empty_cards_are_refused_by_count_before_any_card_is_read(monkeypatch):
    """1 MB of empty cards: refused at once by the card bound, not after a per-card line lookup."""
    from dichotomy_widget import decks

    looked_up = []
    monkeypatch.setattr(decks, "_line_of", lambda *a: looked_up.append(a) or 1, raising=False)
    with pytest.raises(DeckError) as refused:
        decks.deck_from_bytes(_empty_cards(999_000), "empty.json", default_lang=None)
    assert refused.value.code == "deck_too_many_cards" and looked_up == []
