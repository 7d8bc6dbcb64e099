"""The host page (``host.ipynb``): create a table, then host it, importable and testable without voila.

    no query                    a form to create a table (deck, rounds, clue time limit); creating it
                                writes ``?table=CODE&host=TOKEN`` into the address bar;
    ``?table=CODE&host=TOKEN``  resumes hosting: code, join link, QR code, lobby, Start, the host
                                controls and the projector view (``TableWidget(table, host=True)``).

Its identity strategy (:mod:`.identity`) says who may host: anyone without a hub (a teacher key may
still be asked); behind JupyterHub only hub hosts reach the form, framed by the "Signed in as" bar.
"""

from __future__ import annotations

import html
import logging
import os
from typing import Mapping
from urllib.parse import urlencode, urlsplit

import ipywidgets as W

from ..config import DEFAULT_ROUNDS, MAX_TIME_LIMIT, MIN_TIME_LIMIT
from ..deck_library import DeckLibrary
from ..decks import Deck
from ..errors import DichotomyError, TeacherKeyRequired
from ..options import TableOptions
from ..stores import TableStore
from ..table import Table
from ..widgets.host_secrets import BrowserSecret, TeacherKeyBox
from .deck_form import DeckForm
from .page_base import (IdentityPage, UrlQuery, game_widget, interface_menu, join_link, message_box,
                        open_page_store, open_title, page_title, parse_query, refresh_interface_menu)
from .page_lang import PageLanguage, error_text
from .page_style import feedback_label, link_html, qr_svg, warning_html
from .teacher import key_required, require_teacher
from .teacher_gate import TeacherGate

__all__ = ["HostPage"]

log = logging.getLogger(__name__)


def _is_loopback_link(link: str) -> bool:
    host = (urlsplit(link).hostname or "").lower()
    return host in ("localhost", "::1", "ip6-localhost") or host.startswith("127.")


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
        self.store = open_page_store(store, self._refuse, self.page_lang.lang)
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
            self._refuse(open_title(exc, self.tr), error_text(exc, self.lang))
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
            return self._say(error_text(exc, self.lang))
        saved_note = ""
        if deck is None:
            deck = self.deck_form.deck or self.deck_form.check()  # the form re-checks on every change
            if deck is None:
                return self._say(
                    _("Fix the deck first (see the problems above).") if self.deck_form.problems
                    else _("Choose a deck first: pick one, upload a file or paste a list."))
        try:
            table = Table.create(deck=deck, options=options or self.form_options(), store=self.store, seed=seed)
        except DichotomyError as exc:
            return self._say(error_text(exc, self.lang))
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
            '<div class="dichotomy-join-info">'
            f'<div class="dichotomy-qr">{qr_svg(self.link, title=qr_title)}</div>'
            '<div class="dichotomy-join-text"><p>' + html.escape(_("Table code")) + '</p>'
            f'<p class="dichotomy-table-code">{code}</p>'
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
