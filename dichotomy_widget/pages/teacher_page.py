"""The voila pages of a class: teacher, student (class join), class projector, table projector, report.

Each packaged notebook in ``pages/notebooks/`` is two lines that call one of the functions below; voila gives
the page's URL query in ``$QUERY_STRING``. Addresses:

``teacher.ipynb``                          create a class (name, deck, cards per table, clue time limit,
                                           preferred table size); the address becomes the teacher link
``teacher.ipynb?class=CODE&teacher=TOKEN`` the teacher's control page: roster, seating, moves, extra
                                           table, Start all / one, and every table's host controls. The
                                           token makes it private: never put this page on the projector.
``class.ipynb?class=CODE``                 a student types a name; the address becomes
``class.ipynb?class=CODE&student=TOKEN``   that student's link: the class lobby, then their seat.
``classview.ipynb?class=CODE``             the class projector: code, join link, QR code, tables, scores.
``projector.ipynb?table=CODE``             one table's projector view, read-only (any table).
``report.ipynb?class=CODE``                the debrief: resolved rounds only, with CSV and JSON downloads.

Projector, class view and report pages hold no token and offer no action. All user text is escaped.
"""

from __future__ import annotations

import html
import logging
import os
from typing import Any, Callable, Mapping
from urllib.parse import urlencode, urlsplit, urlunsplit

import ipywidgets as W

from ..class_mode.classroom import MAX_CLASS_NAME, Classroom
from ..deck_library import DeckLibrary
from ..decks import Deck
from ..errors import DichotomyError, NameTaken, SeatNotFound
from ..config import (CLASS_PAGE, CLASS_VIEW_PAGE, MAX_NAME_LENGTH, MAX_SEATS, MAX_TIME_LIMIT, MIN_SEATS,
                      MIN_TIME_LIMIT,
                      PROJECTOR_PAGE, REPORT_PAGE, SEAT_URL_ENV)
from ..class_mode.seating import MAX_PREFERRED, MIN_PREFERRED
from ..stores import TableStore
from ..table import Table
from ..errors import TeacherKeyRequired
from ..logs import refused
from ..i18n import normalize_language
from ..logs import log_failure
from ..options import TableOptions
from .table_pages import (RefusingPage, UrlQuery, error_text, game_widget, interface_menu, message_box, page_store,
                          page_title, parse_query, refresh_interface_menu)
from .page_lang import PageLanguage, language_menu
from .deck_form import DeckForm
from ..widgets.host_secrets import BrowserSecret, TeacherKeyBox
from .hub_history import remember_page
from .identity import page_identity
from ..widgets.name_box import NameBox
from .teacher_gate import TeacherGate
from .device import page_device
from .guess_throttle import guarded_open
from .store_check import check_store_file
from .teacher import key_required, require_teacher
from .page_style import feedback_label, link_html
from .class_html import (dashboard_row_html, download_html, host_label, join_html, late_html, lobby_html,
                         overview_html, report_html, roster_html, style_html, trouble_html)
from ..class_mode.views import (class_projector_view, report, report_csv, report_json,
                           student_lobby_view)

__all__ = ["teacher_page", "class_page", "class_view_page", "projector_page", "report_page", "TeacherPage",
           "ClassPage", "ClassViewPage", "ProjectorPage", "ReportPage", "page_link", "class_query"]

log = logging.getLogger(__name__)

DEFAULT_ROUNDS = 5
KEYS = ("class", "student", "teacher", "table", "n")
#: Seconds between two redraws of the teacher's dashboard when nothing happens (alerts grow with time).
CLOCK_EVERY = 5.0


# --------------------------------------------------------------------------------------------------
# helpers


def class_query(query: str | None) -> dict[str, str]:
    """``"class=AB&student=x"`` -> ``{"class": "AB", "student": "x"}``; first value wins, junk dropped."""
    return parse_query(query, KEYS)


def page_link(page: str, params: Mapping[str, str], env: Mapping[str, str] | None = None) -> str:
    """The address of packaged page ``page`` (e.g. ``class.ipynb``) with ``params``.

    Built like the table join link: beside ``$DICHOTOMY_SEAT_URL`` if set, else beside this page's own
    address (``$VOILA_REQUEST_URL``), else relative.
    """
    env = os.environ if env is None else env
    base = env.get(SEAT_URL_ENV, "").strip() or env.get("VOILA_REQUEST_URL", "").strip()
    if base:
        parts = urlsplit(base)
        head = parts.path.rpartition("/")[0]
        url = urlunsplit((parts.scheme, parts.netloc, f"{head}/{page}", "", ""))
    else:
        url = page
    return f"{url}?{urlencode(dict(params))}" if params else url




