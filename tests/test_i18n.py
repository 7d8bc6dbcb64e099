"""The interface's languages (``dichotomy_widget/i18n.py``) and the CI translation check.

``test_catalogues_are_complete`` is the translation check CI runs: every message the sources mark
(both domains: the game's ``dichotomy`` and the pages' ``pages``) is translated in es, fr and de, with
the same placeholders, no fuzzy entry and the language's number of plural forms.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
import re
from pathlib import Path

import pytest

from dichotomy_widget import Table, parse_deck
from dichotomy_widget.errors import DichotomyError, InvalidClue
from dichotomy_widget.i18n import (DOMAINS, INTERFACE_LANGUAGES, LANGUAGE_NAMES, interface_language,
                                   normalize_language, placeholders, translator)
from dichotomy_widget.rules import rank_band

ROOT = Path(__file__).resolve().parents[1]
OTHER_LANGUAGES = [lang for lang in INTERFACE_LANGUAGES if lang != "en"]

#: Files whose f-string messages may stay English: what they say is for whoever runs the server (a
#: corrupt or newer stored event, a store file that is not ours, a bad store URL), never for a student.
#: Each such message is marked ``# untranslated: developer-only`` on its line or the lines above.
DEVELOPER_ONLY_FILES = {
    "dichotomy_widget/events.py",
    "dichotomy_widget/stores/base.py",
    "dichotomy_widget/stores/factory.py",
    "dichotomy_widget/stores/pg_relay.py",
    "dichotomy_widget/stores/pg_slots.py",
    "dichotomy_widget/stores/postgres.py",
    "dichotomy_widget/stores/sqlite.py",
}
MARK = "# untranslated: developer-only"


def _tool():
    spec = importlib.util.spec_from_file_location("i18n_tool", ROOT / "tools" / "i18n.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def tool():
    return _tool()


@pytest.fixture(scope="module")
def extracted(tool):
    """The template catalogues and Babel's warnings (skipped f-strings) from one extraction."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        templates = tool.extract()
    return templates, err.getvalue()


def deck(lang="en"):
    rows = ["apple,pear", "river,lake", "chair,sofa", "winter,summer", "doctor,nurse",
            "guitar,violin", "castle,palace", "tiger,lion", "bread,butter", "coffee,cocoa"]
    return parse_deck("\n".join(rows), fmt="csv", source="i18n-test.csv", lang=lang)


# --- the CI translation check -----------------------------------------------------------------------

def test_catalogues_are_complete(tool, extracted):
    templates, _ = extracted
    assert set(templates) == set(DOMAINS)
    assert len(templates["dichotomy"]) > 250  # the widget and the engine really were read
    problems = tool.problems(templates)
    assert problems == [], "\n".join(problems[:40])


def test_the_game_catalogue_is_complete(tool, extracted):
    """The game's own domain, alone (the part of the check this branch owns)."""
    templates, _ = extracted
    problems = tool.problems({"dichotomy": templates["dichotomy"]})
    assert problems == [], "\n".join(problems[:40])


def test_the_check_notices_a_missing_message_and_a_wrong_placeholder(tool, extracted):
    from babel.messages.catalog import Catalog

    template = Catalog(domain="dichotomy")
    template.add("A message nobody translated {x}.")
    template.add("Right! The card goes on the score pile.")
    found = tool.problems({"dichotomy": template})
    assert {p.split(":")[0] for p in found} == {f"{lang}/dichotomy" for lang in OTHER_LANGUAGES}
    assert all("missing" in p for p in found)


