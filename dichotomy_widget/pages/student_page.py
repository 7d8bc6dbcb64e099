"""A student's class page (``class.ipynb``): join a class, wait in its lobby, then play at one's seat.

``class.ipynb?class=CODE``                 a student types a name (behind JupyterHub: joins as the hub
                                           user, no name box); the address becomes
``class.ipynb?class=CODE&student=TOKEN``   that student's link: the class lobby, then their seat.

It renders from the student's lobby view (:func:`..class_mode.views.student_lobby_view`); all user
text is escaped.
"""

from __future__ import annotations

import logging
import os
from typing import Any, Mapping
from urllib.parse import urlencode

import ipywidgets as W

from ..class_mode.classroom import Classroom
from ..class_mode.views import class_projector_view, student_lobby_view
from ..config import MAX_NAME_LENGTH
from ..errors import DichotomyError, NameTaken, SeatNotFound
from ..i18n import normalize_language
from ..logs import refused
from ..stores import TableStore
from ..table import Table
from ..widgets.name_box import NameBox
from .class_html import lobby_html, style_html
from .device import page_device
from .guess_throttle import guarded_open
from .identity import page_identity
from .page_base import (RefusingPage, UrlQuery, class_query, esc, game_widget, page_store, page_title,
                        show_trouble, trouble_banner)
from .page_lang import PageLanguage, error_text, language_menu
from .page_style import feedback_label
from .store_check import check_store_file

__all__ = ["ClassPage", "class_page"]

log = logging.getLogger(__name__)