def _esc(text: Any) -> str:
    return html.escape(str(text), quote=True)


def _trouble_banner() -> W.HTML:
    """An empty slot for the store's trouble (full disk, read-only file); see :func:`_show_trouble`."""
    banner = W.HTML()
    banner.add_class("dichotomy-store-trouble")
    return banner


def _show_trouble(banner: W.HTML, room: Classroom, lang: str = "en") -> None:
    """Put the class store's trouble in ``banner`` as an alert (escaped text, in ``lang``), or empty it."""
    err = getattr(room, "store_trouble_error", None)
    text = error_text(err, lang) if err is not None and room.store_trouble else room.store_trouble
    value = trouble_html(text)
    if banner.value != value:
        banner.value = value


def _widgets():
    from ..widgets import game as widgets

    return widgets


def _projector_link(env: Mapping[str, str] | None) -> Callable[[str, int], str]:
    """The projector page address of a class's table (code, number), beside this page's address."""
    return lambda code, number: page_link(PROJECTOR_PAGE, {"table": code, "n": number}, env)


# --------------------------------------------------------------------------------------------------
# Teacher page


class TeacherPage(RefusingPage, TeacherGate, W.VBox):
    """Create a class, then run it. ``state``: ``"create"``, ``"teacher"`` or ``"refused"``."""

    def __init__(self, query: str | None = None, store: "TableStore | str | None" = None,
                 env: Mapping[str, str] | None = None) -> None:
        super().__init__(layout=W.Layout(width="100%"))
        self.add_class("dichotomy-teacher-page")
        self.store = page_store(store)
        self.env = dict(os.environ if env is None else env)
        self.page_lang = PageLanguage(query, self.env)
        self.url = UrlQuery(lang=self.page_lang.lang)
        self.room: Classroom | None = None
        self.state = "create"
        self.message = ""
        self.feedback = feedback_label()
        self.table_widgets: dict[str, W.Widget] = {}
        self._typed_key: str | None = None  # the teacher key typed on this page (kernel only, never synced)
        self._key_failures = 0
        params = class_query(query)
        code, token = params.get("class"), params.get("teacher")
        self.who = page_identity(self.env)  # behind JupyterHub: the hub user, who must be a host
        if not self._may_run():
            return
        if not code and not token:
            self._show_create()
            return
        try:
            check_store_file(self.store)
            room = Classroom.open(code or "", self.store)
        except DichotomyError as exc:
            self._refuse(self.tr.gettext("No such class"), error_text(exc, self.lang))
            return
        self.page_lang.knows(room.interface_lang)
        if not room.is_teacher(token):
            self._refuse(self.tr.gettext("This teacher link is not valid"),
                         self.tr.gettext("Only the teacher who created this class can run it, with the link of the "
                                         "page that created it. You can create a new class instead."))
            return
        self._show_teacher(room, token or "")

    def _may_run(self) -> bool:
        """Behind JupyterHub only the hub's hosts (admins, host groups) may create or run a class."""
        _ = self.tr.gettext
        problem = self.who.problem(self.tr)
        if problem is not None:
            self._refuse(*problem)
            return False
        if not self.who.may_host():
            user = self.who.user
            assert user is not None
            log.info("refused: hub user %s may not run a class", user.name)
            self._refuse(_("Running a class is for teachers"),
                         _("You are signed in as {name}, who may not run a class. Students join with the class "
                           "link the teacher shows.", name=user.display_name))
            return False
        return True

    # -- create ---------------------------------------------------------------------------------
    def _show_create(self) -> None:
        _ = self.tr.gettext
        self.state = "create"
        self.name_input = NameBox(label=_("Class name"), placeholder=_("e.g. Year 9 French"), maxlength=MAX_CLASS_NAME)
        self.name_input.add_class("dichotomy-class-name")
        self.name_input.on_submit(lambda text: self.create(name=text))  # exactly the text in the box at Enter
        self.deck_form = DeckForm(env=self.env, on_change=self._deck_changed, lang=self.lang)
        self.rounds_input = W.BoundedIntText(value=DEFAULT_ROUNDS, min=1, max=13, description=_("Cards per table"),
                                             style={"description_width": "initial"})
        self.rounds_input.add_class("dichotomy-rounds")
        self.limit_input = W.BoundedIntText(value=0, min=0, max=MAX_TIME_LIMIT, description=_("Clue time (s)"),
                                            style={"description_width": "initial"})
        self.limit_input.add_class("dichotomy-time-limit")
        self.size_input = W.BoundedIntText(value=5, min=MIN_PREFERRED, max=MAX_PREFERRED,
                                           description=_("Preferred table size"), style={"description_width": "initial"})
        self.size_input.add_class("dichotomy-table-size")
        self.interface_input = interface_menu(self.tr)
        self.create_button = W.Button(description=_("Create the class"), button_style="primary")
        self.create_button.add_class("dichotomy-create-class")
        self.create_button.on_click(lambda _b: self.create())
        self._deck_changed(self.deck_form.deck)
        self.url.title = page_title(_("Create a class"))
        self.url.lang = self.lang
        self.form = W.VBox([self.name_input, self.deck_form, self.rounds_input, self.limit_input, self.size_input,
                            self.interface_input, self.create_button, self.feedback])
        self.form.add_class("dichotomy-create-class-form")
        intro = W.HTML("<h2>" + _esc(_('Create a Dichotomy class')) + "</h2><p>" + _esc(_(
            "One link for the whole class: students join with their name, you make tables of {low} to {high} and "
            "start them. Choose a deck (or upload or paste your own). The clue time limit is optional (0 = none, "
            "else {shortest} to {longest} seconds).", low=MIN_SEATS, high=MAX_SEATS,
            shortest=MIN_TIME_LIMIT, longest=MAX_TIME_LIMIT)) + "</p>")
        if key_required(self.env):  # the server's teacher key guards creating a class like a table
            self.key_box: TeacherKeyBox | None = TeacherKeyBox(on_key=self.unlock, lang=self.lang)
            self.key_box.status = _("This server needs the teacher key to create a class.")
            self.form.layout.display = "none"
            self.children = [self.url, intro, self.key_box, self.form]
        elif self.who.library_secret() is not None:  # behind the hub: the decks follow the hub account
            self.key_box = None
            self.deck_form.set_library(DeckLibrary.for_secret(self.store, self.who.library_secret()))
            self.children = [self.url, intro, self.form]
        else:
            self.key_box = None
            self.browser_secret = BrowserSecret(on_secret=self._open_browser_library)
            self.children = [self.url, intro, self.browser_secret, self.form]

    def _deck_changed(self, deck: "Deck | None") -> None:
        if not hasattr(self, "create_button"):
            return
        refresh_interface_menu(self.interface_input, self.tr, deck)
        self.create_button.disabled = deck is None
        if deck is not None:
            self.rounds_input.max = min(len(deck), 13)
            self.rounds_input.value = min(max(1, self.rounds_input.value), self.rounds_input.max)

    def create(self, name: str | None = None, deck: "str | Deck | None" = None, rounds: int | None = None,
               time_limit: float | None = None, table_size: int | None = None,
               interface_lang: str | None = None) -> bool:
        """Create the class from the form (or the arguments); True on success. Needs the teacher key when
        the server has one."""
        if self.state != "create":
            return False
        _ = self.tr.gettext
        try:
            require_teacher(self._typed_key, self.env, for_class=True)
        except TeacherKeyRequired as exc:
            return self._say(error_text(exc, self.lang))
        name = self.name_input.value if name is None else name
        if deck is None:
            deck = self.deck_form.deck or self.deck_form.check()
            if deck is None:
                return self._say(_("Fix the deck first (see the problems above).") if self.deck_form.problems
                                 else _("Choose a deck first: pick one, upload a file or paste a list."))
        options = TableOptions(  # a language the interface lacks falls back to the deck's
            rounds=int(self.rounds_input.value) if rounds is None else rounds,
            time_limit=(float(self.limit_input.value) or None) if time_limit is None else time_limit,
            interface_lang=normalize_language(self.interface_input.value if interface_lang is None
                                              else interface_lang) or "")
        table_size = int(self.size_input.value) if table_size is None else table_size
        try:
            room = Classroom.create(name, deck=deck, options=options, table_size=table_size, store=self.store)
        except DichotomyError as exc:
            return self._say(error_text(exc, self.lang))
        try:
            if deck is self.deck_form.deck:
                self.deck_form.save_current()
        except DichotomyError as exc:  # the class exists; only saving the uploaded deck failed
            log.warning("saving an uploaded deck failed: %s", exc.code)
        assert room.teacher_token is not None
        self.page_lang.knows(room.interface_lang)
        self._show_teacher(room, room.teacher_token)
        return True

    def _say(self, text: str) -> bool:
        self.message = text
        self.feedback.value = text
        return False

    # -- running the class ----------------------------------------------------------------------
    def _show_teacher(self, room: Classroom, token: str) -> None:
        _ = self.tr.gettext
        self.room = room
        self.state = "teacher"
        self.message = ""
        self.url.lang = self.lang
        self.url.query = urlencode(self.page_lang.query({"class": room.code, "teacher": token}))
        self.url.title = page_title(_("Teacher · class {code}", code=room.code))
        self.join_link = page_link(CLASS_PAGE, {"class": room.code}, self.env)
        self.view_link = page_link(CLASS_VIEW_PAGE, {"class": room.code}, self.env)
        self.report_link = page_link(REPORT_PAGE, {"class": room.code}, self.env)
        remember_page(self.store, "class", "teacher", room.code, token, self.env)  # hub landing page list
        view = room.dashboard_view(self.lang)
        header = W.HTML(
            style_html()
            + '<div class="dichotomy-teacher-head">'
            + '<h2 class="dichotomy-class-title">' + _esc(_("{name} · class {code}", name=view["name"], code=view["class"])) + '</h2>'
            + join_html(view["class"], self.join_link, self.tr, scale=2)
            + '<p class="dichotomy-private-note">' + _esc(_(
                "Keep this page private: its address lets you run the class. On the projector show the "
                "{class_projector} (code, QR code, tables, scores) or a table's projector page; after the lesson "
                "open the {class_report} (CSV and JSON downloads).")).format(
                class_projector=link_html(self.view_link, _("class projector page"), "dichotomy-classview-link"),
                class_report=link_html(self.report_link, _("class report"), "dichotomy-report-link")) + "</p></div>")
        self.roster = W.HTML()
        self.roster.add_class("dichotomy-roster-box")
        # the class moves: each shown only while the class move table says it is legal
        self.make_button = self._button(_("Make tables"), "dichotomy-make-tables", self.make_tables, "primary")
        self.start_all_button = self._button(_("Start all tables"), "dichotomy-start-all", self.start_all, "success")
        self.add_button = self._button(_("Add a table"), "dichotomy-add-table", self.add_table)
        self.end_button = self._button(_("End the class"), "dichotomy-end-class", self.end_class, "warning")
        self.move_student = W.Dropdown(description=_("Student"), options=[], style={"description_width": "initial"},
                                       layout=W.Layout(width="18em"))
        self.move_student.add_class("dichotomy-move-student")
        self.move_student.observe(lambda _c: self._refresh_move_targets(), names="value")
        self.move_table = W.Dropdown(description=_("to table"), options=[], style={"description_width": "initial"},
                                     layout=W.Layout(width="10em"))
        self.move_table.add_class("dichotomy-move-table")
        self.move_button = self._button(_("Move"), "dichotomy-move", self.move)
        self.remove_button = self._button(_("Remove from the class"), "dichotomy-remove-student", self.remove,
                                          "danger")
        self.class_moves = W.HBox([self.make_button, self.start_all_button, self.add_button, self.end_button])
        self.class_moves.add_class("dichotomy-class-moves")
        self.move_box = W.HBox([self.move_student, self.move_table, self.move_button, self.remove_button])
        self.move_box.add_class("dichotomy-move-box")
        self.late_box = W.VBox()
        self.late_box.add_class("dichotomy-late")
        self.tables_box = W.VBox()
        self.tables_box.add_class("dichotomy-dashboard")
        self.full_box = W.VBox()
        self.full_box.add_class("dichotomy-full-table")
        self.rows: dict[int, tuple[W.HTML, W.HBox, W.HBox]] = {}
        self._row_keys: dict[int, Any] = {}
        self._late_key: Any = None
        self.open_table: str | None = None  # the code of the table shown in full, if any
        self.trouble = _trouble_banner()
        self.drawn = W.HTML()  # which class and table events the dashboard shows (for a reader that waits)
        self.drawn.add_class("dichotomy-dashboard-version")
        self.children = [self.url, self.trouble, header, self.class_moves, self.feedback, self.roster,
                         self.late_box, self.move_box, self.tables_box, self.full_box, self.drawn]
        self.refresh_view()
        room.subscribe(lambda _r: self.refresh_view())
        room.start_watching()
        self._start_clock()

    def _start_clock(self) -> None:
        """Redraw every few seconds while the page lives: an alert ("stuck for 2 min") grows with time,
        not with events."""
        import asyncio

        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # no loop (a test, a script): the page redraws on events only

        async def tick() -> None:
            while self.room is not None:
                await asyncio.sleep(CLOCK_EVERY)
                try:
                    self.refresh_view()
                except Exception as exc:  # noqa: BLE001 - a failed redraw must not stop the clock
                    log_failure(log, "class %s: redrawing the dashboard failed", exc,
                                self.room.code if self.room else "?")

        self._clock = loop.create_task(tick())

    @staticmethod
    def _button(label: str, css: str, action: Callable[[], Any], style: str = "") -> W.Button:
        button = W.Button(description=label, button_style=style)
        button.add_class(css)
        button.on_click(lambda _b: action())
        return button

    @staticmethod
    def _shown(widget: W.Widget, shown: bool) -> None:
        value = None if shown else "none"
        if widget.layout.display != value:
            widget.layout.display = value

    def refresh_view(self) -> None:
        """Redraw everything from the class's dashboard view (on every change): the class moves it lists
        as legal, the roster, one row per table, the students without a table."""
        room = self.room
        assert room is not None
        _show_trouble(self.trouble, room, self.lang)
        view = room.dashboard_view(self.lang)
        self.view = view
        moves = view["moves"]
        self._shown(self.make_button, "make_tables" in moves)
        self.make_button.disabled = "make_tables" not in moves
        self._shown(self.start_all_button, "start_all" in moves)
        self._shown(self.add_button, "add_table" in moves)
        self._shown(self.end_button, "end_class" in moves)
        self.roster.layout.display = "none" if view["tables"] else None  # the rows list everybody then
        self.roster.value = roster_html(view, self.tr)
        self._refresh_controls(view)
        self._refresh_late(view)
        self._refresh_tables(view)
        drawn = f'<span hidden data-testid="dashboard-version" data-version="{view["version"]}"></span>'
        if self.drawn.value != drawn:
            self.drawn.value = drawn

    def _refresh_controls(self, view: dict[str, Any]) -> None:
        """The move / remove menus: only students a legal move or removal applies to, only their legal
        tables; a menu with no choice is not shown."""
        _ = self.tr.gettext
        movable = [(_("{name} (table {number})", name=st["name"], number=st["table"]) if st["table"] is not None
                    else _("{name} (not seated)", name=st["name"]), st["id"])
                   for st in view["movable"]]
        self._movable = {st["id"]: st for st in view["movable"]}
        self._set_options(self.move_student, movable)
        self._shown(self.move_box, bool(movable))
        self._refresh_move_targets()

    def _refresh_move_targets(self) -> None:
        chosen = getattr(self, "_movable", {}).get(self.move_student.value)
        targets = chosen["targets"] if chosen else []
        self._set_options(self.move_table, [(self.tr.gettext("Table {number}", number=n), n) for n in targets])
        self._shown(self.move_table, bool(targets))
        self._shown(self.move_button, bool(targets))
        self._shown(self.remove_button, bool(chosen and chosen["removable"]))

    def _refresh_late(self, view: dict[str, Any]) -> None:
        """One line per student without a table: a "Seat at table n" button per table with a free place."""
        key = [(s["id"], s["name"], tuple(s["tables"])) for s in view["late"]]
        if key == self._late_key:
            return
        self._late_key = key
        rows = []
        for student in view["late"]:
            buttons = []
            for number in student["tables"]:
                button = self._button(self.tr.gettext("Seat at table {number}", number=number), "dichotomy-seat-late",
                                      lambda s=student["id"], n=number: self.seat(s, n))
                button.add_class(f"dichotomy-seat-at-{number}")
                buttons.append(button)
            row = W.HBox([W.HTML(late_html(student["name"], self.tr, bool(buttons))), *buttons])
            row.add_class("dichotomy-late-row")
            rows.append(row)
        self.late_box.children = rows

    def _refresh_tables(self, view: dict[str, Any]) -> None:
        """One row per table: its information (from the view) and the buttons its moves allow now."""
        _ = self.tr.gettext
        children = []
        for t in view["tables"]:
            number = t["number"]
            if number not in self.rows:
                info = W.HTML()
                info.add_class("dichotomy-dash-info")
                buttons = W.HBox()
                buttons.add_class("dichotomy-dash-buttons")
                row = W.HBox([info, buttons])
                row.add_class("dichotomy-dash-row")
                row.add_class(f"dichotomy-dash-table-{number}")
                self.rows[number] = (info, buttons, row)
            info, buttons, row = self.rows[number]
            value = dashboard_row_html(t, self.tr, _projector_link(self.env))
            if info.value != value:
                info.value = value
            host = t["row"]["host"] if "row" in t else {}
            key = (t["code"], t["start"], t["play_again"], tuple(sorted((k, repr(v)) for k, v in host.items())),
                   self.open_table == t["code"], self.lang)
            if self._row_keys.get(number) != key:
                self._row_keys[number] = key
                buttons.children = self._row_buttons(t, host)
            children.append(row)
        if list(self.tables_box.children) != children:
            self.tables_box.children = children
        if self.open_table is not None and not any(t["code"] == self.open_table for t in view["tables"]):
            self.close_table()

    def _row_buttons(self, t: dict[str, Any], host: dict[str, Any]) -> list[W.Widget]:
        _ = self.tr.gettext
        out = []
        number = t["number"]
        if t["start"]:
            out.append(self._button(_("Start"), "dichotomy-start-table", lambda: self.start_one_table(number),
                                    "success"))
        if t["play_again"]:
            out.append(self._button(_("Play again"), "dichotomy-play-again", lambda: self.play_again(number),
                                    "success"))
        for kind, data in host.items():
            out.append(self._button(host_label(kind, data, self.lang), f"dichotomy-host-{kind.replace('_', '-')}",
                                    lambda k=kind: self.host_action(number, k)))
        if t["started"]:
            opened = self.open_table == t["code"]
            out.append(self._button(_("Close") if opened else _("Open"), "dichotomy-open-table",
                                    (self.close_table if opened else lambda: self.show_table(number))))
        for button in out:
            button.add_class(f"dichotomy-row-{number}")
        return out

    def show_table(self, number: int) -> bool:
        """Show table ``number`` in full below the rows: its host view, every host control (one at a time)."""
        room = self.room
        assert room is not None
        try:
            table = room.table(number)
        except DichotomyError as exc:
            return self._say(error_text(exc, self.lang))
        if table.code not in self.table_widgets:
            self.table_widgets[table.code] = game_widget("TableWidget", table, host=True,
                                                         lang=self.lang if self.page_lang.chosen else None)
        self.open_table = table.code
        title = W.HTML("<h3>" + _esc(self.tr.gettext("Table {number}", number=number)) + "</h3>")
        self.full_box.children = [title, self.table_widgets[table.code]]
        self.refresh_view()
        return True

    def close_table(self) -> None:
        """Hide the table shown in full."""
        self.open_table = None
        self.full_box.children = []
        if self.room is not None:
            self._row_keys.clear()
            self.refresh_view()

    @staticmethod
    def _set_options(dropdown: W.Dropdown, options: list[tuple[str, int]]) -> None:
        if list(dropdown.options) == options:
            return
        keep = dropdown.value
        dropdown.options = options
        values = [v for _l, v in options]
        dropdown.value = keep if keep in values else (values[0] if values else None)

    def _do(self, action: Callable[[], Any]) -> bool:
        try:
            action()
        except Exception as exc:  # noqa: BLE001 - never a traceback on the page
            if not isinstance(exc, DichotomyError):
                log_failure(log, "class %s: a teacher's move failed", exc, self.room.code if self.room else "?")
            return self._say(error_text(exc, self.lang))
        self._say("")
        self.refresh_view()
        return True

    def make_tables(self) -> bool:
        """Split the roster into tables."""
        return self._do(lambda: self.room.make_tables())  # type: ignore[union-attr]

    def add_table(self) -> bool:
        """Add an empty table."""
        return self._do(lambda: self.room.add_table())  # type: ignore[union-attr]

    def move(self, student: int | str | None = None, table: int | None = None) -> bool:
        """Move the chosen student to the chosen table."""
        student = self.move_student.value if student is None else student
        table = self.move_table.value if table is None else table
        if student is None or table is None:
            return self._say(self.tr.gettext("Choose a student and a table that has not started."))
        return self._do(lambda: self.room.move(student, table))  # type: ignore[union-attr]

    def seat(self, student: int | str, table: int) -> bool:
        """Seat a student without a table (who joined late) at ``table``."""
        return self._do(lambda: self.room.seat(student, table))  # type: ignore[union-attr]

    def remove(self, student: int | str | None = None) -> bool:
        """Remove the chosen student (shown in the student menu) from the class: their link stops working."""
        student = self.move_student.value if student is None else student
        if student is None:
            return self._say(self.tr.gettext("Choose a student whose table has not started."))
        return self._do(lambda: self.room.remove(student))  # type: ignore[union-attr]

    def start_all(self) -> bool:
        """Start every waiting table."""
        return self._do(lambda: self.room.start_all())  # type: ignore[union-attr]

    def start_one_table(self, number: int) -> bool:
        """Start one waiting table."""
        return self._do(lambda: self.room.start_table(number))  # type: ignore[union-attr]

    def play_again(self, number: int) -> bool:
        """A finished table plays again: same players, the next cards."""
        return self._do(lambda: self.room.play_again(number))  # type: ignore[union-attr]

    def end_class(self) -> bool:
        """End the class: games still in play end, nobody joins any more."""
        return self._do(lambda: self.room.end_class())  # type: ignore[union-attr]

    def host_action(self, number: int, kind: str) -> bool:
        """A host action (pick at random, time out, continue for the absent) at table ``number``."""
        def act() -> None:
            table = self.room.table(number)  # type: ignore[union-attr]
            table.act(None, {"type": kind})
        return self._do(act)


