"""The deck part of the host page's create form: a deck from the list, an uploaded file or a pasted list.

The list holds the packaged decks, the decks of ``dichotomy serve --decks DIR`` and the teacher's saved
decks (:class:`~dichotomy_widget.deck_library.DeckLibrary`, visible only once the page knows the
teacher's secret). An upload or a pasted list is checked by
:func:`~dichotomy_widget.decks.deck_from_bytes`, the same limits, rules and messages as ``load_deck``;
every problem is shown as text with its line, and a valid deck shows a preview of its cards. The
language comes from the deck (``# lang:``) or the form's choice, never assumed.
"""

from __future__ import annotations

import html
import logging
import os
from dataclasses import replace
from typing import Callable, Mapping

import ipywidgets as W
from babel import Locale

from ..config import DECKS_DIR_ENV, DEFAULT_DECK
from ..deck_library import DeckLibrary, folder_decks
from ..decks import (DECK_FILE_SUFFIXES, LANGUAGE_NAMES, MAX_DECK_BYTES, Deck, deck_from_bytes, deck_too_big,
                     load_deck, packaged_decks)
from ..deck_targets import list_language, one_column_list
from ..errors import DeckError, DichotomyError
from ..i18n import Translator, translator
from ..words import SUPPORTED_LANGUAGES
from ..widgets.deck_upload import DeckUpload
from .foil_picker import FoilPicker
from ..widgets.name_box import NameBox
from .page_lang import error_text
from ..logs import log_failure

__all__ = ["DeckForm", "LANGUAGE_NAMES", "PREVIEW_CARDS"]

log = logging.getLogger(__name__)

#: How many cards the preview shows (the rest are counted).
PREVIEW_CARDS = 20
MAX_DECK_NAME = 80  # letters of a deck name typed in the form
PASTED = "pasted list"
_FROM_DECK = ""


def _problems_of(exc: DeckError, lang: str = "en") -> tuple[str, list[str]]:
    """A refusal as (headline, problems) in ``lang``, each problem naming its line when it has one."""
    message = error_text(exc, lang)
    problems = translator(lang).problems(exc)  # the deck's problems are engine messages (dichotomy domain)
    if problems:
        return message.splitlines()[0].rstrip(":") + ":", problems
    return message, []


def language_name(code: str, lang: str, start: bool = False) -> str:
    """A deck language's name written in the interface language ``lang`` ("Spanisch" for es in de,
    "espagnol" in fr); ``start``: capitalised, for the start of a menu item."""
    try:
        name = Locale.parse(lang).languages.get(code) or LANGUAGE_NAMES.get(code, code)
    except (ValueError, TypeError):
        name = LANGUAGE_NAMES.get(code, code)
    return name[:1].upper() + name[1:] if start else name


