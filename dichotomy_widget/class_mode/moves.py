"""The table of legal class moves: what the teacher may do to a class now, and why not.

Like the table's move table (``rules.MOVES``), one row per move: its kind, the arguments it can take in
a class (every student, every table) and a check that says why it is refused (a function making the
error) or ``None``. :func:`refusal` is what the class engine raises before it writes anything, and
:func:`legal_moves` lists the arguments no check refuses: the dashboard offers exactly these, so a
control the page shows is never refused, and a move the page does not show always is.

Pure: a move is judged from the class state (a :class:`~.classroom.ClassState`, read by duck typing:
no import, no cycle) and ``phases``, the phase of each started table's current game by table number
(``"over"`` once that game ended; a table's game never leaves ``"over"``, so an old snapshot errs only
towards refusing).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping

from ..config import MAX_SEATS, MIN_SEATS
from ..errors import Plural, SeatingError, SeatNotFound

__all__ = ["ClassMove", "CLASS_MOVES", "legal_moves", "refusal", "class_phase", "is_open", "free_places",
           "CLASS_PHASES"]

Refusal = Callable[[], Exception]
Phases = Mapping[int, str]

#: The class's phases, in order: students joining, tables made, tables playing, every game over.
CLASS_PHASES = ("joining", "seated", "playing", "over")


def is_open(t: Any, phases: Phases) -> bool:
    """True when students may be seated at table ``t``: it has not started, or its game is over (its
    next game, "play again", takes them)."""
    return not t.started or phases.get(t.number) == "over"


def free_places(t: Any) -> int:
    """How many more students table ``t`` can take."""
    return max(0, MAX_SEATS - len(t.members))


def class_phase(s: Any, phases: Phases) -> str:
    """``joining`` (no tables), ``seated`` (tables, none started), ``playing`` or ``over`` (the class
    ended, or every started table's game is over and no table with students waits to start)."""
    if s.ended:
        return "over"
    if not s.tables:
        return "joining"
    started = [t for t in s.tables if t.started]
    if not started:
        return "seated"
    waiting = any(not t.started and t.members for t in s.tables)
    if not waiting and all(phases.get(t.number) == "over" for t in started):
        return "over"
    return "playing"


# --- refusals (built only when raised) ------------------------------------------------------------
def _ended() -> Exception:
    return SeatingError("This class has ended.", code="class_ended")


def _no_table(number: Any) -> Refusal:
    return lambda: SeatingError("There is no table {table}.", code="unknown_table", params={"table": number})


def _no_student(student: Any) -> Refusal:
    return lambda: SeatNotFound("No student “{who}” in this class.", params={"who": str(student)[:60]})


def _plays(name: str, number: int) -> Refusal:
    return lambda: SeatingError("{name} already plays at table {table}, which has started.",
                                code="table_started", params={"name": name, "table": number})


def _seat_count(t: Any) -> Refusal | None:
    if MIN_SEATS <= len(t.members) <= MAX_SEATS:
        return None
    return lambda: SeatingError("Table {table} has {students}; a table plays with {least} to {most}. "
                                "Move students first.", code="seat_count",
                                params={"table": t.number,
                                        "students": Plural("{n} student", "{n} students", len(t.members)),
                                        "least": MIN_SEATS, "most": MAX_SEATS})


def _startable(s: Any, number: Any) -> Refusal | None:
    t = s.table(number)
    if t is None:
        return _no_table(number)
    if t.started:
        return lambda: SeatingError("Table {table} has already started.", code="table_started",
                                    params={"table": number})
    return _seat_count(t)


def _target(s: Any, phases: Phases, number: Any) -> Refusal | None:
    """Why students cannot be seated at table ``number`` now (for ``move`` and ``seat``)."""
    t = s.table(number)
    if t is None:
        return _no_table(number)
    if not is_open(t, phases):
        return lambda: SeatingError("Table {table} has started; choose a table still in its lobby or add a "
                                    "table.", code="table_started", params={"table": number})
    if not free_places(t):
        return lambda: SeatingError("Table {table} is full ({most} players).", code="table_full",
                                    params={"table": number, "most": MAX_SEATS})
    return None


# --- the checks: None if the move is legal now ----------------------------------------------------
def _make_tables(s: Any, phases: Phases) -> Refusal | None:
    if s.any_started:
        return lambda: SeatingError("Some tables have started: seat late students at a table in its lobby or at "
                                    "an extra table instead.", code="tables_started")
    if len(s.students) < MIN_SEATS:
        return lambda: SeatingError("A table needs at least {least} students; {n} joined.",
                                    code="too_few_students", params={"least": MIN_SEATS, "n": len(s.students)})
    return None


def _add_table(s: Any, phases: Phases) -> Refusal | None:
    if not s.tables:
        return lambda: SeatingError("Make tables first.", code="no_tables")
    empty = next((t for t in s.tables if not t.started and not t.members), None)
    if empty is not None:
        return lambda: SeatingError("Table {table} is still empty: seat students there first.",
                                    code="empty_table_waiting", params={"table": empty.number})
    return None


def _start_all(s: Any, phases: Phases) -> Refusal | None:
    todo = [t for t in s.tables if not t.started and t.members]
    if not todo:
        return lambda: SeatingError("No table is waiting to start. Make tables first.", code="nothing_to_start")
    return next((r for r in (_seat_count(t) for t in todo) if r is not None), None)


def _start_table(s: Any, phases: Phases, number: Any) -> Refusal | None:
    return _startable(s, number)


def _move(s: Any, phases: Phases, student: Any, number: Any) -> Refusal | None:
    """A seated student to another table (both open)."""
    found = s.student(student)
    if found is None:
        return _no_student(student)
    current = s.table_of(student)
    if current is None:
        return lambda: SeatingError("{name} is not seated yet: seat them at a table.", code="not_seated",
                                    params={"name": found.name})
    if not is_open(current, phases):
        return _plays(found.name, current.number)
    if current.number == number:
        return lambda: SeatingError("{name} already sits at table {table}.", code="same_table",
                                    params={"name": found.name, "table": number})
    return _target(s, phases, number)


def _seat(s: Any, phases: Phases, student: Any, number: Any) -> Refusal | None:
    """A student without a table (who joined late) to a table with a free place."""
    found = s.student(student)
    if found is None:
        return _no_student(student)
    current = s.table_of(student)
    if current is not None:
        return lambda: SeatingError("{name} already sits at table {table}.", code="same_table",
                                    params={"name": found.name, "table": current.number})
    return _target(s, phases, number)


def _remove(s: Any, phases: Phases, student: Any) -> Refusal | None:
    found = s.student(student)
    if found is None:
        return _no_student(student)
    current = s.table_of(student)
    if current is not None and not is_open(current, phases):
        return _plays(found.name, current.number)
    return None


def _play_again(s: Any, phases: Phases, number: Any) -> Refusal | None:
    t = s.table(number)
    if t is None:
        return _no_table(number)
    if not t.started or phases.get(t.number) != "over":
        return lambda: SeatingError("Table {table} has not finished its game.", code="game_not_over",
                                    params={"table": number})
    return _seat_count(t)


def _end_class(s: Any, phases: Phases) -> Refusal | None:
    if not s.any_started:
        return lambda: SeatingError("No table has started yet.", code="nothing_started")
    return None


# --- the move table -------------------------------------------------------------------------------
def _none(_s: Any) -> Iterable[tuple]:
    return [()]


def _tables(s: Any) -> Iterable[tuple]:
    return [(t.number,) for t in s.tables]


def _students(s: Any) -> Iterable[tuple]:
    return [(x.id,) for x in s.students]


def _students_tables(s: Any) -> Iterable[tuple]:
    return [(x.id, t.number) for x in s.students for t in s.tables]


@dataclass(frozen=True)
class ClassMove:
    """One row of the class move table: ``check(state, phases, *args)`` is ``None`` when legal;
    ``arguments(state)`` lists every argument tuple the move could take in this class."""

    kind: str
    check: Callable[..., "Refusal | None"]
    arguments: Callable[[Any], Iterable[tuple]] = _none


#: The class move table, in the order the dashboard offers the moves.
CLASS_MOVES: dict[str, ClassMove] = {m.kind: m for m in (
    ClassMove("make_tables", _make_tables),
    ClassMove("start_all", _start_all),
    ClassMove("start_table", _start_table, _tables),
    ClassMove("add_table", _add_table),
    ClassMove("seat", _seat, _students_tables),
    ClassMove("move", _move, _students_tables),
    ClassMove("remove", _remove, _students),
    ClassMove("play_again", _play_again, _tables),
    ClassMove("end_class", _end_class),
)}


def refusal(s: Any, phases: Phases, kind: str, *args: Any) -> Refusal | None:
    """Why the teacher may not make move ``kind`` with ``args`` now (a function making the error), or
    ``None``. An ended class refuses every move; an unknown kind is refused too."""
    move = CLASS_MOVES.get(kind)
    if move is None:
        return lambda: SeatingError("“{action}” is not a class move.", code="unknown_action",
                                    params={"action": str(kind)[:30]})
    if s.ended:
        return _ended
    return move.check(s, phases, *args)


def legal_moves(s: Any, phases: Phases) -> dict[str, list[tuple]]:
    """Every move the teacher may make now: kind -> the argument tuples no check refuses (a move that
    takes no argument lists ``[()]``). Kinds with no legal argument are left out."""
    if s.ended:
        return {}
    out: dict[str, list[tuple]] = {}
    for kind, move in CLASS_MOVES.items():
        legal = [args for args in move.arguments(s) if move.check(s, phases, *args) is None]
        if legal:
            out[kind] = legal
    return out