def test_no_user_facing_f_string_is_left_in_the_game_sources(extracted):
    """Babel skips an f-string with a warning: in the game's sources only marked developer messages."""
    _, warnings = extracted
    skipped = re.findall(r"^(\S+?):(\d+): warning: Skipping f-string", warnings, re.M)
    bad = []
    for path, line in skipped:
        rel = Path(path).resolve().relative_to(ROOT).as_posix()
        if _tool().domain_of(ROOT / rel) != "dichotomy":
            continue
        lines = (ROOT / rel).read_text(encoding="utf-8").splitlines()
        near = lines[max(0, int(line) - 4):int(line)]
        if rel not in DEVELOPER_ONLY_FILES or not any(MARK in x for x in near):
            bad.append(f"{rel}:{line}: {lines[int(line) - 1].strip()[:90]}")
    assert bad == [], "user-facing f-strings cannot be translated:\n" + "\n".join(bad)


def test_the_widget_marks_only_literal_messages():
    """``t(...)``/``tn(...)`` with anything but a string literal would be missed by the extraction."""
    source = (ROOT / "js" / "widget.js").read_text(encoding="utf-8")
    calls = re.findall(r"(?<![\w.$])(tn?)\(\s*([^\s)])", source)
    assert len(calls) > 120
    not_literal = [(name, first) for name, first in calls if first not in "\"'"]
    definitions = len(re.findall(r"function tn?\(", source))
    assert len(not_literal) == definitions == 2, not_literal


def test_every_screen_speaks_one_vocabulary(tool, extracted):
    """The glossary (teacher, table, Drawer, pair, card) in every language, no banned synonym
    ("choosing a card", "profesor", "tarjeta"…), and no "host" in a message only class pages show."""
    templates, _ = extracted
    found = tool.vocabulary_problems(templates)
    assert found == [], "\n".join(found[:40])
    assert set(tool.GLOSSARY) == {"teacher", "table", "Drawer", "pair", "card"}
    assert all(set(words) == set(OTHER_LANGUAGES) for _, words in tool.GLOSSARY.values())


def test_the_vocabulary_check_notices_a_synonym_a_host_and_another_word(tool, monkeypatch):
    from babel.messages.catalog import Catalog

    template = Catalog(domain="pages")
    template.add("choosing a card", locations=[("dichotomy_widget/pages/table_view.py", 1)])
    template.add("Ask the host to seat you.", locations=[("dichotomy_widget/pages/teacher_page.py", 9)])
    template.add("Ask the host to seat you.", locations=[("dichotomy_widget/pages/host_page.py", 9)], context="table")
    found = tool.vocabulary_problems({"pages": template})
    assert found == ["en/pages: 'choosing a card' uses 'choosing a card' (banned synonym)",
                     "en/pages: 'Ask the host to seat you.' says 'host' on a class page (the glossary's word: teacher)"]
    # a translated message whose word for a card is not the glossary's
    monkeypatch.setitem(tool.GLOSSARY, "card", (r"\bcards?\b", {"es": r"naipe", "fr": r"\bcartes?\b", "de": r"karten?"}))
    template = Catalog(domain="dichotomy")
    template.add("{n} card left", locations=[("js/widget.js", 1)])
    found = tool.vocabulary_problems({"dichotomy": template})
    assert found == ["es/dichotomy: '{n} card left' names 'card' without 'naipe'"]


# --- Translator --------------------------------------------------------------------------------------

def test_plural_forms_follow_each_language():
    card = ("{n} card left", "{n} cards left")
    assert translator("en").ngettext(*card, 0) == "0 cards left"
    assert translator("en").ngettext(*card, 1) == "1 card left"
    assert translator("fr").ngettext(*card, 0) == "0 carte restante"  # French: 0 is singular
    assert translator("fr").ngettext(*card, 2) == "2 cartes restantes"
    assert translator("es").ngettext(*card, 1) == "queda 1 carta"
    assert translator("es").ngettext(*card, 0) == "quedan 0 cartas"  # Spanish: 0 is plural
    assert translator("de").ngettext(*card, 1) == "1 Karte übrig"
    assert translator("de").ngettext(*card, 7) == "7 Karten übrig"


