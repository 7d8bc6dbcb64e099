"""One test (or a few) per rule row of SPEC.md, each playing the situation and checking piles, seats and views."""

from __future__ import annotations

import json

import pytest

from dichotomy_widget import Table
from dichotomy_widget.errors import (DeckError, DichotomyError, InvalidClue, InvalidGuess, NameTaken, NotAllowed,
                                     NotYourTurn, RuleViolation, TableFull, WrongPhase)
from dichotomy_widget.rules import left_of, rank_band, writer_order
from game_helpers import (confirm_all, fresh_legal_moves, fresh_state, guess, lock, new_game, play_round,
                          unique_clues, word_deck, write)


def piles(table: Table) -> tuple[int, int, int, int]:
    s = table.state
    return len(s.round_deck), len(s.score_pile), len(s.discard_pile), s.in_play


# --- Table and seats -------------------------------------------------------------------------
def test_three_to_seven_seats():
    table = Table.create(deck=word_deck(), seed=1, rounds=5)
    table.join("A")
    table.join("B")
    with pytest.raises(RuleViolation) as err:
        table.start()
    assert err.value.code == "seat_count"
    assert table.state.phase == "lobby"
    for name in "CDEFG":
        table.join(name)
    with pytest.raises(TableFull):
        table.join("H")
    assert len(table.state.seats) == 7
    table.start()
    assert table.state.phase == "reveal"


def test_join_refuses_duplicate_names_and_late_joiners():
    table = Table.create(deck=word_deck(), seed=1, rounds=5)
    table.join("Ada")
    with pytest.raises(NameTaken):
        table.join("  ada ")
    table.join("Ben")
    table.join("Cy")
    table.start()
    with pytest.raises(TableFull) as err:
        table.join("Dee")
    assert err.value.code == "game_started"
    assert len(table.state.seats) == 3


def test_left_is_next_clockwise_and_host_can_reorder():
    assert left_of((0, 1, 2), 2) == 0
    assert writer_order((0, 1, 2, 3), 1) == (2, 3, 0)
    table = Table.create(deck=word_deck(), seed=1, rounds=5)
    for name in "ABC":
        table.join(name)
    table.act(None, {"type": "reorder", "order": [2, 0, 1]})
    assert table.state.order == (2, 0, 1)
    assert [p["name"] for p in table.view(None)["players"]] == ["C", "A", "B"]
    with pytest.raises(RuleViolation):
        table.act(None, {"type": "reorder", "order": [0, 0, 1]})


def test_every_view_shows_who_guesses():
    table, _ = new_game(4)
    for seat in (None, *table.state.order):
        marked = [p["seat"] for p in table.view(seat)["players"] if p["guesser"]]
        assert marked == [table.state.guesser]


# --- Setup -----------------------------------------------------------------------------------
def test_deal_is_seeded_and_recorded():
    a, _ = new_game(3, rounds=5, seed=11)
    b, _ = new_game(3, rounds=5, seed=11)
    c, _ = new_game(3, rounds=5, seed=12345)
    assert a.state.current == b.state.current and a.state.round_deck == b.state.round_deck
    assert a.state.guesser == b.state.guesser
    assert (c.state.current, c.state.round_deck) != (a.state.current, a.state.round_deck)
    assert piles(a) == (4, 0, 0, 1)  # 5 dealt: 1 drawn, 4 left
    assert a.state.dealt == 5
    started = [e for e in a.events if e.type == "GameStarted"][0]
    assert len(started.round_deck) == 5


def test_default_round_deck_is_thirteen_and_small_decks_are_refused():
    table = Table.create(deck=word_deck(), seed=1, rounds=10)
    assert table.state.rounds == 10
    with pytest.raises(DeckError) as err:
        Table.create(deck=word_deck(), seed=1)  # 13 rounds, 10 cards
    assert err.value.code == "deck_too_small"
    assert "10 cards" in err.value.message


def test_first_guesser_comes_from_the_seed():
    guessers = {new_game(5, seed=s)[0].state.guesser for s in range(30)}
    assert len(guessers) > 1  # not always the first seat
    assert new_game(5, seed=4)[0].state.guesser == new_game(5, seed=4)[0].state.guesser


