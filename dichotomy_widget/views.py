"""Per-seat views: the only place hidden information is filtered.

``seat_view(state, seat)`` returns the JSON-ready dict that one seat's browser may receive;
``seat_view(state, None)`` is the public, projector-safe view (also the host's: the host never sees
hidden words). What each seat may see follows the table in SPEC.md:

- reveal: only the Drawer sees the card's five pairs;
- clues: Clue-Givers see the locked pair and their own slate; everyone sees who has submitted;
- guess: everyone sees the surviving clues, sorted, without authors; Clue-Givers also see the pair
  and whether their own clue survived;
- recap / over: everything about the resolved round; in a recap, ``next`` names the next round's
  Guesser and Drawer (the Drawer may already pick, while the others still read).

``deadline`` (epoch seconds, or None) is when the step in progress ends by itself: a writer's turn on a
table with a clue time limit, or a recap on a table with a recap countdown; a clock then sends
``expire``, which the engine checks.

The view also says what the screen shows: ``actions`` lists exactly the moves the engine accepts from
this seat now (from the move table in ``rules``), and ``limits`` the text and seat limits.

Its sentences (``status``, a recap's ``outcome_text`` and ``reason_text``, the final ``band``) are
written in the screen's interface language (``lang``, default English) through :mod:`.i18n`; every
other field is data, the same in every language.
"""

from __future__ import annotations

from typing import Any

from .config import LIMITS, MAX_SEATS, MIN_SEATS
from .i18n import N_, Translator, translator
from .rules import ClueResult, GameState, RoundRecord, allowed_actions, rank_band
from .words import REASON_TEXT

__all__ = ["seat_view", "stage", "OUTCOME_TEXT"]

# The headline of a recap. The penalties that really happened (a penalty card, a lost scored card)
# are flags of the recap (``penalty_discarded``, ``score_card_removed``), said once by the screen.
OUTCOME_TEXT = {
    "correct": N_("Right! The card goes on the score pile."),
    "wrong": N_("Not it. The card is discarded."),
    "foil": N_("That was the Foil! The card is discarded."),
    "pass": N_("Passed. The card is discarded, with no penalty."),
}


_PLAYING = ("reveal", "clues", "guess")  # the phases of a round in play: it has a Guesser and a Drawer


def _role(state: GameState, seat: int | None) -> str:
    if seat is None:
        return "host"
    if state.phase not in _PLAYING:  # a recap names the next round's roles in ``next``
        return "player"
    if seat == state.guesser:
        return "guesser"
    return "drawer" if seat == state.drawer else "writer"


def _clue_statuses(state: GameState) -> dict[int, str]:
    """Each Clue-Giver's mark while clues are written or guessed: submitted, timeout, writing, waiting."""
    if state.phase not in ("clues", "guess"):
        return {}
    done = {clue.seat: "timeout" if clue.text is None else "submitted" for clue in state.clues}
    writer = state.current_writer
    return {seat: done.get(seat) or ("writing" if seat == writer else "waiting") for seat in state.writers}


def _players(state: GameState, you: int | None) -> list[dict[str, Any]]:
    # A Guesser and a Drawer are marked while a round is played; a recap names the next ones in ``next``.
    playing = state.phase in _PLAYING
    guesser, drawer, writer = (state.guesser, state.drawer, state.current_writer) if playing else (None,) * 3
    marks = _clue_statuses(state)
    recap = state.phase == "recap"
    names = {s.id: s.name for s in state.seats}
    return [
        {
            "seat": sid,
            "name": names.get(sid, "?"),
            "you": sid == you,
            "guesser": sid == guesser,
            "drawer": sid == drawer,
            "turn": sid == writer,
            "clue": marks.get(sid, ""),
            "confirmed": recap and sid in state.confirmed,
        }
        for sid in state.order
    ]


def _pick_status(state: GameState, seat: int | None, tr: Translator) -> str:
    if seat == state.drawer:
        return tr.gettext("Pick a pair for this round.")
    return tr.gettext("{name} is picking a pair…", name=state.name(state.drawer))