def test_numbers_are_written_the_languages_way():
    assert translator("en").number(1234567) == "1,234,567"
    assert translator("de").number(1234567) == "1.234.567"
    assert translator("es").number(1234567) == "1.234.567"
    assert translator("fr").number(1234567) == "1\u202f234\u202f567"
    # numbers in messages too: the deck limit in a German refusal
    err = DichotomyError("{source}: the file is {size} bytes; a deck file is at most {limit} bytes "
                         "(1 MB). Split it into smaller decks.", code="deck_too_big",
                         params={"source": "a.csv", "size": 2000000, "limit": 1000000})
    assert "at most 1,000,000 bytes" in err.message
    assert "höchstens 1.000.000 Bytes" in translator("de").error(err)


def test_an_error_translates_while_its_code_stays():
    table = Table.create(deck=deck(), rounds=2, seed=3)
    for name in ("Ada", "Ben", "Cy"):
        table.join(name)
    with pytest.raises(DichotomyError) as caught:
        table.act(None, {"type": "pick", "pair": 1})  # the host cannot pick: a refusal with a code
    err = caught.value
    english = translator("en").error_dict(err)
    assert english == err.to_dict()
    for lang in OTHER_LANGUAGES:
        shown = translator(lang).error_dict(err)
        assert shown["code"] == err.code
        assert shown["message"] and shown["message"] != english["message"]
    clue = InvalidClue("A clue is at most {limit} characters. Try a shorter word.", code="clue_too_long",
                       params={"limit": 40})
    assert translator("es").error(clue) == ("Una pista tiene como máximo 40 caracteres. "
                                            "Prueba con una palabra más corta.")
    assert str(clue) == "A clue is at most 40 characters. Try a shorter word."


def test_the_catalogue_for_the_browser():
    fr = translator("fr").catalog()
    assert set(fr) == {"lang", "plural_categories", "messages"}
    assert fr["lang"] == "fr" and fr["plural_categories"] == ["one", "many", "other"]
    assert fr["messages"]["Start the game"] == "Commencer la partie"
    forms = fr["messages"]["{n} card left"]  # a plural entry: its forms in gettext order
    assert forms == ["{n} carte restante", "{n} cartes restantes", "{n} cartes restantes"]
    assert json.loads(json.dumps(fr)) == fr  # ready for a trait
    de = translator("de").catalog()
    assert de["plural_categories"] == ["one", "other"] and len(de["messages"]["{n} card left"]) == 2
    en = translator("en").catalog()
    assert en == {"lang": "en", "plural_categories": ["one", "other"], "messages": {}}  # msgids are English


def test_languages_are_named_in_themselves_and_normalized():
    assert LANGUAGE_NAMES == {"en": "English", "es": "Español", "fr": "Français", "de": "Deutsch"}
    assert normalize_language("es-MX") == "es" and normalize_language("DE_at") == "de"
    assert normalize_language("it") is None and normalize_language(None) is None
    assert interface_language("", "fr") == "fr" and interface_language("de", "fr") == "de"
    assert interface_language("", "it") == "en"
    assert placeholders("{name} has {n} seconds left") == {"name", "n"}


def test_rank_bands_and_reasons_translate():
    band = rank_band(13, 13)
    assert translator("de").gettext(band) == "Perfekte Telepathie"
    from dichotomy_widget.words import REASON_TEXT

    for lang in OTHER_LANGUAGES:
        for text in REASON_TEXT.values():
            assert translator(lang).gettext(text) != text


# --- views in a language -------------------------------------------------------------------------

def test_views_speak_the_interface_language_and_a_screen_may_choose_another():
    table = Table.create(deck=deck(), rounds=2, seed=3, interface_lang="es")
    table.join("Ada")
    assert table.interface_lang == "es"
    assert table.view(None)["status"] == "Esperando jugadores: se ha unido 1 (pueden jugar de 3 a 7)."
    assert table.view(None, "de")["status"].startswith("Warten auf Mitspielende: 1 ist beigetreten")
    assert table.view(None, "en")["status"] == "Waiting for players: 1 has joined (3 to 7 can play)."