# --- Reveal ----------------------------------------------------------------------------------
def test_only_the_drawer_sees_and_picks_the_card():
    table, _ = new_game(4)
    s = table.state
    assert s.drawer == left_of(s.order, s.guesser)
    card_words = [w for pair in s.current for w in pair]
    for seat in (None, *s.order):
        text = json.dumps(table.view(seat))
        if seat == s.drawer:
            assert all(w in text for w in card_words)
            assert table.view(seat)["actions"] == ["pick"]
        else:
            assert not any(w in text for w in card_words)
    other = next(x for x in s.order if x != s.drawer)
    with pytest.raises(NotYourTurn):
        table.act(other, {"type": "pick", "pair": 2})
    with pytest.raises(RuleViolation) as err:
        table.act(s.drawer, {"type": "pick", "pair": 6})
    assert err.value.code == "invalid_pair"
    assert table.state.phase == "reveal"


def test_after_the_lock_givers_see_only_the_locked_pair():
    table, _ = new_game(4)
    card = table.state.current
    lock(table, 3)
    s = table.state
    assert (s.target, s.foil) == card[2]
    others = [w for i, pair in enumerate(card) if i != 2 for w in pair]
    for seat in s.order:
        view = table.view(seat)
        text = json.dumps(view)
        assert not any(w in text for w in others)
        if seat == s.guesser:
            assert view["pair"] is None and s.target not in text and s.foil not in text
        else:
            assert view["pair"] == {"number": 3, "target": s.target, "foil": s.foil}
    assert s.target not in json.dumps(table.view(None))


# --- Clue writing ----------------------------------------------------------------------------
def test_clues_go_clockwise_from_the_drawer_skipping_the_guesser():
    table, _ = new_game(5)
    lock(table)
    s = table.state
    expected = writer_order(s.order, s.guesser)
    assert expected[0] == s.drawer and s.guesser not in expected
    seen = []
    for text in unique_clues(table):
        writer = table.state.current_writer
        seen.append(writer)
        late = [w for w in expected if w != writer and w not in seen]
        if late:
            with pytest.raises(NotYourTurn):
                table.act(late[0], {"type": "clue", "text": "early"})
        table.act(writer, {"type": "clue", "text": text})
    assert tuple(seen) == expected
    assert table.state.phase == "guess"


def test_guesser_cannot_write_a_clue():
    table, _ = new_game(3)
    lock(table)
    with pytest.raises(NotAllowed):
        table.act(table.state.guesser, {"type": "clue", "text": "hint"})


@pytest.mark.parametrize("text, code", [
    ("two words", "clue_not_one_word"),
    ("tab\there", "clue_not_one_word"),
    ("x" * 41, "clue_too_long"),
    ("y" * 10_000, "clue_too_long"),
    ("bell\x07", "clue_control_character"),
])
def test_malformed_clues_are_refused_and_keep_the_turn(text, code):
    table, _ = new_game(3)
    lock(table)
    writer, before = table.state.current_writer, len(table.events)
    with pytest.raises(InvalidClue) as err:
        table.act(writer, {"type": "clue", "text": text})
    assert err.value.code == code
    assert table.state.current_writer == writer and len(table.events) == before


@pytest.mark.parametrize("text", ["007", "SMS", "$5", "<b>bold</b>", "  padded  "])
def test_digits_acronyms_symbols_and_markup_are_words(text):
    table, _ = new_game(3)
    lock(table)
    writer = table.state.current_writer
    table.act(writer, {"type": "clue", "text": text})
    assert table.view(writer)["slate"]["text"] == text.strip()


@pytest.mark.parametrize("which, transform, code", [
    ("target", str.upper, "clue_matches_target"),
    ("target", lambda w: w + "s", "clue_matches_target"),
    ("foil", lambda w: " " + w.capitalize() + " ", "clue_matches_foil"),
    ("foil", lambda w: w + "s", "clue_matches_foil"),
])
def test_clue_that_is_target_or_foil_or_variant_is_refused(which, transform, code):
    table, _ = new_game(3)
    lock(table)  # pair 1 of the first card
    s = table.state
    word = s.target if which == "target" else s.foil
    writer, before = s.current_writer, len(table.events)
    view_before = table.view(s.guesser)
    with pytest.raises(InvalidClue) as err:
        table.act(writer, {"type": "clue", "text": transform(word)})
    assert err.value.code == code
    assert word not in err.value.message and transform(word).strip() not in err.value.message
    assert table.state.current_writer == writer
    assert len(table.events) == before  # nothing stored
    assert table.view(s.guesser) == view_before  # nothing shown
    table.act(writer, {"type": "clue", "text": "zebra"})
    assert table.state.current_writer != writer


