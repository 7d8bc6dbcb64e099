"""The voila pages of a class: teacher, student (class join), class projector, table projector, report.

Each packaged notebook in ``ui/pages/`` is two lines that call one of the functions below; voila gives
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

import base64
import html
import logging
import os
from typing import Any, Callable, Mapping
from urllib.parse import parse_qs, urlencode, urlsplit, urlunsplit

import ipywidgets as W

from ..classroom import Classroom
from ..decks import Deck
from ..errors import DichotomyError, SeatNotFound
from ..config import (CLASS_PAGE, CLASS_VIEW_PAGE, MAX_NAME_LENGTH, MAX_TIME_LIMIT, MIN_TIME_LIMIT,
                      PROJECTOR_PAGE, REPORT_PAGE, SEAT_URL_ENV)
from ..seating import MAX_PREFERRED, MIN_PREFERRED
from ..stores import TableStore
from ..table import Table
from ..errors import TeacherKeyRequired
from .app import UrlQuery, error_text, message_box, on_enter, page_store, page_title, qr_svg
from .deck_form import DeckForm
from .host_secrets import BrowserSecret, TeacherKeyBox
from .hub_identity import HubIdentityError, current_identity, hub_mode
from .teacher_gate import TeacherGate
from .teacher import key_required, require_teacher

__all__ = ["teacher_page", "class_page", "class_view_page", "projector_page", "report_page", "TeacherPage",
           "ClassPage", "ClassViewPage", "ProjectorPage", "ReportPage", "page_link", "class_query"]

log = logging.getLogger(__name__)

MAX_QUERY_VALUE = 200
DEFAULT_ROUNDS = 5
KEYS = ("class", "student", "teacher", "table")


# --------------------------------------------------------------------------------------------------
# helpers


def class_query(query: str | None) -> dict[str, str]:
    """``"class=AB&student=x"`` -> ``{"class": "AB", "student": "x"}``; first value wins, junk dropped."""
    out: dict[str, str] = {}
    for key, values in parse_qs((query or "").lstrip("?")[:4096], keep_blank_values=True).items():
        if key in KEYS and values:
            value = values[0].strip()
            out[key] = value if len(value) <= MAX_QUERY_VALUE else "\x00invalid"
    return out


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


def _feedback() -> W.Label:
    label = W.Label("", style={"text_color": "#a40000", "font_weight": "bold"})
    label.add_class("dichotomy-feedback")
    return label


def _esc(text: Any) -> str:
    return html.escape(str(text), quote=True)


def _trouble_banner() -> W.HTML:
    """An empty slot for the store's trouble (full disk, read-only file); see :func:`_show_trouble`."""
    banner = W.HTML()
    banner.add_class("dichotomy-store-trouble")
    return banner


def _show_trouble(banner: W.HTML, room: Classroom) -> None:
    """Put the class store's trouble in ``banner`` as an alert (escaped text), or empty it."""
    text = room.store_trouble
    value = (f'<p role="alert" data-testid="store-trouble" style="border:2px solid #b71c1c;color:#b71c1c;'
             f'font-weight:600;padding:0.4em 0.7em;border-radius:6px">{_esc(text)}</p>' if text else "")
    if banner.value != value:
        banner.value = value


def _widgets():
    from . import widgets

    return widgets


LINK_STYLE = "color:#1a5fb4;text-decoration:underline"


def _a(href: str, text: str, css: str) -> str:
    """A link that opens in a new tab (escaped; underlined so it reads as a link in every theme)."""
    return (f'<a class="{css}" href="{_esc(href)}" target="_blank" rel="noopener" style="{LINK_STYLE}">'
            f"{_esc(text)}</a>")


def _join_block(room: Classroom, link: str, scale: int = 6) -> str:
    """Class code, join link and QR code (HTML, escaped)."""
    return (
        '<div class="dichotomy-join-info" style="display:flex;gap:2em;align-items:center;flex-wrap:wrap">'
        f'<div class="dichotomy-qr" style="flex:0 0 auto">{qr_svg(link, scale=scale)}</div>'
        '<div style="flex:1 1 20em;min-width:0"><p style="margin:0">Class code</p>'
        f'<p class="dichotomy-class-code" style="font-size:3em;font-weight:bold;letter-spacing:0.15em;'
        f'margin:0;font-family:monospace">{_esc(room.code)}</p>'
        f'<p>Join link: {_a(link, link, "dichotomy-join-link")}</p></div></div>')


