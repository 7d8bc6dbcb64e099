"""Whole games of bots on the rules core (no store, no kernel): for tests and ``bench/bots.py``.

Every move goes through :func:`rules.decide`, exactly as :meth:`Table.act` checks it, and every bot
decides from :func:`views.seat_view` of its own seat.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from .. import rules
from ..errors import RuleViolation
from ..events import SeatJoined, TableCreated
from ..options import TableOptions
from ..views import seat_view
from .bot import Bot

__all__ = ["Played", "new_game", "play"]


@dataclass
class Played:
    """What happened in one simulated game."""

    state: rules.GameState
    moves: int = 0
    refused: list = field(default_factory=list)  # (action type, error code)
    clues: int = 0  # clues written (not empty)
    cancelled: int = 0  # of those, eliminated by the purge
    empty: int = 0  # empty clues (a bot with nothing left to write)


def new_game(cards: list, seats: int, seed: int, rounds: int, lang: str = "en",
             fixed_guesser: bool = False) -> rules.GameState:
    """A started game state with ``seats`` seats named Bot0, Bot1, … over ``cards`` (lists of pairs)."""
    events: list[Any] = [TableCreated(seed=seed, lang=lang, deck_name="sim",
                                      cards=tuple(tuple(tuple(p) for p in c) for c in cards),
                                      options=TableOptions(rounds=rounds, fixed_guesser=fixed_guesser))]
    events += [SeatJoined(seat=i, name=f"Bot{i}", token_hash=f"h{i}") for i in range(seats)]
    state = rules.replay(events)
    return rules.replay(rules.decide(state, rules.parse_action(None, {"type": "start"})), state)


def play(state: rules.GameState, bots: Mapping[int, Bot], max_moves: int = 100_000,
         guesser: Callable[[dict[str, Any]], dict[str, Any] | None] | None = None) -> Played:
    """Play ``state`` to its end with ``bots`` in every seat (``guesser``: another decision function
    for the Guesser's views, such as a baseline). Stops early if no bot has a move."""
    played = Played(state)
    while state.phase != "over" and played.moves < max_moves:
        move = None
        for seat in state.order:
            if not rules.allowed_actions(state, seat):
                continue
            view = seat_view(state, seat)
            decide = guesser if guesser is not None and view["phase"] == "guess" and seat == state.guesser \
                else bots[seat].decide
            action = decide(view)
            if action is not None:
                move = (seat, action)
                break
        if move is None:
            break
        seat, action = move
        try:
            events = rules.decide(state, rules.parse_action(seat, action))
        except RuleViolation as err:
            played.refused.append((action["type"], err.code))
            fallback = {"type": "clue", "text": ""} if action["type"] == "clue" else {"type": "pass"}
            events = rules.decide(state, rules.parse_action(seat, fallback))
        if action["type"] == "clue":
            if action["text"]:
                played.clues += 1
            else:
                played.empty += 1
        for event in events:
            if event.type == "CluesPurged":
                played.cancelled += len(event.eliminated)  # type: ignore[attr-defined]
        state = rules.replay(events, state)
        played.moves += 1
    played.state = state
    return played
