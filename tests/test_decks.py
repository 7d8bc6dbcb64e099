"""Deck formats and validation: JSON and CSV, with errors that name the line and the problem."""

from __future__ import annotations

import json

import pytest

from dichotomy_widget import DeckError, Table, load_deck, packaged_decks, parse_deck

GOOD_ROWS = [
    ("sea", "ocean"), ("coffee", "tea"), ("cat", "dog"), ("spring", "autumn"), ("bread", "rice"),
    ("violin", "cello"), ("doctor", "nurse"), ("train", "bus"), ("lion", "tiger"), ("castle", "palace"),
]


def csv_text(rows, header: bool = True, lang: str = "") -> str:
    lines = ([f"# lang: {lang}"] if lang else []) + (["target,foil"] if header else [])
    return "\n".join(lines + [f"{t},{f}" for t, f in rows]) + "\n"


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
    assert "vocab.csv, lines 7-9" in err.value.message and "3 pair(s)" in err.value.message


def test_csv_row_with_wrong_cell_count_names_the_line():
    text = csv_text(GOOD_ROWS).replace("cat,dog", "cat,dog,mouse")
    with pytest.raises(DeckError) as err:
        parse_deck(text, fmt="csv", source="vocab.csv")
    assert "vocab.csv: 1 problem(s)" in err.value.message and "- line 4: expected two cells" in err.value.message
    assert err.value.problems == ["line 4: expected two cells, target,foil; got 3 (wrong count)"]


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
    assert "card 2 (line 6): has 4 pairs" in err.value.message


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
        deck_from_bytes(csv_text(GOOD_ROWS).encode(), "vocab.csv", default_lang=None)
    assert err.value.code == "deck_lang_missing"
    assert deck_from_bytes(csv_text(GOOD_ROWS).encode(), "vocab.csv", lang="es", default_lang=None).lang == "es"
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