def _overview_html(room: Classroom, env: Mapping[str, str] | None = None) -> str:
    """The class overview table (projector-safe: built from each table's public view), with each
    started table's read-only projector link."""
    view = room.projector_view()
    rows = []
    for t in view["tables"]:
        phase = t["phase"] if t["started"] else "seating"
        label = f"Table {t['number']}"
        if t["started"]:
            label = _a(page_link(PROJECTOR_PAGE, {"table": t["code"]}, env), label, "dichotomy-projector-link")
        rows.append(
            f'<tr class="dichotomy-overview-row" data-table="{t["number"]}" data-phase="{_esc(phase)}">'
            f'<th scope="row">{label}</th><td>{_esc(", ".join(t["players"]))}</td>'
            f'<td>{_esc(phase)}</td><td data-testid="rounds-played">{t["rounds_played"]} / {t["rounds"]}</td>'
            f'<td data-testid="score">{t["score"]}</td></tr>')
    if not rows:
        return (f'<p class="dichotomy-overview-empty">{view["students"]} students have joined. '
                "Tables appear here when the teacher makes them.</p>")
    return ('<table class="dichotomy-overview" style="border-collapse:collapse;font-size:1.2em">'
            "<caption>Tables</caption><thead><tr><th>Table</th><th>Players</th><th>Phase</th>"
            "<th>Rounds played</th><th>Score</th></tr></thead><tbody>" + "".join(rows) + "</tbody></table>")


# --------------------------------------------------------------------------------------------------
# Teacher page