def test_empty_submit_is_a_timeout():
    table, _ = new_game(3)
    lock(table)
    writer = table.state.current_writer
    table.act(writer, {"type": "clue", "text": "   "})
    assert table.state.clues[0].text is None and table.state.clues[0].cause == "empty"
    player = next(p for p in table.view(None)["players"] if p["seat"] == writer)
    assert player["clue"] == "timeout"


def test_while_one_writes_others_see_only_who_submitted():
    table, _ = new_game(4)
    lock(table)
    first = table.state.current_writer
    table.act(first, {"type": "clue", "text": "zebra"})
    for seat in (None, *table.state.order):
        view = table.view(seat)
        marks = {p["seat"]: p["clue"] for p in view["players"]}
        assert marks[first] == "submitted"
        assert marks[table.state.current_writer] == "writing"
        if seat != first:
            assert "zebra" not in json.dumps(view)
    assert table.view(first)["slate"]["text"] == "zebra"


def test_time_limit_records_a_timeout_only_when_it_runs_out():
    table, _ = new_game(3, time_limit=30)
    table.act(table.state.drawer, {"type": "pick", "pair": 1}, now=1000.0)
    writer = table.state.current_writer
    assert table.view(writer)["deadline"] == 1030.0
    with pytest.raises(RuleViolation) as err:
        table.act(writer, {"type": "expire"}, now=1010.0)
    assert err.value.code == "time_left"
    assert table.tick(now=1010.0) is False
    assert table.tick(now=1031.0) is True
    assert table.state.clues[0].seat == writer and table.state.clues[0].cause == "time_limit"


def test_no_time_limit_by_default():
    table, _ = new_game(3)
    lock(table)
    assert table.view(None)["deadline"] is None
    assert table.tick(now=10**12) is False


def test_recap_countdown_continues_for_every_reader_only_when_it_ends():
    table, _ = new_game(4, recap_time=20)
    lock(table)
    write(table, unique_clues(table))
    table.act(table.state.guesser, {"type": "guess", "text": "saxophone"}, now=2000.0)
    assert table.state.phase == "recap"
    first, *others = table.state.order
    table.act(first, {"type": "continue"})
    for seat in (None, *table.state.order):  # every screen sees the same countdown
        assert table.view(seat)["deadline"] == 2020.0
    assert "expire" not in table.view(others[0])["actions"]  # a clock sends it, never a button
    with pytest.raises(RuleViolation) as err:
        table.act(others[0], {"type": "expire"}, now=2019.0)
    assert err.value.code == "time_left"
    assert table.tick(now=2019.5) is False and table.state.phase == "recap"
    assert table.tick(now=2020.0) is True
    assert table.state.phase == "reveal" and table.state.round == 2
    confirmed = table.events[-1]
    assert confirmed.timed and not confirmed.by_host and sorted(confirmed.seats) == sorted(others)
    assert table.view(None)["deadline"] is None
    with pytest.raises(WrongPhase):  # a second clock (another kernel, a seat's browser) is refused
        table.act(others[0], {"type": "expire"}, now=2021.0)


def test_no_recap_countdown_by_default_and_a_bad_one_is_refused():
    table, _ = new_game(3)
    lock(table)
    write(table, unique_clues(table))
    guess(table, "saxophone")
    assert table.state.phase == "recap" and table.view(None)["deadline"] is None
    with pytest.raises(NotAllowed) as err:
        table.act(table.state.order[0], {"type": "expire"}, now=10**12)
    assert err.value.code == "no_recap_time"
    assert table.tick(now=10**12) is False and table.state.phase == "recap"
    with pytest.raises(DichotomyError) as err:
        Table.create(deck=word_deck(), rounds=3, recap_time=2)
    assert err.value.code == "invalid_recap_time"


# --- Purge -----------------------------------------------------------------------------------
def test_matching_clues_and_variants_are_eliminated_in_groups():
    table, _ = new_game(6)
    lock(table)
    write(table, ["zebra", "Zebras", "anchor", "", "meadow"])
    s = table.state
    fate = {c.text: c.eliminated for c in s.clues}
    assert fate == {"zebra": True, "Zebras": True, "anchor": False, None: False, "meadow": False}
    assert table.view(s.guesser)["clues"] == ["anchor", "meadow"]
    zebra = next(c for c in s.clues if c.text == "zebra")
    assert zebra.reason in ("inflection", "same") and len(zebra.matched) == 1


