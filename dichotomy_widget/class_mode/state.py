"""A class's state and its fold: what a class's events add up to (pure, like the table's ``rules.evolve``).

:func:`evolve` applies one class event, :func:`replay` folds a stream; :func:`.decide.decide` says
which events a command writes, after the move table (:mod:`.moves`) said the move is legal now, and the
class aggregate (:mod:`.classroom`) executes them.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from ..events import (ClassCreated, ClassEnded, Event, StudentJoined, StudentMoved, StudentRemoved, TableAdded,
                      TablePlayedAgain, TablesMade, TableStarted)
from ..options import TableOptions

__all__ = ["Student", "ClassTable", "ClassState", "evolve", "replay"]


@dataclass(frozen=True)
class Student:
    """A student in the class roster."""

    id: int
    name: str
    token_hash: str


@dataclass(frozen=True)
class ClassTable:
    """A table of the class: its number (1-based), members (student ids) and, once started, the code of
    its game (``games``: the codes of its earlier, finished games, oldest first, after "play again")."""

    number: int
    members: tuple = ()
    code: str | None = None
    games: tuple = ()

    @property
    def codes(self) -> tuple:
        """Every game this table has played or plays, oldest first."""
        return self.games + ((self.code,) if self.code is not None else ())

    @property
    def started(self) -> bool:
        return self.code is not None


@dataclass(frozen=True)
class ClassState:
    """The fold of a class's events."""

    name: str = ""
    deck_name: str = ""
    lang: str = "en"
    cards: tuple = ()
    options: TableOptions = TableOptions()  # how its tables play (``rounds``: cards per table)
    table_size: int = 5
    seed: int = 0
    students: tuple = ()  # of Student, join order
    tables: tuple = ()  # of ClassTable, by number
    version: int = 0
    joins: tuple = ()  # the device tag of every join, removed students' too (the per-device bound)
    next_id: int = 0  # ids are never reused, also after a removal
    ended: bool = False  # the teacher ended the class

    rounds = property(lambda self: self.options.rounds, doc="Cards per table.")
    time_limit = property(lambda self: self.options.time_limit, doc="The clue time limit (None: none).")
    interface_lang = property(lambda self: self.options.interface_lang, doc='"": the deck\'s language.')

    def student(self, student_id: int) -> Student | None:
        return next((s for s in self.students if s.id == student_id), None)

    def table_of(self, student_id: int) -> ClassTable | None:
        return next((t for t in self.tables if student_id in t.members), None)

    def table(self, number: int) -> ClassTable | None:
        return self.tables[number - 1] if isinstance(number, int) and 1 <= number <= len(self.tables) else None

    @property
    def unseated(self) -> tuple:
        seated = {m for t in self.tables for m in t.members}
        return tuple(s.id for s in self.students if s.id not in seated)

    @property
    def any_started(self) -> bool:
        return any(t.started for t in self.tables)


def evolve(state: ClassState, event: Event) -> ClassState:
    """Apply one class event (pure and total)."""
    version = state.version + 1
    if isinstance(event, ClassCreated):
        return ClassState(name=event.name, deck_name=event.deck_name, lang=event.lang, cards=event.cards,
                          options=event.options, table_size=event.table_size, seed=event.seed, version=version)
    if isinstance(event, StudentJoined):
        students = state.students + (Student(event.student, event.name, event.token_hash),)
        return _replace(state, students=students, version=version, joins=state.joins + (event.device,),
                        next_id=max(state.next_id, event.student + 1))
    if isinstance(event, StudentRemoved):
        students = tuple(x for x in state.students if x.id != event.student)
        tables = tuple(replace(t, members=tuple(m for m in t.members if m != event.student)) for t in state.tables)
        return _replace(state, students=students, tables=tables, version=version)
    if isinstance(event, TablesMade):
        tables = tuple(ClassTable(i + 1, tuple(m)) for i, m in enumerate(event.tables))
        return _replace(state, tables=tables, version=version)
    if isinstance(event, TableAdded):
        return _replace(state, tables=state.tables + (ClassTable(event.number),), version=version)
    if isinstance(event, StudentMoved):
        tables = tuple(
            replace(t, members=tuple(m for m in t.members if m != event.student)
                    + ((event.student,) if t.number == event.table else ()))
            for t in state.tables)
        return _replace(state, tables=tables, version=version)
    if isinstance(event, TableStarted):
        tables = tuple(replace(t, code=event.code) if t.number == event.number else t for t in state.tables)
        return _replace(state, tables=tables, version=version)
    if isinstance(event, TablePlayedAgain):
        tables = tuple(replace(t, code=event.code, games=t.codes) if t.number == event.number else t
                       for t in state.tables)
        return _replace(state, tables=tables, version=version)
    if isinstance(event, ClassEnded):
        return _replace(state, ended=True, version=version)
    return _replace(state, version=version)


def _replace(state: ClassState, **changes: Any) -> ClassState:
    return replace(state, **changes)


def replay(events: list[Event], state: ClassState | None = None) -> ClassState:
    """Fold class events onto ``state`` (default: an empty class)."""
    state = state or ClassState()
    for event in events:
        state = evolve(state, event)
    return state