class TeacherPage(TeacherGate, W.VBox):
    """Create a class, then run it. ``state``: ``"create"``, ``"teacher"`` or ``"refused"``."""

    def __init__(self, query: str | None = None, store: "TableStore | str | None" = None,
                 env: Mapping[str, str] | None = None) -> None:
        super().__init__(layout=W.Layout(width="100%"))
        self.add_class("dichotomy-teacher-page")
        self.store = page_store(store)
        self.env = dict(os.environ if env is None else env)
        self.url = UrlQuery()
        self.room: Classroom | None = None
        self.state = "create"
        self.message = ""
        self.feedback = _feedback()
        self.table_widgets: dict[str, W.Widget] = {}
        self._typed_key: str | None = None  # the teacher key typed on this page (kernel only, never synced)
        self._key_failures = 0
        params = class_query(query)
        code, token = params.get("class"), params.get("teacher")
        if hub_mode(self.env) and not self._hub_host():
            return
        if not code and not token:
            self._show_create()
            return
        try:
            room = Classroom.open(code or "", self.store)
        except DichotomyError as exc:
            self._refuse("No such class", error_text(exc))
            return
        if not room.is_teacher(token):
            self._refuse("This teacher link is not valid",
                         "Only the teacher who created this class can run it, with the link of the page that "
                         "created it. You can create a new class instead.")
            return
        self._show_teacher(room, token or "")

    def _refuse(self, title: str, body: str) -> None:
        self.state = "refused"
        self.message = body
        self.url.title = page_title(title)
        self.children = [self.url, message_box(title, body)]

    def _hub_host(self) -> bool:
        """Behind JupyterHub only the hub's hosts (admins, host groups) may create or run a class."""
        try:
            identity = current_identity(self.env)
        except HubIdentityError:
            self._refuse("Open Dichotomy through the hub", "This page did not come through the hub's sign-in.")
            return False
        if not identity.host:
            log.info("refused: hub user %s may not run a class", identity.name)
            self._refuse("Running a class is for teachers",
                         f"You are signed in as {identity.display_name}, who may not run a class. Students "
                         "join with the class link the teacher shows.")
            return False
        return True

    # -- create ---------------------------------------------------------------------------------
    def _show_create(self) -> None:
        self.state = "create"
        self.name_input = W.Text(placeholder="e.g. Year 9 French", description="Class name",
                                 style={"description_width": "initial"}, layout=W.Layout(width="28em", max_width="100%"))
        self.name_input.add_class("dichotomy-class-name")
        self.deck_form = DeckForm(env=self.env, on_change=self._deck_changed)
        self.rounds_input = W.BoundedIntText(value=DEFAULT_ROUNDS, min=1, max=13, description="Cards per table",
                                             style={"description_width": "initial"})
        self.rounds_input.add_class("dichotomy-rounds")
        self.limit_input = W.BoundedIntText(value=0, min=0, max=MAX_TIME_LIMIT, description="Clue time (s)",
                                            style={"description_width": "initial"})
        self.limit_input.add_class("dichotomy-time-limit")
        self.size_input = W.BoundedIntText(value=5, min=MIN_PREFERRED, max=MAX_PREFERRED,
                                           description="Preferred table size", style={"description_width": "initial"})
        self.size_input.add_class("dichotomy-table-size")
        self.create_button = W.Button(description="Create the class", button_style="primary")
        self.create_button.add_class("dichotomy-create-class")
        self.create_button.on_click(lambda _b: self.create())
        on_enter(self.name_input, lambda _t: self.create())
        self._deck_changed(self.deck_form.deck)
        self.url.title = page_title("Create a class")
        self.form = W.VBox([self.name_input, self.deck_form, self.rounds_input, self.limit_input, self.size_input,
                            self.create_button, self.feedback])
        self.form.add_class("dichotomy-create-class-form")
        intro = W.HTML("<h2>Create a Dichotomy class</h2><p>One link for the whole class: students join with "
                       "their name, you make tables of 3 to 7 and start them. Choose a deck (or upload or paste "
                       "your own). The clue time limit is optional (0 = none, else "
                       f"{MIN_TIME_LIMIT} to {MAX_TIME_LIMIT} seconds).</p>")
        if key_required(self.env):  # the server's teacher key guards creating a class like a table
            self.key_box: TeacherKeyBox | None = TeacherKeyBox(on_key=self.unlock)
            self.key_box.status = "This server needs the teacher key to create a class."
            self.form.layout.display = "none"
            self.children = [self.url, intro, self.key_box, self.form]
        else:
            self.key_box = None
            self.browser_secret = BrowserSecret(on_secret=self._open_browser_library)
            self.children = [self.url, intro, self.browser_secret, self.form]

    def _deck_changed(self, deck: "Deck | None") -> None:
        if not hasattr(self, "create_button"):
            return
        self.create_button.disabled = deck is None
        if deck is not None:
            self.rounds_input.max = min(len(deck), 13)
            self.rounds_input.value = min(max(1, self.rounds_input.value), self.rounds_input.max)

    def create(self, name: str | None = None, deck: "str | Deck | None" = None, rounds: int | None = None,
               time_limit: float | None = None, table_size: int | None = None) -> bool:
        """Create the class from the form (or the arguments); True on success. Needs the teacher key when
        the server has one."""
        if self.state != "create":
            return False
        try:
            require_teacher(self._typed_key, self.env)
        except TeacherKeyRequired as exc:
            return self._say(exc.message.replace("a table", "a class"))
        name = self.name_input.value if name is None else name
        if deck is None:
            deck = self.deck_form.deck or self.deck_form.check()
            if deck is None:
                return self._say("Fix the deck first (see the problems above)." if self.deck_form.problems
                                 else "Choose a deck first: pick one, upload a file or paste a list.")
        rounds = int(self.rounds_input.value) if rounds is None else rounds
        time_limit = (float(self.limit_input.value) or None) if time_limit is None else time_limit
        table_size = int(self.size_input.value) if table_size is None else table_size
        try:
            room = Classroom.create(name, deck=deck, rounds=rounds, table_size=table_size,
                                    time_limit=time_limit, store=self.store)
        except DichotomyError as exc:
            return self._say(exc.message)
        try:
            if deck is self.deck_form.deck:
                self.deck_form.save_current()
        except DichotomyError as exc:  # the class exists; only saving the uploaded deck failed
            log.warning("saving an uploaded deck failed: %s", exc.code)
        assert room.teacher_token is not None
        self._show_teacher(room, room.teacher_token)
        return True

    def _say(self, text: str) -> bool:
        self.message = text
        self.feedback.value = text
        return False

    # -- running the class ----------------------------------------------------------------------
    def _show_teacher(self, room: Classroom, token: str) -> None:
        self.room = room
        self.state = "teacher"
        self.message = ""
        self.url.query = urlencode({"class": room.code, "teacher": token})
        self.url.title = page_title(f"Teacher · class {room.code}")
        self.join_link = page_link(CLASS_PAGE, {"class": room.code}, self.env)
        self.view_link = page_link(CLASS_VIEW_PAGE, {"class": room.code}, self.env)
        self.report_link = page_link(REPORT_PAGE, {"class": room.code}, self.env)
        header = W.HTML(
            f'<h2 class="dichotomy-class-title">{_esc(room.state.name)} · class {_esc(room.code)}</h2>'
            + _join_block(room, self.join_link, scale=3)
            + '<p class="dichotomy-private-note"><strong>Keep this page private</strong>: its address lets you '
            "run the class. On the projector show the "
            + _a(self.view_link, "class projector page", "dichotomy-classview-link")
            + " (code, QR code, tables, scores) or a table's projector page; after the lesson open the "
            + _a(self.report_link, "class report", "dichotomy-report-link") + " (CSV and JSON downloads).</p>")
        self.roster = W.HTML()
        self.roster.add_class("dichotomy-roster-box")
        self.make_button = self._button("Make tables", "dichotomy-make-tables", self.make_tables, "primary")
        self.add_button = self._button("Add a table", "dichotomy-add-table", self.add_table)
        self.start_all_button = self._button("Start all tables", "dichotomy-start-all", self.start_all, "success")
        self.move_student = W.Dropdown(description="Move", options=[], layout=W.Layout(width="18em"))
        self.move_student.add_class("dichotomy-move-student")
        self.move_table = W.Dropdown(description="to table", options=[], layout=W.Layout(width="12em"))
        self.move_table.add_class("dichotomy-move-table")
        self.move_button = self._button("Move", "dichotomy-move", self.move)
        self.start_one = W.Dropdown(description="Start table", options=[], style={"description_width": "initial"},
                                    layout=W.Layout(width="14em"))
        self.start_one.add_class("dichotomy-start-one-table")
        self.start_one_button = self._button("Start", "dichotomy-start-one", self.start_one_table)
        self.seating = W.HTML()
        self.seating.add_class("dichotomy-seating-box")
        self.tables_box = W.Box(layout=W.Layout(display="flex", flex_flow="row wrap", align_items="flex-start",
                                                grid_gap="1em", width="100%"))
        self.tables_box.add_class("dichotomy-dashboard")
        controls = W.VBox([
            W.HBox([self.make_button, self.add_button, self.start_all_button], layout=W.Layout(flex_flow="row wrap")),
            W.HBox([self.move_student, self.move_table, self.move_button], layout=W.Layout(flex_flow="row wrap")),
            W.HBox([self.start_one, self.start_one_button], layout=W.Layout(flex_flow="row wrap")),
        ])
        self.trouble = _trouble_banner()
        self.children = [self.url, self.trouble, header, controls, self.feedback, self.roster, self.tables_box,
                         self.seating]
        self.refresh_view()
        room.subscribe(lambda _r: self.refresh_view())
        room.start_watching()

    @staticmethod
    def _button(label: str, css: str, action: Callable[[], Any], style: str = "") -> W.Button:
        button = W.Button(description=label, button_style=style)
        button.add_class(css)
        button.on_click(lambda _b: action())
        return button

    def refresh_view(self) -> None:
        """Redraw roster, seating and the dashboard from the class (called on every change)."""
        room = self.room
        assert room is not None
        _show_trouble(self.trouble, room)
        s = room.state
        names = [st.name for st in s.students]
        self.roster.layout.display = "none" if s.any_started else None  # seating lists everybody then
        self.roster.value = (
            f'<h3 aria-live="polite">Roster: <span class="dichotomy-roster-count">{len(names)}</span> '
            'students</h3><ul class="dichotomy-roster" style="columns:12em">'
            + "".join(f'<li data-student="{_esc(n)}">{_esc(n)}</li>' for n in names) + "</ul>")
        where = {m: t.number for t in s.tables for m in t.members}
        movable = [(f"{st.name} (table {where[st.id]})" if st.id in where else f"{st.name} (not seated)", st.id)
                   for st in s.students
                   if st.id not in where or not s.table(where[st.id]).started]  # type: ignore[union-attr]
        waiting = [(f"Table {t.number}", t.number) for t in s.tables if not t.started]
        self._set_options(self.move_student, movable)
        self._set_options(self.move_table, waiting)
        self._set_options(self.start_one, [(f"Table {t.number}", t.number) for t in s.tables
                                           if not t.started and t.members])
        self.make_button.disabled = s.any_started
        blocks = []
        for t in s.tables:
            members = room.names(t.members)
            state = "started" if t.started else "waiting"
            items = "".join(f'<li data-student="{_esc(n)}">{_esc(n)}</li>' for n in members) or "<li><em>empty</em></li>"
            extra = ""
            if t.started:
                link = page_link(PROJECTOR_PAGE, {"table": t.code or ""}, self.env)
                extra = (f' · code <span class="dichotomy-table-code">{_esc(t.code)}</span> · '
                         + _a(link, "projector", "dichotomy-projector-link"))
            blocks.append(
                f'<div class="dichotomy-class-table" data-table="{t.number}" data-state="{state}" '
                'style="border:1px solid #8884;border-radius:6px;padding:0.3em 0.8em;min-width:12em">'
                f'<h4 style="margin:0.2em 0">Table {t.number} ({len(members)}) · {state}{extra}</h4>'
                f"<ul>{items}</ul></div>")
        unseated = room.names(s.unseated)
        late = ""
        if s.tables and unseated:
            late = ('<p class="dichotomy-unseated" role="status">Not seated yet: '
                    + _esc(", ".join(unseated)) + ". Move them to a table that has not started, or add a table.</p>")
        self.seating.value = ('<h3>Seating</h3>' + late
                              + '<div style="display:flex;flex-wrap:wrap;gap:0.8em">' + "".join(blocks) + "</div>"
                              if s.tables else "<p>Press <strong>Make tables</strong> when everyone has joined.</p>")
        self._refresh_tables()

    def _refresh_tables(self) -> None:
        room = self.room
        assert room is not None
        children = []
        for t in room.state.tables:
            if not t.started:
                continue
            if t.code not in self.table_widgets:
                table = room.table(t.code)  # type: ignore[arg-type]
                summary = W.HTML()
                summary.add_class("dichotomy-table-summary")
                widget = _widgets().TableWidget(table, host=True)
                box = W.VBox([summary, widget], layout=W.Layout(flex="1 1 24em", min_width="0", max_width="40em",
                                                                margin="0 1em 1em 0"))
                box.add_class(f"dichotomy-dash-table-{t.number}")
                box.add_class("dichotomy-dash-table")
                self.table_widgets[t.code] = box  # type: ignore[index]
            box = self.table_widgets[t.code]  # type: ignore[index]
            box.children[0].value = self._summary_html(t.number, room.table(t.code))  # type: ignore[arg-type]
            children.append(box)
        if list(self.tables_box.children) != children:
            self.tables_box.children = children

    @staticmethod
    def _summary_html(number: int, table: Table) -> str:
        from ..class_views import table_summary

        s = table_summary(table.view(None))
        parts = [f"round {s['round']}/{s['rounds']}", f"score {s['score']}"]
        if s["turn"]:
            parts.append(f"turn: {s['turn']}")
        if s["not_continued"]:
            parts.append("not continued: " + ", ".join(s["not_continued"]))
        return (f'<h3 class="dichotomy-summary" data-table="{number}" data-phase="{_esc(s["phase"])}" '
                f'data-rounds-played="{s["rounds_played"]}">Table {number} · {_esc(s["phase"])} · '
                + _esc(" · ".join(parts)) + "</h3>")

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
        except DichotomyError as exc:
            return self._say(exc.message)
        except Exception as exc:  # noqa: BLE001 - never a traceback on the page
            return self._say(error_text(exc))
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
            return self._say("Choose a student and a table that has not started.")
        return self._do(lambda: self.room.move(student, table))  # type: ignore[union-attr]

    def start_all(self) -> bool:
        """Start every waiting table."""
        return self._do(lambda: self.room.start_all())  # type: ignore[union-attr]

    def start_one_table(self, number: int | None = None) -> bool:
        """Start one waiting table."""
        number = self.start_one.value if number is None else number
        if number is None:
            return self._say("No table is waiting to start.")
        return self._do(lambda: self.room.start_table(number))  # type: ignore[union-attr]


