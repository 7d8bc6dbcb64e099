"""The logic of the two voila pages (host and seat), importable and testable without voila.

The packaged notebooks (``dichotomy_widget/ui/pages/host.ipynb`` and ``seat.ipynb``) are two lines each::

    from dichotomy_widget.ui.app import seat_page
    seat_page()

Voila gives a page's URL query to its kernel in the ``QUERY_STRING`` environment variable (and the full
URL in ``VOILA_REQUEST_URL``); the table store comes from ``DICHOTOMY_STORE`` (a path or
``sqlite:///path``; default: :func:`dichotomy_widget.stores.default_store_path`). Voila's pre-heated
kernels (``preheat_kernel``) would start a page before its query is known, so they are not used.

Seat page:
    ``?table=CODE``             asks for a name and claims a seat with a fresh secret token, then writes
                                ``?table=CODE&seat=TOKEN`` into the address bar (``history.replaceState``)
                                so a reload resumes the same seat;
    ``?table=CODE&seat=TOKEN``  resumes that seat;
    no query                    asks for the table code and a name.
    A seat page's kernel holds only that seat's widget: never the projector, the host controls or
    another seat's view.

Host page:
    no query                    a form to create a table (deck, rounds, clue time limit); creating it
                                writes ``?table=CODE&host=TOKEN`` into the address bar;
    ``?table=CODE&host=TOKEN``  resumes hosting: code, join link, QR code, lobby, Start, the host
                                controls and the projector view (``TableWidget(table, host=True)``).

Every refusal (unknown code, forged token, full or started table, taken or bad name) shows a clear
message and creates nothing. Names and codes are always rendered as text, never as HTML.
"""

from __future__ import annotations

import html
import logging
import os
import warnings
from pathlib import Path
from typing import Any, Callable, Mapping
from urllib.parse import parse_qs, urlencode, urlsplit, urlunsplit

import anywidget
import ipywidgets as W
import traitlets

from ..config import (DEFAULT_ROUNDS, MAX_NAME_LENGTH, MAX_SEATS, MAX_TIME_LIMIT, MIN_TIME_LIMIT,
                      QUERY_ENV, REQUEST_URL_ENV, SEAT_PAGE, SEAT_URL_ENV, STORE_ENV)
from ..deck_library import DeckLibrary
from ..decks import Deck
from ..errors import DichotomyError, SeatNotFound, TeacherKeyRequired
from ..stores import TableStore, default_store_path, open_store
from ..table import Table
from .deck_form import DeckForm
from .host_secrets import BrowserSecret, TeacherKeyBox
from .hub_identity import hub_mode as _hub_mode
from .teacher import key_required, require_teacher

__all__ = ["host_page", "seat_page", "HostPage", "SeatPage", "UrlQuery", "parse_query", "join_link",
           "qr_svg", "page_store", "STORE_ENV", "SEAT_URL_ENV"]

MAX_KEY_TRIES = 5  # wrong teacher keys one host page accepts before it must be reloaded
MAX_QUERY_VALUE = 200  # a token is 24 characters; anything much longer is not ours

_STORES: dict[str, TableStore] = {}
log = logging.getLogger(__name__)


# --------------------------------------------------------------------------------------------------
# Small helpers


def parse_query(query: str | None) -> dict[str, str]:
    """``"table=AB&seat=x"`` -> ``{"table": "AB", "seat": "x"}``; first value wins, junk is dropped."""
    text = (query or "").lstrip("?")
    out: dict[str, str] = {}
    for key, values in parse_qs(text[:4096], keep_blank_values=True).items():
        if key in ("table", "seat", "host") and values:
            value = values[0].strip()
            out[key] = value if len(value) <= MAX_QUERY_VALUE else "\x00invalid"
    return out


def page_store(store: "TableStore | str | os.PathLike[str] | None" = None) -> TableStore:
    """The store the pages use: ``store``, else ``$DICHOTOMY_STORE``, else the user's data dir file.

    Stores opened from a path are cached per path, so one kernel keeps one SQLite connection.
    """
    if store is not None and not isinstance(store, (str, os.PathLike)):
        return store
    where = os.fspath(store) if store is not None else (os.environ.get(STORE_ENV) or str(default_store_path()))
    if where not in _STORES:
        _STORES[where] = open_store(where)
    return _STORES[where]


