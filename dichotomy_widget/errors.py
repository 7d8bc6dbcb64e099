"""One error hierarchy with stable codes.

Every error carries a ``code`` (stable, machine-readable, safe to show) and a message written for a
student. Messages never contain hidden words of other seats: callers build them from what the acting
seat may already see.

A message is an English *template* with named ``{placeholders}`` and its ``params`` (never an
f-string), so ``tools/i18n.py`` extracts it (every class below is an extraction keyword) and
:meth:`dichotomy_widget.i18n.Translator.error` shows it in the reader's language; the ``code`` never
changes with the language. A few messages meant for whoever runs the server (a corrupt stored event, a
store file that is not ours) stay English f-strings, each marked ``# untranslated: developer-only``.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from .message_format import fill

__all__ = [
    "DichotomyError",
    "RuleViolation",
    "WrongPhase",
    "StaleAction",
    "NotYourTurn",
    "NotAllowed",
    "TeacherKeyRequired",
    "InvalidClue",
    "InvalidGuess",
    "InvalidAction",
    "TableFull",
    "NameTaken",
    "DeckError",
    "DeckWarning",
    "StoreError",
    "VersionConflict",
    "TableNotFound",
    "TableExists",
    "SeatNotFound",
    "DependencyMissing",
    "where",
    "ClassNotFound",
    "SeatingError",
    "PageRefused",
    "HubIdentityError",
    "Phrase",
    "Plural",
    "Lines",
]


class _English:
    """The ``gettext``/``ngettext`` of the source language: messages as written, English plurals."""

    @staticmethod
    def gettext(message: str) -> str:
        return message

    @staticmethod
    def ngettext(singular: str, plural: str, n: int) -> str:
        return singular if n == 1 else plural


ENGLISH = _English()


class Phrase:
    """A part of a message that translates with it: an English template and its params (which may be
    phrases too), e.g. the line a deck problem is on. ``str()`` is the English text.

    ``Phrase("…")`` is an extraction keyword of ``tools/i18n.py``, like the error classes.
    """

    __slots__ = ("template", "params")

    def __init__(self, template: str, **params: Any) -> None:
        self.template = template
        self.params = params

    def render(self, tr: Any, lang: str) -> str:
        """This phrase in a language: ``tr`` (gettext translations) translates, numbers follow ``lang``."""
        return fill(tr.gettext(self.template), localized(self.params, tr, lang), lang)

    def __str__(self) -> str:
        return self.render(ENGLISH, "en")

    def __repr__(self) -> str:
        return f"Phrase({self.template!r}, **{self.params!r})"


class Plural(Phrase):
    """A count with its noun, in the form the number asks for: ``Plural("{n} card", "{n} cards", 1)``.

    An extraction keyword too (singular and plural). Use it in an error's params instead of "cards".
    """

    __slots__ = ("plural", "n")

    def __init__(self, singular: str, plural: str, n: int) -> None:
        super().__init__(singular, n=n)
        self.plural = plural
        self.n = n

    def render(self, tr: Any, lang: str) -> str:
        """The form of this count in a language (its CLDR plural rule)."""
        return fill(tr.ngettext(self.template, self.plural, self.n), {"n": self.n}, lang)


class Lines:
    """Several phrases, one per line, each with its prefix (``"- "`` for a list item)."""

    __slots__ = ("items",)

    def __init__(self, items: Iterable[tuple[str, "Phrase | str"]]) -> None:
        self.items = list(items)

    def render(self, tr: Any, lang: str) -> str:
        """Every line in a language (see :meth:`Phrase.render`)."""
        return "\n".join(prefix + (item.render(tr, lang) if isinstance(item, Phrase) else str(item))
                         for prefix, item in self.items)

    def __str__(self) -> str:
        return self.render(ENGLISH, "en")


def localized(params: Mapping[str, Any], tr: Any, lang: str) -> dict[str, Any]:
    """``params`` with every :class:`Phrase` (:class:`Plural`) or :class:`Lines` rendered in ``lang``
    by ``tr`` (an object with ``gettext`` and ``ngettext``, such as Babel's translations)."""
    return {k: (v.render(tr, lang) if isinstance(v, (Phrase, Lines)) else v) for k, v in params.items()}


class DichotomyError(Exception):
    """Base of every error this package raises on purpose."""

    code: str = "error"

    def __init__(self, message: str, code: str | None = None, params: Mapping[str, Any] | None = None) -> None:
        """``message`` is English; with ``params`` it is a template with named ``{fields}``.

        Keeping the template and its parameters apart lets :mod:`dichotomy_widget.i18n` show the
        message in the reader's language; ``str(err)`` and :attr:`message` stay English.
        """
        self.template = str(message)
        self.params: dict[str, Any] = dict(params or {})
        if self.params:
            message = fill(self.template, self.params, "en")  # numbers as English writes them: 1,000,000
        super().__init__(message)
        if code is not None:
            self.code = code

    @property
    def message(self) -> str:
        """The human message in English, without the code."""
        return str(self.args[0]) if self.args else ""

    def to_dict(self) -> dict[str, str]:
        """JSON-ready form sent to the one seat that caused it."""
        return {"code": self.code, "message": self.message}


class RuleViolation(DichotomyError, ValueError):
    """An action the rules refuse; nothing changed."""

    code = "rule_violation"


class WrongPhase(RuleViolation):
    """The action does not fit the current phase of the game."""

    code = "wrong_phase"


class StaleAction(WrongPhase):
    """The click was made on a screen whose step of the game has since ended; nothing changed."""

    code = "stale_action"


class NotYourTurn(RuleViolation):
    """Another seat has to act first."""

    code = "not_your_turn"


class NotAllowed(RuleViolation):
    """This seat (or role) may not send that action."""

    code = "not_allowed"


class TeacherKeyRequired(NotAllowed):
    """Creating a table (or a class) needs the teacher key, and none or a wrong one was given."""

    code = "teacher_key_required"


class InvalidClue(RuleViolation):
    """A clue broke a clue rule; the writer keeps the turn."""

    code = "invalid_clue"


class InvalidGuess(RuleViolation):
    """A guess that cannot be judged (too long, control characters)."""

    code = "invalid_guess"


class InvalidAction(RuleViolation):
    """An action that is not well-formed JSON of a known type."""

    code = "invalid_action"


class TableFull(RuleViolation):
    """The table already has seven seats, or the game has started."""

    code = "table_full"


class NameTaken(RuleViolation):
    """Another seat already uses this name."""

    code = "name_taken"


class DeckError(DichotomyError, ValueError):
    """A deck file or deck object that cannot be played; the message names the line and problem.

    In IPython and Jupyter an uncaught ``DeckError`` shows its message alone, not a traceback through
    the parser: the message is all a teacher can act on.
    """

    code = "deck_error"

    def _render_traceback_(self) -> list[str]:
        """IPython's hook for an uncaught exception: the lines shown instead of a traceback."""
        first, *rest = self.message.splitlines() or [""]
        return [f"\x1b[0;31m{type(self).__name__}\x1b[0m: {first}", *rest]

    def _repr_pretty_(self, printer, cycle: bool) -> None:
        """``err`` as a cell's last line shows the message, as it would be raised."""
        printer.text(f"{type(self).__name__}: {self.message}")


class DeckWarning(UserWarning):
    """A deck loaded, but with a guess the teacher should confirm (its language, read from its words)."""


class StoreError(DichotomyError):
    """The table store failed (I/O, schema, corrupt record)."""

    code = "store_error"


class VersionConflict(StoreError):
    """Another writer appended first; reload and decide again."""

    code = "version_conflict"


class TableExists(StoreError):
    """A table with that code already exists; pick another code."""

    code = "table_exists"


class TableNotFound(DichotomyError, LookupError):
    """No table has that code."""

    code = "table_not_found"


class SeatNotFound(DichotomyError, LookupError):
    """No seat matches that token, index or name."""

    code = "seat_not_found"


class DependencyMissing(DichotomyError, RuntimeError):
    """A part of the installation is missing (a word list, a library): nothing is judged without it."""

    code = "dependency_missing"


class BotUnavailable(DichotomyError):
    """A bot cannot play here: no word-relation data for the table's language, or a bad bot level."""

    code = "bot_unavailable"


def where(err: BaseException) -> str:
    """``KeyError at table.py:201 (_execute)``: an exception's type and the line that raised it, for logs.

    The exception's message is left out on purpose: it may quote a word a seat must not see.
    """
    tb = err.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    if tb is None:
        return type(err).__name__
    code = tb.tb_frame.f_code
    return f"{type(err).__name__} at {code.co_filename.rsplit('/', 1)[-1]}:{tb.tb_lineno} ({code.co_name})"


class ClassNotFound(DichotomyError, LookupError):
    """No class has that code."""

    code = "class_not_found"


class SeatingError(RuleViolation):
    """A class seating change the rules refuse (a started table, a full table, too few students)."""

    code = "seating_error"


class PageRefused(DichotomyError):
    """``dichotomy serve`` will not start a kernel for this page request (see ``server/bounds.py``).

    ``code`` is ``"too_many_pages"`` (this device already holds its share of pages; HTTP 429),
    ``"server_full"`` (the server's kernel cap is reached; HTTP 503) or ``"page_replaced"`` (the same
    link was opened again on this device while this page's kernel started; HTTP 409).
    """

    code = "server_full"

    @property
    def status(self) -> int:
        """The HTTP status the refused page is sent with."""
        return {"too_many_pages": 429, "page_replaced": 409}.get(self.code, 503)


class HubIdentityError(DichotomyError):
    """A JupyterHub service page without a valid hub identity (missing or forged), or no usable secret."""

    code = "hub_identity"