def teacher_page(query: str | None = None, store: "TableStore | str | None" = None,
                 env: Mapping[str, str] | None = None) -> TeacherPage:
    """The teacher page for ``query`` (default: ``$QUERY_STRING``)."""
    return TeacherPage(os.environ.get("QUERY_STRING", "") if query is None else query, store=store, env=env)


# --------------------------------------------------------------------------------------------------
# Student page


class ClassPage(W.VBox):
    """A student's class page. ``state``: ``"form"``, ``"lobby"``, ``"seat"`` or ``"refused"``."""

    def __init__(self, query: str | None = None, store: "TableStore | str | None" = None) -> None:
        super().__init__(layout=W.Layout(width="100%"))
        self.add_class("dichotomy-class-page")
        self.store = page_store(store)
        self.url = UrlQuery()
        self.room: Classroom | None = None
        self.student: int | None = None
        self.token: str | None = None
        self.widget: W.Widget | None = None
        self.state = "form"
        self.message = ""
        self.feedback = _feedback()
        self.lobby = W.HTML()
        self.lobby.add_class("dichotomy-class-lobby")
        self.trouble = _trouble_banner()
        params = class_query(query)
        try:
            self.room = Classroom.open(params.get("class", ""), self.store)
        except DichotomyError as exc:
            self._refuse("No such class", error_text(exc))
            return
        token = params.get("student")
        if token is not None:
            try:
                student = self.room.student_for_token(token)
            except SeatNotFound as exc:
                self._refuse("This class link is not valid", exc.message)
                return
            self._enter(student, token)
            return
        self._show_form()

    def _refuse(self, title: str, body: str) -> None:
        self.state = "refused"
        self.message = body
        self.url.title = page_title(title)
        self.children = [self.url, message_box(title, body)]

    def _show_form(self) -> None:
        assert self.room is not None
        self.state = "form"
        self.name_input = W.Text(placeholder="Your name", description="Name", layout=W.Layout(width="22em"))
        self.name_input.add_class("dichotomy-name")
        self.join_button = W.Button(description="Join the class", button_style="primary")
        self.join_button.add_class("dichotomy-join")
        self.join_button.on_click(lambda _b: self.join(self.name_input.value))
        on_enter(self.name_input, lambda _t: self.join(self.name_input.value))
        self.url.title = page_title(f"Join class {self.room.code}")
        self.children = [self.url,
                         W.HTML(f"<h2>Join the class {_esc(self.room.state.name)} ({_esc(self.room.code)})</h2>"),
                         self.name_input, self.join_button, self.feedback]

    def join(self, name: Any) -> bool:
        """Join the class with ``name``; True on success. A refusal says why and creates nothing."""
        if self.state != "form" or self.room is None:
            return False
        if not isinstance(name, str) or len(name) > 10 * MAX_NAME_LENGTH:
            return self._say(f"Names are at most {MAX_NAME_LENGTH} characters.")
        try:
            ticket = self.room.join(name)
        except Exception as exc:  # noqa: BLE001 - never a traceback on a student's page
            return self._say(error_text(exc))
        self._enter(ticket.student, ticket.token)
        return True

    def _say(self, text: str) -> bool:
        self.message = text
        self.feedback.value = text
        return False

    def _enter(self, student: int, token: str) -> None:
        assert self.room is not None
        self.student, self.token = student, token
        self.url.query = urlencode({"class": self.room.code, "student": token})
        name = self.room.state.student(student).name  # type: ignore[union-attr]
        self.url.title = page_title(f"{name} · class {self.room.code}")
        self._update()
        if self.state != "seat":
            self._unsubscribe = self.room.subscribe(lambda _r: self._update())
            self.room.start_watching()

    def _update(self) -> None:
        """Show the lobby, or become the seat once this student's table has started."""
        room = self.room
        if room is None or self.student is None or self.state == "seat":
            return
        seat = room.seat_of(self.student)
        if seat is not None:
            table, seat_id = seat
            self.state = "seat"
            self.widget = _widgets().SeatWidget(table, seat_id)
            self.url.title = page_title(f"{table.state.name(seat_id)} · table {table.code}")
            self.children = [self.url, self.widget]
            unsubscribe = getattr(self, "_unsubscribe", None)
            if unsubscribe is not None:
                unsubscribe()
            room.stop_watching()
            table.start_watching()
            return
        self.state = "lobby"
        s = room.state
        me = s.student(self.student)
        mine = s.table_of(self.student)
        if mine is not None:
            others = [n for n in room.names(mine.members) if n != me.name]  # type: ignore[union-attr]
            body = (f"You will sit at table {mine.number}" + (f" with {', '.join(others)}" if others else "")
                    + ". The game starts when the teacher starts your table.")
        elif s.tables and all(t.started for t in s.tables):
            body = ("Every table has already started, so you are not seated yet. The teacher can seat you at a "
                    "new table when enough students are waiting; keep this page open.")
        else:
            body = "The teacher will seat you at a table. Keep this page open."
        self.lobby.value = (
            f'<div class="dichotomy-lobby-box" role="status" aria-live="polite" data-table="{mine.number if mine else ""}">'
            f'<h2>Hello {_esc(me.name)}! You will be seated soon.</h2>'  # type: ignore[union-attr]
            f"<p>{_esc(body)}</p><p>Class {_esc(s.name)} · {len(s.students)} students joined.</p>"
            '<p class="dw-help">This page becomes your seat at your table: no new link to open. '
            "If you close it, open the same address again.</p></div>")
        _show_trouble(self.trouble, room)
        if list(self.children) != [self.url, self.trouble, self.lobby]:
            self.children = [self.url, self.trouble, self.lobby]


