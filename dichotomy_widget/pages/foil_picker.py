"""The deck form's Foil step: a one-column word list shown Target by Target with its Foil shortlist.

Each row is the Target, a menu of suggested Foils (the first is chosen; each says why, such as
"same category as “cutlery”") ending with "type another", and a box to type one's own Foil (a typed
Foil wins). A Target without a suggestion asks for a typed Foil; for a language without relation
data (Italian) a note says suggestions are not available. :meth:`FoilPicker.deck` turns the current
choices into a checked deck (:func:`~dichotomy_widget.deck_targets.deck_from_targets`); the choices
survive re-checks of the same list.
"""

from __future__ import annotations

import html
import logging
from typing import Callable

import ipywidgets as W

from ..deck_targets import deck_from_targets, shortlists
from ..decks import Deck
from ..errors import DichotomyError
from ..i18n import translator
from ..words import has_relations
from .page_lang import error_text

__all__ = ["FoilPicker"]

log = logging.getLogger(__name__)
_TYPE = "\x00type"  # the menu item "type another"


class FoilPicker(W.VBox):
    """Rows of Target, suggested Foils and a typed Foil; ``on_change`` runs after each choice."""

    def __init__(self, lang: str = "en", on_change: Callable[[], None] | None = None) -> None:
        super().__init__(layout=W.Layout(width="100%", display="none"))
        self.add_class("dichotomy-foil-picker")
        self.lang = lang
        self.tr = translator(lang, "pages")
        self.reasons = translator(lang, "dichotomy")
        self.on_change = on_change or (lambda: None)
        self.key: tuple[tuple[str, ...], str] | None = None
        self.menus: dict[str, W.Dropdown] = {}
        self.typed: dict[str, W.Text] = {}
        self.note = W.HTML("")
        self.note.add_class("dichotomy-foil-note")
        #: shown above the paste box and the upload button: a plain word list works too
        self.hint = W.HTML("<p>" + html.escape(self.tr.gettext(
            "A list of single words, one per line, works too: Foils are suggested for you to choose.")) + "</p>")
        self.hint.add_class("dichotomy-foil-hint")
        self._quiet = False

    def clear(self) -> None:
        """Hide the step (the form holds a two-column deck, or nothing)."""
        self.key = None
        self.menus, self.typed = {}, {}
        self.children = []
        self.layout.display = "none"

    def show(self, targets: list[str], lang: str) -> None:
        """Rows for ``targets`` in ``lang``; the same list again keeps the teacher's choices."""
        key = (tuple(targets), lang)
        if key == self.key:
            return
        old_menus, old_typed = self.menus, self.typed
        self.key = key
        _ = self.tr.gettext
        problem = ""
        try:
            lists = shortlists(dict.fromkeys(targets), lang)
        except DichotomyError as exc:  # tables missing: the teacher can still type every Foil
            log.error("no Foil suggestions: %s", exc.code)
            lists, problem = {t: [] for t in targets}, error_text(exc, self.lang)
        self.menus, self.typed = {}, {}
        rows: list[W.Widget] = []
        for number, target in enumerate(dict.fromkeys(targets), start=1):
            options = [(f"{s.word} — {s.reason_text(self.reasons)}", s.word) for s in lists[target]]
            options.append((_("type another Foil"), _TYPE))
            menu = W.Dropdown(options=options, value=options[0][1], description=target,
                              style={"description_width": "8em"}, layout=W.Layout(width="26em", max_width="100%"))
            menu.add_class("dichotomy-foil-menu")
            typed = W.Text(placeholder=_("or type a Foil") if lists[target] else _("type a Foil"),
                           layout=W.Layout(width="12em", max_width="100%"))
            typed.add_class("dichotomy-foil-typed")
            if target in old_menus and old_menus[target].value in dict(map(reversed, options)):
                menu.value = old_menus[target].value
            if target in old_typed:
                typed.value = old_typed[target].value
            menu.observe(lambda _c: self._changed(), names="value")
            typed.observe(lambda _c: self._changed(), names="value")
            self.menus[target], self.typed[target] = menu, typed
            row = W.HBox([menu, typed], layout=W.Layout(flex_flow="row wrap", align_items="center"))
            row.add_class("dichotomy-foil-row")
            rows.append(row)
        if has_relations(lang):
            note = _("Choose a Foil for each word: the first suggestion is taken unless you pick another "
                     "or type one.")
        else:
            note = _("Foil suggestions are not available for this language: type a Foil for each word.")
        self.note.value = '<p role="note">' + html.escape(problem or note) + "</p>"
        self.children = [self.note, *rows]
        self.layout.display = ""

    def choices(self) -> dict[str, str]:
        """Target -> the Foil chosen for it ("" when none)."""
        out = {}
        for target, menu in self.menus.items():
            typed = self.typed[target].value.strip()
            out[target] = typed or ("" if menu.value == _TYPE else str(menu.value or ""))
        return out

    def deck(self, targets: list[str], lang: str, name: str, source: str) -> Deck:
        """Show ``targets`` and return the deck of the current choices (DeckError when refused)."""
        self.show(targets, lang)
        return deck_from_targets(targets, lang, foils=self.choices(), name=name, source=source)

    def _changed(self) -> None:
        if not self._quiet:
            self.on_change()
