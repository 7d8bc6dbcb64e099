"""A class's decisions, pure like the table's ``rules.decide``: the class state and a command in, the
events to write out, or a refusal (a :class:`~..errors.DichotomyError` with a stable code).

Two commands: :class:`JoinClass` (a student joins by name) and :class:`ClassAct` (a teacher's move of
the class move table, :data:`.moves.CLASS_MOVES`). A move is first checked by that table, then made by
its row of :data:`EFFECTS`; nothing here opens a store, a table or a clock. What a move needs from the
world comes in the command: the phase of each started table's game (``phases``) and, for a table that
starts or plays again, the code of the game the class has just created for it and the students it
seated there (the class refuses to record it when the table changed meanwhile).
"""

from __future__ import annotations

import hmac
import random
from dataclasses import dataclass, field
from typing import Callable, Mapping, Union

from .. import words
from ..errors import InvalidAction, NameTaken, NotAllowed, SeatingError
from ..events import (ClassEnded, Event, StudentJoined, StudentMoved, StudentRemoved, TableAdded, TablePlayedAgain,
                      TablesMade, TableStarted)
from ..rules import clean_name
from . import moves
from .seating import split_roster
from .state import ClassState

__all__ = ["JoinClass", "ClassAct", "ClassCommand", "decide", "check", "EFFECTS", "MAX_STUDENTS",
           "MAX_JOINS_PER_DEVICE", "BATCH_MOVES"]

MAX_STUDENTS = 200
#: Names one device (a page's client address, where the server bounds devices) may join to a class.
MAX_JOINS_PER_DEVICE = 3


@dataclass(frozen=True)
class JoinClass:
    """A student joins by ``name``; ``token_hash`` is the hash of their secret token, ``device`` the
    page's device tag ("" for none)."""

    name: str
    token_hash: str
    device: str = ""


@dataclass(frozen=True)
class ClassAct:
    """The teacher's move ``kind`` of the class move table with ``args`` (as ``legal_moves`` lists
    them). ``phases``: the phase of each started table's game by number; ``game`` and ``members``: for
    ``start_table`` and ``play_again``, the code of the game just created and whom it seated."""

    kind: str
    args: tuple = ()
    phases: Mapping[int, str] = field(default_factory=dict)
    game: str | None = None
    members: tuple = ()


ClassCommand = Union[JoinClass, ClassAct]


def check(state: ClassState, phases: Mapping[int, str], kind: str, *args: object) -> None:
    """Raise the class move table's refusal of move ``kind`` with ``args``; nothing when it is legal."""
    refused = moves.refusal(state, phases, kind, *args)
    if refused is not None:
        raise refused()


def decide(state: ClassState, command: ClassCommand) -> list[Event]:
    """The events ``command`` adds to a class in ``state``, or the refusal it raises (nothing written)."""
    if isinstance(command, JoinClass):
        return _join(state, command)
    if not isinstance(command, ClassAct):
        raise InvalidAction("Unknown command.")
    check(state, command.phases, command.kind, *command.args)
    effect = EFFECTS.get(command.kind)
    if effect is None:  # a batch of other moves (start_all): the class makes each of them
        raise ValueError(f"{command.kind} is made as its single moves, not decided at once")
    return effect(state, command)


def _join(s: ClassState, cmd: JoinClass) -> list[Event]:
    if s.ended:
        raise SeatingError("This class has ended.", code="class_ended")
    if cmd.device and s.joins.count(cmd.device) >= MAX_JOINS_PER_DEVICE:
        raise SeatingError("This device has already joined {most} students to this class. Each student "
                           "joins on their own device; ask the teacher if you need help.",
                           code="device_join_limit", params={"most": MAX_JOINS_PER_DEVICE})
    if any(hmac.compare_digest(x.token_hash, cmd.token_hash) for x in s.students):
        raise NotAllowed("You are already in this class.", code="already_joined")
    clean = clean_name(cmd.name)
    if words.mixes_scripts(clean):
        raise InvalidAction("Write a name in one alphabet: {name} mixes letters of several.",
                            code="mixed_scripts", params={"name": clean})
    if any(words.normalize(x.name) == words.normalize(clean) for x in s.students):
        raise NameTaken("Someone in this class is already called {name}. Pick another name.",
                        params={"name": clean})
    if len(s.students) >= MAX_STUDENTS:
        raise SeatingError("This class is full ({most} students).", code="class_full",
                           params={"most": MAX_STUDENTS})
    new_id = max(s.next_id, max((x.id for x in s.students), default=-1) + 1)
    return [StudentJoined(student=new_id, name=clean, token_hash=cmd.token_hash, device=cmd.device)]


# --- what each legal move writes ------------------------------------------------------------------
def _make_tables(s: ClassState, _cmd: ClassAct) -> list[Event]:
    """The whole roster, shuffled by the class's seed and version, in balanced tables."""
    ids = [x.id for x in s.students]
    random.Random(f"{s.seed}:seating:{s.version}").shuffle(ids)
    return [TablesMade(tables=tuple(tuple(t) for t in split_roster(ids, s.table_size)))]


def _add_table(s: ClassState, _cmd: ClassAct) -> list[Event]:
    return [TableAdded(number=len(s.tables) + 1)]


def _seat(_s: ClassState, cmd: ClassAct) -> list[Event]:
    """``move`` and ``seat``: the student to the table."""
    student, table = cmd.args
    return [StudentMoved(student=student, table=table)]


def _remove(_s: ClassState, cmd: ClassAct) -> list[Event]:
    (student,) = cmd.args
    return [StudentRemoved(student=student)]


def _game(again: bool) -> Callable[[ClassState, ClassAct], list[Event]]:
    """``start_table`` / ``play_again``: record the game created for the table, if it still seats the
    students that game seated."""
    def record(s: ClassState, cmd: ClassAct) -> list[Event]:
        (number,) = cmd.args
        current = s.table(number)
        if cmd.game is None or current is None or current.members != tuple(cmd.members):
            raise SeatingError("Table {table} changed meanwhile; try again.", code="table_changed",
                               params={"table": number})
        return [(TablePlayedAgain if again else TableStarted)(number=number, code=cmd.game)]

    return record


def _end_class(_s: ClassState, _cmd: ClassAct) -> list[Event]:
    return [ClassEnded()]


#: What each move of the class move table writes, once the table said it is legal (keys: its kinds).
EFFECTS: dict[str, Callable[[ClassState, ClassAct], list[Event]]] = {
    "make_tables": _make_tables,
    "start_table": _game(again=False),
    "add_table": _add_table,
    "seat": _seat,
    "move": _seat,
    "remove": _remove,
    "play_again": _game(again=True),
    "end_class": _end_class,
}
#: Moves of the move table made as several single moves (``start_all``: a ``start_table`` each).
BATCH_MOVES = ("start_all",)
