"""The class's pure decisions (dichotomy_widget.class_mode.decide): each command's events and each
refusal, from states folded out of events (no store, no table, no clock)."""

from __future__ import annotations

import pytest

from dichotomy_widget.class_mode import moves
from dichotomy_widget.class_mode.decide import (BATCH_MOVES, EFFECTS, MAX_JOINS_PER_DEVICE, MAX_STUDENTS, ClassAct,
                                                JoinClass, decide)
from dichotomy_widget.class_mode.state import ClassState, replay
from dichotomy_widget.errors import DichotomyError, InvalidAction, NameTaken, NotAllowed, SeatingError, SeatNotFound
from dichotomy_widget.events import (ClassCreated, ClassEnded, StudentJoined, StudentMoved, StudentRemoved,
                                     TableAdded, TablePlayedAgain, TablesMade, TableStarted)
from dichotomy_widget.options import TableOptions

NAMES = ("Ana", "Ben", "Cleo", "Dev", "Eli", "Fay", "Gus", "Hana")


def created(seed: int = 7, table_size: int = 4) -> ClassState:
    return replay([ClassCreated(name="9B", deck_name="d", lang="en", cards=(("cat", "dog"),) * 10,
                                options=TableOptions(rounds=3), table_size=table_size, seed=seed)])


def with_students(n: int, state: ClassState | None = None) -> ClassState:
    state = state or created()
    return replay([StudentJoined(student=i, name=NAMES[i], token_hash=f"h{i}", device=f"d{i}") for i in range(n)],
                  state)


def apply(state: ClassState, command) -> ClassState:
    return replay(decide(state, command), state)


def seated(n: int = 8) -> ClassState:
    """``n`` students in tables made by the class (two tables of four for eight)."""
    return apply(with_students(n), ClassAct("make_tables"))


def code_of(exc: pytest.ExceptionInfo) -> str:
    return exc.value.code


# --- the table of effects ---------------------------------------------------------------------------
def test_every_class_move_is_decided_by_one_effect_or_made_as_single_moves():
    assert set(EFFECTS) | set(BATCH_MOVES) == set(moves.CLASS_MOVES)
    assert not set(EFFECTS) & set(BATCH_MOVES)
    with pytest.raises(ValueError):  # start_all is a start_table per table, each decided on its own
        decide(seated(), ClassAct("start_all"))


# --- joining ------------------------------------------------------------------------------------------
def test_a_join_gives_the_next_id_the_clean_name_the_token_hash_and_the_device():
    state = with_students(2)
    (event,) = decide(state, JoinClass("  Zoë  ", "secret-hash", "dev-9"))
    assert event == StudentJoined(student=2, name="Zoë", token_hash="secret-hash", device="dev-9")
    removed = replay([StudentRemoved(student=1)], state)
    assert decide(removed, JoinClass("Zoë", "h", ""))[0].student == 2  # ids are never reused


@pytest.mark.parametrize("state, command, error, code", [
    (replay([ClassEnded()], with_students(1)), JoinClass("Zed", "hz"), SeatingError, "class_ended"),
    (with_students(1), JoinClass("Zed", "h0"), NotAllowed, "already_joined"),
    (with_students(2), JoinClass("ana", "hz"), NameTaken, "name_taken"),
    (with_students(1), JoinClass("Zedа", "hz"), InvalidAction, "mixed_scripts"),  # a Cyrillic а
    (with_students(1), JoinClass("   ", "hz"), InvalidAction, "invalid_name"),
])
def test_a_refused_join_says_why_with_its_code(state, command, error, code):
    with pytest.raises(error) as exc:
        decide(state, command)
    assert code_of(exc) == code


def test_one_device_joins_a_few_names_and_a_class_has_room_for_its_maximum():
    state = created()
    for i in range(MAX_JOINS_PER_DEVICE):
        state = apply(state, JoinClass(f"Kid{chr(65 + i)}", f"t{i}", "tablet"))
    with pytest.raises(SeatingError) as exc:
        decide(state, JoinClass("Another", "tz", "tablet"))
    assert code_of(exc) == "device_join_limit"
    assert decide(state, JoinClass("Another", "tz", "laptop"))  # another device may
    full = replay([StudentJoined(student=i, name=f"S{i:03d}", token_hash=f"x{i}", device="")
                   for i in range(MAX_STUDENTS)], created())
    with pytest.raises(SeatingError) as exc:
        decide(full, JoinClass("Late", "late", ""))
    assert code_of(exc) == "class_full"