def test_every_clue_can_be_eliminated():
    table, _ = new_game(4)
    lock(table)
    write(table, ["zebra", "ZEBRA", "zebra"])
    assert all(c.eliminated for c in table.state.clues)
    assert table.view(table.state.guesser)["clues"] == []
    assert table.view(table.state.guesser)["actions"] == ["guess", "pass"]


def test_guesser_sees_surviving_clues_sorted_without_authors():
    table, _ = new_game(5)
    lock(table)
    write(table, ["velvet", "anchor", "Meadow", "compass"])
    view = table.view(table.state.guesser)
    assert view["clues"] == ["anchor", "compass", "Meadow", "velvet"]
    assert all(not p["you"] or p["guesser"] for p in view["players"])
    assert view["recap"] is None and view["slate"] is None
    giver = table.state.writers[0]
    assert table.view(giver)["slate"] == {"text": "velvet", "timeout": False, "eliminated": False}


# --- Guess and outcomes ----------------------------------------------------------------------
def test_target_scores_the_card():
    table, _ = new_game(3, rounds=5)
    lock(table)
    write(table, unique_clues(table))
    guess(table, table.state.target.upper() + "S")  # a variant of the Target
    assert piles(table) == (3, 1, 0, 1)  # next card already drawn for the next round
    assert table.view(None)["recap"]["outcome"] == "correct"


def test_wrong_word_discards_card_and_a_penalty_card():
    table, _ = new_game(3, rounds=5)
    lock(table)
    write(table, unique_clues(table))
    guess(table, "saxophone")
    assert piles(table) == (2, 0, 2, 1)
    recap = table.view(None)["recap"]
    assert recap["outcome"] == "wrong" and recap["penalty_discarded"] is True


def test_foil_costs_a_scored_card_too():
    table, _ = new_game(3, rounds=6)
    play_round(table, "correct")
    assert piles(table) == (4, 1, 0, 1)
    lock(table)
    write(table, unique_clues(table))
    guess(table, table.state.foil)
    assert piles(table) == (2, 0, 3, 1)
    recap = table.view(None)["recap"]
    assert recap["outcome"] == "foil" and recap["score_card_removed"] is True and recap["score"] == 0
    # the headline names the outcome; the two penalties are said once, by their flags
    assert recap["outcome_text"] == "That was the Foil! The card is discarded."
    assert recap["penalty_discarded"] is True


def test_foil_with_an_empty_score_pile_skips_that_penalty():
    table, _ = new_game(3, rounds=5)
    lock(table)
    write(table, unique_clues(table))
    guess(table, table.state.foil)
    assert piles(table) == (2, 0, 2, 1)
    assert table.view(None)["recap"]["score_card_removed"] is False


def test_penalty_with_an_empty_deck_is_skipped():
    table, _ = new_game(3, rounds=1)
    assert piles(table) == (0, 0, 0, 1)
    lock(table)
    write(table, unique_clues(table))
    guess(table, "saxophone")
    assert piles(table) == (0, 0, 1, 0)
    assert table.view(None)["recap"]["penalty_discarded"] is False


@pytest.mark.parametrize("action", [{"type": "pass"}, {"type": "guess", "text": "  "}])
def test_pass_and_empty_guess_discard_without_penalty(action):
    table, _ = new_game(3, rounds=5)
    lock(table)
    write(table, unique_clues(table))
    table.act(table.state.guesser, action)
    assert piles(table) == (3, 0, 1, 1)
    recap = table.view(None)["recap"]
    assert recap["outcome"] == "pass" and recap["passed"] is True and recap["guess"] is None


def test_only_the_guesser_guesses_and_long_guesses_are_refused():
    table, _ = new_game(3)
    lock(table)
    write(table, unique_clues(table))
    with pytest.raises(NotAllowed):
        table.act(table.state.writers[0], {"type": "guess", "text": "river"})
    with pytest.raises(InvalidGuess):
        guess(table, "z" * 10_000)
    assert table.state.phase == "guess"


# --- Resolution, recap and the next pair ------------------------------------------------------
def test_token_passes_left_and_everyone_sees_the_full_recap():
    table, _ = new_game(4, rounds=5)
    old = table.state.guesser
    lock(table)
    s = table.state
    target, foil = s.target, s.foil
    write(table, ["zebra", "zebras", "", ][: len(s.writers)])
    guess(table, "saxophone")
    assert table.state.guesser == left_of(table.state.order, old)
    for seat in (None, *table.state.order):
        recap = table.view(seat)["recap"]
        assert recap["target"] == target and recap["foil"] == foil
        assert recap["guess"] == "saxophone" and recap["guesser"] == f"P{old}"
        assert [(c["author"], c["text"], c["eliminated"], c["timeout"]) for c in recap["clues"]] == [
            (f"P{w}", t, e, t is None) for w, t, e in zip(s.writers, ["zebra", "zebras", None], [True, True, False])]