def class_page(query: str | None = None, store: "TableStore | str | None" = None) -> ClassPage:
    """A student's class page for ``query`` (default: the page's query, also in a pre-started kernel)."""
    if query is None:
        from .entry import lost_request, page_query

        query = page_query(store)
        if query is None:
            return lost_request()  # type: ignore[return-value]
    return ClassPage(query, store=store)


# --------------------------------------------------------------------------------------------------
# Read-only pages: class projector, table projector, report


class ClassViewPage(W.VBox):
    """The class projector: code, join link, QR code and the overview, live. No token, no action."""

    def __init__(self, query: str | None = None, store: "TableStore | str | None" = None,
                 env: Mapping[str, str] | None = None) -> None:
        super().__init__(layout=W.Layout(width="100%"))
        self.add_class("dichotomy-classview-page")
        self.store = page_store(store)
        self.url = UrlQuery()
        self.env = dict(os.environ if env is None else env)
        try:
            self.room: Classroom | None = Classroom.open(class_query(query).get("class", ""), self.store)
        except DichotomyError as exc:
            self.room = None
            self.url.title = page_title("No such class")
            self.children = [self.url, message_box("No such class", error_text(exc))]
            return
        room = self.room
        self.url.title = page_title(f"Class {room.code}")
        link = page_link(CLASS_PAGE, {"class": room.code}, self.env)
        self.overview = W.HTML()
        self.overview.add_class("dichotomy-overview-box")
        self.trouble = _trouble_banner()
        self.children = [self.url, self.trouble, W.HTML(f"<h2>{_esc(room.state.name)}</h2>" + _join_block(room, link)),
                         self.overview]
        self._update()
        room.subscribe(lambda _r: self._update())
        room.start_watching()

    def _update(self) -> None:
        assert self.room is not None
        _show_trouble(self.trouble, self.room)
        self.overview.value = _overview_html(self.room, self.env)


