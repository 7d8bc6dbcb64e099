"""The deck form's Foil step (dichotomy_widget.pages.foil_picker) driven in the kernel: a one-column list
pasted or uploaded becomes a previewed deck of chosen Foils, on a real SQLite store."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from dichotomy_widget.pages.entry import host_page
from dichotomy_widget.pages.foil_picker import _TYPE
from dichotomy_widget.words import is_variant, suggest_foils
from dichotomy_widget.options import TableOptions

WORDS = ["cat", "coffee", "knife", "rain", "king", "apple", "horse", "bread", "teacher", "river"]


@pytest.fixture()
def page(tmp_path):
    page = host_page("", store=str(tmp_path / "tables.sqlite3"), env={})
    page.browser_secret._received(None, {"secret": "A" * 43}, None)
    return page


def paste(form, text: str) -> None:
    form.source.value = "paste"
    form.paste.value = text
    form.check_button.click()


def pairs(deck) -> dict[str, str]:
    return {p.target: p.foil for card in deck.cards for p in card.pairs}


def test_a_pasted_word_list_shows_shortlists_and_previews_the_first_suggestions(page):
    form = page.deck_form
    paste(form, "# lang: en\n" + "\n".join(WORDS) + "\n")
    picker = form.foil_picker
    assert picker.layout.display == "" and list(picker.menus) == WORDS
    assert form.deck is not None and form.problems == [] and len(form.deck) == 2
    chosen = pairs(form.deck)
    for target in WORDS:
        first = suggest_foils(target, "en")[0]
        assert chosen[target] == first.word and not is_variant(target, chosen[target], "en")
        labels = [label for label, _v in picker.menus[target].options]
        assert len(labels) >= 2 and "—" in labels[0]  # each suggestion says why
    assert f"cat / {chosen['cat']}" in form.preview.value
    # pick another suggestion, then type one: the preview follows
    menu = picker.menus["coffee"]
    second = menu.options[1][1]
    menu.value = second
    assert pairs(form.deck)["coffee"] == second and f"coffee / {second}" in form.preview.value
    picker.typed["rain"].value = "drizzle"
    assert pairs(form.deck)["rain"] == "drizzle"
    # "type another" with nothing typed asks for a Foil; nothing is made of the list meanwhile
    picker.menus["king"].value = _TYPE
    assert form.deck is None and page.create_button.disabled
    assert "“king”" in form.problems_box.value and "type one" in form.problems_box.value
    picker.typed["king"].value = "queen"
    assert form.deck is not None and pairs(form.deck)["king"] == "queen"
    # the same list checked again keeps the choices; a typed variant of the Target is refused as usual
    form.check_button.click()
    assert pairs(form.deck)["coffee"] == second
    picker.typed["horse"].value = "horses"
    assert form.deck is None and "horses" in form.problems_box.value
    picker.typed["horse"].value = ""
    assert page.create(seed=3, options=TableOptions(rounds=1))
    assert page.table.state.lang == "en"


def test_an_uploaded_italian_word_list_asks_for_every_foil(page):
    form = page.deck_form
    data = "# lang: it\ngatto\nmare\nmela\npane\nsole\n".encode()
    form.source.value = "upload"
    form.upload.value = ({"name": "parole.txt", "type": "text/plain", "size": len(data),
                          "last_modified": datetime.now(timezone.utc), "content": memoryview(data)},)
    picker = form.foil_picker
    assert form.deck is None and "suggestions are not available" in picker.note.value
    assert "“gatto”" in form.problems_box.value
    for target, foil in zip(["gatto", "mare", "mela", "pane", "sole"], ["cane", "lago", "pera", "riso", "luna"]):
        picker.typed[target].value = foil
    assert form.deck is not None and pairs(form.deck)["mela"] == "pera" and form.deck.lang == "it"


def test_a_two_column_list_is_an_ordinary_deck_and_hides_the_picker(page):
    form = page.deck_form
    paste(form, "# lang: en\n" + "\n".join(WORDS[:5]) + "\n")
    assert form.foil_picker.layout.display == ""
    paste(form, "# lang: en\nsea,ocean\ncat,dog\nsun,moon\nbread,rice\ntrain,bus\n")
    assert form.deck is not None and pairs(form.deck)["sea"] == "ocean"
    assert form.foil_picker.layout.display == "none" and form.foil_picker.menus == {}


def test_the_form_in_french_translates_the_reasons(tmp_path):
    page = host_page("lang=fr", store=str(tmp_path / "t.sqlite3"), env={})
    form = page.deck_form
    paste(form, "# lang: en\n" + "\n".join(WORDS[:5]) + "\n")
    label = form.foil_picker.menus["cat"].options[0][0]
    assert "même catégorie" in label or "proche" in label or "semblable" in label or "contraire" in label, label
