"""The seat and host pages in hub mode (``dichotomy hub-service``): identity comes from the hub.

:func:`dichotomy_widget.pages.entry.seat_page` and ``host_page`` use these classes when ``$DICHOTOMY_HUB``
is set. What changes from ``dichotomy serve``:

* The page's hub user is :func:`.hub_identity.current_identity` (signed by the service; a page without
  a valid signature is refused). There is no name box: the seat's name is the hub display name (the
  hub user name if that is taken or unusable).
* A seat's token is derived from the hub user and the table (:func:`.hub_identity.hub_seat_token`).
  ``?table=CODE`` brings the user's own seat back on any device; ``?table=CODE&seat=TOKEN`` is refused
  unless TOKEN is the signed-in user's own, so a copied seat link is useless to anyone else.
* Only hosts (hub admins or members of the configured host groups) can create or host tables; the
  host link's token is still needed to host a given table. A host's saved decks belong to their hub
  account (:func:`.hub_identity.hub_library_secret`), not to one browser.
"""

from __future__ import annotations

import html
import logging
import re
from typing import Mapping
from urllib.parse import urlencode

import ipywidgets as W

from ..deck_library import DeckLibrary
from ..errors import DichotomyError, NameTaken, SeatNotFound
from ..table import Table
from ..i18n import Translator
from .table_pages import HostPage, SeatPage, code_box, error_text, message_box, page_title
from .device import page_device
from .guess_throttle import guarded_open
from .identity import HubUserIdentity, hub_names
from .page_style import warning_html
from ..logs import log_failure

__all__ = ["HubSeatPage", "HubHostPage", "hub_seat_name"]

log = logging.getLogger(__name__)

hub_seat_name = hub_names  # the names a hub user's seat tries, best first (see .identity)


def _hub_loopback(tr: Translator) -> str:
    return warning_html(html.escape(tr.gettext(
        "This link points to this computer only (localhost). For students on other devices, open the hub by its "
        "network name, or set {setting} in the hub's configuration.")).format(
        setting="<code>c.JupyterHub.public_url</code>"))


class HubUserPage:
    """A page behind the hub (mixed in before the page class): the hub user as its identity strategy,
    the signed-in bar around every screen, refusals included."""

    def __init__(self, query: str | None = None, store=None, env: Mapping[str, str] | None = None) -> None:
        self._env = env  # the device tag behind the hub: the hub user (wrong codes are throttled per device)
        self.who = HubUserIdentity.from_env(env)  # the page's identity strategy (see .identity)
        self.identity, self.hub_bar = self.who.user, self.who.bar
        super().__init__(query, store=store, env=env)

    def _with_bar(self) -> None:
        self.children = self.who.framed(self.children, self.tr)

    def _refuse(self, title: str, body: str) -> None:
        super()._refuse(title, body)
        self._with_bar()


