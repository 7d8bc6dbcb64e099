"""The logic of the two voila pages (host and seat), importable and testable without voila.

The packaged notebooks (``dichotomy_widget/pages/notebooks/host.ipynb`` and ``seat.ipynb``) are two lines each::

    from dichotomy_widget.pages.entry import seat_page
    seat_page()

Voila gives a page's URL query to its kernel in the ``QUERY_STRING`` environment variable (and the full
URL in ``VOILA_REQUEST_URL``); the table store comes from ``DICHOTOMY_STORE`` (a path or
``sqlite:///path``; default: :func:`dichotomy_widget.stores.default_store_path`). A kernel of voila's
pre-heated pool (``dichotomy serve --expect N``) runs its page before any student asks for it: it warms
up, shows a pending page and builds the page into it when voila hands it its request (the protocol of
``voila.utils.get_query_string()``; :class:`.entry.PendingPage`).

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

Both pages hold one identity strategy (:mod:`.identity`, chosen from the environment): without a hub
the link's token is who you are; behind JupyterHub (``dichotomy hub-service``) the signed-in hub user
is, so the seat page has no name box and refuses another user's seat link, only hub hosts reach the
host form, and the "Signed in as" bar frames every screen.

Every refusal (unknown code, forged token, full or started table, taken or bad name) shows a clear
message and creates nothing. Names and codes are always rendered as text, never as HTML.
"""

from __future__ import annotations

import html
import logging
import os
from typing import Any, Callable, Mapping
from urllib.parse import parse_qs, urlencode, urlsplit, urlunsplit

import anywidget
import ipywidgets as W
import traitlets

from ..config import (DEFAULT_ROUNDS, MAX_NAME_LENGTH, MAX_SEATS, MAX_TIME_LIMIT, MIN_TIME_LIMIT,
                      REQUEST_URL_ENV, SEAT_PAGE, SEAT_URL_ENV, STORE_ENV)
from ..deck_library import DeckLibrary
from ..decks import Deck
from ..errors import DichotomyError, NameTaken, SeatNotFound, StoreError, TeacherKeyRequired
from ..i18n import LANGUAGE_NAMES, N_, Translator, interface_language, normalize_language, translator
from ..stores import TableStore, default_store_path, open_store
from ..table import Table
from ..options import TableOptions
from .deck_form import DeckForm
from .device import page_device
from .guess_throttle import guarded_open
from .identity import PageIdentity, page_identity
from .store_check import check_store_file
from ..widgets.host_secrets import BrowserSecret, TeacherKeyBox
from .teacher_gate import TeacherGate
from .teacher import key_required, require_teacher
from ..widgets.name_box import NameBox
from .page_key import PAGE_KEY_FIELD, page_key
from .page_lang import PageLanguage, SpeaksPageLanguage, error_text, language_menu
from .page_style import COLOURS, feedback_label, link_html, warning_html
from ..logs import log_failure

__all__ = ["HostPage", "SeatPage", "RefusingPage", "UrlQuery", "code_box", "parse_query", "join_link", "game_widget", "interface_menu",
           "qr_svg", "page_store", "STORE_ENV", "SEAT_URL_ENV"]

MAX_QUERY_VALUE = 200  # a token is 24 characters; anything much longer is not ours
MAX_CODE_TYPED = 40  # a code is at most 32 letters, "class-" and spaces included

_STORES: dict[str, TableStore] = {}
log = logging.getLogger(__name__)


# --------------------------------------------------------------------------------------------------
# Small helpers


def parse_query(query: str | None, keys: tuple[str, ...] = ("table", "seat", "host")) -> dict[str, str]:
    """``"table=AB&seat=x"`` -> ``{"table": "AB", "seat": "x"}`` for the page's ``keys``; first value
    wins, junk is dropped (a value longer than a page reads is kept as an invalid one)."""
    text = (query or "").lstrip("?")
    out: dict[str, str] = {}
    for key, values in parse_qs(text[:4096], keep_blank_values=True).items():
        if key in keys and values:
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


STORE_TROUBLE = N_("The game store cannot be used")


def _open_title(exc: BaseException, tr: Translator) -> str:
    """The page title for a table that cannot be opened: a missing table or a store in trouble."""
    return tr.gettext(STORE_TROUBLE) if isinstance(exc, StoreError) else tr.gettext("No such table")


