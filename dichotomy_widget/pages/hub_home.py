"""The landing page of the JupyterHub service (``home.ipynb``; ``/services/dichotomy/`` leads here).

It greets the signed-in hub user (:func:`.hub_identity.current_identity`):

* a host (hub admin or member of a host group) gets **Host a table** and **Run a class**, and their
  recent tables (host links) and classes (teacher, class view and report links);
* everyone gets the tables and classes they are seated at (from :mod:`.hub_history`) and a join box:
  a table code opens the seat page, a class code the class page.

Outside a hub (``dichotomy serve``) it shows the two host links and the join box only. All text is
escaped; links are relative to the page (the packaged pages sit side by side).
"""

from __future__ import annotations

import html
import logging
import os
import re
from typing import Mapping
from urllib.parse import urlencode

import anywidget
import ipywidgets as W
import traitlets

from ..class_mode.classroom import Classroom
from ..config import CLASS_PAGE, CLASS_VIEW_PAGE, HOST_PAGE, REPORT_PAGE, SEAT_PAGE, TEACHER_PAGE
from ..errors import ClassNotFound, DichotomyError, TableNotFound
from ..table import Table
from .page_base import UrlQuery, code_box, message_box, page_store, page_title
from .device import page_device
from .guess_throttle import guarded_open
from .hub_history import MAX_VISITS, Visit, visits
from .hub_identity import HOME_PAGE, HubIdentity, HubIdentityError, current_identity, hub_mode, hub_secret
from .page_lang import PageLanguage, error_text
from .page_style import alert_html

__all__ = ["HomePage", "home_page", "Navigator", "HOME_PAGE"]

log = logging.getLogger(__name__)

#: What the navigator may open: one of the packaged pages next to this one, with a plain query.
_PAGE_HREF = re.compile(r"^[a-z]+\.ipynb(\?[A-Za-z0-9_=&%.~-]*)?$")


class Navigator(anywidget.AnyWidget):
    """An invisible widget that opens ``href`` (a sibling page, see ``_PAGE_HREF``) in this tab."""

    _esm = """
    export default {
      render({ model, el }) {
        el.style.display = "none";
        const go = () => {
          const href = model.get("href");
          if (/^[a-z]+\\.ipynb(\\?[A-Za-z0-9_=&%.~-]*)?$/.test(href)) window.location.assign(href);
        };
        model.on("change:href", go);
      },
    };
    """
    href = traitlets.Unicode("").tag(sync=True)

    def go(self, href: str) -> None:
        """Open the sibling page ``href`` in this tab; ValueError for anything else."""
        if not _PAGE_HREF.match(href):
            raise ValueError(f"not a page link: {href!r}")
        self.href = href


def _link(href: str, text: str, css: str, button: bool = False) -> str:
    classes = f"{css} dichotomy-button-link" if button else css
    return (f'<a class="{classes}" href="{html.escape(href, quote=True)}">'
            f"{html.escape(text)}</a>")


def _href(page: str, params: Mapping[str, str]) -> str:
    return f"{page}?{urlencode(params)}" if params else page


