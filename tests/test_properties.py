"""Property-based playthroughs: thousands of random games of 3 to 7 seats, checked after every event.

After every event: cards are conserved; folding the event's JSON round-trip gives the same state
(replay equals state); no view holds a word its seat may not see yet; every action a view lists is
accepted by ``decide`` and every action it does not list is refused with a code that says why.
Every game ends. Refused actions change nothing.
"""

from __future__ import annotations

import json
import os
import random
from dataclasses import asdict

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dichotomy_widget import rules
from dichotomy_widget.errors import RuleViolation
from dichotomy_widget.events import GameStarted, SeatJoined, TableCreated, event_from_dict
from dichotomy_widget.options import TableOptions
from dichotomy_widget.stores.base import to_json
from dichotomy_widget.views import seat_view

#: Random games per property in CI (about a minute on a loaded two-core machine); a deeper search:
#: DICHOTOMY_PROPERTY_EXAMPLES=5000 python -m pytest tests/test_properties.py
EXAMPLES = int(os.environ.get("DICHOTOMY_PROPERTY_EXAMPLES", "400"))
POOL = ["poolamber", "poolcobalt"]  # shared clue words, to make clues cancel


def word(card: int, pair: int, side: str) -> str:
    return f"w{card:02d}{'tf'[side == 'f']}{pair}x"


def synthetic_cards(n: int) -> tuple:
    return tuple(tuple((word(c, p, "t"), word(c, p, "f")) for p in range(5)) for c in range(n))


def quoted(text: str) -> str:
    return json.dumps(text)


class Game:
    """A game driven through decide/evolve, checking invariants after each event."""

    def __init__(self, seats: int, rounds: int, seed: int, time_limit: float | None) -> None:
        self.state = rules.initial_state()
        self.mirror = rules.initial_state()  # folded from JSON round-tripped events
        self.events = []
        options = TableOptions(rounds=rounds, time_limit=time_limit,
                               recap_time=20.0 if time_limit else None)  # a timed table times its recaps too
        self.apply([TableCreated(seed=seed, lang="en", deck_name="synthetic",
                                 cards=synthetic_cards(rounds + 3), options=options)])  # a timed table times its recaps too
        for i in range(seats):
            self.apply([SeatJoined(seat=i, name=f"P{i}", token_hash=f"h{i}")])

    def apply(self, events) -> None:
        for event in events:
            self.state = rules.evolve(self.state, event)
            payload = json.loads(json.dumps(event.payload()))
            assert to_json(event.stored_payload(), "event") == to_json(event.payload(), "event")  # what stores write
            self.mirror = rules.evolve(self.mirror, event_from_dict(event.type, payload))
            self.events.append(event)
            self.check()

    def act(self, seat, action, now: float = 0.0) -> bool:
        before = asdict(self.state)  # a deep copy: a refusal must not have changed any field
        try:
            events = rules.decide(self.state, rules.parse_action(seat, action, now))
        except RuleViolation as err:
            assert asdict(self.state) == before
            assert err.code and err.message
            self.check_error(err)
            return False
        self.apply(events)
        return True

    # --- invariants -------------------------------------------------------------------------
    def check(self) -> None:
        s = self.state
        assert self.mirror == s
        if s.dealt:
            assert len(s.round_deck) + len(s.score_pile) + len(s.discard_pile) + s.in_play == s.dealt
        for seat in (None, *s.order):
            view = seat_view(s, seat)
            self.check_view(seat, json.dumps(view))
            self.check_actions(seat, view["actions"])

    def check_actions(self, seat, listed: list[str]) -> None:
        """A view lists exactly the actions ``decide`` accepts from that seat now (with valid arguments)."""
        s = self.state
        assert len(set(listed)) == len(listed)
        for kind in ALL_ACTIONS:
            now = s.turn_since  # the instant the view describes: a clue's time limit has not run out
            try:
                rules.decide(s, rules.parse_action(seat, valid_action(kind, s), now))
            except RuleViolation as err:
                assert kind not in listed, (seat, kind, s.phase, err.code)
                assert err.code in REFUSALS[kind], (seat, kind, s.phase, err.code)
            else:
                assert kind in listed, (seat, kind, s.phase)

    def hidden_words(self, seat) -> set[str]:
        """Words ``seat`` must not see in the current state."""
        s = self.state
        hidden: set[str] = set()
        if s.current is not None:
            locked = s.pair_index is not None and s.phase in ("clues", "guess")
            for i, (t, f) in enumerate(s.current):
                sees_card = s.drawer_can_pick and seat == s.drawer
                sees_pair = locked and i == s.pair_index and seat is not None and seat != s.guesser
                if not (sees_card or sees_pair):
                    hidden |= {t, f}
        if s.phase == "clues":
            mine = {c.text for c in s.clues if c.seat == seat}
            hidden |= {c.text for c in s.clues if c.text and c.seat != seat and c.text not in mine}
        if s.phase == "guess":
            survivors = {c.text for c in s.clues if c.text and not c.eliminated}
            mine = {c.text for c in s.clues if c.seat == seat}
            hidden |= {c.text for c in s.clues if c.text and c.eliminated} - survivors - mine
        return hidden

    def check_view(self, seat, text: str) -> None:
        for w in self.hidden_words(seat):
            assert quoted(w) not in text, (seat, self.state.phase, w)
        if self.state.phase == "guess" and seat in (None, self.state.guesser):
            view = json.loads(text)
            assert view["slate"] is None and view["recap"] is None
            assert all(isinstance(c, str) for c in view["clues"])

    def check_error(self, err: RuleViolation) -> None:
        s = self.state
        for w in (s.target, s.foil):
            if w:
                assert w not in err.message
        for c in s.clues:
            if c.text:
                assert c.text not in err.message