def _status(state: GameState, seat: int | None, tr: Translator) -> str:
    """One line saying what the table is waiting for, for the waiting state and live region."""
    name, phase = state.name, state.phase
    if phase == "lobby":
        return tr.ngettext("Waiting for players: {n} has joined ({least} to {most} can play).",
                           "Waiting for players: {n} have joined ({least} to {most} can play).",
                           len(state.seats), least=MIN_SEATS, most=MAX_SEATS)
    if phase == "reveal":
        return _pick_status(state, seat, tr)
    if phase == "clues":
        writer = state.current_writer
        if seat == writer:
            return tr.gettext("Your turn: write one clue.")
        return tr.gettext("{name} is writing a clue…", name=name(writer))
    if phase == "guess":
        if seat == state.guesser:
            return tr.gettext("Your turn to guess.")
        return tr.gettext("{name} is guessing…", name=name(state.guesser))
    if phase == "recap":
        if seat is None or seat not in state.confirmed:
            return tr.gettext("Round over: read the recap, then Continue.")
        if state.current is not None:  # this seat has read the recap: it waits for the next round's pick
            return _pick_status(state, seat, tr)
        waiting = [name(s) for s in state.order if s not in state.confirmed]
        return tr.gettext("Waiting for {names} to continue…", names=", ".join(waiting))
    if state.ended_by_host:
        return tr.gettext("The host ended the game.")
    return tr.gettext("Game over.")


def _reason_text(reason: str | None, tr: Translator) -> str:
    """Why two words counted as one ("a form of the same word"), in the screen's language."""
    return tr.gettext(REASON_TEXT[reason]) if reason in REASON_TEXT else ""


def _clue_json(state: GameState, clue: ClueResult, tr: Translator) -> dict[str, Any]:
    return {
        "seat": clue.seat,
        "author": state.name(clue.seat),
        "text": clue.text,
        "timeout": clue.text is None,
        "cause": clue.cause,
        "eliminated": clue.eliminated,
        "reason": clue.reason,
        "reason_text": _reason_text(clue.reason, tr),
        "matched": [state.name(s) for s in clue.matched],
    }


def recap_json(state: GameState, record: RoundRecord, tr: Translator | None = None) -> dict[str, Any]:
    """Everything about a resolved round, as the recap shows it (sentences in ``tr``'s language)."""
    tr = tr or translator("en")
    return {
        "round": record.number,
        "guesser": state.name(record.guesser),
        "drawer": state.name(record.drawer),
        "pair_number": record.pair_number,
        "target": record.target,
        "foil": record.foil,
        "clues": [_clue_json(state, c, tr) for c in record.clues],
        "guess": record.guess,
        "passed": record.outcome == "pass",
        "cause": record.cause,
        "outcome": record.outcome,
        "outcome_text": tr.gettext(OUTCOME_TEXT[record.outcome]),
        "reason": record.reason,
        "reason_text": _reason_text(record.reason, tr),
        "penalty_discarded": record.penalty_discarded,
        "score_card_removed": record.score_card_removed,
        "score": record.score,
        "discard": record.discard,
        "deck_left": record.deck_left,
    }


def _next_round(state: GameState) -> dict[str, Any] | None:
    """In a recap: the next round's number, Guesser and Drawer, and the cards left after its card."""
    if state.phase != "recap" or state.current is None:
        return None
    return {"round": state.round + 1,
            "guesser": {"seat": state.guesser, "name": state.name(state.guesser)},
            "drawer": {"seat": state.drawer, "name": state.name(state.drawer)},
            "cards_left": len(state.round_deck)}


def _history(state: GameState) -> list[dict[str, Any]]:
    return [
        {"round": r.number, "guesser": state.name(r.guesser), "target": r.target, "foil": r.foil,
         "guess": r.guess, "outcome": r.outcome, "score": r.score}
        for r in state.history
    ]