class HomePage(W.VBox):
    """The landing page (see the module docstring). ``state``: ``"home"`` or ``"refused"``;
    ``identity``: the hub user, or None outside a hub."""

    def __init__(self, query: str | None = None, store=None, env: Mapping[str, str] | None = None) -> None:
        super().__init__(layout=W.Layout(width="100%", max_width="48em"))
        self.add_class("dichotomy-home-page")
        self.env = dict(os.environ if env is None else env)
        self.store = page_store(store)
        self.page_lang = PageLanguage(query, self.env)
        self.tr = self.page_lang.tr
        self.url = UrlQuery(lang=self.page_lang.lang)
        self.navigator = Navigator()
        self.feedback = W.HTML()
        self.feedback.add_class("dichotomy-feedback")
        self.identity: HubIdentity | None = None
        self.state = "home"
        _ = self.tr.gettext
        self.url.title = page_title(_("Dichotomy"))
        secret = None
        if hub_mode(self.env):
            try:
                self.identity, secret = current_identity(self.env), hub_secret(self.env)
            except HubIdentityError as exc:
                log.warning("landing page without a valid hub identity: %s", exc.code)
                self.state = "refused"
                self.children = [self.url, message_box(
                    _("Open Dichotomy through the hub"),
                    _("This page did not come through the hub's sign-in. Open the game from the hub "
                      "(Services → Dichotomy) or with the join link again."))]
                return
        self.visits: list[Visit] = visits(self.store, secret, self.identity.name) if self.identity and secret else []
        self.code_input = code_box(self.join, css="dichotomy-home-code")
        self.code_input.label, self.code_input.placeholder = _("Code"), _("Table code, e.g. K7QX2M")
        self.join_button = W.Button(description=_("Join"), button_style="success")
        self.join_button.add_class("dichotomy-home-join")
        self.join_button.on_click(lambda _b: self.join())
        self.children = [self.url, self.navigator, W.HTML(self._html()),
                         W.HBox([self.code_input, self.join_button]), self.feedback]

    @property
    def host(self) -> bool:
        """May this user host (a hub host; anyone outside a hub, as with ``dichotomy serve``)."""
        return self.identity is None or self.identity.host

    def _html(self) -> str:
        _ = self.tr.gettext
        esc = html.escape
        parts = []
        if self.identity is not None:
            prefix = self.env.get("JUPYTERHUB_SERVICE_PREFIX", "/").rstrip("/")
            parts.append("<h2>" + esc(_("Welcome, {name}", name=self.identity.display_name)) + "</h2>"
                         '<p class="dichotomy-hub-user">' + esc(_("Signed in to the hub as {name}")).format(
                             name=f"<b>{esc(self.identity.display_name)}</b>")
                         + f' · <a href="{esc(prefix + "/logout", quote=True)}">' + esc(_("Sign out")) + "</a></p>")
        else:
            parts.append("<h2>" + esc(_("Dichotomy")) + "</h2>")
        if self.host:
            parts.append('<p class="dichotomy-home-host">' + _link(HOST_PAGE, _("Host a table"), "dichotomy-home-host-table", True)
                         + _link(TEACHER_PAGE, _("Run a class"), "dichotomy-home-run-class", True) + "</p>")
            parts.append(self._list(_("Your recent tables"), "dichotomy-home-hosted",
                                    [(_("Table {code}", code=v.code), _href(HOST_PAGE, {"table": v.code, "host": v.token}), [])
                                     for v in self._mine("table", "host")]))
            parts.append(self._list(_("Your recent classes"), "dichotomy-home-taught", [
                (_("Class {code}", code=v.code), _href(TEACHER_PAGE, {"class": v.code, "teacher": v.token}),
                 [(_("Class view"), _href(CLASS_VIEW_PAGE, {"class": v.code})),
                  (_("Report"), _href(REPORT_PAGE, {"class": v.code}))])
                for v in self._mine("class", "teacher")]))
        seated = [(_("Table {code}", code=v.code), _href(SEAT_PAGE, {"table": v.code}), []) for v in self._mine("table", "seat")]
        classes = [(_("Class {code}", code=v.code), _href(CLASS_PAGE, {"class": v.code, "student": v.token}), [])
                   for v in self._mine("class", "student")]
        if self.identity is not None and (seated or not self.host):
            parts.append(self._list(_("Tables you are seated at"), "dichotomy-home-seats", seated))
        if self.identity is not None and (classes or not self.host):
            parts.append(self._list(_("Your classes"), "dichotomy-home-classes", classes))
        parts.append("<h3>" + esc(_("Join a table or a class")) + "</h3><p>"
                     + esc(_("Type the code the host shows (or open the link they share).")) + "</p>")
        return "".join(parts)

    def _mine(self, kind: str, role: str) -> list[Visit]:
        return [v for v in self.visits if v.kind == kind and v.role == role][:MAX_VISITS]

    def _list(self, title: str, css: str, rows: list[tuple[str, str, list[tuple[str, str]]]]) -> str:
        esc = html.escape
        if not rows:
            return f'<h3>{esc(title)}</h3><p class="{css} dichotomy-home-empty">' + esc(self.tr.gettext("None yet.")) + "</p>"
        items = []
        for text, href, extra in rows:
            more = "".join(" · " + _link(h, t, "dichotomy-home-extra") for t, h in extra)
            items.append(f"<li>{_link(href, text, 'dichotomy-home-link')}{more}</li>")
        return f'<h3>{esc(title)}</h3><ul class="{css}">' + "".join(items) + "</ul>"

    def _say(self, text: str) -> bool:
        self.feedback.value = alert_html(text)
        return False

    def join(self, code: str | None = None) -> bool:
        """Open the seat page of table ``code`` or the class page of class ``code`` (default: the box)."""
        typed = (self.code_input.value if code is None else code).strip()
        _ = self.tr.gettext
        if not typed:
            return self._say(_("Type the table code first."))
        try:  # a code that opens neither a table nor a class counts as one wrong guess of this device
            found = guarded_open(self._open, typed, page_device(self.env))
        except (TableNotFound, ClassNotFound):
            return self._say(_("No table or class has the code {code}.", code=typed[:40]))
        except DichotomyError as exc:  # too many wrong codes lately, or the store is in trouble
            return self._say(error_text(exc, self.page_lang.lang))
        if isinstance(found, Table):
            self.navigator.go(_href(SEAT_PAGE, self.page_lang.query({"table": found.code})))
        else:
            self.navigator.go(_href(CLASS_PAGE, self.page_lang.query({"class": found.code})))
        return True

    def _open(self, code: str) -> "Table | Classroom":
        """The table with ``code``, else the class with it (ClassNotFound when neither exists)."""
        try:
            return Table.open(code, self.store)
        except TableNotFound:
            return Classroom.open(code, self.store)


def home_page(query: str | None = None, store=None, env: Mapping[str, str] | None = None) -> HomePage:
    """The landing page for ``query`` (default: ``$QUERY_STRING``)."""
    return HomePage(os.environ.get("QUERY_STRING", "") if query is None else query, store=store, env=env)