class DeckForm(W.VBox):
    """Choose, upload or paste a deck; ``deck`` is the current valid deck (or None) and ``on_change``
    is called whenever it changes."""

    def __init__(self, env: Mapping[str, str] | None = None,
                 on_change: Callable[[Deck | None], None] | None = None, lang: str = "en") -> None:
        super().__init__(layout=W.Layout(width="100%"))
        self.add_class("dichotomy-deck-form")
        self.lang = lang
        self.tr: Translator = translator(lang, "pages")
        _ = self.tr.gettext
        self.env = dict(os.environ if env is None else env)
        self.on_change = on_change or (lambda _deck: None)
        self.library: DeckLibrary | None = None
        self.deck: Deck | None = None
        self._parsed: Deck | None = None  # the checked upload/paste before the form's name
        self.problems: list[str] = []
        self.headline = ""
        folder = self.env.get(DECKS_DIR_ENV, "").strip()
        self.folder_decks: dict[str, Deck] = {}
        if folder:
            try:
                self.folder_decks, _invalid = folder_decks(folder)  # the server printed the invalid ones
            except DeckError:
                log.warning("the --decks folder is missing")
        self.source = W.RadioButtons(
            options=[(_("A deck from the list"), "list"), (_("Upload a deck file"), "upload"),
                     (_("Paste a list"), "paste")],
            value="list", description=_("Deck"), style={"description_width": "initial"}, layout=W.Layout(width="auto"))
        self.source.add_class("dichotomy-deck-source")
        self.choice = W.Dropdown(options=[], description=_("Deck"), style={"description_width": "initial"}, layout=W.Layout(width="28em", max_width="100%"))
        self.choice.add_class("dichotomy-deck")
        self.lang_label = W.Label("")
        self.lang_label.add_class("dichotomy-deck-lang")
        self.delete_button = W.Button(description=_("Delete this saved deck"), button_style="danger",
                                      layout=W.Layout(display="none", width="auto"))
        self.delete_button.add_class("dichotomy-deck-delete")
        self.library_note = W.HTML("")
        self.library_note.add_class("dichotomy-library-note")
        accept = ",".join(DECK_FILE_SUFFIXES)
        self.upload = DeckUpload(accept=accept, description=_("Choose a file"), max_bytes=MAX_DECK_BYTES,
                                 layout=W.Layout(width="16em"))  # checks the size before sending
        self.upload.add_class("dichotomy-deck-upload")
        self.paste = W.Textarea(placeholder=_("target,foil\nsea,ocean\ncoffee,tea\n... (or paste two columns "
                                              "copied from a spreadsheet)"), rows=8,
                                description=_("List"), style={"description_width": "initial"}, layout=W.Layout(width="100%", max_width="40em"))
        self.paste.add_class("dichotomy-deck-paste")
        self.check_button = W.Button(description=_("Check the list"), layout=W.Layout(width="auto"))
        self.check_button.add_class("dichotomy-deck-check")
        self.name_input = NameBox(label=_("Deck name"), placeholder=_("from the file (# name:)"),
                                  maxlength=MAX_DECK_NAME)
        self.name_input.add_class("dichotomy-deck-name")
        langs = [(_("From the deck (# lang: line)"), _FROM_DECK)] + [
            (f"{language_name(code, lang, start=True)} ({code})", code) for code in SUPPORTED_LANGUAGES]
        self.lang_input = W.Dropdown(options=langs, value=_FROM_DECK, description=_("Deck language"),
                                     style={"description_width": "initial"},
                                     layout=W.Layout(width="28em", max_width="100%"))
        self.lang_input.add_class("dichotomy-deck-lang-choice")
        self.keep = W.Checkbox(value=True, description=_("Keep this deck in my saved decks"),
                               indent=False, layout=W.Layout(width="auto"))
        self.keep.add_class("dichotomy-deck-keep")
        self.problems_box = W.HTML("")
        self.problems_box.add_class("dichotomy-deck-problems")
        self.preview = W.HTML("")
        self.preview.add_class("dichotomy-deck-preview")
        self.foil_picker = FoilPicker(lang, on_change=self.check)  # a one-column list: Foils to choose
        self.upload_help = W.HTML("<p>" + html.escape(_(
            "A .csv, .tsv or .txt list of target,foil rows (five rows make a card; a first line "
            "“# lang: es” names the language), or a .json deck. At most {megabytes} MB. A spreadsheet: save it "
            "as “CSV UTF-8” first, or copy its two columns and paste them.",
            megabytes=MAX_DECK_BYTES // 1_000_000)) + "</p>")
        self.source.observe(lambda _c: self._layout(), names="value")
        self._quiet = False
        self.choice.observe(lambda _c: None if self._quiet else self.check(), names="value")
        self.upload.observe(lambda _c: self.check(), names="value")
        self.lang_input.observe(lambda _c: self.check() if self.source.value != "list" else None, names="value")
        self.name_input.observe(lambda _c: self._rename(), names="value")
        self.paste.observe(lambda _c: self._paste_changed(), names="value")
        self.check_button.on_click(lambda _b: self.check())
        self.delete_button.on_click(lambda _b: self.delete_selected())
        self.refresh_choices()
        self._layout()

    # -- where decks come from ----------------------------------------------------------------
    def _packaged(self) -> dict[str, tuple[str, Deck]]:
        """The packaged decks that load, read once per form: {key: (title, deck)}."""
        if not hasattr(self, "_packaged_cache"):
            self._packaged_cache: dict[str, tuple[str, Deck]] = {}
            for key, title in packaged_decks().items():
                try:
                    self._packaged_cache[key] = (title, load_deck(key))
                except DichotomyError as exc:
                    log.warning("packaged deck %s does not load: %s", key, exc.code)
        return self._packaged_cache

    def set_library(self, library: DeckLibrary | None) -> None:
        """Show ``library``'s saved decks in the list (None: no saved decks on this page)."""
        self.library = library
        self.refresh_choices()
        if library is not None:  # a mark tests (and styles) can wait on: the saved decks are listed
            self.add_class("dichotomy-library-ready")

    def _saved(self):
        if self.library is None:
            return []
        try:
            return self.library.list()
        except DichotomyError as exc:
            log.warning("listing saved decks failed: %s", exc.code)
            self.library_note.value = "<p>" + html.escape(self.tr.gettext(
                "Saved decks cannot be listed now: {reason}", reason=self._error(exc))) + "</p>"
            return []

    def refresh_choices(self, select: str | None = None) -> None:
        """Rebuild the list: packaged decks, the folder's decks, then saved decks."""
        tr = self.tr
        options: list[tuple[str, str]] = []
        for key, (title, deck) in self._packaged().items():
            options.append((tr.ngettext("{name} ({lang}, {n} card)", "{name} ({lang}, {n} cards)", len(deck),
                                        name=title, lang=deck.lang), key))
        for fname, deck in self.folder_decks.items():
            options.append((tr.ngettext("{name} ({lang}, {n} card) · folder", "{name} ({lang}, {n} cards) · folder",
                                        len(deck), name=deck.name, lang=deck.lang), f"dir:{fname}"))
        for saved in self._saved():
            options.append((tr.ngettext("{name} ({lang}, {n} card) · saved", "{name} ({lang}, {n} cards) · saved",
                                        saved.cards, name=saved.name, lang=saved.lang), f"saved:{saved.id}"))
        keys = [k for _l, k in options]
        current = select if select in keys else self.choice.value if self.choice.value in keys else None
        if current is None:
            current = DEFAULT_DECK if DEFAULT_DECK in keys else (keys[0] if keys else None)
        self._quiet = True
        try:
            self.choice.options = options
            self.choice.value = current
        finally:
            self._quiet = False
        if self.source.value == "list":
            self.check()

    # -- layout -------------------------------------------------------------------------------
    def _layout(self) -> None:
        mode = self.source.value
        rows: list[W.Widget] = [self.source]
        if mode == "list":
            rows += [W.HBox([self.choice, self.lang_label], layout=W.Layout(flex_flow="row wrap", align_items="center")),
                     self.delete_button, self.library_note]
        elif mode == "upload":
            rows += [self.upload_help, self.foil_picker.hint, self.upload, self.lang_input, self.name_input, self.keep]
        else:
            rows += [W.HTML("<p>" + html.escape(self.tr.gettext(
                "Paste target,foil rows, or two columns copied from a spreadsheet (tab-separated). Five rows "
                "make a card.")) + "</p>"), self.foil_picker.hint,
                     self.paste, self.lang_input, self.name_input, self.keep, self.check_button]
        if mode == "list":
            self.foil_picker.clear()
        rows += [self.foil_picker, self.problems_box, self.preview]
        self.children = rows
        self.check()

    # -- checking -----------------------------------------------------------------------------
    def _read(self) -> Deck | None:
        """The deck the form describes (DeckError if it is refused), or None when nothing is given yet."""
        mode = self.source.value
        lang = self.lang_input.value or None
        if mode == "list":
            key = self.choice.value
            if not key:
                return None
            if key.startswith("dir:"):
                return self.folder_decks[key[4:]]
            if key.startswith("saved:"):
                if self.library is None:
                    raise DeckError("That saved deck is not available on this page.", code="deck_not_found")
                return self.library.get(key[6:])
            if key in self._packaged():
                return self._packaged()[key][1]
            return load_deck(key)
        if mode == "upload":
            files = self.upload.value
            if not files:
                return None
            item = files[0]
            name = str(item.get("name") or "deck")
            if item.get("too_big"):  # the browser did not send it
                raise deck_too_big(name, int(item.get("size") or 0))
            data = bytes(item.get("content", b""))
            one_column = self._one_column(data, name, lang)
            if one_column is not None:
                return one_column
            deck = deck_from_bytes(data, name, lang=lang, default_lang=None)
        else:
            text = self.paste.value
            if not text.strip():
                return None
            one_column = self._one_column(text.encode("utf-8", "surrogatepass"), PASTED, lang)
            if one_column is not None:
                return one_column
            deck = deck_from_bytes(text.encode("utf-8", "surrogatepass"), PASTED, lang=lang, default_lang=None)
            if deck.name == PASTED:
                deck = replace(deck, name=self.tr.gettext("Pasted list"))
        self._parsed = deck
        return self._named(deck)

    def _one_column(self, data: bytes, source: str, lang: str | None) -> Deck | None:
        """A one-column word list as a deck of the Foils chosen in the picker (None: not such a list)."""
        column = one_column_list(data, source)
        if column is None:
            self.foil_picker.clear()
            return None
        targets, own_lang, name = column
        try:
            list_lang = list_language(targets, lang or own_lang, source)
        except DeckError:
            self.foil_picker.clear()
            raise
        if source == PASTED and not name:
            name = self.tr.gettext("Pasted list")
        deck = self.foil_picker.deck(targets, list_lang, name, source)
        self._parsed = deck
        return self._named(deck)

    def _paste_changed(self) -> None:
        """An edited list must be checked again before a table is made of it."""
        if self.source.value != "paste" or (self.deck is None and not self.problems):
            return
        self.deck, self._parsed, self.problems, self.headline = None, None, [], ""
        self.problems_box.value = ""
        self.preview.value = '<p role="status">' + html.escape(self.tr.gettext(
            "The list changed: press “Check the list”.")) + "</p>"
        self.on_change(None)

    def _named(self, deck: Deck) -> Deck:
        name = self.name_input.value.strip()
        return replace(deck, name=name[:MAX_DECK_NAME]) if name else deck

    def _rename(self) -> None:
        """A new deck name changes the current deck's name only (no second check of every word)."""
        if self.deck is None or self._parsed is None or self.source.value == "list":
            return
        self.deck = self._named(self._parsed)
        self._show_preview(self.deck)
        self.on_change(self.deck)

    def check(self) -> Deck | None:
        """Check what the form holds; show its problems or its preview; return the valid deck or None."""
        self._parsed = None
        if self.source.value != "list" and (self.upload.value or self.paste.value.strip()):
            self.preview.value = ('<p role="status" class="dichotomy-deck-checking">'
                                  + html.escape(self.tr.gettext("Checking the deck...")) + "</p>")
        try:
            deck = self._read()
        except DeckError as exc:
            self._show_problems(exc)
            deck = None
        except UnicodeEncodeError:
            self._show_problems(DeckError("The list holds characters that are not valid text."))
            deck = None
        except Exception as err:  # noqa: BLE001 - never leave the page on "Checking the deck...": say so
            log_failure(log, "checking a deck failed", err)
            self._show_problems(DeckError("This deck could not be read. Check that it is a deck file "
                                          "(a list of target,foil rows or a .json deck).", code="deck_unreadable"))
            deck = None
        else:
            self.problems, self.headline = [], ""
            self.problems_box.value = ""
            if deck is None:
                self.preview.value = ""
            else:
                self._show_preview(deck)
        self.deck = deck
        mode = self.source.value
        self.lang_label.value = (self.tr.gettext("Language: {language}", language=language_name(deck.lang, self.lang))
                                 if deck is not None and mode == "list" else "")
        is_saved = mode == "list" and str(self.choice.value or "").startswith("saved:")
        self.delete_button.layout.display = "" if is_saved else "none"
        self.on_change(deck)
        return deck

    def _show_problems(self, exc: DeckError) -> None:
        _ = self.tr.gettext
        headline, problems = _problems_of(exc, self.lang)
        self.headline, self.problems = headline, problems or [headline]
        items = "".join(f"<li>{html.escape(p)}</li>" for p in problems)
        ask = ""
        if exc.code == "deck_lang_missing":
            ask = ("<p><b>" + html.escape(_("Which language is this deck in?")) + "</b> "
                   + html.escape(_("Choose it under “Deck language”.")) + "</p>")
        self.problems_box.value = (
            f'<div role="alert" class="dichotomy-deck-alert">'
            f'<p class="dichotomy-deck-headline">{html.escape(headline)}</p>'
            f'{"<ul>" + items + "</ul>" if items else ""}{ask}'
            '<p>' + html.escape(_("Nothing was created or saved. Fix the deck and try again."))
            + "</p></div>")
        self.preview.value = ""

    def _show_preview(self, deck: Deck) -> None:
        """The cards as a text table (escaped); collapsed for list decks (the screen may be projected)."""
        tr = self.tr
        rows = []
        for number, card in enumerate(deck.cards[:PREVIEW_CARDS], start=1):
            pairs = "".join(f"<li>{html.escape(p.target)} / {html.escape(p.foil)}</li>" for p in card.pairs)
            rows.append('<li class="dichotomy-preview-card">'
                        '' + html.escape(tr.gettext("Card {number}", number=number)) + f'<ol>{pairs}</ol></li>')
        more = len(deck) - PREVIEW_CARDS
        tail = ("<p>" + html.escape(tr.ngettext("... and {n} more card.", "... and {n} more cards.", more)) + "</p>"
                if more > 0 else "")
        opened = "" if self.source.value == "list" else " open"
        summary = html.escape(tr.ngettext("{name}: {n} card, language {language} (show the cards)",
                                          "{name}: {n} cards, language {language} (show the cards)", len(deck),
                                          name=deck.name, language=language_name(deck.lang, self.lang)))
        self.preview.value = (
            f'<details{opened} class="dichotomy-preview"><summary><span role="status">{summary}</span></summary>'
            "<p>" + html.escape(tr.gettext("Target / Foil pairs (keep them off a projected screen).")) + "</p>"
            f'<ol class="dichotomy-preview-cards">'
            f'{"".join(rows)}</ol>{tail}</details>')

    # -- saving and deleting ------------------------------------------------------------------
    def _error(self, exc: BaseException) -> str:
        return error_text(exc, self.lang)

    def wants_saving(self) -> bool:
        """Whether the current deck is an upload or a pasted list the teacher wants kept."""
        return self.deck is not None and self.source.value in ("upload", "paste") and bool(self.keep.value)

    def save_current(self) -> str:
        """Keep the current upload/pasted deck in the library; a short note of what happened."""
        if not self.wants_saving() or self.deck is None:
            return ""
        if self.library is None:
            return self.tr.gettext("The deck was not saved: this page has no deck library yet (reload the page).")
        saved = self.library.save(self.deck)
        return self.tr.gettext("Saved “{name}” in your decks.", name=saved.name)

    def delete_selected(self) -> bool:
        """Delete the saved deck chosen in the list."""
        key = str(self.choice.value or "")
        if self.library is None or not key.startswith("saved:"):
            return False
        try:
            self.library.delete(key[6:])
        except DeckError as exc:
            self._show_problems(exc)
            return False
        self.refresh_choices()
        self.library_note.value = ('<p role="status">' + html.escape(self.tr.gettext("The saved deck was deleted."))
                                   + "</p>")
        return True
