""""Add a bot" on the host page: seats a bot in the lobby, run from the host page's kernel."""

from __future__ import annotations

import html
import logging
from typing import TYPE_CHECKING, Any

import ipywidgets as W

from ..bots import BOT_NAMES, resume_bots
from ..errors import DichotomyError
from ..i18n import translator
from ..words import normalize
from .page_lang import error_text
from .page_style import alert_html

if TYPE_CHECKING:  # pragma: no cover
    from ..table import Table

__all__ = ["BotControls"]

log = logging.getLogger(__name__)


class BotControls(W.VBox):
    """A button that seats the next bot (Robo, Bip, …) while the table is in its lobby, and a message
    line; hidden once the game has started. ``secret`` (the host token) marks the bots as this host's:
    when the host page is opened again, its kernel runs them again. ``options`` go to
    :meth:`Table.add_bot` (tests)."""

    def __init__(self, table: "Table", lang: str = "en", level: int = 2, secret: str | None = None,
                 **options: Any) -> None:
        tr = translator(lang, "pages")
        self.lang = lang
        self.table = table
        self.level = level
        self.options = options
        self.secret = secret
        if secret:
            try:
                resume_bots(table, secret, **options)
            except DichotomyError as exc:  # the store failed: the host can still time the bots out
                log.error("table %s: bots not resumed (%s)", table.code, exc.code)
        self.button = W.Button(description=tr.gettext("Add a bot"), icon="plus")
        self.button.add_class("dichotomy-add-bot")
        self.button.on_click(lambda _b: self.add())
        self.note = W.HTML("<p class=\"dw-help\">" + html.escape(tr.gettext(
            "A bot plays every role like a person. Bots play from this page: keep it open.")) + "</p>")
        self.feedback = W.HTML("")
        self.feedback.add_class("dichotomy-bot-feedback")
        super().__init__([self.button, self.note, self.feedback])
        self.add_class("dichotomy-bot-controls")
        self._unsubscribe = table.subscribe(lambda _t: self._follow())
        self._follow()

    def add(self) -> bool:
        """Seat the next bot; True on success, else the reason in :attr:`feedback`."""
        taken = {normalize(s.name) for s in self.table.state.seats}
        name = next((n for n in BOT_NAMES if normalize(n) not in taken), None)
        try:
            if name is None:
                raise DichotomyError("There is no bot name left.", code="bot_names")
            self.table.add_bot(name, level=self.level, secret=self.secret, **self.options)
        except DichotomyError as exc:
            self.feedback.value = alert_html(error_text(exc, self.lang), bold=True)
            return False
        self.feedback.value = ""
        return True

    def _follow(self) -> None:
        self.layout.display = "" if self.table.state.phase == "lobby" else "none"
