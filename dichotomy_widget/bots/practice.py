"""Practice: one person guesses every round while bots write, and a personal recap afterwards.

A practice table lives in its own in-memory store, so nothing of it reaches a class's store or report.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..config import DEFAULT_ROUNDS
from ..decks import Deck, load_deck
from ..errors import BotUnavailable
from ..options import TableOptions
from ..words import normalize
from .driver import add_bot, check_playable
from .relations import RelationSource, default_source

if TYPE_CHECKING:
    from ..rules import GameState
    from ..table import SeatTicket, Table

__all__ = ["practice_table", "personal_recap", "BOT_NAMES"]

#: The names bots sit down with (the first ones that differ from the person's name).
BOT_NAMES = ("Robo", "Bip", "Zed", "Kit", "Nox", "Ula", "Vex")


def practice_table(deck: "str | Path | Deck" = "en", name: str = "You", bots: int = 2, level: int = 2,
                   rounds: int = DEFAULT_ROUNDS, lang: str | None = None,
                   pause: "float | tuple[float, float] | None" = None, seed: int | None = None,
                   source: RelationSource | None = None,
                   interface_lang: str | None = None,
                   options: TableOptions | None = None) -> "tuple[Table, SeatTicket]":
    """A started practice table: ``name`` guesses every round while ``bots`` (2 or 3) bots write.

    ``options`` (a :class:`TableOptions`; without it ``rounds`` and ``interface_lang`` make one) says
    how it plays; its rounds are capped at the deck's size and the first seat always guesses.
    :class:`BotUnavailable` when the deck's language has no word relations (nothing is created then).
    """
    from ..stores import MemoryStore
    from ..table import Table

    if bots not in (2, 3):
        raise BotUnavailable("A practice table has 2 or 3 bots.", code="bot_count")
    source = source or default_source()
    the_deck = load_deck(deck, lang=lang)
    check_playable(the_deck.lang, source, level)
    if options is None:
        options = TableOptions(rounds=rounds, interface_lang=interface_lang or "")
    options = replace(options, rounds=max(1, min(options.rounds, len(the_deck))), fixed_guesser=True)
    table = Table.create(deck=the_deck, options=options, store=MemoryStore(), seed=seed)
    me = table.join(name)
    taken = normalize(me.name)
    for bot_name in [n for n in BOT_NAMES if normalize(n) != taken][:bots]:
        add_bot(table, bot_name, level=level, pause=pause, source=source)
    table.start()
    return table, me


def personal_recap(state: "GameState", seat: int) -> dict[str, Any]:
    """What ``seat`` guessed in the resolved rounds: the words found and the words missed, each with
    the clues it was given (surviving ones; cancelled ones apart)."""
    found: list[dict[str, Any]] = []
    missed: list[dict[str, Any]] = []
    for record in state.history:
        if record.guesser != seat:
            continue
        given = sorted((c.text for c in record.clues if c.text and not c.eliminated), key=str.casefold)
        cancelled = sorted((c.text for c in record.clues if c.text and c.eliminated), key=str.casefold)
        row = {"round": record.number, "target": record.target, "foil": record.foil, "clues": given,
               "cancelled": cancelled, "guess": record.guess, "outcome": record.outcome}
        (found if record.outcome == "correct" else missed).append(row)
    return {"found": found, "missed": missed, "score": len(state.score_pile), "rounds": state.rounds,
            "over": state.phase == "over"}