def _open_page_store(store: "TableStore | str | os.PathLike[str] | None",
                     refuse: Callable[[str, str], None], lang: str = "en") -> TableStore | None:
    """:func:`page_store`, or None after showing the store's clear message (never a traceback)."""
    try:
        opened = page_store(store)
        check_store_file(opened)  # garbage written over the file under a running server: say so
        return opened
    except StoreError as exc:
        tr = translator(lang, "pages")
        refuse(tr.gettext(STORE_TROUBLE), tr.gettext("{problem} Tell the host.", problem=error_text(exc, lang)))
        return None


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


def qr_svg(data: str, scale: int = 6, title: str = "Join link QR code") -> str:
    """An inline ``<svg>`` QR code of ``data`` (segno), with a white quiet zone and a ``title``."""
    import io

    import segno

    qr = segno.make(data, error="m")
    buf = io.BytesIO()
    qr.save(buf, kind="svg", scale=scale, border=2, xmldecl=False, svgns=True, light="#fff", dark="#000",
            title=title)
    return buf.getvalue().decode("utf-8")


def message_box(title: str, body: str, kind: str = "error", link: tuple[str, str] | None = None) -> W.HTML:
    """A clear message, escaped (never HTML from users)."""
    colour = COLOURS.get(kind, "inherit")
    extra = ""
    if link is not None:
        extra = f'<p><a href="{html.escape(link[0], quote=True)}">{html.escape(link[1])}</a></p>'
    return W.HTML(
        f'<div class="dichotomy-message dichotomy-{kind}" role="{"alert" if kind == "error" else "status"}" '
        f'aria-live="polite" style="border-left:6px solid {colour};padding:0.6em 1em;margin:0.5em 0;font-size:1.1em">'
        f'<h2 style="margin:0 0 0.3em 0;color:{colour}">{html.escape(title)}</h2>'
        f'<p style="margin:0">{html.escape(body)}</p>{extra}</div>'
    )


def page_title(what: str) -> str:
    """A browser tab title: "Ana · table K7QX2M · Dichotomy"."""
    return f"{what} · Dichotomy"


def code_box(on_submit: Callable[[str], None], css: str = "dichotomy-code") -> NameBox:
    """The box for a table or class code: Enter calls ``on_submit(code)`` with the box's exact text."""
    box = NameBox(maxlength=MAX_CODE_TYPED, autocapitalize="characters")
    box.add_class(css)
    box.on_submit(on_submit)
    return box


