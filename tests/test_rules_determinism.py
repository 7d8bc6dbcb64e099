"""Same seed, same game: the deal a seed makes, and whole seeded games whose event streams keep their
invariants (each event's stored payload reads back as the same payload, the replayed stream the same state,
the legal moves those a fresh state works out, the purge every pair of clues judged by the matcher)."""

from __future__ import annotations

import random
import pytest

from dichotomy_widget import rules, words
from dichotomy_widget.errors import RuleViolation
from dichotomy_widget.events import GameStarted, SeatJoined, TableCreated, event_from_dict
from dichotomy_widget.options import TableOptions
from game_helpers import WORDS, fresh_legal_moves, word_deck

CARDS = tuple(tuple(map(tuple, c.to_json())) for c in word_deck().cards)  # as a stored event reads back
CLUES = ["river", "rivers", "anchor", "lake", "velvet", "", "anchors", "lantern"]


def _lobby(seed: int, seats: int, rounds: int, fixed_guesser: bool = False) -> list:
    options = TableOptions(rounds=rounds, fixed_guesser=fixed_guesser)
    return [TableCreated(seed=seed, lang="en", deck_name="t", cards=CARDS, options=options),
            *(SeatJoined(seat=i, name=f"P{i}", token_hash="") for i in range(seats))]


def _deal(seed: int, seats: int, rounds: int, fixed_guesser: bool = False) -> GameStarted:
    state = rules.replay(_lobby(seed, seats, rounds, fixed_guesser))
    (started,) = rules.decide(state, rules.parse_action(None, {"type": "start"}))
    return started


@pytest.mark.parametrize("seed", range(200))
def test_a_seed_deals_what_random_shuffle_of_the_deck_deals(seed: int) -> None:
    """The round deck is the first ``rounds`` cards of ``random.Random(seed).shuffle`` of the deck, and
    the first Guesser the same generator's next ``randrange`` over the seats."""
    seats, rounds = 3 + seed % 5, 1 + seed % len(CARDS)
    rng = random.Random(seed)
    cards = list(CARDS)
    rng.shuffle(cards)
    started = _deal(seed, seats, rounds)
    assert started.round_deck == tuple(cards[:rounds])
    assert started.first_guesser == rng.randrange(seats)
    assert _deal(seed, seats, rounds, fixed_guesser=True).first_guesser == 0


@pytest.mark.parametrize(("seed", "targets", "first"), [
    (0, ["horse", "camera", "apple", "wolf", "tiger", "desert", "island"], 2),
    (2026, ["river", "forest", "island", "tiger", "camera", "desert", "horse"], 4),
    (987654321, ["wolf", "whale", "desert", "apple", "river", "horse", "tiger"], 4),
])
def test_a_seed_deals_the_cards_it_always_dealt(seed: int, targets: list, first: int) -> None:
    """Pinned from release code before the deal was reworked (five seats, seven rounds)."""
    started = _deal(seed, 5, 7)
    assert [card[0][0] for card in started.round_deck] == targets
    assert started.first_guesser == first
    assert all(card in {tuple(WORDS[i:i + 5]) for i in range(0, len(WORDS), 5)} for card in started.round_deck)


def _purge_by_pairs(clues: tuple) -> list:
    """:func:`rules.purge` worked out with one :func:`words.variant_reason` per pair."""
    written = [c for c in clues if c.text is not None]
    rows = []
    for c in written:
        matches = [o for o in written if o is not c and words.variant_reason(c.text, o.text, "en") is not None]
        if matches:
            first = min(matches, key=written.index)  # the reason of its first match in (earlier, later) order
            pair = (c, first) if written.index(c) < written.index(first) else (first, c)
            why = words.variant_reason(pair[0].text, pair[1].text, "en")
            rows.append((c.seat, why, tuple(o.seat for o in matches)))
    return rows


def _play(seed: int) -> list:
    """A seeded random game (seats pick among the legal moves; now and then the host acts), checking
    each state's legal moves and each purge on the way; returns its events."""
    rng = random.Random(seed)
    events = _lobby(seed, 3 + seed % 5, 1 + seed % len(CARDS), fixed_guesser=seed % 13 == 0)
    state = rules.replay(events)
    new = rules.decide(state, rules.parse_action(None, {"type": "start"}))
    while True:
        events += new
        for event in new:
            state = rules.evolve(state, event)
            if isinstance(event, rules.CluesPurged):
                assert [(r[0], r[1], tuple(r[2])) for r in event.eliminated] == _purge_by_pairs(state.clues)
        if state.phase == "over":
            return events
        moves = rules.legal_moves(state)
        assert moves == fresh_legal_moves(state)
        seat, kind = rng.choice(moves)
        if rng.random() < 0.03:
            seat, kind = None, rng.choice(["random_pick", "timeout", "confirm_absent"])
        action = {"type": kind, "pair": rng.randint(1, 5), "text": rng.choice(CLUES + [state.target, state.foil])}
        try:
            new = rules.decide(state, rules.parse_action(seat, action))
        except RuleViolation:
            new = []


@pytest.mark.parametrize("seed", range(200))
def test_seeded_games_keep_their_event_stream_invariants(seed: int) -> None:
    """Every event's stored payload reads back as the same payload, and replaying the stream from scratch
    gives the state the game reached."""
    events = _play(seed)
    assert [type(e) for e in events].count(GameStarted) == 1
    for event in events:
        assert event_from_dict(event.type, event.payload()).payload() == event.payload()
    replayed = rules.replay([event_from_dict(e.type, e.payload()) for e in events])
    state = rules.replay(events)
    assert replayed.phase == state.phase == "over"
    assert (replayed.history, replayed.score_pile, replayed.discard_pile) == \
        (state.history, state.score_pile, state.discard_pile)
