"""The seat page (``seat.ipynb``): a player's own seat at one table, importable and testable without voila.

    ``?table=CODE``             asks for a name and claims a seat with a fresh secret token, then writes
                                ``?table=CODE&seat=TOKEN`` into the address bar (``history.replaceState``)
                                so a reload resumes the same seat;
    ``?table=CODE&seat=TOKEN``  resumes that seat;
    no query                    asks for the table code and a name.

A seat page's kernel holds only that seat's widget: never the projector, the host controls or another
seat's view. Its identity strategy (:mod:`.identity`) decides who sits where: without a hub the seat
link's token is the proof; behind JupyterHub the signed-in hub user is, with no name box, and another
user's seat link is refused. Every refusal shows a clear message and creates nothing; names and codes
are rendered as text.
"""

from __future__ import annotations

import html
import logging
from typing import Any, Mapping
from urllib.parse import parse_qs, urlencode

import ipywidgets as W

from ..config import MAX_NAME_LENGTH, MAX_SEATS
from ..errors import DichotomyError, NameTaken, SeatNotFound
from ..i18n import normalize_language
from ..logs import log_failure
from ..stores import TableStore
from ..table import Table
from ..widgets.name_box import NameBox
from .device import page_device
from .guess_throttle import guarded_open
from .page_base import (IdentityPage, UrlQuery, code_box, game_widget, open_page_store, open_title, page_title,
                        parse_query)
from .page_lang import PageLanguage, error_text, language_menu
from .page_style import feedback_label

__all__ = ["SeatPage"]

log = logging.getLogger(__name__)