def teacher_page(query: str | None = None, store: "TableStore | str | None" = None,
                 env: Mapping[str, str] | None = None) -> TeacherPage:
    """The teacher page for ``query`` (default: ``$QUERY_STRING``)."""
    return TeacherPage(os.environ.get("QUERY_STRING", "") if query is None else query, store=store, env=env)


# --------------------------------------------------------------------------------------------------
# Student page


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
        self.trouble = _trouble_banner()
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
        heading = "<h2>" + _esc(_("Join the class {name} ({code})", name=class_projector_view(self.room)["name"], code=self.room.code)) + "</h2>"
        names = self.who.names()
        if self.who.hub:  # no name box: the hub says who this is
            if names:
                heading += "<p>" + _esc(_("You take part as {name} (your hub name).")).format(
                    name=f"<b>{_esc(names[0])}</b>") + "</p>"
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

    def _say(self, text: str) -> bool:
        self.message = text
        self.feedback.value = text
        return False

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
        _show_trouble(self.trouble, room, self.lang)
        self._show([self.url, self.lang_menu, self.trouble, self.lobby])


def class_page(query: str | None = None, store: "TableStore | str | None" = None,
               env: Mapping[str, str] | None = None) -> ClassPage:
    """A student's class page for ``query`` (default: this page's request, see :func:`.entry.page_for`)."""
    from .entry import page_for

    return page_for(query, lambda q: ClassPage(q, store=store, env=env), store)  # type: ignore[return-value]


