"""The teacher page (``teacher.ipynb``): create a class, then run it.

``teacher.ipynb``                          create a class (name, deck, cards per table, clue time limit,
                                           preferred table size); the address becomes the teacher link
``teacher.ipynb?class=CODE&teacher=TOKEN`` the teacher's control page: roster, seating, moves, extra
                                           table, Start all / one, and every table's host controls. The
                                           token makes it private: never put this page on the projector.

It renders from the class views (:mod:`..class_mode.views`) through :mod:`.class_html`; all user text
is escaped.
"""

from __future__ import annotations

import logging
import os
from typing import Any, Callable, Mapping
from urllib.parse import urlencode

import ipywidgets as W

from ..class_mode.classroom import Classroom, MAX_CLASS_NAME
from ..class_mode.seating import MAX_PREFERRED, MIN_PREFERRED
from ..config import CLASS_PAGE, CLASS_VIEW_PAGE, MAX_SEATS, MAX_TIME_LIMIT, MIN_SEATS, MIN_TIME_LIMIT, REPORT_PAGE
from ..deck_library import DeckLibrary
from ..decks import Deck
from ..errors import DichotomyError, TeacherKeyRequired
from ..i18n import normalize_language
from ..logs import log_failure
from ..options import TableOptions
from ..stores import TableStore
from ..widgets.host_secrets import BrowserSecret, TeacherKeyBox
from ..widgets.name_box import NameBox
from .class_html import dashboard_row_html, host_label, join_html, late_html, roster_html, style_html
from .deck_form import DeckForm
from .hub_history import remember_page
from .identity import page_identity
from .page_base import (RefusingPage, UrlQuery, class_query, esc, game_widget, interface_menu, page_link,
                        page_store, page_title, projector_link, refresh_interface_menu, show_trouble,
                        trouble_banner)
from .page_lang import PageLanguage, error_text
from .page_style import feedback_label, link_html
from .store_check import check_store_file
from .teacher import key_required, require_teacher
from .teacher_gate import TeacherGate

__all__ = ["TeacherPage", "teacher_page"]

log = logging.getLogger(__name__)

DEFAULT_ROUNDS = 5
#: Seconds between two redraws of the teacher's dashboard when nothing happens (alerts grow with time).
CLOCK_EVERY = 5.0


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
        intro = W.HTML("<h2>" + esc(_('Create a Dichotomy class')) + "</h2><p>" + esc(_(
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
            + '<h2 class="dichotomy-class-title">' + esc(_("{name} · class {code}", name=view["name"], code=view["class"])) + '</h2>'
            + join_html(view["class"], self.join_link, self.tr, scale=2)
            + '<p class="dichotomy-private-note">' + esc(_(
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
        self.trouble = trouble_banner()
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
        show_trouble(self.trouble, room, self.lang)
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
        self._mark_drawn()

    def _mark_drawn(self) -> None:
        """Say in a hidden mark which class version the dashboard shows and for which entry of the student
        menu the move controls were drawn (a reader waits for it after choosing a student)."""
        values = [v for _l, v in self.move_student.options]
        chosen = values.index(self.move_student.value) if self.move_student.value in values else -1
        version = self.view["version"] if self.view else ""
        drawn = (f'<span hidden data-testid="dashboard-version" data-version="{version}" '
                 f'data-student-index="{chosen}"></span>')
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
        if getattr(self, "view", None):
            self._mark_drawn()

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
            value = dashboard_row_html(t, self.tr, projector_link(self.env))
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
        title = W.HTML("<h3>" + esc(self.tr.gettext("Table {number}", number=number)) + "</h3>")
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
