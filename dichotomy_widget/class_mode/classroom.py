"""A class: many tables run by one teacher, as an event-sourced aggregate in the same store as tables.

A class is a stream ``class-CODE`` in the :class:`TableStore` (table codes never hold ``-``, so the two
never collide). Its events record the roster, the seating and which ordinary :class:`Table` each
seated group plays at. Students join the class by name and get a secret token; when their table
starts, the class joins them to it with the *hash* of that same token, so the student's class link is
also their seat link and no new link is needed. The teacher's control token is kept hashed in the
class meta, like a table's host token.

Seating before a table starts is a draft kept in the class: moves, an extra table and late joiners
change only the class stream. Starting a table creates the :class:`Table` (with its own slice of the
shuffled deck, so tables of one class do not share cards while the deck is big enough), seats its
students in the draft's order and starts the game.
"""

from __future__ import annotations

import logging
import random
import secrets
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Sequence

from .. import words
from ..decks import Card, Deck, load_deck
from ..aggregate import Aggregate, as_store
from ..logs import announce
from ..errors import ClassNotFound, DichotomyError, SeatingError, SeatNotFound, StoreError
from ..events import ClassCreated, Event
from . import moves as class_moves
from .decide import MAX_JOINS_PER_DEVICE, MAX_STUDENTS, ClassAct, JoinClass, check, decide
from ..i18n import normalize_language
from .cards import card_key, record_card
from ..options import PlaysByOptions, TableOptions
from .seating import MAX_PREFERRED, MIN_PREFERRED
from .state import ClassState, ClassTable, Student, replay
from ..stores import TableStore
from ..table import CODE_ALPHABET, Table, hash_token, new_table_code

__all__ = ["Classroom", "StudentTicket", "ClassState", "Student", "ClassTable", "CLASS_PREFIX",
           "normalize_class_code", "class_stream", "MAX_STUDENTS",
           "MAX_JOINS_PER_DEVICE", "card_key", "record_card"]

log = logging.getLogger(__name__)

CLASS_PREFIX = "class-"
MAX_CLASS_NAME = 60


# --- codes ---------------------------------------------------------------------------------------
def normalize_class_code(code: Any) -> str:
    """Upper-case and strip a typed class code (``class-`` prefix optional); refuse anything else."""
    text = str(code or "").strip().upper()
    if text.startswith(CLASS_PREFIX.upper()):
        text = text[len(CLASS_PREFIX):]
    if not (1 <= len(text) <= 32) or not all(ch in CODE_ALPHABET for ch in text):
        raise ClassNotFound("That is not a class code. Check the link or ask the teacher.")
    return text


def class_stream(code: str) -> str:
    """The store id of class ``code``: ``class-CODE`` (a table code never holds ``-``)."""
    return CLASS_PREFIX + code


@dataclass(frozen=True)
class StudentTicket:
    """A student in the class with the secret token that proves it (keep it private)."""

    student: int
    name: str
    token: str

    def __repr__(self) -> str:  # never print the token by accident
        return f"StudentTicket(student={self.student}, name={self.name!r})"