class ProjectorPage(W.VBox):
    """One table's projector view (``TableWidget(host=False)``): no token, no buttons."""

    def __init__(self, query: str | None = None, store: "TableStore | str | None" = None) -> None:
        super().__init__(layout=W.Layout(width="100%"))
        self.add_class("dichotomy-projector-page")
        self.store = page_store(store)
        self.url = UrlQuery()
        self.widget: W.Widget | None = None
        try:
            table = Table.open(class_query(query).get("table", ""), self.store)
        except DichotomyError as exc:
            self.url.title = page_title("No such table")
            self.children = [self.url, message_box("No such table", error_text(exc))]
            return
        self.url.title = page_title(f"Projector · table {table.code}")
        self.widget = _widgets().TableWidget(table, host=False)
        self.children = [self.url, W.HTML(f"<h2>Table {_esc(table.code)}</h2>"), self.widget]
        table.start_watching()


def _report_html(data: dict[str, Any]) -> str:
    parts = []
    for t in data["tables"]:
        rows = []
        for r in t["rounds"]:
            clues = "".join(
                f'<li class="dichotomy-report-clue{" eliminated" if c["eliminated"] else ""}">'
                + (_esc(c["text"]) if c["text"] is not None else "<em>no clue (timeout)</em>")
                + f' <span class="who">— {_esc(c["author"])}</span>'
                + (f' <strong>eliminated</strong> ({_esc(c["reason_text"] or c["reason"] or "")})' if c["eliminated"] else "")
                + "</li>" for c in r["clues"])
            guess = "passed" if r["passed"] else _esc(r["guess"])
            rows.append(
                f'<tr class="dichotomy-report-round" data-table="{t["number"]}" data-round="{r["round"]}" '
                f'data-outcome="{_esc(r["outcome"])}"><td>{r["round"]}</td><td>{_esc(r["target"])}</td>'
                f'<td>{_esc(r["foil"])}</td><td><ul style="margin:0;padding-left:1.2em">{clues}</ul></td>'
                f'<td>{_esc(r["guesser"])}: {guess}</td><td>{_esc(r["outcome"])}</td><td>{r["score"]}</td></tr>')
        body = "".join(rows) or '<tr><td colspan="7"><em>No round has resolved yet.</em></td></tr>'
        parts.append(
            f'<h3>Table {t["number"]} ({_esc(", ".join(t["players"]))})</h3>'
            '<table class="dichotomy-report" style="border-collapse:collapse"><thead><tr><th>Round</th>'
            "<th>Target</th><th>Foil</th><th>Clues (author)</th><th>Guess</th><th>Outcome</th><th>Score</th>"
            f"</tr></thead><tbody>{body}</tbody></table>")
    return "".join(parts) or "<p>No table has started yet.</p>"