class SeatPage(IdentityPage, W.VBox):
    """The whole seat page. ``state``: ``"form"``, ``"seat"`` or ``"refused"``.

    After a successful join or resume, ``seat`` is the seat id, ``widget`` the ``SeatWidget`` and
    ``url.query`` holds ``table=CODE&seat=TOKEN`` (and ``lang=`` when the student chose a language).

    Its identity strategy (``who``) decides who sits where: without a hub the player types a name and
    the seat link's token is the proof; behind JupyterHub there is no name box (the seat's name is the
    hub name), the seat's token is derived from the hub user and the table, ``?table=CODE`` brings the
    user's own seat back on any device and a seat link of another user is refused.
    """

    def __init__(self, query: str | None = None, store: "TableStore | str | None" = None,
                 env: Mapping[str, str] | None = None) -> None:
        super().__init__(layout=W.Layout(width="100%"))
        self.add_class("dichotomy-seat-page")
        self._env = env  # None: this kernel's environment
        self._take_identity(env)
        self.page_lang = PageLanguage(query, env)
        self.url = UrlQuery(lang=self.page_lang.lang)
        self.table: Table | None = None
        self.seat: int | None = None
        self.widget: W.Widget | None = None
        self._unsubscribe = lambda: None
        self.state = "form"
        self.message = ""
        self.code_input: NameBox | None = None
        self._ask_code = True
        self.name_input = NameBox(maxlength=MAX_NAME_LENGTH)
        self.name_input.add_class("dichotomy-name")
        self.join_button = W.Button(button_style="primary")
        self.join_button.add_class("dichotomy-join")
        self.feedback = feedback_label()
        self.join_button.on_click(lambda _b: self.join(self.name_input.value))
        self.name_input.on_submit(self.join)  # the exact text in the box when Enter was pressed
        self.store = open_page_store(store, self._refuse, self.page_lang.lang)
        if self.store is not None:
            self._route(parse_query(query))

    def _know(self, table: Table) -> None:
        self.page_lang.knows(table.interface_lang)
        self.url.lang = self.lang

    # -- routing --------------------------------------------------------------------------------
    def _route(self, params: dict[str, str]) -> None:
        problem = self.who.problem(self.tr)
        if problem is not None:
            self._refuse(*problem)
            return
        _ = self.tr.gettext
        code = params.get("table")
        if not code:
            self._show_form(ask_code=True)
            return
        try:  # wrong codes are throttled per device (per hub user behind the hub)
            self.table = guarded_open(lambda c: Table.open(c, self.store), code, page_device(self._env))
        except DichotomyError as exc:
            self._refuse(open_title(exc, self.tr), error_text(exc, self.lang))
            return
        self._know(self.table)
        _ = self.tr.gettext
        named = params.get("seat")
        if not self.who.owns("table", self.table.code, named):
            self._refuse_not_yours()
            return
        mine = self.who.token("table", self.table.code)  # behind the hub: this user's own seat token
        token = named if named is not None else mine
        if token is not None:
            try:
                seat = self.table.seat_for_token(token)
            except SeatNotFound as exc:
                if mine is not None:  # the hub user has no seat (yet, or any more): the join form
                    pass
                elif self.table.state.phase == "lobby":
                    self._refuse(_("This seat link is not valid"), error_text(exc, self.lang))
                    return
                else:  # the join link is refused once the game has started: say what still works
                    self._refuse(_("This seat link is not valid"),
                                 _("This link matches no seat at this table; it may have been cut short when "
                                   "copied. If you have a seat, open your own seat link again: it is in your "
                                   "browser's history (the page address while you played). The game has "
                                   "started, so new players cannot join; the host can time out your turns "
                                   "until you are back."))
                    return
            else:
                self._show_seat(seat, token)
                return
        if self.table.state.phase != "lobby":
            self._refuse(_("This game has already started"),
                         _("New players cannot join a game that has started. If you had a seat, open your "
                           "own seat link again (the address your page had while you played)."))
            return
        if len(self.table.state.seats) >= MAX_SEATS:
            self._refuse(_("This table is full"),
                         self.tr.ngettext("This table is full: it already has {n} player. Ask the host for "
                                          "another table.",
                                          "This table is full: it already has {n} players. Ask the host for "
                                          "another table.", MAX_SEATS))
            return
        self._show_form(ask_code=False)

    def _refuse_not_yours(self) -> None:
        """Behind the hub: a seat link of another user is refused, with the way to the user's own seat."""
        assert self.table is not None and self.identity is not None
        _ = self.tr.gettext
        log.info("refused: hub user %s opened a seat link that is not theirs", self.identity.name)
        self._refuse(_("This seat link is not yours"),
                     _("This link belongs to another player's seat. You are signed in as {name}: open the "
                       "table's join link to play as yourself.", name=self.identity.display_name))
        own = html.escape(urlencode(self.page_lang.query({"table": self.table.code})))
        self.children = [*self.children, W.HTML(
            f'<p><a class="dichotomy-own-seat" href="?{own}">'
            + html.escape(_("Open table {code} as {name}", code=self.table.code, name=self.identity.display_name))
            + "</a></p>")]

    def _language_menu(self) -> W.Dropdown:
        """The page's one language menu, labelled in the page's language."""
        if getattr(self, "lang_menu", None) is None:
            self.lang_menu = language_menu(self.page_lang, self.choose_language)
        self.lang_menu.description = self.tr.gettext("Language")
        if self.lang_menu.value != self.lang:
            self.lang_menu.value = self.lang
        return self.lang_menu

    def choose_language(self, lang: str) -> None:
        """The student picked ``lang`` in the page's language menu: this screen only, kept in the URL."""
        if lang == self.lang:  # the menu following the page, not a choice
            return
        if not self.page_lang.choose(lang):
            return
        self.url.lang = self.lang
        if self.state == "form":
            base = {"table": self.table.code} if self.table is not None and not self._ask_code else {}
            self.url.query = urlencode(self.page_lang.query(base))
            self.feedback.value = ""
            self._show_form(self._ask_code)

    def _show_form(self, ask_code: bool) -> None:
        _ = self.tr.gettext
        self.state = "form"
        self._ask_code = ask_code
        self.url.lang = self.lang
        playing = ""
        if self.identity is not None:  # behind the hub: no name box, the hub says who this is
            who = html.escape(self.identity.display_name)
            playing = "<p>" + html.escape(_("You play as {name} (your hub name).")).format(name=f"<b>{who}</b>") + "</p>"
            self.join_button.description = _("Join as {name}", name=self.identity.display_name)[:60]
        else:
            self.name_input.label = _("Name")
            self.name_input.placeholder = _("Your name")
            self.join_button.description = _("Join the table")
        rows: list[W.Widget] = [self.url, self._language_menu()]
        if ask_code:
            if self.code_input is None:  # kept across a language switch, with what was typed
                self.code_input = code_box(lambda _code: self.join(self.name_input.value))
            self.code_input.label, self.code_input.placeholder = _("Table"), _("Table code, e.g. K7QX2M")
            rows.append(W.HTML("<h2>" + html.escape(_('Join a Dichotomy table')) + f"</h2>{playing}"))
            rows.append(self.code_input)
            self.url.title = page_title(_("Join a table"))
        else:
            assert self.table is not None
            heading = _("Join table {code}", code=self.table.code)
            rows.append(W.HTML(f"<h2>{html.escape(heading)}</h2>{playing}"))
            self.url.title = page_title(heading)
        if self.identity is None:
            rows.append(self.name_input)
        rows += [self.join_button, self.feedback]
        self.children = rows
        self._frame()

    def _show_seat(self, seat: int, token: str) -> None:
        assert self.table is not None
        self._know(self.table)
        self.seat = seat
        self.state = "seat"
        self.message = ""
        self.url.query = urlencode(self.page_lang.query({"table": self.table.code, "seat": token}))
        player = self.table.state.seat_record(seat)
        name = player.name if player is not None else self.tr.gettext("Seat {number}", number=seat)
        self.url.title = page_title(self.tr.gettext("{name} · table {code}", name=name, code=self.table.code))
        self.widget = game_widget("SeatWidget", self.table, seat, lang=self.lang)
        if "lang" in self.widget.trait_names():
            self.widget.observe(self._widget_language, names="lang")
        self.children = [self.url, self.widget]
        self._frame()
        self._unsubscribe = self.table.subscribe(self._check_removed)
        self.table.start_watching()
        self.who.remember(self.store, "table", "seat", self.table.code)  # the hub start page's list

    def _widget_language(self, change: Mapping[str, Any]) -> None:
        """The student switched language in the game widget: keep it in the address for a reload."""
        now = getattr(self.widget, "lang", None)  # the widget's own value: it restores a forged trait
        if self.state != "seat" or self.table is None or normalize_language(now) is None:
            return
        self.page_lang.choose(now)
        self.url.lang = self.lang
        token = parse_qs(self.url.query).get("seat", [""])[0]
        self.url.query = urlencode(self.page_lang.query({"table": self.table.code, "seat": token}))

    def _check_removed(self, table: Table) -> None:
        """The host removed this seat in the lobby: say so and offer the join form again."""
        if self.state != "seat" or self.seat is None or table.state.seat_record(self.seat) is not None:
            return
        self._unsubscribe()
        if self.widget is not None:
            self.widget.close()
        self.widget, self.seat = None, None
        self.url.query = urlencode(self.page_lang.query({"table": table.code}))
        self.name_input.value = ""
        self._show_form(ask_code=False)
        self.feedback.value = self.tr.gettext("The host removed you from this table. You can join again.")
        self.message = self.feedback.value

    # -- actions --------------------------------------------------------------------------------
    def join(self, name: str = "") -> bool:
        """Claim a seat with ``name`` (behind the hub: the hub user's seat, ``name`` is ignored); True on
        success. A refusal sets ``feedback`` and creates nothing."""
        if self.state != "form":
            return False
        _ = self.tr.gettext
        if self.code_input is not None and self._ask_code:  # no code in the link: open the typed one, every time
            try:
                self.table = guarded_open(lambda c: Table.open(c, self.store), self.code_input.value,
                                          page_device(self._env))  # wrong codes are throttled per device
            except DichotomyError as exc:
                self.table = None
                return self._say(error_text(exc, self.lang))
        if self.table is None:
            return self._say(_("Type the table code first."))
        token = self.who.token("table", self.table.code)  # None: joining draws a random one
        if token is not None:
            try:  # the hub user's seat already exists (another device): take it back
                seat = self.table.seat_for_token(token)
            except SeatNotFound:
                pass
            else:
                self._show_seat(seat, token)
                return True
        if not self.who.hub and (not isinstance(name, str) or len(name) > 10 * MAX_NAME_LENGTH):
            return self._say(self.tr.ngettext("Names are at most {n} character.",
                                                   "Names are at most {n} characters.", MAX_NAME_LENGTH))
        names = self.who.names() if self.who.hub else [name]
        if not names:
            return self._say(_("Your hub name cannot be used at a table; ask the host."))
        for seat_name in names:  # behind the hub: the display name, else the user name when it is taken
            try:
                ticket = self.table.join(seat_name, token=token)
            except NameTaken as exc:
                last: DichotomyError = exc
                continue
            except DichotomyError as exc:
                return self._say(error_text(exc, self.lang))
            except Exception as err:  # noqa: BLE001 - never show a traceback to a student
                log_failure(log, "joining a table failed", err)
                return self._say(_("Something went wrong. Please try again."))
            self._show_seat(ticket.seat, ticket.token)
            return True
        return self._say(error_text(last, self.lang))
