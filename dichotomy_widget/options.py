"""One value for a table's options: rounds, clue time limit, recap countdown, interface language, a
fixed Guesser.

A table and a class are created with a :class:`TableOptions` (checked here, once, against the deck);
their first event carries it as one nested value (``TableCreated.options``, ``ClassCreated.options``),
the state folded from that event holds the same value (``GameState.options``, ``ClassState.options``),
and a class hands it to every table it starts.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from .config import DEFAULT_ROUNDS, MAX_TIME_LIMIT, MIN_RECAP_TIME, MIN_TIME_LIMIT
from .decks import Deck
from .errors import DeckError, DichotomyError, Plural
from .i18n import INTERFACE_LANGUAGES, interface_language, normalize_language

__all__ = ["TableOptions", "LEADERS", "PlaysByOptions"]

#: Who may lead a table, as its screens name them: a host (a table of its own) or the class's teacher.
LEADERS = ("host", "teacher")


@dataclass(frozen=True)
class TableOptions:
    """How a table plays: ``rounds`` (cards dealt), ``time_limit`` (seconds per clue, None: none),
    ``interface_lang`` (its screens' language, "": the deck's), ``fixed_guesser`` (a practice table:
    the first seat guesses every round), ``recap_time`` (seconds a recap stays before the table
    continues for everyone still reading it; None: each player continues) and ``led_by`` (who leads the
    table, as its screens name them: ``"host"``, or ``"teacher"`` at a class's table)."""

    rounds: int = DEFAULT_ROUNDS
    time_limit: float | None = None
    interface_lang: str = ""
    fixed_guesser: bool = False
    recap_time: float | None = None
    led_by: str = "host"

    def checked(self, deck: Deck, per_table: bool = False) -> "TableOptions":
        """These options made sure for ``deck`` (a clear error otherwise): the time limit as float or
        None, the interface language normalised. ``per_table``: a class's options, whose rounds are
        "cards per table" in the messages."""
        if self.interface_lang and normalize_language(self.interface_lang) is None:
            raise DichotomyError("The interface speaks {languages}; {lang} is not one of them.",
                                 code="unknown_interface_language",
                                 params={"languages": ", ".join(INTERFACE_LANGUAGES),
                                         "lang": str(self.interface_lang)[:20]})
        rounds = self.rounds
        if isinstance(rounds, bool) or not isinstance(rounds, int) or rounds < 1:
            if per_table:
                raise DeckError("The number of cards per table must be a whole number of at least 1.",
                                code="invalid_rounds")
            raise DeckError("The number of rounds must be a whole number of at least 1.", code="invalid_rounds")
        if len(deck) < rounds:
            cards = Plural("{n} card", "{n} cards", len(deck))
            if per_table:
                raise DeckError("The deck “{deck}” has {cards}; {rounds} cards per table need at least {rounds}.",
                                code="deck_too_small", params={"deck": deck.name, "cards": cards, "rounds": rounds})
            raise DeckError("The deck “{deck}” has {cards}; a game of {rounds} rounds needs at least {rounds}. "
                            "Choose fewer rounds or a bigger deck.", code="deck_too_small",
                            params={"deck": deck.name, "cards": cards, "rounds": rounds})
        if self.time_limit is not None and not (MIN_TIME_LIMIT <= float(self.time_limit) <= MAX_TIME_LIMIT):
            raise DichotomyError("A clue time limit is between {least} and {most} seconds.",
                                 code="invalid_time_limit", params={"least": MIN_TIME_LIMIT, "most": MAX_TIME_LIMIT})
        if self.recap_time and not (MIN_RECAP_TIME <= float(self.recap_time) <= MAX_TIME_LIMIT):
            raise DichotomyError("A recap countdown is between {least} and {most} seconds.",
                                 code="invalid_recap_time", params={"least": MIN_RECAP_TIME, "most": MAX_TIME_LIMIT})
        if self.led_by not in LEADERS:
            raise DichotomyError("A table is led by {leaders}; {led_by} is not one of them.", code="invalid_led_by",
                                 params={"leaders": ", ".join(LEADERS), "led_by": str(self.led_by)[:20]})
        return replace(self, time_limit=float(self.time_limit) if self.time_limit else None,
                       recap_time=float(self.recap_time) if self.recap_time else None,
                       interface_lang=normalize_language(self.interface_lang) or "",
                       fixed_guesser=bool(self.fixed_guesser))


class PlaysByOptions:
    """For an aggregate whose state holds ``options`` and its deck's ``lang`` (a table, a class): the
    two properties its pages read, written once."""

    state: Any

    @property
    def options(self) -> TableOptions:
        """How this table plays, or how the tables of this class play (rounds, clue time limit,
        interface language, fixed Guesser, recap countdown)."""
        return self.state.options

    @property
    def interface_lang(self) -> str:
        """The language the screens speak (a class's tables too) unless a student switches their own."""
        return interface_language(self.state.interface_lang, self.state.lang)
