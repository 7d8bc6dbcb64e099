"""The practice page (``practice.ipynb``): one student guesses every round while 2 or 3 bots write.

``practice.ipynb?class=CODE`` plays over that class's deck, in its language; ``practice.ipynb?deck=en``
over a packaged deck. The table lives in this kernel's memory only (nothing reaches the class's store
or report); when the game is over the page shows a personal recap: the words found, and the words
missed with the clues that were given. All user text is escaped.
"""

from __future__ import annotations

import html
import logging
from typing import TYPE_CHECKING, Any, Mapping
from urllib.parse import parse_qs, urlencode

import ipywidgets as W

from ..bots import check_playable, default_source, knowledge, personal_recap, practice_table
from ..class_mode.classroom import Classroom
from ..config import DEFAULT_DECK, DEFAULT_ROUNDS, MAX_NAME_LENGTH
from ..decks import Card, Deck, packaged_decks
from ..errors import DichotomyError
from ..i18n import Translator
from ..options import TableOptions
from .page_base import RefusingPage, UrlQuery, game_widget, page_store, page_title
from ..widgets.name_box import NameBox
from .page_lang import PageLanguage, error_text
from .page_style import feedback_label, link_html

if TYPE_CHECKING:  # pragma: no cover
    from ..stores import TableStore
    from ..table import Table

__all__ = ["PracticePage", "practice_page", "recap_html", "practice_link_html"]

log = logging.getLogger(__name__)


def practice_query(query: str | None) -> dict[str, str]:
    """``"class=AB"`` or ``"deck=en"`` -> a dict of those keys (first value wins, at most 64 characters)."""
    out: dict[str, str] = {}
    for key, values in parse_qs((query or "").lstrip("?")[:4096]).items():
        if key in ("class", "deck") and values:
            out[key] = values[0].strip()[:64]
    return out


def recap_html(recap: Mapping[str, Any], tr: Translator) -> str:
    """The personal recap as escaped HTML: score, words found, words missed with their clues."""
    _ = tr.gettext
    esc = html.escape
    parts = ['<section class="dichotomy-practice-recap" aria-label="' + esc(_("Your practice recap"), quote=True) + '">',
             "<h3>" + esc(_("Your practice: {score} of {rounds}", score=recap["score"], rounds=recap["rounds"]))
             + "</h3>"]
    found = recap["found"]
    parts.append("<h4>" + esc(tr.ngettext("Found: {n} word", "Found: {n} words", len(found))) + "</h4>")
    parts.append('<ul class="dichotomy-practice-found">' + "".join(
        f"<li><b>{esc(r['target'])}</b> ({esc(', '.join(r['clues']))})</li>" for r in found) + "</ul>")
    missed = recap["missed"]
    parts.append("<h4>" + esc(tr.ngettext("Missed: {n} word", "Missed: {n} words", len(missed))) + "</h4>")
    rows = []
    for r in missed:
        said = _("you passed") if r["outcome"] == "pass" else _("you said {guess}", guess=r["guess"] or "")
        given = _("clues: {clues}", clues=", ".join(r["clues"])) if r["clues"] else _("no clue survived")
        rows.append(f"<li><b>{esc(r['target'])}</b> — {esc(given)}; {esc(said)}</li>")
    parts.append('<ul class="dichotomy-practice-missed">' + "".join(rows) + "</ul></section>")
    return "".join(parts)