# --- the teacher's moves ------------------------------------------------------------------------------
def test_make_tables_seats_everyone_once_and_the_same_state_decides_the_same_seating():
    state = with_students(8)
    (event,) = decide(state, ClassAct("make_tables"))
    assert isinstance(event, TablesMade)
    assert sorted(m for t in event.tables for m in t) == list(range(8))
    assert [len(t) for t in event.tables] == [4, 4]
    assert decide(state, ClassAct("make_tables")) == [event]  # pure: seeded by the class's seed and version
    other = decide(replay([ClassCreated(name="9B", deck_name="d", lang="en", cards=(("cat", "dog"),),
                                        options=TableOptions(rounds=3), table_size=4, seed=8)] + [
        StudentJoined(student=i, name=NAMES[i], token_hash=f"h{i}", device="") for i in range(8)]),
        ClassAct("make_tables"))
    assert other != [event]  # another seed, another shuffle (these two seeds differ)


def test_add_seat_move_remove_and_end_write_their_event():
    state = seated()
    assert decide(state, ClassAct("add_table")) == [TableAdded(number=3)]
    first = state.table(1).members[0]
    assert decide(state, ClassAct("move", (first, 2))) == [StudentMoved(student=first, table=2)]
    assert decide(state, ClassAct("remove", (first,))) == [StudentRemoved(student=first)]
    late = apply(state, JoinClass("Ivy", "h-ivy"))
    ivy = late.students[-1].id
    assert late.table_of(ivy) is None
    # two tables of four: each has a free place (at most MAX_SEATS)
    assert decide(late, ClassAct("seat", (ivy, 1))) == [StudentMoved(student=ivy, table=1)]
    started = replay([TableStarted(number=1, code="T1")], state)
    assert decide(started, ClassAct("end_class")) == [ClassEnded()]


def test_a_start_and_a_next_game_are_recorded_only_for_the_students_they_seated():
    state = seated()
    members = state.table(1).members
    assert decide(state, ClassAct("start_table", (1,), game="T1", members=members)) == [
        TableStarted(number=1, code="T1")]
    moved = apply(state, ClassAct("move", (members[0], 2)))  # the table changed meanwhile
    with pytest.raises(SeatingError) as exc:
        decide(moved, ClassAct("start_table", (1,), game="T1", members=members))
    assert code_of(exc) == "table_changed"
    with pytest.raises(SeatingError) as exc:
        decide(state, ClassAct("start_table", (1,), members=members))  # no game was created
    assert code_of(exc) == "table_changed"
    started = replay([TableStarted(number=1, code="T1")], state)
    again = ClassAct("play_again", (1,), phases={1: "over"}, game="T2", members=members)
    assert decide(started, again) == [TablePlayedAgain(number=1, code="T2")]
    with pytest.raises(SeatingError) as exc:  # its game still plays
        decide(started, ClassAct("play_again", (1,), phases={1: "guess"}, game="T2", members=members))
    assert code_of(exc) == "game_not_over"


@pytest.mark.parametrize("state, act, error, code", [
    (lambda: with_students(2), ClassAct("make_tables"), SeatingError, "too_few_students"),
    (lambda: with_students(4), ClassAct("add_table"), SeatingError, "no_tables"),
    (lambda: seated(), ClassAct("move", (99, 1)), SeatNotFound, "seat_not_found"),
    (lambda: seated(), ClassAct("move", (0, 9)), SeatingError, "unknown_table"),
    (lambda: seated(), ClassAct("end_class"), SeatingError, "nothing_started"),
    (lambda: seated(), ClassAct("teleport"), SeatingError, "unknown_action"),
    (lambda: replay([TableStarted(number=1, code="T1"), ClassEnded()], seated()), ClassAct("add_table"),
     SeatingError, "class_ended"),
    (lambda: replay([TableStarted(number=1, code="T1")], seated()), ClassAct("make_tables"), SeatingError,
     "tables_started"),
])
def test_a_move_the_move_table_refuses_writes_nothing_and_says_why(state, act, error, code):
    with pytest.raises(error) as exc:
        decide(state(), act)
    assert code_of(exc) == code and isinstance(exc.value, DichotomyError)


def test_an_unknown_command_is_refused():
    with pytest.raises(InvalidAction):
        decide(created(), object())  # type: ignore[arg-type]