def test_continue_is_per_seat_and_closes_the_recap_when_all_confirm():
    table, _ = new_game(3, rounds=5)
    lock(table)
    write(table, unique_clues(table))
    guess(table, "")
    first = table.state.order[0]
    table.act(first, {"type": "continue"})
    assert table.state.phase == "recap"
    mine = table.view(first)  # this seat has read the recap: it waits for the next round's pick
    assert mine["phase"] == "recap" and mine["next"]["round"] == 2
    assert (mine["next"]["guesser"]["seat"], mine["next"]["drawer"]["seat"]) == (table.state.guesser, table.state.drawer)
    assert mine["deck_left"] == mine["recap"]["deck_left"] == mine["next"]["cards_left"] + 1
    assert "is picking a pair" in mine["status"] or mine["status"] == "Pick a pair for this round."
    other = table.state.order[1]
    assert table.view(other)["phase"] == "recap" and table.view(other)["actions"][-1] == "continue"
    with pytest.raises(RuleViolation):
        table.act(first, {"type": "continue"})
    confirm_all(table)
    assert table.state.phase == "reveal" and table.state.round == 2


def test_next_drawer_can_lock_during_the_recap_which_closes_every_recap():
    table, _ = new_game(3, rounds=5)
    lock(table)
    write(table, unique_clues(table))
    guess(table, "")
    s = table.state
    drawer = s.drawer
    assert "pick" in table.view(drawer)["actions"] and table.view(drawer)["recap"] is not None
    next_card = s.current
    for seat in (None, *s.order):
        if seat != drawer:
            assert not any(w in json.dumps(table.view(seat)) for pair in next_card for w in pair)
    table.act(drawer, {"type": "pick", "pair": 2})
    s = table.state
    assert s.phase == "clues" and s.round == 2 and s.clues == ()
    for seat in s.order:
        view = table.view(seat)
        assert view["phase"] == "clues" and view["recap"] is None
    guesser_text = json.dumps(table.view(s.guesser))
    assert s.target not in guesser_text and s.foil not in guesser_text


# --- End of the game ---------------------------------------------------------------------------
def test_game_ends_when_deck_is_empty_and_every_seat_confirmed():
    table, _ = new_game(3, rounds=3)
    play_round(table, "correct")
    play_round(table, "correct")
    lock(table)
    write(table, unique_clues(table))
    guess(table, table.state.target)
    assert table.state.phase == "recap" and table.state.current is None
    table.act(table.state.order[0], {"type": "continue"})
    assert table.state.phase == "recap"
    confirm_all(table)
    view = table.view(table.state.order[0])
    assert view["phase"] == "over" and view["actions"] == []
    ladder = view["final"].pop("ladder")  # the bands this game could reach, lowest first (the final screen's ladder)
    assert view["final"] == {"score": 3, "rounds": 3, "band": rank_band(3, 3), "ended_by_host": False}
    assert ladder[-1] == {"band": rank_band(3, 3), "from": 3} and ladder[0]["from"] == 0
    assert [h["outcome"] for h in view["history"]] == ["correct"] * 3
    with pytest.raises(WrongPhase):
        table.act(table.state.order[0], {"type": "pick", "pair": 1})


def test_penalty_can_empty_the_deck_and_end_the_game():
    table, _ = new_game(3, rounds=2)
    play_round(table, "wrong")
    assert piles(table) == (0, 0, 2, 0) and table.state.phase == "over"


@pytest.mark.parametrize("score, rounds, band", [
    (13, 13, "Perfect telepathy"), (12, 13, "Mind readers"), (11, 13, "Word wizards"),
    (9, 13, "Sharp crew"), (7, 13, "Good company"), (4, 13, "Warming up"), (3, 13, "Fresh start"),
    (0, 13, "Fresh start"), (5, 5, "Perfect telepathy"), (4, 5, "Sharp crew"), (3, 6, "Warming up"),
])
def test_rank_bands_scale_with_the_round_deck(score, rounds, band):
    assert rank_band(score, rounds) == band