def join_link(code: str, env: Mapping[str, str] | None = None) -> str:
    """The seat page address for table ``code``.

    ``$DICHOTOMY_SEAT_URL`` wins; else the host page's own address (``$VOILA_REQUEST_URL``) with
    ``host.ipynb`` replaced by ``seat.ipynb``; else a relative ``seat.ipynb``.
    """
    env = os.environ if env is None else env
    base = env.get(SEAT_URL_ENV, "").strip()
    if not base:
        request_url = env.get(REQUEST_URL_ENV, "").strip()
        if request_url:
            parts = urlsplit(request_url)
            path = parts.path
            head, _, _last = path.rpartition("/")
            path = f"{head}/{SEAT_PAGE}"
            base = urlunsplit((parts.scheme, parts.netloc, path, "", ""))
        else:
            base = SEAT_PAGE
    base = base.split("?", 1)[0].split("#", 1)[0]
    return f"{base}?{urlencode({'table': code})}"


def _is_loopback_link(link: str) -> bool:
    host = (urlsplit(link).hostname or "").lower()
    return host in ("localhost", "::1", "ip6-localhost") or host.startswith("127.")


def qr_svg(data: str, scale: int = 6) -> str:
    """An inline ``<svg>`` QR code of ``data`` (segno), with a white quiet zone."""
    import io

    import segno

    qr = segno.make(data, error="m")
    buf = io.BytesIO()
    qr.save(buf, kind="svg", scale=scale, border=2, xmldecl=False, svgns=True, light="#fff", dark="#000",
            title="Join link QR code")
    return buf.getvalue().decode("utf-8")


def _message_box(title: str, body: str, kind: str = "error", link: tuple[str, str] | None = None) -> W.HTML:
    """A clear message, escaped (never HTML from users)."""
    colour = {"error": "#a40000", "info": "#1a4d8f", "ok": "#1d6b2a"}.get(kind, "#333")
    extra = ""
    if link is not None:
        extra = f'<p><a href="{html.escape(link[0], quote=True)}">{html.escape(link[1])}</a></p>'
    return W.HTML(
        f'<div class="dichotomy-message dichotomy-{kind}" role="{"alert" if kind == "error" else "status"}" '
        f'style="border-left:6px solid {colour};padding:0.6em 1em;margin:0.5em 0;font-size:1.1em">'
        f'<h2 style="margin:0 0 0.3em 0;color:{colour}">{html.escape(title)}</h2>'
        f'<p style="margin:0">{html.escape(body)}</p>{extra}</div>'
    )


def _error_text(exc: BaseException) -> str:
    if isinstance(exc, DichotomyError):
        return exc.message
    return "Something went wrong. Please try again, or ask the host."


def page_title(what: str) -> str:
    """A browser tab title: "Ana · table K7QX2M · Dichotomy"."""
    return f"{what} · Dichotomy"