# --------------------------------------------------------------------------------------------------
# Read-only pages: class projector, table projector, report


def _read_only_language(page: W.VBox, query: str | None, env: Mapping[str, str] | None) -> PageLanguage:
    """A read-only page's language (no menu: ``?lang=`` on its address switches it)."""
    page.page_lang = PageLanguage(query, env)  # type: ignore[attr-defined]
    page.url = UrlQuery(lang=page.page_lang.lang)  # type: ignore[attr-defined]
    return page.page_lang  # type: ignore[attr-defined]


class ClassViewPage(W.VBox):
    """The class projector: code, join link, QR code and the overview, live. No token, no action."""

    def __init__(self, query: str | None = None, store: "TableStore | str | None" = None,
                 env: Mapping[str, str] | None = None) -> None:
        super().__init__(layout=W.Layout(width="100%"))
        self.add_class("dichotomy-classview-page")
        self.store = page_store(store)
        self.env = dict(os.environ if env is None else env)
        lang = _read_only_language(self, query, self.env)
        try:
            self.room: Classroom | None = Classroom.open(class_query(query).get("class", ""), self.store)
        except DichotomyError as exc:
            self.room = None
            title = lang.tr.gettext("No such class")
            self.url.title = page_title(title)
            self.children = [self.url, message_box(title, error_text(exc, lang.lang))]
            return
        room = self.room
        lang.knows(room.interface_lang)
        self.url.lang = lang.lang
        self.url.title = page_title(lang.tr.gettext("Class {code}", code=room.code))
        link = page_link(CLASS_PAGE, {"class": room.code}, self.env)
        view = class_projector_view(room)
        self.overview = W.HTML()
        self.overview.add_class("dichotomy-overview-box")
        self.trouble = _trouble_banner()
        self.children = [self.url, self.trouble,
                         W.HTML(style_html() + f"<h2>{_esc(view['name'])}</h2>" + join_html(view["class"], link, lang.tr)),
                         self.overview]
        self._update()
        room.subscribe(lambda _r: self._update())
        room.start_watching()

    def _update(self) -> None:
        assert self.room is not None
        _show_trouble(self.trouble, self.room, self.page_lang.lang)
        self.overview.value = overview_html(class_projector_view(self.room), self.page_lang.tr,
                                            _projector_link(self.env))