ALL_ACTIONS = ("start", "reorder", "remove", "pick", "random_pick", "clue", "timeout", "expire", "guess",
               "pass", "continue", "confirm_absent", "end")
_ACTOR = {"unknown_action", "host_only", "seat_only", "wrong_phase"}  # wrong sender or wrong phase
#: Why each action may be refused with valid arguments (written here, apart from the move table).
REFUSALS = {
    "start": _ACTOR | {"seat_count", "deck_too_small"},
    "reorder": _ACTOR | {"no_seats"},
    "remove": _ACTOR | {"no_seats"},
    "pick": _ACTOR | {"not_your_turn"},
    "random_pick": _ACTOR,
    "clue": _ACTOR | {"guesser_cannot_clue", "already_submitted", "not_your_turn"},
    "timeout": _ACTOR,
    "expire": _ACTOR | {"no_time_limit", "no_recap_time", "time_left"},
    "guess": _ACTOR | {"not_guesser"},
    "pass": _ACTOR | {"not_guesser"},
    "continue": _ACTOR | {"already_confirmed"},
    "confirm_absent": _ACTOR,
    "end": _ACTOR,
}


def valid_action(kind: str, s: rules.GameState) -> dict:
    """``kind`` with arguments the rules accept whenever the action itself is allowed."""
    action: dict = {"type": kind}
    if kind == "pick":
        action["pair"] = 1
    elif kind == "clue":
        action["text"] = "fresh"
    elif kind == "guess":
        action["text"] = "nothingmatches"
    elif kind == "reorder":
        action["order"] = list(reversed(s.order))
    elif kind == "remove":
        action["seat"] = s.order[0] if s.order else 0
    return action


def clue_text(rng: random.Random, s: rules.GameState) -> str:
    roll = rng.random()
    if roll < 0.08:
        return s.target
    if roll < 0.12:
        return s.foil.upper()
    if roll < 0.16:
        return "two words"
    if roll < 0.25:
        return ""
    if roll < 0.55:
        return rng.choice(POOL)
    return f"u{s.round}s{s.current_writer}{rng.randrange(1000)}z"


def guess_text(rng: random.Random, s: rules.GameState) -> str:
    return rng.choice([s.target, s.foil, "nothingmatches", "", s.target.upper()])


def play(seats: int, rounds: int, seed: int, rng: random.Random, time_limit: float | None) -> Game:
    game = Game(seats, rounds, seed, time_limit)
    assert game.act(None, {"type": "start"})
    assert isinstance(game.events[-1], GameStarted)
    clock = 1000.0
    for _ in range(rounds * (seats + 6) * 6):
        s = game.state
        if s.phase == "over":
            break
        clock += rng.choice([1.0, 5.0, 40.0])
        if rng.random() < 0.1:  # a stray action from anyone: may be refused, must never corrupt
            seat = rng.choice((None, *s.order))
            kind = rng.choice(["pick", "clue", "guess", "pass", "continue", "timeout", "confirm_absent",
                               "random_pick", "expire", "start"])
            text = rng.choice([f"stray{rng.randrange(1000)}q", "", "two words", "x" * 50])
            game.act(seat, {"type": kind, "pair": rng.randint(0, 6), "text": text}, clock)
            continue
        if rng.random() < 0.002:
            assert game.act(None, {"type": "end"})
            continue
        actors = [(seat, a) for seat in s.order for a in rules.allowed_actions(s, seat)]
        if rng.random() < 0.05 or not actors:
            host = [a for a in rules.allowed_actions(s, None) if a not in ("end", "reorder", "remove")]
            actors = [(None, a) for a in host]
        seat, kind = rng.choice(actors)
        action = {"type": kind}
        if kind == "pick":
            action["pair"] = rng.randint(1, 5)
        elif kind == "clue":
            action["text"] = clue_text(rng, s)
        elif kind == "guess":
            action["text"] = guess_text(rng, s)
        game.act(seat, action, clock)
    assert game.state.phase == "over", "the game did not end"
    assert rules.replay(game.events) == game.state
    return game


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seats=st.integers(3, 7), rounds=st.integers(1, 13), seed=st.integers(0, 2**32),
       choices=st.integers(0, 2**32), limited=st.booleans())
def test_random_games_keep_every_invariant(seats, rounds, seed, choices, limited):
    game = play(seats, rounds, seed, random.Random(choices), 30.0 if limited else None)
    s = game.state
    assert len(s.history) <= rounds
    assert len(s.score_pile) == (s.history[-1].score if s.history else 0)  # the last recap's score stands
