"""The interface in the class's language: gettext catalogues read from ``.po`` files with Babel.

Two catalogues (gettext *domains*) per language live in ``dichotomy_widget/locale/<lang>/LC_MESSAGES``:

``dichotomy``
    what the game itself says: the widget (``js/widget.js`` marks its strings with ``t`` / ``tn``),
    the engine's refusal messages (``errors.py`` and the raise sites), rank bands and recap reasons.
``pages``
    the voila pages around the game: seat and host pages, the classroom pages, the deck form.

Message ids are the English text, so English needs no catalogue. Placeholders are named
(``{limit}``) and filled with :meth:`str.format`; numbers are formatted for the locale by Babel.
Plurals go through ``ngettext`` with the language's CLDR plural rules (Babel writes them into the
catalogue header), never by adding "s". ``tools/i18n.py`` extracts, updates and checks catalogues;
``tests/test_i18n.py`` fails when a catalogue misses a message or a placeholder.

A catalogue is parsed once per process (a few ms) and cached. Nothing here touches the network.
"""

from __future__ import annotations

import io
import logging
import string
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

from babel import Locale
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.numbers import format_decimal
from babel.support import NullTranslations, Translations

from .errors import DichotomyError, localized
from .message_format import fill

__all__ = [
    "INTERFACE_LANGUAGES",
    "LANGUAGE_NAMES",
    "DOMAINS",
    "DEFAULT_LANGUAGE",
    "N_",
    "Translator",
    "translator",
    "interface_language",
    "normalize_language",
    "placeholders",
]

log = logging.getLogger(__name__)

#: The languages the interface speaks, each named in itself (for the language menu).
LANGUAGE_NAMES: dict[str, str] = {"en": "English", "es": "Español", "fr": "Français", "de": "Deutsch"}
INTERFACE_LANGUAGES: tuple[str, ...] = tuple(LANGUAGE_NAMES)
DEFAULT_LANGUAGE = "en"
DOMAINS: tuple[str, ...] = ("dichotomy", "pages")

_CLDR_ORDER = ("zero", "one", "two", "few", "many", "other")
_FORMATTER = string.Formatter()


def N_(message: str) -> str:
    """Mark ``message`` for extraction without translating it now (it is translated where shown)."""
    return message


def normalize_language(lang: Any) -> str | None:
    """``"es"`` for ``"es"``, ``"ES"``, ``"es-MX"`` or ``"es_MX"``; None if the interface lacks it."""
    if not isinstance(lang, str):
        return None
    base = lang.strip().replace("_", "-").split("-")[0].lower()[:8]
    return base if base in LANGUAGE_NAMES else None


def interface_language(chosen: Any = "", deck_lang: Any = "") -> str:
    """The language a table's screens speak: the host's choice, else the deck's, else English."""
    return normalize_language(chosen) or normalize_language(deck_lang) or DEFAULT_LANGUAGE


def placeholders(template: str) -> set[str]:
    """The named ``{fields}`` of a ``str.format`` template (empty set for plain text)."""
    try:
        return {name.split(".")[0].split("[")[0] for _, name, _, _ in _FORMATTER.parse(template)
                if name is not None}
    except ValueError:
        return {"<malformed>"}


@lru_cache(maxsize=None)
def _translations(lang: str, domain: str) -> NullTranslations:
    if lang == DEFAULT_LANGUAGE:
        return NullTranslations()
    po = resources.files(__package__).joinpath("locale", lang, "LC_MESSAGES", f"{domain}.po")
    try:
        with po.open("rb") as fh:
            catalog = read_po(fh, locale=lang, domain=domain)
    except FileNotFoundError:
        log.error("no %s catalogue for %r: showing English", domain, lang)
        return NullTranslations()
    buffer = io.BytesIO()
    write_mo(buffer, catalog)  # fuzzy entries are left out, as msgfmt does
    buffer.seek(0)
    return Translations(buffer, domain=domain)


@dataclass(frozen=True)
class Translator:
    """Messages of one domain in one language. ``gettext``/``ngettext`` fill named placeholders."""

    lang: str = DEFAULT_LANGUAGE
    domain: str = "dichotomy"

    @property
    def _t(self) -> NullTranslations:
        return _translations(self.lang, self.domain)

    def gettext(self, message: str, /, **params: Any) -> str:
        """``message`` in this language, its ``{placeholders}`` filled from ``params``."""
        return fill(self._t.gettext(message), params, self.lang)

    def ngettext(self, singular: str, plural: str, n: int, /, **params: Any) -> str:
        """The form for ``n`` (``{n}`` is available in the template, formatted for the locale)."""
        return fill(self._t.ngettext(singular, plural, n), {"n": n, **params}, self.lang)

    def pgettext(self, context: str, message: str, /, **params: Any) -> str:
        """``message`` with a disambiguating ``context`` (for short words such as "Pass")."""
        return fill(self._t.pgettext(context, message), params, self.lang)

    def number(self, value: float) -> str:
        """``value`` written the locale's way (``1,234`` / ``1.234`` / ``1 234``)."""
        return format_decimal(value, locale=self.lang)

    def error(self, error: DichotomyError) -> str:
        """An error's message in this language (its ``code`` never changes)."""
        return fill(self._t.gettext(error.template), localized(error.params, self._t, self.lang), self.lang)

    def problems(self, error: BaseException) -> list[str]:
        """A refused deck's problems, one per line, in this language (``error.problems`` is English)."""
        phrases = getattr(error, "problem_phrases", None)
        if phrases:
            return [p.render(self._t, self.lang) for p in phrases]
        return [str(p) for p in getattr(error, "problems", None) or []]

    def error_dict(self, error: DichotomyError) -> dict[str, str]:
        """``{"code", "message"}`` for the one screen that caused ``error``, in this language."""
        return {"code": error.code, "message": self.error(error)}

    def catalog(self) -> dict[str, Any]:
        """This domain's messages for the browser: ``{lang, plural_categories, messages}``.

        ``messages`` maps a msgid to its text, or a ``[singular, plural]`` msgid joined by ``\\x00`` to
        the list of plural forms. The browser picks a form with ``Intl.PluralRules(lang)`` and
        ``plural_categories``, the CLDR categories in gettext index order.
        """
        messages: dict[str, Any] = {}
        for key, value in getattr(self._t, "_catalog", {}).items():
            if isinstance(key, tuple):
                msgid, index = key
                forms = messages.setdefault(msgid, [])
                if isinstance(forms, list):
                    while len(forms) <= index:
                        forms.append("")
                    forms[index] = value
            elif key:
                messages[key] = value
        return {"lang": self.lang, "plural_categories": plural_categories(self.lang), "messages": messages}


def plural_categories(lang: str) -> list[str]:
    """The CLDR plural categories of ``lang`` in the order gettext numbers its plural forms."""
    tags = Locale.parse(lang).plural_form.tags
    return [c for c in _CLDR_ORDER if c in tags and c != "other"] + ["other"]


@lru_cache(maxsize=None)
def translator(lang: Any = DEFAULT_LANGUAGE, domain: str = "dichotomy") -> Translator:
    """The :class:`Translator` for ``lang`` (English when the interface lacks it) and ``domain``."""
    if domain not in DOMAINS:
        raise ValueError(f"unknown message domain {domain!r}")
    return Translator(normalize_language(lang) or DEFAULT_LANGUAGE, domain)