def _on_enter(box: "W.Text", callback: Callable[[Any], None]) -> None:
    """Call ``callback`` when Enter is pressed in ``box`` (keyboard users submit forms with Enter).

    ipywidgets 8 still sends the text box's "submit" event on Enter but marks ``on_submit`` as
    deprecated in favour of observing ``value`` with ``continuous_update=False``, which would also
    fire when the box merely loses focus; joining a table on blur would surprise students.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        box.on_submit(callback)


class UrlQuery(anywidget.AnyWidget):
    """An invisible widget that writes ``query`` into the address bar with ``history.replaceState``
    and ``title`` into the browser tab's title.

    Voila pages cannot run arbitrary JavaScript; this tiny widget is how a page puts the seat or host
    token into its own URL, so a reload resumes the same seat or table, and names its tab ("Ana ·
    table K7QX2M · Dichotomy") so a student with several tabs finds the game.
    """

    _esm = """
    function apply(model) {
      const title = model.get("title");
      if (title) document.title = title;  // text only: a title is never parsed as HTML
      const q = model.get("query");
      if (!q) return;
      try {
        const url = new URL(window.location.href);
        url.search = "?" + q;
        window.history.replaceState(window.history.state, "", url.toString());
      } catch (e) { /* a page without history API: the link shown on the page still works */ }
    }
    export default {
      render({ model, el }) {
        el.style.display = "none";
        el.classList.add("dichotomy-url-query");
        apply(model);
        model.on("change:query", () => apply(model));
        model.on("change:title", () => apply(model));
        // Mark the page ready once the kernel answers (a click before that could be lost).
        let ready = false;
        const onMsg = (msg) => {
          if (msg && msg.pong && !ready) {
            ready = true;
            document.documentElement.dataset.dichotomyReady = "1";
          }
        };
        model.on("msg:custom", onMsg);
        let tries = 0;
        const ping = () => {
          if (ready || tries++ > 240) return;
          model.send({ ping: 1 });
          setTimeout(ping, 500);
        };
        ping();
        return () => model.off("msg:custom", onMsg);
      }
    };
    """
    query = traitlets.Unicode("").tag(sync=True)
    title = traitlets.Unicode("").tag(sync=True)

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.on_msg(self._on_ping)

    def _on_ping(self, _widget: object, content: object, _buffers: object) -> None:
        if isinstance(content, dict) and content.get("ping"):
            self.send({"pong": 1})


def _widgets():
    """The widget module (imported lazily: it loads the front end files)."""
    from . import widgets

    return widgets


# --------------------------------------------------------------------------------------------------
# Seat page


class SeatPage(W.VBox):
    """The whole seat page. ``state``: ``"form"``, ``"seat"`` or ``"refused"``.

    After a successful join or resume, ``seat`` is the seat id, ``widget`` the ``SeatWidget`` and
    ``url.query`` holds ``table=CODE&seat=TOKEN``.
    """

    def __init__(self, query: str | None = None, store: "TableStore | str | None" = None) -> None:
        super().__init__(layout=W.Layout(width="100%"))
        self.add_class("dichotomy-seat-page")
        self.store = page_store(store)
        self.url = UrlQuery()
        self.table: Table | None = None
        self.seat: int | None = None
        self.widget: W.Widget | None = None
        self._unsubscribe = lambda: None
        self.state = "form"
        self.message = ""
        self.code_input: W.Text | None = None
        self.name_input = W.Text(placeholder="Your name", description="Name",
                                 layout=W.Layout(width="22em"))
        self.name_input.add_class("dichotomy-name")
        self.join_button = W.Button(description="Join the table", button_style="primary")
        self.join_button.add_class("dichotomy-join")
        self.feedback = W.Label("", style={"text_color": "#a40000", "font_weight": "bold"})
        self.feedback.add_class("dichotomy-feedback")
        self.join_button.on_click(lambda _b: self.join(self.name_input.value))
        _on_enter(self.name_input, lambda _t: self.join(self.name_input.value))
        self._route(parse_query(query))

    # -- routing --------------------------------------------------------------------------------
    def _route(self, params: dict[str, str]) -> None:
        code = params.get("table")
        if not code:
            self._show_form(ask_code=True)
            return
        try:
            self.table = Table.open(code, self.store)
        except DichotomyError as exc:
            self._refuse("No such table", _error_text(exc))
            return
        token = params.get("seat")
        if token is not None:
            try:
                seat = self.table.seat_for_token(token)
            except SeatNotFound as exc:
                self._refuse("This seat link is not valid", exc.message)
                return
            self._show_seat(seat, token)
            return
        if self.table.state.phase != "lobby":
            self._refuse("This game has already started",
                         "New players cannot join a game that has started. If you had a seat, open your "
                         "own seat link again (the address your page had while you played).")
            return
        if len(self.table.state.seats) >= MAX_SEATS:
            self._refuse("This table is full",
                         f"This table is full: it already has {MAX_SEATS} players. Ask the host for another table.")
            return
        self._show_form(ask_code=False)

    def _refuse(self, title: str, body: str) -> None:
        self.state = "refused"
        self.message = body
        self.url.title = page_title(title)
        self.children = [self.url, _message_box(title, body)]

    def _show_form(self, ask_code: bool) -> None:
        self.state = "form"
        rows: list[W.Widget] = [self.url]
        if ask_code:
            self.code_input = W.Text(placeholder="Table code, e.g. K7QX2M", description="Table",
                                     layout=W.Layout(width="22em"))
            self.code_input.add_class("dichotomy-code")
            _on_enter(self.code_input, lambda _t: self.join(self.name_input.value))
            rows.append(W.HTML("<h2>Join a Dichotomy table</h2>"))
            rows.append(self.code_input)
            self.url.title = page_title("Join a table")
        else:
            assert self.table is not None
            title = W.HTML(f"<h2>Join table {html.escape(self.table.code)}</h2>")
            rows.append(title)
            self.url.title = page_title(f"Join table {self.table.code}")
        rows += [self.name_input, self.join_button, self.feedback]
        self.children = rows

    def _show_seat(self, seat: int, token: str) -> None:
        assert self.table is not None
        self.seat = seat
        self.state = "seat"
        self.message = ""
        self.url.query = urlencode({"table": self.table.code, "seat": token})
        player = self.table.state.seat_record(seat)
        name = player.name if player is not None else f"Seat {seat}"
        self.url.title = page_title(f"{name} · table {self.table.code}")
        self.widget = _widgets().SeatWidget(self.table, seat)
        self.children = [self.url, self.widget]
        self._unsubscribe = self.table.subscribe(self._check_removed)
        self.table.start_watching()

    def _check_removed(self, table: Table) -> None:
        """The host removed this seat in the lobby: say so and offer the join form again."""
        if self.state != "seat" or self.seat is None or table.state.seat_record(self.seat) is not None:
            return
        self._unsubscribe()
        if self.widget is not None:
            self.widget.close()
        self.widget, self.seat = None, None
        self.url.query = urlencode({"table": table.code})
        self.name_input.value = ""
        self._show_form(ask_code=False)
        self.feedback.value = "The host removed you from this table. You can join again."
        self.message = self.feedback.value

    # -- actions --------------------------------------------------------------------------------
    def join(self, name: str) -> bool:
        """Claim a seat with ``name``; True on success. A refusal sets ``feedback`` and creates nothing."""
        if self.state != "form":
            return False
        if self.code_input is not None:  # no code in the link: open the typed one, every time
            try:
                self.table = Table.open(self.code_input.value, self.store)
            except DichotomyError as exc:
                self.table = None
                return self._feedback(_error_text(exc))
        if self.table is None:
            return self._feedback("Type the table code first.")
        if not isinstance(name, str) or len(name) > 10 * MAX_NAME_LENGTH:
            return self._feedback(f"Names are at most {MAX_NAME_LENGTH} characters.")
        try:
            ticket = self.table.join(name)
        except DichotomyError as exc:
            return self._feedback(_error_text(exc))
        except Exception:  # noqa: BLE001 - never show a traceback to a student
            return self._feedback("Something went wrong. Please try again.")
        self._show_seat(ticket.seat, ticket.token)
        return True

    def _feedback(self, text: str) -> bool:
        self.message = text
        self.feedback.value = text
        return False


def seat_page(query: str | None = None, store: "TableStore | str | None" = None) -> SeatPage:
    """The seat page for ``query`` (default: ``$QUERY_STRING``, set by voila)."""
    if query is None:
        query = os.environ.get(QUERY_ENV, "")
    if _hub_mode():  # a JupyterHub service: the hub says who this is (hub_pages.py)
        from .hub_pages import HubSeatPage

        return HubSeatPage(query, store=store)
    return SeatPage(query, store=store)


# --------------------------------------------------------------------------------------------------
# Host page


class HostPage(W.VBox):
    """The whole host page. ``state``: ``"create"``, ``"host"`` or ``"refused"``."""

    def __init__(self, query: str | None = None, store: "TableStore | str | None" = None,
                 env: Mapping[str, str] | None = None) -> None:
        super().__init__(layout=W.Layout(width="100%"))
        self.add_class("dichotomy-host-page")
        self.store = page_store(store)
        self.env = dict(os.environ if env is None else env)
        self.url = UrlQuery()
        self.table: Table | None = None
        self.host_token: str | None = None
        self.widget: W.Widget | None = None
        self.state = "create"
        self.message = ""
        self.link = ""
        self.saved_note = ""
        self._typed_key: str | None = None  # the teacher key typed on this page (kernel only)
        self._key_failures = 0
        self._route(parse_query(query))

    def _route(self, params: dict[str, str]) -> None:
        code, token = params.get("table"), params.get("host")
        if not code and not token:
            self._show_create()
            return
        try:
            table = Table.open(code or "", self.store)
        except DichotomyError as exc:
            self._refuse("No such table", _error_text(exc))
            return
        if not table.is_host(token):
            self._refuse("This host link is not valid",
                         "Only the teacher who created this table can host it, with the link of the page "
                         "that created it. You can create a new table instead.")
            return
        self._show_host(table, token or "")

    def _refuse(self, title: str, body: str) -> None:
        self.state = "refused"
        self.message = body
        self.url.title = page_title(title)
        self.children = [self.url, _message_box(title, body, link=("?", "Create a new table"))]

    # -- create form ----------------------------------------------------------------------------
    def _show_create(self) -> None:
        self.state = "create"
        self.rounds_input = W.BoundedIntText(value=DEFAULT_ROUNDS, min=1, max=DEFAULT_ROUNDS,
                                             description="Cards")
        self.rounds_input.add_class("dichotomy-rounds")
        self.limit_input = W.BoundedIntText(value=0, min=0, max=MAX_TIME_LIMIT, description="Clue time (s)",
                                            style={"description_width": "initial"})
        self.limit_input.add_class("dichotomy-time-limit")
        self.create_button = W.Button(description="Create the table", button_style="primary")
        self.create_button.add_class("dichotomy-create")
        self.feedback = W.Label("", style={"text_color": "#a40000", "font_weight": "bold"})
        self.feedback.add_class("dichotomy-feedback")
        self.deck_form = DeckForm(env=self.env, on_change=self._deck_changed)
        self.deck_input = self.deck_form.choice  # the list of decks (packaged, folder, saved)
        self.lang_label = self.deck_form.lang_label
        self.create_button.on_click(lambda _b: self.create())
        self._deck_changed(self.deck_form.deck)
        self.url.title = page_title("Create a table")
        self.form = W.VBox([self.deck_form, self.rounds_input, self.limit_input, self.create_button, self.feedback])
        self.form.add_class("dichotomy-create-form")
        intro = W.HTML("<h2>Create a Dichotomy table</h2>"
                       "<p>Choose a deck (or upload or paste your own), and the number of cards (one card per "
                       "round). The clue time limit is optional: 0 means no limit (otherwise "
                       f"{MIN_TIME_LIMIT} to {MAX_TIME_LIMIT} seconds).</p>")
        if key_required(self.env):
            self.key_box: TeacherKeyBox | None = TeacherKeyBox(on_key=self.unlock)
            self.key_box.status = "This server needs the teacher key to create a table."
            self.form.layout.display = "none"
            self.children = [self.url, intro, self.key_box, self.form]
        else:
            self.key_box = None
            self.browser_secret = BrowserSecret(on_secret=self._open_browser_library)
            notice = W.HTML('<p class="dichotomy-no-key" role="note">No teacher key is set: anyone who can '
                            "open this page can create a table. Your saved decks are kept for this browser "
                            "only. (Start the server with <code>--teacher-key</code> to require a key.)</p>")
            self.children = [self.url, intro, notice, self.browser_secret, self.form]

    def unlock(self, typed: str) -> bool:
        """Check the teacher key typed on this page; on success show the form and the key's saved decks.

        The key is kept in this kernel only (to check again on create) and never shown, synced or logged.
        """
        if self._key_failures >= MAX_KEY_TRIES:
            return self._key_refused("Too many wrong keys on this page. Reload the page to try again.")
        try:
            require_teacher(typed, self.env)
        except TeacherKeyRequired as exc:
            self._key_failures += 1
            return self._key_refused(exc.message)
        self._typed_key = typed
        if self.key_box is not None:
            self.key_box.status = "Teacher key accepted."
            self.key_box.unlocked = True
        self.form.layout.display = ""
        try:
            self.deck_form.set_library(DeckLibrary.for_secret(self.store, typed))
        except DichotomyError as exc:
            self.deck_form.library_note.value = f"<p>{html.escape(exc.message)}</p>"
        return True

    def _key_refused(self, text: str) -> bool:
        self.message = text
        if self.key_box is not None:
            self.key_box.status = text
        return False

    def _open_browser_library(self, secret: str) -> None:
        """No teacher key: the saved decks of this browser (its own random secret)."""
        self.deck_form.set_library(DeckLibrary.for_secret(self.store, secret))

    def _deck_changed(self, deck: "Deck | None") -> None:
        if not hasattr(self, "create_button"):
            return
        if deck is None:
            self.create_button.disabled = True
            return
        self.create_button.disabled = False
        self.rounds_input.max = len(deck)
        self.rounds_input.value = min(max(1, self.rounds_input.value), len(deck), DEFAULT_ROUNDS)

    def create(self, deck: "str | Deck | None" = None, rounds: int | None = None,
               time_limit: float | None = None, seed: int | None = None) -> bool:
        """Create the table from the form (or the arguments); True on success."""
        if self.state != "create":
            return False
        try:
            require_teacher(self._typed_key, self.env)
        except TeacherKeyRequired as exc:
            return self._create_feedback(exc.message)
        saved_note = ""
        if deck is None:
            deck = self.deck_form.deck or self.deck_form.check()  # the form re-checks on every change
            if deck is None:
                return self._create_feedback(
                    "Fix the deck first (see the problems above)." if self.deck_form.problems
                    else "Choose a deck first: pick one, upload a file or paste a list.")
        rounds = rounds if rounds is not None else int(self.rounds_input.value)
        if time_limit is None:
            time_limit = float(self.limit_input.value) or None
        try:
            table = Table.create(deck=deck, rounds=rounds, store=self.store, time_limit=time_limit, seed=seed)
        except DichotomyError as exc:
            return self._create_feedback(exc.message)
        try:
            saved_note = self.deck_form.save_current() if deck is self.deck_form.deck else ""
        except DichotomyError as exc:  # the table exists; only the saving failed
            log.warning("saving an uploaded deck failed: %s", exc.code)
            saved_note = f"The deck was not saved: {exc.message}"
        assert table.host_token is not None
        self._show_host(table, table.host_token)
        self.saved_note = saved_note
        if saved_note:
            note = W.HTML(f'<p class="dichotomy-saved-note" role="status">{html.escape(saved_note)}</p>')
            self.children = [*self.children[:2], note, *self.children[2:]]
        return True

    def _create_feedback(self, text: str) -> bool:
        self.message = text
        self.feedback.value = text
        return False

    # -- hosting --------------------------------------------------------------------------------
    def _show_host(self, table: Table, token: str) -> None:
        self.table = table
        self.host_token = token
        self.state = "host"
        self.message = ""
        self.url.query = urlencode({"table": table.code, "host": token})
        self.url.title = page_title(f"Host · table {table.code}")
        self.link = join_link(table.code, self.env)
        code = html.escape(table.code)
        link = html.escape(self.link, quote=True)
        warn = ""
        if _is_loopback_link(self.link):
            warn = ('<p class="dichotomy-warning" style="color:#a40000">This link points to this computer '
                    "only (localhost). For students on other devices, open this page with the address "
                    "<code>dichotomy serve</code> printed for the network, or start it with "
                    "<code>--public-url</code>.</p>")
        self.join_info = W.HTML(
            '<div class="dichotomy-join-info" style="display:flex;gap:2em;align-items:center;flex-wrap:wrap">'
            f'<div class="dichotomy-qr" style="flex:0 0 auto">{qr_svg(self.link)}</div>'
            '<div style="flex:1 1 20em;min-width:0"><p style="margin:0">Table code</p>'
            f'<p class="dichotomy-table-code" style="font-size:3em;font-weight:bold;letter-spacing:0.15em;'
            f'margin:0;font-family:monospace">{code}</p>'
            f'<p>Join link: <a class="dichotomy-join-link" href="{link}" target="_blank" '
            f'rel="noopener">{html.escape(self.link)}</a></p>{warn}'
            "<p>Keep this page's address private: it lets you host this table. "
            '<a class="dichotomy-new-table" href="?" target="_blank" rel="noopener">Create another table</a> '
            "(for another group) in a new tab.</p></div></div>"
        )
        self.widget = _widgets().TableWidget(table, host=True)
        self.children = [self.url, self.join_info, self.widget]
        table.start_watching()


def host_page(query: str | None = None, store: "TableStore | str | None" = None,
              env: Mapping[str, str] | None = None) -> HostPage:
    """The host page for ``query`` (default: ``$QUERY_STRING``, set by voila)."""
    if query is None:
        query = os.environ.get(QUERY_ENV, "")
    if _hub_mode(env):
        from .hub_pages import HubHostPage

        return HubHostPage(query, store=store, env=env)
    return HostPage(query, store=store, env=env)


def packaged_pages() -> Path:
    """The folder with the packaged ``host.ipynb`` and ``seat.ipynb``."""
    return Path(__file__).with_name("pages")