class PracticePage(RefusingPage, W.VBox):
    """Practice alone. ``state``: ``"form"``, ``"playing"`` or ``"refused"``.

    ``source``, ``pause`` and ``seed`` go to :func:`~dichotomy_widget.bots.practice_table` (tests).
    """

    def __init__(self, query: str | None = None, store: "TableStore | str | None" = None,
                 env: Mapping[str, str] | None = None, source: Any = None,
                 pause: "float | tuple[float, float] | None" = None, seed: int | None = None) -> None:
        super().__init__(layout=W.Layout(width="100%"))
        self.add_class("dichotomy-practice-page")
        self.page_lang = PageLanguage(query, env)
        self.url = UrlQuery(lang=self.page_lang.lang)
        self.state = "form"
        self.message = ""
        self.table: "Table | None" = None
        self.seat: int | None = None
        self.widget: W.Widget | None = None
        self.recap = W.HTML()
        self.recap.add_class("dichotomy-practice-recap-box")
        self._options = {"source": source, "pause": pause, "seed": seed}
        params = practice_query(query)
        self.deck = self._deck(params, store)
        if self.deck is None:
            return
        try:
            check_playable(self.deck.lang, source)
        except DichotomyError as exc:
            self._refuse(self.tr.gettext("No bots for this language"), error_text(exc, self.lang))
            return
        self._show_form()

    def _deck(self, params: Mapping[str, str], store: "TableStore | str | None") -> Deck | None:
        _ = self.tr.gettext
        code = params.get("class")
        if code:
            try:
                room = Classroom.open(code, page_store(store))
            except DichotomyError as exc:
                self._refuse(_("No such class"), error_text(exc, self.lang))
                return None
            self.page_lang.knows(room.interface_lang)
            s = room.state
            return Deck(name=s.deck_name, lang=s.lang, cards=tuple(Card.from_json(c) for c in s.cards))
        name = params.get("deck") or DEFAULT_DECK
        if name not in packaged_decks():  # never a path from a link
            self._refuse(_("No such deck"), _("Practice plays a deck of this server: {decks}.",
                                              decks=", ".join(packaged_decks())))
            return None
        from ..decks import load_deck

        return load_deck(name)

    def _show_form(self) -> None:
        _ = self.tr.gettext
        self.url.title = page_title(_("Practise alone"))
        self.name_input = NameBox(label=_("Name"), placeholder=_("Your name"), maxlength=MAX_NAME_LENGTH)
        self.name_input.add_class("dichotomy-name")
        self.bots_input = W.Dropdown(options=[(_("2 bots"), 2), (_("3 bots"), 3)], value=2,
                                     description=_("Bots"))
        self.bots_input.add_class("dichotomy-bot-count")
        assert self.deck is not None
        most = min(DEFAULT_ROUNDS, len(self.deck))
        self.rounds_input = W.BoundedIntText(value=most, min=1, max=most, description=_("Cards"),
                                             style={"description_width": "initial"})
        self.rounds_input.add_class("dichotomy-rounds")
        self.start_button = W.Button(description=_("Start practising"), button_style="primary")
        self.start_button.add_class("dichotomy-practice-start")
        self.start_button.on_click(lambda _b: self.start())
        self.name_input.on_submit(lambda text: self.start(text))  # the exact text in the box on Enter
        self.feedback = feedback_label()
        assert self.deck is not None
        intro = ("<h2>" + html.escape(_("Practise alone")) + "</h2><p>" + html.escape(_(
            "You guess every round while bots write the clues, over the deck “{deck}”. Nothing of this game "
            "goes into a class report; at the end you see the words you found and the ones you missed.",
            deck=self.deck.name)) + "</p>")
        self.children = [self.url, W.HTML(intro), self.name_input, self.bots_input, self.rounds_input,
                         self.start_button, self.feedback]

    def start(self, name: str | None = None, bots: int | None = None, rounds: int | None = None) -> bool:
        """Start the practice game; True on success. A refusal (no bots for this language) says why."""
        if self.state != "form" or self.deck is None:
            return False
        typed = self.name_input.value if name is None else name
        who = " ".join(str(typed).split())[:MAX_NAME_LENGTH] or self.tr.gettext("You")
        try:
            options = TableOptions(rounds=rounds or int(self.rounds_input.value), interface_lang=self.lang)
            table, me = practice_table(self.deck, name=who, bots=bots or int(self.bots_input.value), options=options,
                                       **self._options)
        except DichotomyError as exc:
            self.message = self.feedback.value = error_text(exc, self.lang)
            return False
        self.table, self.seat, self.state = table, me.seat, "playing"
        self.widget = game_widget("SeatWidget", table, me.seat, lang=self.lang)
        self.url.title = page_title(self.tr.gettext("Practice · {name}", name=me.name))
        self.children = [self.url, self.widget, self.recap]
        table.subscribe(lambda _t: self._update())
        self._update()
        return True

    def _update(self) -> None:
        table = self.table
        if table is None or self.seat is None or table.state.phase != "over" or self.recap.value:
            return
        self.recap.value = recap_html(personal_recap(table.state, self.seat), self.tr)


def practice_page(query: str | None = None, store: "TableStore | str | None" = None) -> "PracticePage | W.Widget":
    """The practice page for ``query`` (default: this page's request, see :func:`.entry.page_for`)."""
    from .entry import page_for

    return page_for(query, lambda q: PracticePage(q, store=store), store)


def practice_link_html(class_code: str, tr: Translator, lang: str | None = None) -> str:
    """A paragraph with the link to practise over a class's deck (opens in a new tab); "" when bots
    cannot play the deck's language ``lang``."""
    if lang is not None and not knowledge(default_source(), lang).playable:
        return ""
    link = link_html("practice.ipynb?" + urlencode({"class": class_code}), tr.gettext("Practise alone with bots"),
                     "dichotomy-practice-link")
    return (f'<p class="dichotomy-practice-hint">{link} '
            + html.escape(tr.gettext("(a new tab; it does not count for the class).")) + "</p>")
