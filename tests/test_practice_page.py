"""The practice page and "Add a bot" on the host page, in the kernel (no browser): a class's deck and
language, refusals (no such deck, no bots for Italian), a whole practice with the personal recap as
escaped text, and bots seated from the host page until the game starts."""

from __future__ import annotations

from bot_helpers import TinyRelations, deck_cards
from dichotomy_widget import Classroom, MemoryStore
from dichotomy_widget.pages.host_page import HostPage
from dichotomy_widget.pages.bot_controls import BotControls
from dichotomy_widget.pages.practice_page import PracticePage, practice_link_html, recap_html
from dichotomy_widget.i18n import translator
from dichotomy_widget.options import TableOptions

SOURCE = TinyRelations(deck_cards("en"), seed=3, langs=("en", "fr"))


def test_practice_over_a_class_deck_in_its_language_ends_with_a_recap() -> None:
    store = MemoryStore()
    room = Classroom.create("Unité 2", deck="fr", rounds=3, store=store)
    page = PracticePage(f"class={room.code}", store=store, pause=0, seed=2, source=SOURCE)
    assert page.state == "form" and page.lang == "fr" and "Français en classe" in page.children[1].value
    assert page.start(name="  Zoé  ", bots=3, rounds=3)
    table = page.table
    assert table.state.lang == "fr" and table.state.rounds == 3 and len(table.state.seats) == 4
    assert table.store is not store and room.state.tables == ()  # nothing reaches the class
    while table.state.phase != "over":
        view = table.view(page.seat)
        table.act(page.seat, {"type": "guess", "text": "<b>x</b>"} if "guess" in view["actions"] else {"type": "continue"})
    assert "Votre entraînement" in page.recap.value and "<b>x</b>" not in page.recap.value
    assert "&lt;b&gt;x&lt;/b&gt;" in page.recap.value
    assert page.recap.value.count("<li>") == len(table.state.history) >= 1


def test_practice_refuses_a_path_and_a_language_without_bots() -> None:
    assert PracticePage("deck=../../etc/passwd", store="memory").state == "refused"
    italian = PracticePage("deck=it", store="memory", source=SOURCE)
    assert italian.state == "refused" and "(it)" in italian.message
    assert PracticePage("class=NOPE42", store="memory").state == "refused"


def test_the_recap_and_the_link_are_escaped_text() -> None:
    recap = {"score": 0, "rounds": 1, "found": [], "over": True,
             "missed": [{"target": "<i>t</i>", "foil": "f", "clues": ["<script>"], "cancelled": [], "guess": None,
                         "outcome": "pass", "round": 1}]}
    html = recap_html(recap, translator("de", "pages"))
    assert "<script>" not in html and "&lt;script&gt;" in html and "du hast gepasst" in html
    assert 'href="practice.ipynb?class=AB12CD"' in practice_link_html("AB12CD", translator("en", "pages"))


def test_add_a_bot_on_the_host_page_until_the_game_starts() -> None:
    page = HostPage("", store="memory")
    assert page.create(deck="en", options=TableOptions(rounds=3))
    assert isinstance(page.bots, BotControls) and page.bots.layout.display == ""
    page.bots.options = {"source": SOURCE, "pause": 0}
    assert page.bots.add() and page.bots.add()
    page.table.join("Ada")
    assert [s.name for s in page.table.state.seats] == ["Robo", "Bip", "Ada"]
    page.table.start()
    assert page.bots.layout.display == "none"  # no bot joins a started game
    italian = HostPage("", store="memory")
    assert italian.create(deck="it", options=TableOptions(rounds=3))
    italian.bots.options = {"source": SOURCE}
    assert not italian.bots.add() and "(it)" in italian.bots.feedback.value
    assert italian.table.state.seats == ()


def test_a_host_page_opened_again_runs_its_bots_again() -> None:
    store = MemoryStore()
    first = HostPage("", store=store)
    assert first.create(deck="en", seed=4, options=TableOptions(rounds=2))
    first.bots.options = {"source": SOURCE, "pause": 0}
    assert first.bots.add() and first.bots.add()
    code, token = first.table.code, first.host_token
    ada = first.table.join("Ada")
    # The first page's kernel is gone; the host opens the page again: a new kernel, a new Table object.
    from dichotomy_widget import Table
    from dichotomy_widget.bots import driver_for, resume_bots
    table = Table.open(code, store)
    assert resume_bots(table, "not the host token", pause=0, source=SOURCE) == []
    assert sorted(resume_bots(table, token, pause=0, source=SOURCE)) == [0, 1]
    assert sorted(driver_for(table).bots) == [0, 1]
    table.start()
    while table.state.phase != "over":
        view = table.view(ada)
        act = ({"type": "pick", "pair": 1} if "pick" in view["actions"] and view["card"] else
               {"type": "clue", "text": "zzyzx"} if "clue" in view["actions"] else
               {"type": "pass"} if "pass" in view["actions"] else
               {"type": "continue"} if "continue" in view["actions"] else None)
        assert act is not None, view["status"]  # the bots never leave the person waiting
        table.act(ada, act)


def test_the_lobby_link_shows_only_where_bots_can_play() -> None:
    tr = translator("en", "pages")
    assert "practice.ipynb?class=AB12CD" in practice_link_html("AB12CD", tr, "en")
    assert practice_link_html("AB12CD", tr, "it") == ""  # the packaged relations have no Italian