def _download(label: str, filename: str, mime: str, text: str, css: str) -> str:
    data = base64.b64encode(text.encode("utf-8")).decode("ascii")
    return (f'<a class="{css}" download="{_esc(filename)}" href="data:{mime};charset=utf-8;base64,{data}" '
            f'style="margin-right:1.5em;{LINK_STYLE}">{_esc(label)}</a>')


class ReportPage(W.VBox):
    """The debrief: every resolved round of every table, live, with CSV and JSON downloads."""

    def __init__(self, query: str | None = None, store: "TableStore | str | None" = None) -> None:
        super().__init__(layout=W.Layout(width="100%"))
        self.add_class("dichotomy-report-page")
        self.store = page_store(store)
        self.url = UrlQuery()
        try:
            self.room: Classroom | None = Classroom.open(class_query(query).get("class", ""), self.store)
        except DichotomyError as exc:
            self.room = None
            self.url.title = page_title("No such class")
            self.children = [self.url, message_box("No such class", error_text(exc))]
            return
        self.url.title = page_title(f"Report · class {self.room.code}")
        self.downloads = W.HTML()
        self.downloads.add_class("dichotomy-downloads")
        self.body = W.HTML()
        self.body.add_class("dichotomy-report-box")
        self.trouble = _trouble_banner()
        self.children = [self.url, self.trouble, W.HTML(f"<h2>Report · {_esc(self.room.state.name)}</h2>"
                                          "<p>Resolved rounds only: a round appears here once it is over.</p>"),
                         self.downloads, self.body]
        self._update()
        self.room.subscribe(lambda _r: self._update())
        self.room.start_watching()

    def _update(self) -> None:
        from ..class_views import report_csv, report_json

        assert self.room is not None
        _show_trouble(self.trouble, self.room)
        data = self.room.report()
        name = f"dichotomy-class-{self.room.code}"
        self.downloads.value = (_download("Download CSV (one row per clue)", f"{name}.csv", "text/csv",
                                          report_csv(data), "dichotomy-csv")
                                + _download("Download JSON", f"{name}.json", "application/json",
                                            report_json(data), "dichotomy-json"))
        self.body.value = _report_html(data)


def class_view_page(query: str | None = None, store: "TableStore | str | None" = None) -> ClassViewPage:
    """The class projector page for ``query`` (default: ``$QUERY_STRING``)."""
    return ClassViewPage(os.environ.get("QUERY_STRING", "") if query is None else query, store=store)


def projector_page(query: str | None = None, store: "TableStore | str | None" = None) -> ProjectorPage:
    """A table's read-only projector page for ``query`` (default: ``$QUERY_STRING``)."""
    return ProjectorPage(os.environ.get("QUERY_STRING", "") if query is None else query, store=store)


def report_page(query: str | None = None, store: "TableStore | str | None" = None) -> ReportPage:
    """The class report page for ``query`` (default: ``$QUERY_STRING``)."""
    return ReportPage(os.environ.get("QUERY_STRING", "") if query is None else query, store=store)