class ProjectorPage(W.VBox):
    """One table's projector view (``TableWidget(host=False)``): no token, no buttons."""

    def __init__(self, query: str | None = None, store: "TableStore | str | None" = None,
                 env: Mapping[str, str] | None = None) -> None:
        super().__init__(layout=W.Layout(width="100%"))
        self.add_class("dichotomy-projector-page")
        self.store = page_store(store)
        lang = _read_only_language(self, query, env)
        self.widget: W.Widget | None = None
        try:
            table = Table.open(class_query(query).get("table", ""), self.store)
        except DichotomyError as exc:
            title = lang.tr.gettext("No such table")
            self.url.title = page_title(title)
            self.children = [self.url, message_box(title, error_text(exc, lang.lang))]
            return
        lang.knows(table.interface_lang)
        self.url.lang = lang.lang
        _ = lang.tr.gettext
        self.url.title = page_title(_("Projector · table {code}", code=table.code))
        self.widget = game_widget("TableWidget", table, host=False, lang=lang.lang if lang.chosen else None)
        number = class_query(query).get("n", "")  # a class's table keeps the class's name (Table 2)
        if number.isdigit() and len(number) < 4:
            self.widget.name = number
        self.children = [self.url, self.widget]
        table.start_watching()


class ReportPage(W.VBox):
    """The debrief: every resolved round of every table, live, with CSV and JSON downloads (their column
    names are machine names and stay English; the page's headings follow its language)."""

    def __init__(self, query: str | None = None, store: "TableStore | str | None" = None,
                 env: Mapping[str, str] | None = None) -> None:
        super().__init__(layout=W.Layout(width="100%"))
        self.add_class("dichotomy-report-page")
        self.store = page_store(store)
        lang = _read_only_language(self, query, env)
        try:
            self.room: Classroom | None = Classroom.open(class_query(query).get("class", ""), self.store)
        except DichotomyError as exc:
            self.room = None
            title = lang.tr.gettext("No such class")
            self.url.title = page_title(title)
            self.children = [self.url, message_box(title, error_text(exc, lang.lang))]
            return
        lang.knows(self.room.interface_lang)
        self.url.lang = lang.lang
        _ = lang.tr.gettext
        self.url.title = page_title(_("Report · class {code}", code=self.room.code))
        self.downloads = W.HTML()
        self.downloads.add_class("dichotomy-downloads")
        self.body = W.HTML()
        self.body.add_class("dichotomy-report-box")
        self.trouble = _trouble_banner()
        self.children = [self.url, self.trouble,
                         W.HTML(style_html() + "<h2>" + _esc(_('Report · {name}', name=class_projector_view(self.room)["name"])) + "</h2>"
                                "<p>" + _esc(_('Resolved rounds only: a round appears here once it is over.')) + "</p>"),
                         self.downloads, self.body]
        self._update()
        self.room.subscribe(lambda _r: self._update())
        self.room.start_watching()

    def _update(self) -> None:
        assert self.room is not None
        tr = self.page_lang.tr
        _show_trouble(self.trouble, self.room, self.page_lang.lang)
        data = report(self.room, self.page_lang.lang)  # its sentences in the page's language; columns stay
        name = f"dichotomy-class-{data['class']}"
        self.downloads.value = (download_html(tr.gettext("Download CSV (one row per clue)"), f"{name}.csv",
                                              "text/csv", report_csv(data), "dichotomy-csv")
                                + download_html(tr.gettext("Download JSON"), f"{name}.json", "application/json",
                                                report_json(data), "dichotomy-json"))
        self.body.value = report_html(data, tr)


def class_view_page(query: str | None = None, store: "TableStore | str | None" = None,
                    env: Mapping[str, str] | None = None) -> ClassViewPage:
    """The class projector page for ``query`` (default: ``$QUERY_STRING``)."""
    return ClassViewPage(os.environ.get("QUERY_STRING", "") if query is None else query, store=store, env=env)


def projector_page(query: str | None = None, store: "TableStore | str | None" = None,
                   env: Mapping[str, str] | None = None) -> ProjectorPage:
    """A table's read-only projector page for ``query`` (default: ``$QUERY_STRING``)."""
    return ProjectorPage(os.environ.get("QUERY_STRING", "") if query is None else query, store=store, env=env)


def report_page(query: str | None = None, store: "TableStore | str | None" = None,
                env: Mapping[str, str] | None = None) -> ReportPage:
    """The class report page for ``query`` (default: ``$QUERY_STRING``)."""
    return ReportPage(os.environ.get("QUERY_STRING", "") if query is None else query, store=store, env=env)