class UrlQuery(anywidget.AnyWidget):
    """An invisible widget that writes ``query`` into the address bar with ``history.replaceState``,
    ``title`` into the browser tab's title and ``lang`` into the page's ``<html lang>``; it also gives
    its page the key that lets that page alone shut its kernel down (:mod:`.page_key`).

    Voila pages cannot run arbitrary JavaScript; this tiny widget is how a page puts the seat or host
    token into its own URL, so a reload resumes the same seat or table, and names its tab ("Ana ·
    table K7QX2M · Dichotomy") so a student with several tabs finds the game.
    """

    _esm = """
    // The page's own key for shutting its kernel down (pages/page_key.py): voila's unload beacon gets it.
    const KEY = Symbol.for("dichotomy.pageKey");
    function keepKey(key, field) {
      if (typeof key !== "string" || !key || typeof field !== "string" || !field) return;
      const first = !(KEY in window);
      window[KEY] = key;
      if (!first || typeof navigator.sendBeacon !== "function") return;
      const send = navigator.sendBeacon.bind(navigator);
      navigator.sendBeacon = (url, data) => {
        if (typeof url === "string" && url.includes("voila/api/shutdown/") && data instanceof FormData) {
          data.append(field, window[KEY]);
        }
        return send(url, data);
      };
    }
    function apply(model) {
      const title = model.get("title");
      if (title) document.title = title;  // text only: a title is never parsed as HTML
      const lang = model.get("lang");
      if (/^[a-z]{2}$/.test(lang)) document.documentElement.lang = lang;
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
        model.on("change:lang", () => apply(model));
        // Mark the page ready once the kernel answers (a click before that could be lost).
        let ready = false;
        const onMsg = (msg) => {
          if (msg && msg.pong && !ready) {
            ready = true;
            keepKey(msg.key, msg.field);
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
    lang = traitlets.Unicode("").tag(sync=True)

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.on_msg(self._on_ping)

    def _on_ping(self, _widget: object, content: object, _buffers: object) -> None:
        if isinstance(content, dict) and content.get("ping"):
            # the page's key, to this page only (never in a trait); "" outside a served page
            self.send({"pong": 1, "key": page_key(), "field": PAGE_KEY_FIELD})


def _widgets():
    """The widget module (imported lazily: it loads the front end files)."""
    from ..widgets import game as widgets

    return widgets


# --------------------------------------------------------------------------------------------------
# Seat page


def game_widget(kind: str, table: Table, *args: Any, lang: str | None = None, **kwargs: Any) -> W.Widget:
    """``SeatWidget``/``TableWidget`` speaking ``lang`` (None: the table's interface language)."""
    return getattr(_widgets(), kind)(table, *args, lang=lang, **kwargs)


def interface_options(tr: Translator, deck_lang: str | None) -> list[tuple[str, str]]:
    """The host's "Interface language" choices: the deck's (default, value ``""``), then each language
    in its own name."""
    same = LANGUAGE_NAMES[interface_language("", deck_lang or "")]
    return [(tr.gettext("Same as the deck ({language})", language=same), "")] + [
        (name, code) for code, name in LANGUAGE_NAMES.items()]


def interface_menu(tr: Translator) -> W.Dropdown:
    """The create forms' "Interface language" dropdown (its options follow the chosen deck)."""
    menu = W.Dropdown(options=interface_options(tr, None), value="", description=tr.gettext("Interface language"),
                      style={"description_width": "initial"}, layout=W.Layout(width="28em", max_width="100%"))
    menu.add_class("dichotomy-interface-lang")
    return menu


def refresh_interface_menu(menu: W.Dropdown, tr: Translator, deck: "Deck | None") -> None:
    """Name the deck's language in the "Same as the deck" choice, keeping the host's pick."""
    options = interface_options(tr, deck.lang if deck is not None else None)
    if list(menu.options) != options:
        keep = menu.value
        menu.options = options
        menu.value = keep if keep in {v for _l, v in options} else ""


class RefusingPage(SpeaksPageLanguage):
    """A page that can give way to a refusal: a titled message (and a way on) instead of its content.

    The page holds its ``url`` (:class:`UrlQuery`) widget and a ``state``; see :class:`SeatPage`.
    """

    def _refusal_link(self) -> tuple[str, str] | None:
        """Where a refused reader can go next (address, label), or None."""
        return None

    def _refuse(self, title: str, body: str) -> None:
        self.state = "refused"
        self.message = body
        self.url.title = page_title(title)
        self.url.lang = self.lang
        self.children = [self.url, message_box(title, body, link=self._refusal_link())]


class IdentityPage(RefusingPage):
    """A page that holds its identity strategy ``who`` (:mod:`.identity`: the link's token without a
    hub, the signed-in hub user behind JupyterHub) and lets it frame every screen, refusals included
    (behind the hub: the "Signed in as" bar). ``identity``: the hub user, or None."""

    who: PageIdentity

    def _take_identity(self, env: Mapping[str, str] | None) -> None:
        self.who = page_identity(env)
        self.identity, self.hub_bar = self.who.user, self.who.bar

    def _frame(self) -> None:
        self.children = self.who.framed(self.children, self.tr)

    def _refuse(self, title: str, body: str) -> None:
        super()._refuse(title, body)
        self._frame()


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
        self.store = _open_page_store(store, self._refuse, self.page_lang.lang)
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
            self._refuse(_open_title(exc, self.tr), error_text(exc, self.lang))
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
                return self._feedback(error_text(exc, self.lang))
        if self.table is None:
            return self._feedback(_("Type the table code first."))
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
            return self._feedback(self.tr.ngettext("Names are at most {n} character.",
                                                   "Names are at most {n} characters.", MAX_NAME_LENGTH))
        names = self.who.names() if self.who.hub else [name]
        if not names:
            return self._feedback(_("Your hub name cannot be used at a table; ask the host."))
        for seat_name in names:  # behind the hub: the display name, else the user name when it is taken
            try:
                ticket = self.table.join(seat_name, token=token)
            except NameTaken as exc:
                last: DichotomyError = exc
                continue
            except DichotomyError as exc:
                return self._feedback(error_text(exc, self.lang))
            except Exception as err:  # noqa: BLE001 - never show a traceback to a student
                log_failure(log, "joining a table failed", err)
                return self._feedback(_("Something went wrong. Please try again."))
            self._show_seat(ticket.seat, ticket.token)
            return True
        return self._feedback(error_text(last, self.lang))

    def _feedback(self, text: str) -> bool:
        self.message = text
        self.feedback.value = text
        return False


# --------------------------------------------------------------------------------------------------
# Host page


class HostPage(IdentityPage, TeacherGate, W.VBox):
    """The whole host page. ``state``: ``"create"``, ``"host"`` or ``"refused"``.

    Its identity strategy (``who``) says who may host: anyone without a hub (a teacher key may still be
    asked); behind JupyterHub only hub admins and members of the host groups, whose saved decks follow
    their hub account (the host link's token is still needed to host a given table).
    """

    def __init__(self, query: str | None = None, store: "TableStore | str | None" = None,
                 env: Mapping[str, str] | None = None) -> None:
        super().__init__(layout=W.Layout(width="100%"))
        self.add_class("dichotomy-host-page")
        self.env = dict(os.environ if env is None else env)
        self._take_identity(self.env)
        self.page_lang = PageLanguage(query, self.env)
        self.url = UrlQuery(lang=self.page_lang.lang)
        self.table: Table | None = None
        self.host_token: str | None = None
        self.widget: W.Widget | None = None
        self.state = "create"
        self.message = ""
        self.link = ""
        self.saved_note = ""
        self._typed_key: str | None = None  # the teacher key typed on this page (kernel only)
        self._key_failures = 0
        self.store = _open_page_store(store, self._refuse, self.page_lang.lang)
        if self.store is not None:
            self._route(parse_query(query))

    def _route(self, params: dict[str, str]) -> None:
        problem = self.who.problem(self.tr)
        if problem is not None:
            self._refuse_plain(*problem)
            return
        if not self.who.may_host():
            assert self.identity is not None
            log.info("refused: hub user %s may not host", self.identity.name)
            self._refuse_plain(self.tr.gettext("Hosting is for teachers"),
                               self.tr.gettext("You are signed in as {name}, who may not host tables. Students join "
                                               "with the link or QR code the host shows; a hub admin can add teachers "
                                               "to the host group.", name=self.identity.display_name))
            return
        code, token = params.get("table"), params.get("host")
        if not code and not token:
            self._show_create()
            return
        try:
            table = Table.open(code or "", self.store)
        except DichotomyError as exc:
            self._refuse(_open_title(exc, self.tr), error_text(exc, self.lang))
            return
        self.page_lang.knows(table.interface_lang)
        _ = self.tr.gettext
        if not table.is_host(token):
            self._refuse(_("This host link is not valid"),
                         _("Only the teacher who created this table can host it, with the link of the page "
                           "that created it. You can create a new table instead."))
            return
        self._show_host(table, token or "")

    def _refusal_link(self) -> tuple[str, str] | None:
        return ("?", self.tr.gettext("Create a new table"))

    def _refuse_plain(self, title: str, body: str) -> None:
        """A refusal with no way on (this user may not create a table either)."""
        self.state = "refused"
        self.message = body
        self.url.title = page_title(title)
        self.children = [self.url, message_box(title, body)]
        self._frame()

    # -- create form ----------------------------------------------------------------------------
    def _show_create(self) -> None:
        _ = self.tr.gettext
        self.state = "create"
        self.rounds_input = W.BoundedIntText(value=DEFAULT_ROUNDS, min=1, max=DEFAULT_ROUNDS,
                                             description=_("Cards"), style={"description_width": "initial"})
        self.rounds_input.add_class("dichotomy-rounds")
        self.limit_input = W.BoundedIntText(value=0, min=0, max=MAX_TIME_LIMIT, description=_("Clue time (s)"),
                                            style={"description_width": "initial"})
        self.limit_input.add_class("dichotomy-time-limit")
        # the recap countdown: 0 (the default) keeps each recap until its player continues
        self.recap_input = W.BoundedIntText(value=0, min=0, max=MAX_TIME_LIMIT, description=_("Recap time (s)"),
                                            style={"description_width": "initial"})
        self.recap_input.add_class("dichotomy-recap-time")
        self.interface_input = interface_menu(self.tr)
        self.create_button = W.Button(description=_("Create the table"), button_style="primary")
        self.create_button.add_class("dichotomy-create")
        self.feedback = feedback_label()
        self.deck_form = DeckForm(env=self.env, on_change=self._deck_changed, lang=self.lang)
        self.deck_input = self.deck_form.choice  # the list of decks (packaged, folder, saved)
        self.lang_label = self.deck_form.lang_label
        self.create_button.on_click(lambda _b: self.create())
        self._deck_changed(self.deck_form.deck)
        self.url.title = page_title(_("Create a table"))
        self.form = W.VBox([self.deck_form, self.rounds_input, self.limit_input, self.recap_input,
                            self.interface_input, self.create_button, self.feedback])
        self.form.add_class("dichotomy-create-form")
        intro = W.HTML(
            "<h2>" + html.escape(_('Create a Dichotomy table')) + "</h2><p>"
            + html.escape(_("Choose a deck (or upload or paste your own), and the number of cards (one card per "
                            "round). The clue time limit is optional: 0 means no limit (otherwise {low} to "
                            "{high} seconds).", low=MIN_TIME_LIMIT, high=MAX_TIME_LIMIT) + " "
                            + _("The recap time is optional too: 0 keeps each recap until its player continues; "
                                "otherwise every screen counts down and the game moves on by itself."))
            + '</p><p class="dichotomy-class-hint">' + html.escape(_("A whole class?")) + " "
            + link_html("teacher.ipynb", _("Create a class"), "dichotomy-teacher-link", new_tab=False)
            + ": " + html.escape(_("one link for everybody, tables made for you, one dashboard.")) + "</p>")
        library = self.who.library_secret()  # behind the hub: the decks follow the hub account
        if key_required(self.env):
            self.key_box: TeacherKeyBox | None = TeacherKeyBox(on_key=self.unlock, lang=self.lang)
            self.key_box.status = _("This server needs the teacher key to create a table.")
            self.form.layout.display = "none"
            self.children = [self.url, intro, self.key_box, self.form]
        elif library is not None:
            # Behind the hub, the hub decides who may create tables (no "no teacher key" warning), and a
            # teacher's saved decks follow their hub account to any device instead of one browser.
            self.key_box = None
            note = W.HTML('<p class="dichotomy-hub-decks" role="note">' + html.escape(_(
                "Decks you upload are saved with your hub account: they are listed here on any device you sign "
                "in from.")) + "</p>")
            self.children = [self.url, intro, note, self.form]
            self.deck_form.set_library(DeckLibrary.for_secret(self.store, library))
        else:
            self.key_box = None
            self.browser_secret = BrowserSecret(on_secret=self._open_browser_library)
            notice = W.HTML('<p class="dichotomy-no-key" role="note">' + html.escape(_(
                "No teacher key is set: anyone who can open this page can create a table. Your saved decks are "
                "kept for this browser only.")) + " " + html.escape(_("(Start the server with {option} to require "
                                                                      "a key.)")).format(
                option="<code>--teacher-key</code>") + "</p>")
            self.children = [self.url, intro, notice, self.browser_secret, self.form]
        self._frame()

    def _deck_changed(self, deck: "Deck | None") -> None:
        if not hasattr(self, "create_button"):
            return
        refresh_interface_menu(self.interface_input, self.tr, deck)
        if deck is None:
            self.create_button.disabled = True
            return
        self.create_button.disabled = False
        self.rounds_input.max = len(deck)
        self.rounds_input.value = min(max(1, self.rounds_input.value), len(deck), DEFAULT_ROUNDS)

    def form_options(self) -> TableOptions:
        """How the table will play, as the create form says (rounds, clue time limit, recap countdown,
        interface language); checked against the deck when the table is created."""
        return TableOptions(rounds=int(self.rounds_input.value), time_limit=float(self.limit_input.value) or None,
                            recap_time=float(self.recap_input.value) or None,
                            interface_lang=self.interface_input.value or "")

    def create(self, deck: "str | Deck | None" = None, options: TableOptions | None = None,
               seed: int | None = None) -> bool:
        """Create the table from the form (or the given deck and :class:`TableOptions`); True on success."""
        if self.state != "create":
            return False
        _ = self.tr.gettext
        try:
            require_teacher(self._typed_key, self.env)
        except TeacherKeyRequired as exc:
            return self._create_feedback(error_text(exc, self.lang))
        saved_note = ""
        if deck is None:
            deck = self.deck_form.deck or self.deck_form.check()  # the form re-checks on every change
            if deck is None:
                return self._create_feedback(
                    _("Fix the deck first (see the problems above).") if self.deck_form.problems
                    else _("Choose a deck first: pick one, upload a file or paste a list."))
        try:
            table = Table.create(deck=deck, options=options or self.form_options(), store=self.store, seed=seed)
        except DichotomyError as exc:
            return self._create_feedback(error_text(exc, self.lang))
        try:
            saved_note = self.deck_form.save_current() if deck is self.deck_form.deck else ""
        except DichotomyError as exc:  # the table exists; only the saving failed
            log.warning("saving an uploaded deck failed: %s", exc.code)
            saved_note = _("The deck was not saved: {reason}", reason=error_text(exc, self.lang))
        assert table.host_token is not None
        self.page_lang.knows(table.interface_lang)
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
        _ = self.tr.gettext
        self.table = table
        self.host_token = token
        self.state = "host"
        self.message = ""
        self.url.lang = self.lang
        self.url.query = urlencode(self.page_lang.query({"table": table.code, "host": token}))
        self.url.title = page_title(_("Host · table {code}", code=table.code))
        self.link = join_link(table.code, self.env)
        self.projector_link = self.link.replace("seat.ipynb?", "projector.ipynb?", 1)
        code = html.escape(table.code)
        link = html.escape(self.link, quote=True)
        warn = ""
        if _is_loopback_link(self.link) and self.who.hub:
            warn = warning_html(html.escape(_(
                "This link points to this computer only (localhost). For students on other devices, open the hub "
                "by its network name, or set {setting} in the hub's configuration.")).format(
                setting="<code>c.JupyterHub.public_url</code>"))
        elif _is_loopback_link(self.link):
            warn = warning_html(html.escape(_(
                "This link points to this computer only (localhost). For students on other devices, open this "
                "page with the address {command} printed for the network, or start it with {option}.")).format(
                command="<code>dichotomy serve</code>", option="<code>--public-url</code>"))
        projector = (f'<a class="dichotomy-projector-link" href="{html.escape(self.projector_link, quote=True)}" '
                     f'target="_blank" rel="noopener">' + html.escape(_("projector page")) + '</a>')
        another = ('<a class="dichotomy-new-table" href="?" target="_blank" rel="noopener">'
                   '' + html.escape(_("Create another table")) + '</a>')
        qr_title = _("Join link QR code")
        self.join_info = W.HTML(
            '<div class="dichotomy-join-info" style="display:flex;gap:2em;align-items:center;flex-wrap:wrap">'
            f'<div class="dichotomy-qr" style="flex:0 0 auto">{qr_svg(self.link, title=qr_title)}</div>'
            f'<div style="flex:1 1 20em;min-width:0"><p style="margin:0">' + html.escape(_("Table code")) + f'</p>'
            f'<p class="dichotomy-table-code" style="font-size:3em;font-weight:bold;letter-spacing:0.15em;'
            f'margin:0;font-family:monospace">{code}</p>'
            f'<p>' + html.escape(_("Join link:")) + f' <a class="dichotomy-join-link" href="{link}" target="_blank" '
            f'rel="noopener">{html.escape(self.link)}</a></p>{warn}'
            "<p>" + html.escape(_("Keep this page's address private: it lets you host this table. On the projector "
                                  "show the {projector_page} instead (read-only, no key in its address). "
                                  "{create_another} (for another group) in a new tab.")).format(
                projector_page=projector, create_another=another)
            + "</p></div></div>"
        )
        self.widget = game_widget("TableWidget", table, host=True,
                                  lang=self.lang if self.page_lang.chosen else None)
        from .bot_controls import BotControls  # "Add a bot" (issue 32)

        self.bots = BotControls(table, self.lang, secret=token)
        self.children = [self.url, self.join_info, self.bots, self.widget]
        self._frame()
        self.who.remember(self.store, "table", "host", table.code, token)  # the hub start page's list
        table.start_watching()
