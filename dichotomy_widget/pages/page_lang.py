"""Which language a page speaks, and the small menu a student switches their own screen with.

A page speaks, first match wins:

1. the ``?lang=`` of its address (a student's own choice, kept across reloads; validated here: an
   unknown value counts as absent and is never echoed);
2. the interface language of the table or class it shows (``Table.interface_lang``), once it knows it;
3. the browser's ``Accept-Language`` (voila hands it to the kernel as ``$HTTP_ACCEPT_LANGUAGE`` because
   ``dichotomy serve`` lists it in ``VoilaConfiguration.http_header_envs``);
4. English.
"""

from __future__ import annotations

import logging
import os
from typing import TYPE_CHECKING, Any, Callable, Mapping
from urllib.parse import parse_qs

from babel.core import negotiate_locale

from ..errors import DichotomyError
from ..i18n import (DEFAULT_LANGUAGE, INTERFACE_LANGUAGES, LANGUAGE_NAMES, N_, Translator, normalize_language,
                    translator)
from ..logs import log_failure

if TYPE_CHECKING:  # pragma: no cover - the server process (refusal pages) never loads ipywidgets for this
    import ipywidgets as W

__all__ = ["ACCEPT_LANGUAGE_ENV", "PageLanguage", "SpeaksPageLanguage", "query_lang", "accept_language", "language_menu", "error_text",
           "STALLED_BANNER", "GONE_BANNER"]

log = logging.getLogger(__name__)

#: The environment variable voila fills from the request's ``Accept-Language`` header.
ACCEPT_LANGUAGE_ENV = "HTTP_ACCEPT_LANGUAGE"
MAX_HEADER = 500  # an Accept-Language longer than this is not a browser's
#: The banner of a page not usable after 20 s (its kernel never answered, so no page code runs): the
#: voila template's own script shows it, with these texts in every interface language written into it
#: (``pages/voila/templates/dichotomy/index.html.j2``; tests/test_i18n.py checks them against the catalogues).
STALLED_BANNER = (N_("This page is taking longer than it should to start. Reloading it is safe."),
                  N_("Reload the page"))
#: The banner of a page whose server went away (kernel gone, server restarted, network down), shown by
#: the same template's watcher with its own copy of these texts (tests/test_page_watch.py checks them).
GONE_BANNER = (N_("The connection to the game server was lost (the server restarted or the network dropped). "
                  "Reload the page to continue: your seat comes back and what you typed is kept."),
               N_("Reload the page"))


def query_lang(query: str | None) -> str | None:
    """The interface language named by ``lang=`` in ``query`` (first value), or None if none/unknown."""
    values = parse_qs((query or "").lstrip("?")[:4096]).get("lang")
    return normalize_language(values[0][:16]) if values else None


def accept_language(header: str | None) -> str | None:
    """The best interface language for an ``Accept-Language`` header (``"de-CH,de;q=0.9,en;q=0.5"``)."""
    if not header or not isinstance(header, str):
        return None
    ranked: list[tuple[float, int, str]] = []
    for index, item in enumerate(header[:MAX_HEADER].split(",")):
        tag, _, params = item.strip().partition(";")
        q = 1.0
        for param in params.split(";"):
            name, _, value = param.strip().partition("=")
            if name.strip() == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        if tag and tag != "*" and q > 0:
            ranked.append((-q, index, tag.strip()))
    preferred = [tag for _q, _i, tag in sorted(ranked)]
    return negotiate_locale(preferred, list(INTERFACE_LANGUAGES), sep="-")


class PageLanguage:
    """The language of one page (see the module's order). ``tr`` translates this page's own texts."""

    def __init__(self, query: str | None = None, env: Mapping[str, str] | None = None) -> None:
        env = os.environ if env is None else env
        self.chosen: str | None = query_lang(query)
        self.browser: str | None = accept_language(env.get(ACCEPT_LANGUAGE_ENV))
        self.known: str | None = None

    @property
    def lang(self) -> str:
        """The language the page speaks now."""
        return self.chosen or self.known or self.browser or DEFAULT_LANGUAGE

    @property
    def tr(self) -> Translator:
        """The page texts (``pages`` domain) in :attr:`lang`."""
        return translator(self.lang, "pages")

    def knows(self, lang: Any) -> None:
        """The page now shows a table or class speaking ``lang``."""
        self.known = normalize_language(lang)

    def choose(self, lang: Any) -> bool:
        """The reader picked ``lang`` on this screen; True if the page's language changed."""
        before = self.lang
        self.chosen = normalize_language(lang) or DEFAULT_LANGUAGE
        return self.lang != before

    def query(self, params: Mapping[str, str]) -> dict[str, str]:
        """``params`` plus ``lang=`` when the reader chose a language (so a reload keeps it)."""
        return {**params, "lang": self.chosen} if self.chosen else dict(params)


class SpeaksPageLanguage:
    """Mixin for a page holding a :class:`PageLanguage` as ``page_lang``: its ``tr`` and ``lang``."""

    page_lang: PageLanguage

    @property
    def tr(self) -> Translator:
        """This page's texts in its language."""
        return self.page_lang.tr

    @property
    def lang(self) -> str:
        """The language this page speaks."""
        return self.page_lang.lang


def language_menu(page_lang: PageLanguage, on_choose: Callable[[str], None]) -> "W.Dropdown":
    """A labelled menu of the interface languages, each in its own name; calls ``on_choose(code)``."""
    import ipywidgets as W

    menu = W.Dropdown(options=[(name, code) for code, name in LANGUAGE_NAMES.items()], value=page_lang.lang,
                      description=page_lang.tr.gettext("Language"), style={"description_width": "initial"},
                      layout=W.Layout(width="15em", max_width="100%"))
    menu.add_class("dichotomy-language-menu")
    menu.observe(lambda change: on_choose(change["new"]), names="value")
    return menu


def error_text(exc: BaseException, lang: str = DEFAULT_LANGUAGE) -> str:
    """What a page shows for ``exc`` in ``lang``: its message, or (logged with its traceback) a plain
    apology. Engine messages come from the ``dichotomy`` catalogue, the pages' own from ``pages``."""
    if isinstance(exc, DichotomyError):
        own = translator(lang, "pages").error(exc)
        return own if own != translator(DEFAULT_LANGUAGE, "pages").error(exc) else translator(lang).error(exc)
    log_failure(log, "unexpected error on a page", exc)
    return translator(lang, "pages").gettext("Something went wrong. Please try again, or ask the teacher.")