class HubSeatPage(HubUserPage, SeatPage):
    """The seat page of a signed-in hub user (no name box; the seat belongs to the hub user)."""

    def _show_seat(self, seat: int, token: str) -> None:
        super()._show_seat(seat, token)
        self._with_bar()
        if self.table is not None:
            self.who.remember(self.store, "table", "seat", self.table.code)

    def _token(self, table: Table) -> str:
        token = self.who.token("table", table.code)
        assert token is not None
        return token

    def _route(self, params: dict[str, str]) -> None:
        problem = self.who.problem(self.tr)
        if problem is not None:
            self._refuse(*problem)
            return
        assert self.identity is not None
        code = params.get("table")
        if not code:
            self._show_form(ask_code=True)
            return
        try:  # wrong codes are throttled per device (per hub user behind the hub)
            self.table = guarded_open(lambda c: Table.open(c, self.store), code, page_device(self._env))
        except DichotomyError as exc:
            self._refuse(self.tr.gettext("No such table"), error_text(exc, self.lang))
            return
        self._know(self.table)
        _ = self.tr.gettext
        mine = self._token(self.table)
        named = params.get("seat")
        if not self.who.owns("table", self.table.code, named):
            log.info("refused: hub user %s opened a seat link that is not theirs", self.identity.name)
            self._refuse(_("This seat link is not yours"),
                         _("This link belongs to another player's seat. You are signed in as {name}: open the "
                           "table's join link to play as yourself.", name=self.identity.display_name))
            own = html.escape(urlencode(self.page_lang.query({"table": self.table.code})))
            self.children = [*self.children, W.HTML(
                f'<p><a class="dichotomy-own-seat" href="?{own}">'
                + html.escape(_("Open table {code} as {name}", code=self.table.code, name=self.identity.display_name))
                + "</a></p>")]
            return
        if self._resume(mine):
            return
        super()._route({"table": self.table.code})

    def _resume(self, token: str) -> bool:
        assert self.table is not None
        try:
            seat = self.table.seat_for_token(token)
        except SeatNotFound:
            return False
        self._show_seat(seat, token)
        return True

    def _show_form(self, ask_code: bool) -> None:
        assert self.identity is not None
        _ = self.tr.gettext
        self.state = "form"
        self._ask_code = ask_code
        self.url.lang = self.lang
        who = html.escape(self.identity.display_name)
        playing = "<p>" + html.escape(_("You play as {name} (your hub name).")).format(name=f"<b>{who}</b>") + "</p>"
        rows: list[W.Widget] = [self.url, self._language_menu()]
        self.join_button.description = _("Join as {name}", name=self.identity.display_name)[:60]
        if ask_code:
            if self.code_input is None:  # kept across a language switch, with what was typed
                self.code_input = code_box(lambda _code: self.join(""))
            self.code_input.label, self.code_input.placeholder = _("Table"), _("Table code, e.g. K7QX2M")
            rows += [W.HTML("<h2>" + html.escape(_('Join a Dichotomy table')) + f"</h2>{playing}"), self.code_input]
            self.url.title = page_title(_("Join a table"))
        else:
            assert self.table is not None
            heading = _("Join table {code}", code=self.table.code)
            rows.append(W.HTML(f"<h2>{html.escape(heading)}</h2>{playing}"))
            self.url.title = page_title(heading)
        rows += [self.join_button, self.feedback]
        self.children = rows
        self._with_bar()

    def join(self, name: str = "") -> bool:
        """Claim this hub user's seat (``name`` is ignored: the hub decides it)."""
        if self.state != "form" or self.identity is None:
            return False
        _ = self.tr.gettext
        if self.code_input is not None and self._ask_code:
            try:
                self.table = guarded_open(lambda c: Table.open(c, self.store), self.code_input.value,
                                          page_device(self._env))
            except DichotomyError as exc:
                self.table = None
                return self._feedback(error_text(exc, self.lang))
        if self.table is None:
            return self._feedback(_("Type the table code first."))
        token = self._token(self.table)
        if self._resume(token):
            return True
        names = hub_seat_name(self.identity)
        if not names:
            return self._feedback(_("Your hub name cannot be used at a table; ask the host."))
        for seat_name in names:
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


class HubHostPage(HubUserPage, HostPage):
    """The host page for hub admins and members of the host groups."""

    def _show_create(self) -> None:
        super()._show_create()
        library = self.who.library_secret()
        if self.key_box is None and library is not None:
            # Behind the hub, the hub decides who may create tables (no "no teacher key" warning), and a
            # teacher's saved decks follow their hub account to any device instead of one browser.
            intro = self.children[1]
            note = W.HTML('<p class="dichotomy-hub-decks" role="note">' + html.escape(self.tr.gettext(
                "Decks you upload are saved with your hub account: they are listed here on any device you sign "
                "in from.")) + "</p>")
            self.children = [self.url, intro, note, self.form]
            self.deck_form.set_library(DeckLibrary.for_secret(self.store, library))
        self._with_bar()

    def _show_host(self, table: Table, token: str) -> None:
        super()._show_host(table, token)
        self.who.remember(self.store, "table", "host", table.code, token)
        # the localhost advice of ``dichotomy serve`` does not apply behind a hub
        loopback = _hub_loopback(self.tr)
        self.join_info.value = re.sub(r'<p class="dichotomy-warning".*?</p>', lambda _m: loopback,
                                      self.join_info.value, flags=re.S)
        self._with_bar()

    def _route(self, params: dict[str, str]) -> None:
        problem = self.who.problem(self.tr)
        if problem is not None:
            self._refuse_plain(*problem)
            return
        assert self.identity is not None
        if not self.who.may_host():
            log.info("refused: hub user %s may not host", self.identity.name)
            self._refuse_plain(self.tr.gettext("Hosting is for teachers"),
                               self.tr.gettext("You are signed in as {name}, who may not host tables. Students join "
                                               "with the link or QR code the host shows; a hub admin can add teachers "
                                               "to the host group.", name=self.identity.display_name))
            return
        super()._route(params)

    def _refuse_plain(self, title: str, body: str) -> None:
        self.state = "refused"
        self.message = body
        self.url.title = page_title(title)
        self.children = [self.url, message_box(title, body)]
        self._with_bar()
