"""One error hierarchy with stable codes.

Every error carries a ``code`` (stable, machine-readable, safe to show) and a message written for a
student. Messages never contain hidden words of other seats: callers build them from what the acting
seat may already see.
"""

from __future__ import annotations

__all__ = [
    "DichotomyError",
    "RuleViolation",
    "WrongPhase",
    "NotYourTurn",
    "NotAllowed",
    "TeacherKeyRequired",
    "InvalidClue",
    "InvalidGuess",
    "InvalidAction",
    "TableFull",
    "NameTaken",
    "DeckError",
    "StoreError",
    "VersionConflict",
    "TableNotFound",
    "TableExists",
    "SeatNotFound",
    "PageRefused",
    "HubIdentityError",
]


class DichotomyError(Exception):
    """Base of every error this package raises on purpose."""

    code: str = "error"

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code

    @property
    def message(self) -> str:
        """The human message, without the code."""
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
    """A deck file or deck object that cannot be played; the message names the line and problem."""

    code = "deck_error"


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


class PageRefused(DichotomyError):
    """``dichotomy serve`` will not start a kernel for this page request (see ``ui/bounds.py``).

    ``code`` is ``"too_many_pages"`` (this device already holds its share of pages; HTTP 429) or
    ``"server_full"`` (the server's kernel cap is reached; HTTP 503).
    """

    code = "server_full"

    @property
    def status(self) -> int:
        """The HTTP status the refused page is sent with."""
        return 429 if self.code == "too_many_pages" else 503


class HubIdentityError(DichotomyError):
    """A JupyterHub service page without a valid hub identity (missing or forged), or no usable secret."""

    code = "hub_identity"
