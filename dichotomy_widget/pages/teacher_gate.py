"""The teacher-key gate a page that creates tables or classes puts before its form.

:class:`TeacherGate` is mixed into the host page and the class teacher page. The page provides
``env``, ``store``, ``form``, ``deck_form``, ``key_box`` (None without a key), ``message`` and sets
``_key_failures = 0`` and ``_typed_key = None``; the gate checks a typed key (kept in this kernel
only, never shown, synced or logged), counts wrong tries and opens the right saved-deck library.
"""

from __future__ import annotations

import html
import math

from ..deck_library import DeckLibrary
from ..errors import DichotomyError, TeacherKeyRequired
from ..i18n import translator
from .device import page_device
from .guess_throttle import KEY_GUESSES
from .page_lang import error_text
from .teacher import require_teacher

__all__ = ["TeacherGate", "MAX_KEY_TRIES"]

MAX_KEY_TRIES = 5  # wrong teacher keys one page accepts before it must be reloaded


class TeacherGate:
    """Unlock a page's form with the teacher key; without a key, the browser's own saved decks."""

    def unlock(self, typed: str) -> bool:
        """Check the teacher key typed on this page; on success show the form and the key's saved decks."""
        lang = getattr(self, "lang", "en")
        _ = translator(lang, "pages").gettext
        if self._key_failures >= MAX_KEY_TRIES:
            return self._key_refused(_("Too many wrong keys on this page. Reload the page to try again."))
        device = page_device(self.env)
        wait = KEY_GUESSES.wait(device)
        if wait > 0:  # per device: reloading the page gives no more tries
            return self._key_refused(_("Too many wrong keys from this device. Wait {minutes} minutes, then try "
                                       "again.", minutes=max(1, math.ceil(wait / 60))))
        try:
            require_teacher(typed, self.env)
        except TeacherKeyRequired as exc:
            self._key_failures += 1
            KEY_GUESSES.failed(device)
            return self._key_refused(error_text(exc, lang))
        self._typed_key = typed
        if self.key_box is not None:
            self.key_box.status = _("Teacher key accepted.")
            self.key_box.unlocked = True
        self.form.layout.display = ""
        try:
            self.deck_form.set_library(DeckLibrary.for_secret(self.store, typed))
        except DichotomyError as exc:
            self.deck_form.library_note.value = f"<p>{html.escape(error_text(exc, lang))}</p>"
        return True

    def _key_refused(self, text: str) -> bool:
        self.message = text
        if self.key_box is not None:
            self.key_box.status = text
        return False

    def _open_browser_library(self, secret: str) -> None:
        """No teacher key: the saved decks of this browser (its own random secret)."""
        self.deck_form.set_library(DeckLibrary.for_secret(self.store, secret))