# --- the aggregate -------------------------------------------------------------------------------
class Classroom(PlaysByOptions, Aggregate[ClassState]):
    """One class of students seated at many :class:`Table` s, backed by a :class:`TableStore` (its
    stream is :func:`class_stream` of its code)."""

    kind = "class"
    noun = "class"

    def __init__(self, code: str, store: TableStore) -> None:
        self.code = code
        self.teacher_token: str | None = None
        self._tables: dict[str, Table] = {}
        super().__init__(class_stream(code), store)
        self.refresh()

    def initial_state(self) -> ClassState:
        return ClassState()

    def replay(self, events: Sequence[Event], state: ClassState) -> ClassState:
        return replay(events, state)

    @property
    def log_name(self) -> str:
        return f"class {self.code}"

    def busy_error(self) -> StoreError:
        return StoreError("The class is very busy right now; please try again.", code="store_busy")

    # --- creating and opening ----------------------------------------------------------------
    @classmethod
    def create(cls, name: str, deck: "str | Path | Deck" = "en", rounds: int = 13, table_size: int = 5,
               time_limit: float | None = None, store: "TableStore | str | None" = None,
               seed: int | None = None, lang: str | None = None,
               interface_lang: str | None = None, options: TableOptions | None = None) -> "Classroom":
        """Create a class (name, deck, cards per table, preferred table size 4-6, optional clue limit).

        ``options`` (a :class:`TableOptions`): how its tables play; without it, ``rounds`` (cards per
        table), ``time_limit`` and ``interface_lang`` (the language of the class's screens, default: the
        deck's language) make one.
        """
        class_name = " ".join(str(name or "").split())
        if not class_name or len(class_name) > MAX_CLASS_NAME or not class_name.isprintable():
            raise DichotomyError("A class name is 1 to {limit} printable characters.",
                                 code="invalid_class_name", params={"limit": MAX_CLASS_NAME})
        the_deck = load_deck(deck, lang=lang)
        if options is None:  # a language the interface lacks falls back to the deck's, as it always has
            options = TableOptions(rounds=rounds, time_limit=time_limit,
                                   interface_lang=normalize_language(interface_lang) or "")
        options = options.checked(the_deck, per_table=True)
        if isinstance(table_size, bool) or not isinstance(table_size, int) or not MIN_PREFERRED <= table_size <= MAX_PREFERRED:
            raise DichotomyError("The preferred table size is {least} to {most}.", code="invalid_table_size",
                                 params={"least": MIN_PREFERRED, "most": MAX_PREFERRED})
        the_store = as_store(store)
        teacher_token = secrets.token_urlsafe(18)
        for _ in range(20):
            code = new_table_code()
            if not the_store.table_exists(class_stream(code)):
                break
        meta = {"kind": "class", "teacher_token_hash": hash_token(teacher_token), "created_at": time.time()}
        the_store.create_table(class_stream(code), meta)
        created = ClassCreated(name=class_name, deck_name=the_deck.name, lang=the_deck.lang,
                               cards=tuple(c.to_json() for c in the_deck.cards), options=options,
                               table_size=table_size, seed=int(secrets.randbits(63) if seed is None else seed))
        the_store.append(class_stream(code), 0, [(created.type, created.payload())])
        room = cls(code, the_store)
        room.teacher_token = teacher_token
        announce(room.log_name, [created])
        return room

    @classmethod
    def open(cls, code: str, store: "TableStore | str | None") -> "Classroom":
        """Open an existing class by its code; :class:`ClassNotFound` if there is none."""
        the_store = as_store(store)
        class_code = normalize_class_code(code)
        if not the_store.table_exists(class_stream(class_code)):
            raise ClassNotFound("No class has the code {code}. Check the link or ask the teacher.",
                                params={"code": class_code})
        return cls(class_code, the_store)

    # --- identity ----------------------------------------------------------------------------
    def is_teacher(self, token: Any) -> bool:
        """True when ``token`` is this class's teacher token."""
        return self.meta_token_is("teacher_token_hash", token)

    def student_for_token(self, token: Any) -> int:
        """The student id a secret token belongs to; :class:`SeatNotFound` for a wrong token."""
        student = self.member_for_token(lambda s: s.students, token)
        if student is not None:
            return student
        raise SeatNotFound("This class link is not valid for this class. Ask the teacher for the join link.")

    def student_id(self, who: "int | str | StudentTicket") -> int:
        """Resolve a student id, a :class:`StudentTicket` or a name to a student id."""
        if isinstance(who, StudentTicket):
            who = who.student
        if isinstance(who, int) and not isinstance(who, bool) and self.state.student(who) is not None:
            return who
        if isinstance(who, str):
            for student in self.state.students:
                if words.normalize(student.name) == words.normalize(who):
                    return student.id
        raise SeatNotFound("No student “{who}” in this class.", params={"who": str(who)[:60]})

    # --- commands ----------------------------------------------------------------------------
    def join(self, name: str, device: str = "", token: str | None = None) -> StudentTicket:
        """Join the class by name (unique in the class up to look-alike letters, in one alphabet);
        returns the student with their secret token. ``device`` (the page's device tag; "" for none)
        joins at most :data:`MAX_JOINS_PER_DEVICE` names to one class, removed ones included.
        ``token`` (default: a fresh random one) is for a caller that derives keys itself, such as the
        JupyterHub service (one per hub user and class); it must be secret and unguessable."""
        if token is not None and (not isinstance(token, str) or len(token) < 16):
            raise SeatNotFound("A seat token is at least 16 characters.", code="invalid_token")
        token = token if token is not None else secrets.token_urlsafe(18)
        digest = hash_token(token)

        event = self.execute(lambda s: decide(s, JoinClass(name, digest, device)))[0]
        return StudentTicket(student=event.student, name=event.name, token=token)  # type: ignore[attr-defined]

    def remove(self, who: "int | str | StudentTicket") -> None:
        """Remove a student (a name nobody owns up to, a second name from one device) while their table
        has not started (or its game is over); their class link stops working. Their device's joins
        still count."""
        student = self.student_id(who)
        self._act("remove", student)

    def make_tables(self) -> list[list[str]]:
        """Split the whole roster into balanced tables (3-7, near the preferred size); names per table.

        Allowed until a table starts (pressing it again reshuffles everybody).
        """
        self._act("make_tables")
        return [[self.state.student(m).name for m in t.members] for t in self.state.tables]  # type: ignore[union-attr]

    def add_table(self) -> int:
        """Add an empty table (students can be moved or seated there until it starts); returns its
        number. Refused while an added table is still empty."""
        return self._act("add_table")[0].number  # type: ignore[attr-defined]

    def move(self, who: "int | str | StudentTicket", table: int) -> None:
        """Move a student to table ``table`` (1-based), or seat a student without a table there (see
        :meth:`seat`); the student's table and ``table`` have not started, or their game is over."""
        student = self.student_id(who)
        kind = "move" if self.state.table_of(student) is not None else "seat"
        self._act(kind, student, table)

    def seat(self, who: "int | str | StudentTicket", table: int) -> None:
        """Seat a student who has no table (who joined late) at table ``table``, which has a free place
        and has not started or finished its game (its next game, :meth:`play_again`, takes them)."""
        student = self.student_id(who)
        self._act("seat", student, table)

    def table_phases(self) -> dict[int, str]:
        """The phase of each started table's current game, by table number (after a refresh)."""
        out = {}
        for t in self.state.tables:
            if t.started:
                table = self.table(t.code)  # type: ignore[arg-type]
                table.refresh()
                out[t.number] = table.state.phase
        return out

    def legal_moves(self) -> dict[str, list[tuple]]:
        """Every move the teacher may make now (see :func:`.class_moves.legal_moves`)."""
        self.refresh()
        return class_moves.legal_moves(self.state, self.table_phases())

    def _phases(self, s: ClassState) -> dict[int, str]:
        """The phases the move table needs: each started table's game (none to read before a start)."""
        return self.table_phases() if any(t.started for t in s.tables) else {}

    def _check(self, kind: str, *args: Any) -> None:
        """Raise the class move table's refusal of ``kind`` with ``args`` now (nothing when it is legal)."""
        check(self.state, self._phases(self.state), kind, *args)

    def _act(self, kind: str, *args: Any, phases: dict[int, str] | None = None, game: str | None = None,
             members: tuple = ()) -> list[Event]:
        """Make move ``kind``: :func:`.decide.decide` against the newest class events, append, retry on
        a conflict (:meth:`Aggregate.execute`)."""
        return self.execute(lambda s: decide(s, ClassAct(kind, args, self._phases(s) if phases is None else phases,
                                                         game, members)))

    #: What :meth:`do` calls for each kind of the class move table.
    _DO = {"make_tables": "make_tables", "start_all": "start_all", "start_table": "start_table",
           "add_table": "add_table", "seat": "seat", "move": "move", "remove": "remove",
           "play_again": "play_again", "end_class": "end_class"}

    def do(self, kind: str, *args: Any) -> Any:
        """Make move ``kind`` of the class move table with ``args`` (as :meth:`legal_moves` lists them)."""
        self.refresh()
        self._check(str(kind), *args)  # the move table's word first (an unknown kind too)
        return getattr(self, self._DO[kind])(*args)

    def start_table(self, number: int) -> Table:
        """Start table ``number``: create its :class:`Table`, seat its students, deal. Returns the table."""
        self.refresh()  # listeners hear what changed, also if the start is refused
        self._check("start_table", number)
        return self._open_game(number, again=False)

    def play_again(self, number: int) -> Table:
        """Table ``number``'s game is over: start its next game with its players (and any student seated
        there since) and the next cards. Returns the new table."""
        self.refresh()
        self._check("play_again", number)
        return self._open_game(number, again=True)

    def _open_game(self, number: int, again: bool) -> Table:
        """Create table ``number``'s next game, seat its students, deal, and record it in the class."""
        t = self.state.table(number)
        assert t is not None
        table = Table.create(deck=self._table_deck(number), store=self.store,
                             options=replace(self.options, interface_lang=self.interface_lang, led_by="teacher"),
                             seed=random.Random(f"{self.state.seed}:table:{number}"
                                                + (f":game:{len(t.codes) + 1}" if again else "")).randrange(2 ** 62))
        for member in t.members:
            student = self.state.student(member)
            assert student is not None
            table.join_hashed(student.name, student.token_hash)
        table.start()

        self._adopt(table)  # before listeners hear of it: one Table object per code
        try:
            # a start reads no game phase; "play again" reads this table's (its game must be over)
            self._act("play_again" if again else "start_table", number, game=table.code, members=t.members,
                      phases=None if again else {})
        except SeatingError:
            del self._tables[table.code]
            table.act(None, {"type": "end"})  # the orphan table is ended, never played
            log.warning("class %s: table %s changed while starting; table %s ended", self.code, number, table.code)
            raise
        return table

    def start_all(self) -> list[Table]:
        """Start every table that has students and has not started; all are checked before any starts."""
        self.refresh()  # listeners hear what changed, also if the start is refused
        self._check("start_all")
        todo = [t for t in self.state.tables if not t.started and t.members]
        return [self.start_table(t.number) for t in todo]

    def end_class(self) -> None:
        """End the class: every game still in play ends (its resolved rounds stay in the report), and no
        student may join or be seated any more."""
        self.refresh()
        self._check("end_class")
        for table in self.tables():
            table.refresh()
            if table.state.phase != "over":
                try:
                    table.act(None, {"type": "end"})
                except DichotomyError as exc:  # it ended meanwhile: nothing to do
                    log.info("class %s: table %s did not end: %s", self.code, table.code, exc.code)
        self._act("end_class", phases={})

    def _slice(self, number: int, game: int = 0) -> list:
        """Game ``game`` (0: the first) of table ``number``: its slice of the shuffled deck, as card JSON
        (disjoint while the deck lasts; a table's next game takes the slice after every table's)."""
        s = self.state
        cards = list(s.cards)
        random.Random(f"{s.seed}:deck").shuffle(cards)
        start = ((number - 1 + game * len(s.tables)) * s.rounds) % len(cards)
        return [(cards + cards)[start + i] for i in range(s.rounds)]

    def _table_deck(self, number: int) -> Deck:
        """Table ``number``'s own slice of the shuffled deck, except that a card the report already shows
        (resolved, and no table can still be dealt it) is swapped for one it does not, while any is left:
        a table added late is not dealt a card its players could have read in the report."""
        t = self.state.table(number)
        picked = self._slice(number, len(t.codes) if t is not None else 0)
        shown = self.shown_cards()
        if any(card_key(c) in shown for c in picked):
            used = {card_key(c) for c in picked}
            dealt_elsewhere = set().union(*self.still_dealable().values()) if self.state.tables else set()
            spare = [c for c in self.state.cards if card_key(c) not in shown and card_key(c) not in used]
            random.Random(f"{self.state.seed}:spare:{number}").shuffle(spare)
            spare.sort(key=lambda c: card_key(c) in dealt_elsewhere)  # fresh cards first (stable sort)
            for i, c in enumerate(picked):
                if card_key(c) in shown and spare:
                    picked[i] = spare.pop(0)
        return Deck(name=self.state.deck_name, lang=self.state.lang, cards=tuple(Card.from_json(c) for c in picked))

    def still_dealable(self) -> dict[int, set]:
        """Per table number, the cards (:func:`card_key`) that table can still be dealt: an unstarted
        table's whole slice, a started table's card in play and cards not yet drawn (none once over)."""
        out: dict[int, set] = {}
        for t in self.state.tables:
            if not t.started:
                out[t.number] = {card_key(c) for c in self._slice(t.number)}
                continue
            table = self.table(t.code)  # type: ignore[arg-type]
            table.refresh()
            st = table.state
            if st.phase == "over":
                out[t.number] = set()
            else:
                out[t.number] = {card_key(c) for c in st.round_deck} | ({card_key(st.current)} if st.current else set())
        return out

    def resolved_cards(self) -> dict[int, set]:
        """Per started table number, the cards (:func:`card_key`) of its resolved rounds (every game)."""
        out: dict[int, set] = {}
        for t in self.state.tables:
            if t.started:
                out[t.number] = set()
                for code in t.codes:
                    state = self.table(code).state
                    out[t.number] |= {k for k in (record_card(state, r) for r in state.history) if k}
        return out

    def shown_cards(self) -> set:
        """The cards the report may show: resolved at some table, and no table can still be dealt them."""
        if not self.state.tables:
            return set()
        dealable = set().union(*self.still_dealable().values())
        resolved = set().union(*self.resolved_cards().values())
        return resolved - dealable

    def table(self, which: "int | str") -> Table:
        """A started table of this class, by number or code (one :class:`Table` object per code)."""
        code = which
        if isinstance(which, int) and not isinstance(which, bool):
            t = self.state.table(which)
            if t is None or not t.started:
                raise SeatingError("Table {table} has not started.", code="not_started", params={"table": which})
            code = t.code  # type: ignore[assignment]
        if code not in {c for t in self.state.tables for c in t.codes}:
            raise SeatingError("That table is not part of this class.", code="not_in_class")
        if code not in self._tables:
            self._adopt(Table.open(code, self.store))  # type: ignore[arg-type]
        return self._tables[code]  # type: ignore[index]

    def _adopt(self, table: Table) -> None:
        """Keep ``table`` as this class's one object for its code; its changes reach class listeners,
        whoever refreshes it (a widget's own watch or :meth:`poll`)."""
        self._tables[table.code] = table
        table.subscribe(lambda _t: self.notify())

    def tables(self) -> list[Table]:
        """Every started table of the class, by table number."""
        return [self.table(t.code) for t in self.state.tables if t.started]  # type: ignore[arg-type]

    def seat_of(self, who: "int | str | StudentTicket") -> tuple[Table, int] | None:
        """``(table, seat id)`` of a student whose table has started, else None."""
        student = self.student_id(who)
        t = self.state.table_of(student)
        if t is None or not t.started:
            return None
        table = self.table(t.code)  # type: ignore[arg-type]
        seat = table.member_for_hash(lambda s: s.seats, self.state.student(student).token_hash)  # type: ignore[union-attr]
        return None if seat is None else (table, seat)

    def names(self, members: tuple) -> list[str]:
        return [self.state.student(m).name for m in members]  # type: ignore[union-attr]

    # --- views (see class_views.py) ----------------------------------------------------------
    def dashboard_view(self, lang: str = "en") -> dict[str, Any]:
        """The teacher's dashboard: roster, one row per table (from its public view: no hidden word),
        the class moves legal now, alerts dated now; sentences in ``lang``."""
        from .views import dashboard_view

        return dashboard_view(self, lang, time.time())

    def projector_view(self) -> dict[str, Any]:
        """The class overview for a projector: tables, rounds played, scores."""
        from .views import class_projector_view

        return class_projector_view(self)

    def lobby_view(self, who: "int | str | StudentTicket") -> dict[str, Any]:
        """What a student's class lobby shows: the class, their table and tablemates (names only)."""
        from .views import student_lobby_view

        return student_lobby_view(self, self.student_id(who))

    def report(self) -> dict[str, Any]:
        """Resolved rounds of every table (never a live round)."""
        from .views import report

        return report(self)

    def report_csv(self) -> str:
        """The report as CSV text, one row per clue."""
        from .views import report_csv

        return report_csv(self.report())

    def report_json(self) -> str:
        """The report as JSON text."""
        from .views import report_json

        return report_json(self.report())

    # --- following the store ------------------------------------------------------------------
    def poll(self) -> bool:
        """Refresh the class and every started table; True if anything changed.

        Listeners hear of a class change here, and of a table change through that table's own feed.
        """
        changed = self.refresh(notify=False)
        if changed:
            self.notify()
        for table in self.tables():
            changed = table.refresh() or changed
            if table.timed:
                changed = table.tick() or changed
        return changed

    def follow(self) -> None:
        """One wake of :meth:`watch`: the class and its tables, as other kernels change them."""
        self.poll()

    def __repr__(self) -> str:
        s = self.state
        started = sum(1 for t in s.tables if t.started)
        return (f"<Classroom {self.code} {s.name!r}: {len(s.students)} students, {len(s.tables)} tables "
                f"({started} started)>")
