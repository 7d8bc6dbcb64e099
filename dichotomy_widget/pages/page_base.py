"""What every voila page is built from: reading its query, its store, its title and address bar
(:class:`UrlQuery`), clear messages, the page classes that refuse (:class:`RefusingPage`), take an
identity (:class:`IdentityPage`) or only show (:class:`ReadOnlyPage`), and the small parts the class
pages share (class links, the store's trouble banner).

One module per page builds on it: :mod:`.seat_page`, :mod:`.host_page`, :mod:`.teacher_page`,
:mod:`.student_page`, :mod:`.class_projector_page`, :mod:`.table_projector_page`, :mod:`.report_page`
and :mod:`.practice_page`; :mod:`.entry` is what the packaged notebooks call.
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

from ..class_mode.classroom import Classroom
from ..config import PROJECTOR_PAGE, REQUEST_URL_ENV, SEAT_PAGE, SEAT_URL_ENV, STORE_ENV
from ..decks import Deck
from ..errors import DichotomyError, StoreError
from ..i18n import LANGUAGE_NAMES, N_, Translator, interface_language, translator
from ..stores import TableStore, default_store_path, open_store
from ..table import Table
from ..widgets.name_box import NameBox
from .class_html import trouble_html
from .identity import PageIdentity, page_identity
from .page_key import PAGE_KEY_FIELD, page_key
from .page_lang import PageLanguage, SpeaksPageLanguage, error_text
from .page_style import PAGE_CSS
from .store_check import check_store_file

__all__ = ["RefusingPage", "IdentityPage", "ReadOnlyPage", "UrlQuery", "code_box", "parse_query", "class_query",
           "page_link", "join_link", "game_widget", "interface_menu", "refresh_interface_menu", "message_box",
           "page_store", "open_page_store", "page_title", "trouble_banner", "show_trouble", "projector_link",
           "esc", "STORE_ENV", "SEAT_URL_ENV"]

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


def open_title(exc: BaseException, tr: Translator) -> str:
    """The page title for a table that cannot be opened: a missing table or a store in trouble."""
    return tr.gettext(STORE_TROUBLE) if isinstance(exc, StoreError) else tr.gettext("No such table")


def open_page_store(store: "TableStore | str | os.PathLike[str] | None",
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


def message_box(title: str, body: str, kind: str = "error", link: tuple[str, str] | None = None) -> W.HTML:
    """A clear message, escaped (never HTML from users)."""
    extra = ""
    if link is not None:
        extra = f'<p><a href="{html.escape(link[0], quote=True)}">{html.escape(link[1])}</a></p>'
    return W.HTML(
        f'<div class="dichotomy-message dichotomy-{kind}" role="{"alert" if kind == "error" else "status"}" '
        f'aria-live="polite"><h2>{html.escape(title)}</h2>'
        f'<p class="dichotomy-message-body">{html.escape(body)}</p>{extra}</div>'
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
        const next = new URLSearchParams(q);
        // the look chosen with voila's ?theme= stays with the page (a reload keeps it)
        const theme = url.searchParams.get("theme");
        if (theme !== null && !next.has("theme")) next.set("theme", theme);
        url.search = "?" + next.toString();
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
    _css = PAGE_CSS  # the page's stylesheet: every page holds this widget
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

    def _say(self, text: str) -> bool:
        """Say why an action was refused under the page's form (its ``feedback`` label, text only);
        False, for the action to return."""
        self.message = text
        self.feedback.value = text
        return False

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


class ReadOnlyPage(RefusingPage):
    """A page that only shows (class projector, table projector, report): no token, no action, no
    language menu (``?lang=`` on its address switches it). ``state``: ``"shown"`` or ``"refused"``."""

    def _read_only(self, query: str | None, store: "TableStore | str | None",
                   env: Mapping[str, str] | None) -> None:
        """Take the page's store, language and address-bar widget (call first in ``__init__``)."""
        self.store = page_store(store)
        self.env = dict(os.environ if env is None else env)
        self.page_lang = PageLanguage(query, self.env)
        self.url = UrlQuery(lang=self.page_lang.lang)
        self.state = "shown"
        self.message = ""

    def _open_class(self, query: str | None) -> Classroom | None:
        """The class its ``?class=`` names, or None after refusing with the reason (no such class, a
        store in trouble)."""
        try:
            return Classroom.open(class_query(query).get("class", ""), self.store)
        except DichotomyError as exc:
            self._refuse(self.tr.gettext("No such class"), error_text(exc, self.lang))
            return None

    def _opened(self, language: str, title: Callable[[Translator], str]) -> None:
        """The page's class or table is open: speak its ``language`` (unless ``?lang=`` chose), then
        name the tab ``title(tr)`` in the language it now speaks."""
        self.page_lang.knows(language)
        self.url.lang = self.lang
        self.url.title = page_title(title(self.tr))


# --------------------------------------------------------------------------------------------------
# What the class pages share: their query, their links, the store's trouble banner

#: The query keys the class pages read.
KEYS = ("class", "student", "teacher", "table", "n")


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


def esc(text: Any) -> str:
    """``text`` as HTML text (quotes too)."""
    return html.escape(str(text), quote=True)


def trouble_banner() -> W.HTML:
    """An empty slot for the store's trouble (full disk, read-only file); see :func:`show_trouble`."""
    banner = W.HTML()
    banner.add_class("dichotomy-store-trouble")
    return banner


def show_trouble(banner: W.HTML, room: Classroom, lang: str = "en") -> None:
    """Put the class store's trouble in ``banner`` as an alert (escaped text, in ``lang``), or empty it."""
    err = getattr(room, "store_trouble_error", None)
    text = error_text(err, lang) if err is not None and room.store_trouble else room.store_trouble
    value = trouble_html(text)
    if banner.value != value:
        banner.value = value


def projector_link(env: Mapping[str, str] | None) -> Callable[[str, int], str]:
    """The projector page address of a class's table (code, number), beside this page's address."""
    return lambda code, number: page_link(PROJECTOR_PAGE, {"table": code, "n": number}, env)