def _cards_left(state: GameState) -> int:
    """Cards not yet played: in a recap the next round's card (already drawn) still counts."""
    return len(state.round_deck) + (1 if state.phase == "recap" and state.current is not None else 0)


def _surviving(state: GameState) -> list[str]:
    words = [c.text for c in state.clues if c.text is not None and not c.eliminated]
    return sorted(words, key=lambda w: (w.casefold(), w))


def seat_view(state: GameState, seat: int | None, lang: str = "en") -> dict[str, Any]:
    """The JSON-ready view for ``seat`` (``None``: public projector / host view), its sentences in
    the interface language ``lang``."""
    tr = translator(lang)
    phase = state.phase
    giver = seat is not None and seat != state.guesser and phase in ("clues", "guess")
    view: dict[str, Any] = {
        "phase": phase,
        "round": state.round,
        "rounds": state.rounds,
        "score": len(state.score_pile),
        "discard": len(state.discard_pile),
        "deck_left": _cards_left(state),
        "lang": state.lang,
        "led_by": state.options.led_by,
        "deck": state.deck_name,
        "you": None if seat is None else {"seat": seat, "name": state.name(seat), "role": _role(state, seat)},
        "players": _players(state, seat),
        "turn": state.current_writer,
        "status": _status(state, seat, tr),
        "actions": allowed_actions(state, seat),
        "card": None,
        "pair": None,
        "slate": None,
        "clues": None,
        "recap": None,
        "history": _history(state),
        "final": None,
        "next": _next_round(state),
        "limits": dict(LIMITS),
        "deadline": None,
        "version": state.version,
    }
    if state.drawer_can_pick and seat is not None and seat == state.drawer:
        view["card"] = [{"number": i + 1, "target": t, "foil": f} for i, (t, f) in enumerate(state.current)]
    if giver:
        view["pair"] = {"number": state.pair_index + 1, "target": state.target, "foil": state.foil}
        mine = next((c for c in state.clues if c.seat == seat), None)
        if mine is not None:
            view["slate"] = {"text": mine.text, "timeout": mine.text is None,
                             "eliminated": phase == "guess" and mine.eliminated}
    if phase == "guess":
        view["clues"] = _surviving(state)
    if phase == "clues" and state.time_limit:
        view["deadline"] = state.turn_since + state.time_limit
    elif phase == "recap" and state.recap_time:  # the recap countdown: then the engine continues for all
        view["deadline"] = state.recap_since + state.recap_time
    if phase in ("recap", "over") and state.recap is not None:
        view["recap"] = recap_json(state, state.recap, tr)
    if phase == "over":
        view["final"] = {"score": len(state.score_pile), "rounds": state.rounds,
                         "band": tr.gettext(rank_band(len(state.score_pile), state.rounds)),
                         "ended_by_host": state.ended_by_host, "ladder": _ladder(state.rounds, tr)}
    return view


def _ladder(rounds: int, tr: Translator) -> list[dict[str, Any]]:
    """The rank bands this deck length can reach, lowest first: each band's label and lowest score."""
    steps: list[dict[str, Any]] = []
    for score in range(max(rounds, 0) + 1):
        band = rank_band(score, rounds)
        if not steps or steps[-1]["key"] != band:
            steps.append({"key": band, "band": tr.gettext(band), "from": score})
    return [{"band": s["band"], "from": s["from"]} for s in steps]


def stage(state: GameState) -> str:
    """Which step of the game is asking for input: it changes when a phase ends, a round starts or a
    clue is written, and stays while seats press Continue or the Drawer picks during the recap.

    A browser sends the ``stage`` of the view it acted on; an intent made against an ended stage is
    refused (a double-clicked Guess, a Continue pressed twice), see :meth:`Table.act`.
    """
    if state.phase == "clues":
        return f"{state.round}:clues:{len(state.clues)}"
    if state.phase in ("lobby", "over"):
        return state.phase
    return f"{state.round}:{state.phase}"