def test_a_game_in_every_language_keeps_hidden_words_hidden():
    """Sentences are filled only with names and numbers: no language lets a hidden word through."""
    for lang in INTERFACE_LANGUAGES:
        table = Table.create(deck=deck(), rounds=2, seed=11, interface_lang=lang)
        for name in ("Ada", "Ben", "Cy"):
            table.join(name)
        table.act(None, {"type": "start"})
        s = table.state
        words = {w for pair in s.current for w in pair}  # the Drawer's card: hidden from the others
        table.act(s.drawer, {"type": "pick", "pair": 1})
        s = table.state
        guesser_view = json.dumps(table.view(s.guesser), ensure_ascii=False)
        public_view = json.dumps(table.view(None), ensure_ascii=False)
        for word in words:
            assert f'"{word}"' not in guesser_view and f'"{word}"' not in public_view, (lang, word)
        with pytest.raises(DichotomyError) as caught:
            table.act(s.guesser, {"type": "clue", "text": "zebra"})
        message = translator(lang).error(caught.value)
        assert s.target not in message and s.foil not in message


def test_a_refused_decks_problems_translate_line_by_line():
    from dichotomy_widget.errors import DeckError

    text = "# lang: en\napple,pear\nriver\n" + "".join(f"w{i},v{i}\n" for i in range(3)) + ",\n"
    with pytest.raises(DeckError) as caught:
        parse_deck(text, fmt="csv", source="k.csv")
    err = caught.value
    assert err.problems == [  # English, as before
        "line 3: expected two cells, a Target and a Foil separated by a comma; got 1 ('river')",
        "line 7: the Target and Foil are empty; every row needs a Target and its Foil (kettle,teapot)"]
    assert translator("de").problems(err) == [
        "Zeile 3: zwei Zellen erwartet, ein Ziel und ein Köder, getrennt durch ein Komma; gefunden: 1 ('river')",
        "Zeile 7: Ziel und Köder sind leer; jede Zeile braucht ein Ziel und seinen Köder (kettle,teapot)"]
    spanish = translator("es").error(err)
    assert spanish.startswith("k.csv: problemas en el mazo (2):\n- línea 3: se esperaban dos celdas")
    assert spanish.endswith("Separadores admitidos: una coma, un punto y coma o un tabulador, el mismo en todas las filas.")
    assert err.code == "deck_error" and "problems in the deck (2)" in str(err)


def test_counts_inside_refusals_take_the_right_plural_form():
    one_card = parse_deck("\n".join(f"t{i},f{i}" for i in range(5)), fmt="csv", source="one.csv", lang="en")
    with pytest.raises(DichotomyError) as caught:
        Table.create(deck=one_card, rounds=2)
    err = caught.value
    assert err.code == "deck_too_small"
    assert "has 1 card;" in err.message  # not "1 cards"
    assert "tiene 1 carta;" in translator("es").error(err)
    assert "a 1 carte\u202f;" in translator("fr").error(err)
    assert "hat 1 Karte;" in translator("de").error(err)


def test_the_stalled_page_banner_in_the_voila_template_matches_the_catalogues():
    """The template's script shows the banner before any kernel answers, so it carries its own copy of
    STALLED_BANNER in every interface language: that copy must be the catalogues' translation."""
    import json
    from pathlib import Path

    from dichotomy_widget.i18n import INTERFACE_LANGUAGES, translator
    from dichotomy_widget.pages.page_lang import STALLED_BANNER

    template = (Path(__file__).resolve().parents[1] / "dichotomy_widget" / "pages" / "voila" / "templates" / "dichotomy"
                / "index.html.j2").read_text(encoding="utf-8")
    start = template.index("var TEXTS = ") + len("var TEXTS = ")
    texts = json.loads(template[start:template.index("};", start) + 1])
    assert sorted(texts) == sorted(INTERFACE_LANGUAGES)
    for lang in INTERFACE_LANGUAGES:
        assert texts[lang] == [translator(lang, "pages").gettext(m) for m in STALLED_BANNER], lang
    assert texts["fr"][0] != STALLED_BANNER[0]