class ClassPage(RefusingPage, W.VBox):
    """A student's class page. ``state``: ``"form"``, ``"lobby"``, ``"seat"`` or ``"refused"``."""

    def __init__(self, query: str | None = None, store: "TableStore | str | None" = None,
                 env: Mapping[str, str] | None = None) -> None:
        super().__init__(layout=W.Layout(width="100%"))
        self.add_class("dichotomy-class-page")
        self.store = page_store(store)
        self.env = dict(os.environ if env is None else env)
        self.page_lang = PageLanguage(query, env)
        self.url = UrlQuery(lang=self.page_lang.lang)
        self.room: Classroom | None = None
        self.student: int | None = None
        self.token: str | None = None
        self.widget: W.Widget | None = None
        self.state = "form"
        self.message = ""
        self.feedback = feedback_label()
        self.lobby = W.HTML()
        self.lobby.add_class("dichotomy-class-lobby")
        self.trouble = trouble_banner()
        self.lang_menu = language_menu(self.page_lang, self.choose_language)
        self.who = page_identity(self.env)  # a link token, or the hub user behind JupyterHub
        self._own_link: tuple[str, str] | None = None
        params = class_query(query)
        self.device = page_device(env)  # "" where the server does not bound devices
        problem = self.who.problem(self.tr)
        if problem is not None:
            self._refuse(*problem)
            return
        try:  # wrong class codes are throttled per device
            check_store_file(self.store)
            self.room = guarded_open(lambda c: Classroom.open(c, self.store), params.get("class", ""), self.device)
        except DichotomyError as exc:
            self._refuse(self.tr.gettext("No such class"), error_text(exc, self.lang))
            return
        self.page_lang.knows(self.room.interface_lang)
        self._relabel()
        token = params.get("student")
        if not self.who.owns("class", self.room.code, token):
            self._not_yours()
            return
        mine = token if token is not None else self.who.token("class", self.room.code)
        if mine is not None:
            try:
                student = self.room.student_for_token(mine)
            except SeatNotFound as exc:
                if token is not None:
                    self._refuse(self.tr.gettext("This class link is not valid"), error_text(exc, self.lang))
                    return
            else:  # a student's own link, or a hub user coming back (any device)
                self._enter(student, mine)
                return
        self._show_form()

    def _show(self, children: list[W.Widget]) -> None:
        """Show ``children`` (with the hub's "Signed in as" bar behind JupyterHub)."""
        framed = self.who.framed(children, self.tr)
        if list(self.children) != framed:
            self.children = framed

    def _refusal_link(self) -> tuple[str, str] | None:
        return self._own_link

    def _refuse(self, title: str, body: str) -> None:
        super()._refuse(title, body)
        self._show(list(self.children))

    def _not_yours(self) -> None:
        """Another hub user's class link: refused, showing nothing of that student (only a way to the
        class as oneself)."""
        assert self.room is not None and self.who.user is not None
        _ = self.tr.gettext
        name = self.who.user.display_name
        log.info("refused: hub user %s opened a class link that is not theirs", self.who.user.name)
        self._own_link = ("?" + urlencode(self.page_lang.query({"class": self.room.code})),
                          _("Open class {code} as {name}", code=self.room.code, name=name))
        self._refuse(_("This class link is not yours"),
                     _("This link belongs to another student. You are signed in as {name}: open the class's join "
                       "link to take part as yourself.", name=name))

    def _relabel(self) -> None:
        """The page's language changed (or became known): the address bar's lang and the menu's label."""
        self.url.lang = self.lang
        self.lang_menu.description = self.tr.gettext("Language")
        if self.lang_menu.value != self.lang:
            self.lang_menu.value = self.lang

    def choose_language(self, lang: str) -> None:
        """The student picked ``lang`` in the page's language menu: this screen only, kept in the URL."""
        if lang == self.lang:  # the menu following the page, not a choice
            return
        if not self.page_lang.choose(lang) or self.room is None:
            return
        self._relabel()
        params = {"class": self.room.code}
        if self.token is not None:
            params["student"] = self.token
        self.url.query = urlencode(self.page_lang.query(params))
        if self.state == "form":
            self.feedback.value = ""
            self._show_form()
        elif self.state == "lobby":
            self._enter_title()
            self._update()

    def _show_form(self) -> None:
        assert self.room is not None
        _ = self.tr.gettext
        self.state = "form"
        if not hasattr(self, "name_input"):  # one box for the page's life: a language switch keeps the text
            self.name_input = NameBox(maxlength=MAX_NAME_LENGTH)
            self.name_input.add_class("dichotomy-name")
            self.name_input.on_submit(self.join)  # the exact text in the box when Enter was pressed
            self.join_button = W.Button(button_style="primary")
            self.join_button.add_class("dichotomy-join")
            self.join_button.on_click(lambda _b: self.join(self.name_input.value))
        self.name_input.label = _("Name")
        self.name_input.placeholder = _("Your name")
        self.url.title = page_title(_("Join class {code}", code=self.room.code))
        heading = "<h2>" + esc(_("Join the class {name} ({code})", name=class_projector_view(self.room)["name"], code=self.room.code)) + "</h2>"
        names = self.who.names()
        if self.who.hub:  # no name box: the hub says who this is
            if names:
                heading += "<p>" + esc(_("You take part as {name} (your hub name).")).format(
                    name=f"<b>{esc(names[0])}</b>") + "</p>"
            self.join_button.description = (_("Join as {name}", name=names[0]) if names else _("Join the class"))[:60]
            rows: list[W.Widget] = [W.HTML(heading), self.join_button, self.feedback]
        else:
            self.join_button.description = _("Join the class")
            rows = [W.HTML(heading), self.name_input, self.join_button, self.feedback]
        self._show([self.url, self.lang_menu, *rows])

    def join(self, name: Any = "") -> bool:
        """Join the class with ``name`` (behind the hub: as the hub user, ``name`` is ignored); True on
        success. A refusal says why and creates nothing."""
        if self.state != "form" or self.room is None:
            return False
        _ = self.tr.gettext
        token = self.who.token("class", self.room.code)
        if self.who.hub:
            names = self.who.names()
            if not names:
                return self._say(_("Your hub name cannot be used in a class; ask the teacher."))
        elif not isinstance(name, str) or len(name) > 10 * MAX_NAME_LENGTH:
            return self._say(self.tr.ngettext("Names are at most {n} character.", "Names are at most {n} characters.",
                                              MAX_NAME_LENGTH))
        else:
            names = [name]
        for tried in names:
            try:
                ticket = self.room.join(tried, device=self.device, token=token)  # a few names per device
            except NameTaken as exc:
                refusal: Exception = exc  # behind the hub: try the hub user name next
                continue
            except Exception as exc:  # noqa: BLE001 - never a traceback on a student's page
                refused(self.room.log_name, tried, exc)
                return self._say(error_text(exc, self.lang))
            self._enter(ticket.student, ticket.token)
            return True
        refused(self.room.log_name, names[-1], refusal)
        return self._say(error_text(refusal, self.lang))

    def _enter_title(self) -> None:
        assert self.room is not None and self.student is not None
        view = student_lobby_view(self.room, self.student)
        self.url.title = page_title(self.tr.gettext("{name} · class {code}", name=view["me"], code=view["class"]))

    def _enter(self, student: int, token: str) -> None:
        assert self.room is not None
        self.student, self.token = student, token
        self.url.query = urlencode(self.page_lang.query({"class": self.room.code, "student": token}))
        self.who.remember(self.store, "class", "student", self.room.code, token)  # hub start page list
        self._enter_title()
        self._unsubscribe = self.room.subscribe(lambda _r: self._update())
        self._update()
        if self.state != "seat":
            self.room.start_watching()

    def _sit(self, table: Table, seat_id: int) -> None:
        """Become this student's seat at ``table``. The table's own watch follows the game; the class is
        followed again once that game is over (the teacher may make the table play again)."""
        assert self.room is not None
        _ = self.tr.gettext
        old = getattr(self, "table_code", None)
        if old is not None:
            self.room.table(old).stop_watching()
        self.state = "seat"
        self.table_code = table.code
        self.widget = game_widget("SeatWidget", table, seat_id, lang=self.lang)
        if "lang" in self.widget.trait_names():
            self.widget.observe(self._widget_language, names="lang")
        self.url.title = page_title(_("{name} · table {code}", name=table.state.name(seat_id), code=table.code))
        self._show([self.url, self.widget])
        log.info("class %s: student %s's page became their seat at table %s", self.room.code, self.student, table.code)
        self.room.stop_watching()
        table.subscribe(lambda t: self._game_moved(t))
        table.start_watching()
        self._game_moved(table)

    def _game_moved(self, table: Table) -> None:
        """This student's game changed: once it is over, follow the class again (for "play again")."""
        if self.room is not None and table.code == getattr(self, "table_code", None) and table.state.phase == "over":
            self.room.start_watching()

    def _widget_language(self, change: Mapping[str, Any]) -> None:
        """The student switched language in the game widget: keep it in the address for a reload."""
        now = getattr(self.widget, "lang", None)  # the widget's own value: it restores a forged trait
        if self.room is None or self.token is None or normalize_language(now) is None:
            return
        if self.page_lang.choose(now):
            self._relabel()
        self.url.query = urlencode(self.page_lang.query({"class": self.room.code, "student": self.token}))

    def _update(self) -> None:
        """Show the lobby, or become the seat once this student's table has started (and the seat of its
        next game when the teacher makes a finished table play again)."""
        room = self.room
        if room is None or self.student is None:
            return
        if self.state == "seat":
            seat = room.seat_of(self.student) if room.state.student(self.student) is not None else None
            if seat is not None and seat[0].code != self.table_code:
                self._sit(*seat)
            return
        _ = self.tr.gettext
        view = student_lobby_view(room, self.student)
        if view["me"] is None:  # the teacher removed this student
            self._refuse(_("You are no longer in this class"),
                         _("The teacher removed you from this class. Ask the teacher if this is a mistake."))
            unsubscribe = getattr(self, "_unsubscribe", None)
            if unsubscribe is not None:
                unsubscribe()
            room.stop_watching()
            return
        seat = room.seat_of(self.student)
        if seat is not None:
            self._sit(*seat)
            return
        self.state = "lobby"
        from .practice_page import practice_link_html  # issue 32: practise alone while waiting

        practice = practice_link_html(view["class"], self.tr, view["deck_lang"])
        self.lobby.value = style_html() + lobby_html(view, self.tr, practice)  # the style: the trouble banner's
        show_trouble(self.trouble, room, self.lang)
        self._show([self.url, self.lang_menu, self.trouble, self.lobby])


def class_page(query: str | None = None, store: "TableStore | str | None" = None,
               env: Mapping[str, str] | None = None) -> ClassPage:
    """A student's class page for ``query`` (default: this page's request, see :func:`.entry.page_for`)."""
    from .entry import page_for

    return page_for(query, lambda q: ClassPage(q, store=store, env=env), store)  # type: ignore[return-value]