# --- Host commands ----------------------------------------------------------------------------
def test_host_times_out_a_missing_writer_and_a_missing_guesser():
    table, _ = new_game(3)
    lock(table)
    writer = table.state.current_writer
    table.act(None, {"type": "timeout"})
    assert table.state.clues[0].seat == writer and table.state.clues[0].cause == "host"
    table.act(None, {"type": "timeout"})
    assert table.state.phase == "guess"
    table.act(None, {"type": "timeout"})
    assert table.state.phase == "recap" and table.view(None)["recap"]["outcome"] == "pass"


def test_host_confirms_for_absent_seats():
    table, _ = new_game(4)
    lock(table)
    write(table, unique_clues(table))
    guess(table, "")
    table.act(table.state.order[0], {"type": "continue"})
    table.act(None, {"type": "confirm_absent"})
    assert table.state.phase == "reveal"


def test_host_random_pick_for_an_absent_drawer_is_seeded():
    def picked(seed):
        table, _ = new_game(3, seed=seed)
        table.act(None, {"type": "random_pick"})
        return table.state.pair_index, table.events[-1].random

    assert picked(5) == picked(5)
    assert picked(5)[1] is True
    assert len({picked(s)[0] for s in range(12)}) > 1


def test_host_ends_the_game_and_seats_cannot_use_host_commands():
    table, _ = new_game(3)
    for action in ("start", "end", "timeout", "confirm_absent", "random_pick"):
        with pytest.raises(RuleViolation):
            table.act(0, {"type": action})
    table.act(None, {"type": "end"})
    assert table.state.phase == "over"
    assert table.view(None)["final"]["ended_by_host"] is True


def test_host_view_never_holds_hidden_words():
    table, _ = new_game(4)
    card = table.state.current
    assert not any(w in json.dumps(table.view(None)) for pair in card for w in pair)
    lock(table)
    table.act(table.state.current_writer, {"type": "clue", "text": "zebra"})
    text = json.dumps(table.view(None))
    assert "zebra" not in text and table.state.target not in text
    assert "timeout" in table.view(None)["actions"]


def test_unknown_actions_are_refused_with_a_code():
    table, _ = new_game(3)
    for bad in (None, "pick", {"type": 3}, {"type": "fly"}, {"type": "pick", "pair": True}):
        with pytest.raises(RuleViolation) as err:
            table.act(table.state.drawer, bad)
        assert err.value.code in ("invalid_action", "unknown_action", "invalid_pair")
    assert table.state.phase == "reveal"


def test_writers_and_drawer_follow_the_guesser_and_order():
    """Derived, not stored: a replaced Guesser or order cannot leave a stale Drawer behind."""
    from dataclasses import replace

    table, _ = new_game(4, rounds=3)
    s = table.state
    other = next(seat for seat in s.order if seat != s.guesser)
    moved = replace(s, guesser=other)
    assert moved.writers == writer_order(s.order, other) and moved.drawer == moved.writers[0]
    assert moved.drawer != s.drawer
    flipped = replace(s, order=tuple(reversed(s.order)))
    assert flipped.drawer == left_of(flipped.order, s.guesser) != s.drawer


# --- what a state works out once --------------------------------------------------------------
def test_legal_moves_are_every_seats_allowed_actions_and_never_carried_to_the_next_state():
    """``rules.legal_moves`` (worked out once per state) equals asking ``allowed_actions`` seat by seat
    on a fresh copy of the state, and values a state remembers (writers, legal moves) are recomputed
    for the next state rather than copied: checked on every state of seeded random games."""
    import random

    from dichotomy_widget import rules

    for seed in range(4):
        rng = random.Random(seed)
        table, _tickets = new_game(players=3 + seed, rounds=5, seed=seed)
        state = table.state
        steps = 0
        while state.phase != "over" and steps < 400:
            steps += 1
            moves = rules.legal_moves(state)
            fresh = fresh_state(state)
            assert moves == fresh_legal_moves(state)
            assert (state.writers, state.drawer, state.current_writer) == \
                (fresh.writers, fresh.drawer, fresh.current_writer)
            assert moves, f"no seat may move in phase {state.phase}"
            seat, kind = rng.choice(moves)
            action = {"type": kind, "pair": 1} if kind == "pick" else {"type": kind}
            if kind in ("clue", "guess"):
                action["text"] = rng.choice(["zebra", "anchor", "", state.target or "x"])
            try:
                events = rules.decide(state, rules.parse_action(seat, action))
            except RuleViolation:
                continue
            state = rules.replay(events, state)
        assert state.phase == "over"
