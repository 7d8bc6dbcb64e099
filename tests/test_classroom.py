"""Classroom: roster, seating rules, moves, late joiners, start, the dashboard and the report."""

from __future__ import annotations

import csv
import io
import json

import pytest

from dichotomy_widget import Table
from dichotomy_widget.class_mode.classroom import Classroom, normalize_class_code
from dichotomy_widget.errors import (ClassNotFound, DichotomyError, InvalidAction, NameTaken, SeatingError,
                                     SeatNotFound, TableNotFound)
from dichotomy_widget.stores import MemoryStore, SqliteStore
from game_helpers import confirm_all, lock, play_round, unique_clues, word_deck, write

NAMES = [f"Kid{chr(65 + i)}" for i in range(12)]


def new_class(n: int = 12, table_size: int = 4, rounds: int = 3, store=None, **kw) -> Classroom:
    room = Classroom.create("Year 9 French", deck=word_deck(), rounds=rounds, table_size=table_size,
                            seed=11, store=store or MemoryStore(), **kw)
    for name in NAMES[:n]:
        room.join(name)
    return room


def test_create_join_and_tokens():
    room = new_class(0)
    assert room.teacher_token and room.is_teacher(room.teacher_token)
    assert not room.is_teacher("forged") and not room.is_teacher(None)
    ticket = room.join("  Ana   Lee ")
    assert ticket.name == "Ana Lee" and ticket.token not in repr(ticket)
    assert room.student_for_token(ticket.token) == ticket.student
    stored = json.dumps([r.payload for r in room.store.load(room.stream)]) + json.dumps(room.store.table_meta(room.stream))
    assert ticket.token not in stored and room.teacher_token not in stored
    with pytest.raises(SeatNotFound):
        room.student_for_token("forged-token")
    with pytest.raises(NameTaken):
        room.join("ana lee")  # unique per class, same comparison as at a table
    for bad in ("", "   ", "x" * 25, "a\x00b", None):
        with pytest.raises(InvalidAction):
            room.join(bad)
    assert len(room.state.students) == 1


def test_class_codes_never_open_as_tables_and_forged_codes_are_refused():
    room = new_class(3)
    assert not room.store.table_exists(room.code)  # the stream is class-CODE
    with pytest.raises(TableNotFound):
        Table.open(room.stream, room.store)
    assert Classroom.open(room.code.lower(), room.store).state.name == "Year 9 French"
    for bad in ("ZZZZZZ", "<b>", "", "class-ZZZZ"):
        with pytest.raises(ClassNotFound):
            Classroom.open(bad, room.store)
    assert normalize_class_code(" class-ab2c ") == "AB2C"


@pytest.mark.parametrize("kwargs,code", [
    ({"table_size": 3}, "invalid_table_size"), ({"table_size": 7}, "invalid_table_size"),
    ({"rounds": 11}, "deck_too_small"), ({"rounds": 0}, "invalid_rounds"),
    ({"time_limit": 2}, "invalid_time_limit"),
])
def test_create_refuses_bad_options(kwargs, code):
    with pytest.raises(DichotomyError) as err:
        Classroom.create("C", deck=word_deck(), **{"rounds": 3, **kwargs})
    assert err.value.code == code


def test_make_tables_is_balanced_and_covers_the_roster():
    room = new_class(12, table_size=4)
    tables = room.make_tables()
    assert [len(t) for t in tables] == [4, 4, 4]
    assert sorted(n for t in tables for n in t) == sorted(NAMES)
    view = room.dashboard_view()
    assert [t["members"] for t in view["tables"]] == tables and view["unseated"] == []
    assert all(s["table"] in (1, 2, 3) for s in view["students"])
    with pytest.raises(SeatingError) as err:
        new_class(2).make_tables()
    assert err.value.code == "too_few_students"


def test_move_add_table_late_joiner_and_start():
    room = new_class(12)
    room.make_tables()
    mover = room.state.tables[0].members[0]
    room.move(mover, 2)
    assert [len(t.members) for t in room.state.tables] == [3, 5, 4]
    with pytest.raises(SeatingError):
        room.move(mover, 2)  # already there
    with pytest.raises(SeatingError):
        room.move(mover, 9)  # no such table
    late = room.join("Late")
    assert room.dashboard_view()["unseated"] == ["Late"]
    number = room.add_table()
    assert number == 4
    room.move("late", 4)
    with pytest.raises(SeatingError) as err:
        room.start_all()  # table 4 has one student: nothing starts
    assert err.value.code == "seat_count" and not room.state.any_started
    room.move("Late", 1)
    started = room.start_all()  # the empty extra table is skipped
    assert [t.state.phase for t in started] == ["reveal"] * 3
    assert [room.table(i) for i in (1, 2, 3)] == started and room.table(1) is started[0]  # one object per table
    assert [len(t.state.seats) for t in started] == [4, 5, 4]
    # each student's class token is their seat token at their table
    table, seat = room.seat_of(late)
    assert table.seat_for_token(late.token) == seat and table.state.name(seat) == "Late"
    # no moves, reshuffles or starts once a table has started
    with pytest.raises(SeatingError):
        room.move("Late", 4)
    with pytest.raises(SeatingError):
        room.make_tables()
    with pytest.raises(SeatingError):
        room.start_table(1)
    # a late joiner after the start can only go to a table still in its lobby
    later = [room.join(n) for n in ("L1", "L2", "L3")]
    with pytest.raises(SeatingError):
        room.move("L1", 1)
    for t in later:
        room.move(t.student, 4)
    fourth = room.start_table(4)
    assert sorted(s.name for s in fourth.state.seats) == ["L1", "L2", "L3"]


def test_tables_get_disjoint_cards_while_the_deck_lasts():
    room = new_class(12)
    room.make_tables()
    tables = room.start_all()
    decks = [set(map(lambda c: tuple(map(tuple, c)), t.state.deck)) for t in tables]
    assert all(len(d) == 3 for d in decks)
    assert not (decks[0] & decks[1]) and not (decks[1] & decks[2]) and not (decks[0] & decks[2])


def _all_words(table: Table) -> set[str]:
    return {w for card in table.state.deck for pair in card for w in pair}


def test_dashboard_and_projector_never_hold_a_hidden_word():
    room = new_class(12)
    room.make_tables()
    tables = room.start_all()
    t = tables[0]

    def dumped() -> str:
        return json.dumps([room.dashboard_view(), room.projector_view(), room.report()]).lower()

    hidden = {w.lower() for w in _all_words(t)}  # nothing of this table's deck is resolved yet
    assert not any(w in dumped() for w in hidden)
    lock(t, 2)
    clues = unique_clues(t)
    for text in clues[:-1]:
        t.act(t.state.current_writer, {"type": "clue", "text": text})
    assert t.state.phase == "clues"
    text = dumped()
    assert not any(w in text for w in hidden) and not any(c in text for c in clues)
    summary = room.dashboard_view()["tables"][0]["summary"]
    assert summary["phase"] == "clues" and summary["turn"] == t.state.name(t.state.current_writer)
    t.act(t.state.current_writer, {"type": "clue", "text": clues[-1]})
    assert t.state.phase == "guess"
    assert t.state.target.lower() not in dumped() and t.state.foil.lower() not in dumped()
    assert room.report()["tables"][0]["rounds"] == []  # nothing of a live round in the report
    t.act(t.state.guesser, {"type": "guess", "text": t.state.target})
    summary = room.dashboard_view()["tables"][0]["summary"]
    assert summary["phase"] == "recap" and len(summary["not_continued"]) == 4
    t.act(t.state.order[0], {"type": "continue"})
    assert len(room.dashboard_view()["tables"][0]["summary"]["not_continued"]) == 3
    overview = room.projector_view()
    assert [x["rounds_played"] for x in overview["tables"]] == [1, 0, 0]
    assert [x["score"] for x in overview["tables"]] == [1, 0, 0]


def test_report_holds_resolved_rounds_and_csv_has_one_row_per_clue():
    room = new_class(12)
    room.make_tables()
    a, b, _c = room.start_all()
    play_round(a, "correct")
    lock(b, 1)
    # two writers give the same clue: both eliminated, with the reason
    writers = b.state.writers
    write(b, ["zebra", "zebra"] + ["anchor", "velvet", "compass"][: len(writers) - 2])
    b.act(b.state.guesser, {"type": "pass"})
    confirm_all(b)
    lock(b, 1)  # a live round at table 2: not in the report
    data = room.report()
    assert [len(t["rounds"]) for t in data["tables"]] == [1, 1, 0]
    first = data["tables"][0]["rounds"][0]
    assert first["outcome"] == "correct" and first["score"] == 1
    assert a.state.history[0].target == first["target"]
    rows = list(csv.DictReader(io.StringIO(room.report_csv())))
    assert len(rows) == len(a.state.history[0].clues) + len(b.state.history[0].clues)
    table2 = [r for r in rows if r["table"] == "2"]
    zebras = [r for r in table2 if r["clue"] == "zebra"]
    assert len(zebras) == 2 and all(r["eliminated"] == "yes" and r["eliminated_reason"] for r in zebras)
    assert all(r["passed"] == "yes" and r["outcome"] == "pass" and r["score_after"] == "0" for r in table2)
    assert {r["clue_author"] for r in table2} == {b.state.name(s) for s in writers}
    assert b.state.target not in room.report_csv()  # the live round's pair at table 2
    assert json.loads(room.report_json())["tables"][1]["rounds"][0]["outcome"] == "pass"


def test_csv_cells_cannot_start_formulas():
    room = new_class(0)
    for name in ("=cmd", "Bo", "Cy"):
        room.join(name)
    room.make_tables()
    (t,) = room.start_all()
    play_round(t, "wrong")
    assert ",=cmd" not in room.report_csv() and "'=cmd" in room.report_csv()


def test_a_class_survives_a_restart_from_a_sqlite_file(tmp_path):
    path = tmp_path / "class.sqlite3"
    store = SqliteStore(path)
    room = new_class(12, store=store)
    token = room.teacher_token
    room.make_tables()
    (t1, *_rest) = room.start_all()
    play_round(t1, "correct")
    store.close()
    reopened = Classroom.open(room.code, SqliteStore(path))  # a new process would do the same
    assert reopened.is_teacher(token)
    assert reopened.state == room.state
    assert reopened.report()["tables"][0]["rounds"][0]["outcome"] == "correct"
    assert [t["code"] for t in reopened.dashboard_view()["tables"]] == [t.code for t in room.state.tables]


def test_two_kernels_joining_at_once_do_not_lose_a_student(tmp_path):
    path = tmp_path / "c.sqlite3"
    a = Classroom.create("C", deck=word_deck(), rounds=3, store=SqliteStore(path))
    b = Classroom.open(a.code, SqliteStore(path))
    a.join("One")
    b.join("Two")  # b is stale: the append conflicts, b reloads and decides again
    a.join("Three")
    b.refresh()
    assert [s.name for s in b.state.students] == ["One", "Two", "Three"]
    with pytest.raises(NameTaken):
        b.join("one")


def test_change_feed_tells_listeners_about_table_changes():
    room = new_class(12)
    room.make_tables()
    opened = []
    room.subscribe(lambda r: opened.extend(r.tables()))  # a page opening the tables while they start
    started = room.start_all()
    assert all(any(t is s for t in opened) for s in started)
    seen = []
    room.subscribe(lambda r: seen.append(r.state.version))
    other = Classroom.open(room.code, room.store)
    lock(other.table(1))
    assert room.poll() and seen


def test_a_class_in_postgresql_survives_a_reconnect():
    """The class stream works in PostgreSQL like tables do (a real throwaway server)."""
    from dichotomy_widget.stores import open_store
    from pg_server import PostgresServer, PostgresUnavailable

    try:
        server = PostgresServer().start()
    except PostgresUnavailable as exc:
        pytest.fail(f"PostgreSQL tests need a server: {exc}", pytrace=False)
    try:
        dsn = server.create_schema()
        first = open_store(dsn)
        room = new_class(5, store=first)
        room.make_tables()
        (table,) = room.start_all()
        play_round(table, "pass")
        first.close()
        second = open_store(dsn)
        again = Classroom.open(room.code, second)
        assert again.state == room.state and again.is_teacher(room.teacher_token)
        assert again.report()["tables"][0]["rounds"][0]["outcome"] == "pass"
        second.close()
    finally:
        server.stop()


def test_a_table_change_reaches_class_listeners_whoever_refreshes_the_table():
    """A dashboard's table widget refreshes the table itself; the class summary must still hear of it."""
    room = new_class(12)
    room.make_tables()
    room.start_all()
    seen = []
    room.subscribe(lambda r: seen.append(r.table(1).state.phase))
    lock(Table.open(room.table(1).code, room.store))  # another kernel acts
    assert room.table(1).refresh()  # the table's own watch sees it first
    assert seen == ["clues"]
    assert not room.poll() and seen == ["clues"]  # nothing new: no second notice


# --- hardening, second pass (#26) ------------------------------------------------------------------
_SEPARATORS = (",", ";", "\t", "|")
_FORMULA_STARTS = ("=", "+", "-", "@", "\uff1d", "\uff0b", "\uff0d", "\uff20")


def _formula_cells(text: str) -> list[str]:
    """Cells a spreadsheet splitting ``text`` on any usual separator (quotes ignored) would evaluate."""
    bad = []
    for line in text.splitlines():
        for sep in _SEPARATORS:
            for cell in line.split(sep):
                cell = cell.strip().strip('"').strip()
                if cell[:1] in _FORMULA_STARTS and not cell.lstrip("-").isdigit():
                    bad.append(cell)
    return bad


def test_csv_cells_hold_no_formula_after_any_separator():
    room = Classroom.create("Y;=1+1", deck=word_deck(), rounds=1, table_size=4, seed=11, store=MemoryStore())
    for name in ("Zed;=3+3;", "Bo|@SUM(1)", "Cy,-2+3"):
        room.join(name)
    room.make_tables()
    (t,) = room.start_all()
    lock(t, 1)
    write(t, ["x;=4+4;", "y|+5"])
    t.act(t.state.guesser, {"type": "guess", "text": "a;=HYPERLINK(1)"})
    text = room.report_csv()
    assert _formula_cells(text) == []
    rows = list(csv.DictReader(io.StringIO(text)))
    assert {r["clue"] for r in rows} == {"x;'=4+4;", "y|'+5"}  # the text stays readable


def test_names_are_unique_up_to_look_alikes_and_one_alphabet_each():
    room = new_class(0)
    room.join("BEN")
    for lookalike in ("\u0412\u0415N", "\u0392\u0395\u039d", "ben", "Ben"):  # ВЕN, ΒΕΝ
        with pytest.raises(DichotomyError):
            room.join(lookalike)
    with pytest.raises(DichotomyError) as mixed:
        room.join("Ann\u0430")  # Latin + a Cyrillic a
    assert mixed.value.code == "mixed_scripts"
    assert room.join("\u0418\u0432\u0430\u043d").name == "\u0418\u0432\u0430\u043d"  # Иван: one alphabet
    assert [s.name for s in room.state.students] == ["BEN", "\u0418\u0432\u0430\u043d"]


def _card_key(card) -> tuple:
    return tuple(tuple(p) for p in card)


def test_report_withholds_a_pair_that_another_table_can_still_be_dealt():
    deck = word_deck()  # 10 cards; 3 tables x 4 rounds = 12 > 10: tables 1 and 3 share cards
    room = Classroom.create("Shared", deck=deck, rounds=4, table_size=4, seed=5, store=MemoryStore())
    for name in NAMES:
        room.join(name)
    room.make_tables()
    tables = room.start_all()
    decks = [{_card_key(c) for c in t.state.deck} for t in tables]
    shared = decks[0] & decks[2]
    assert shared  # the premise: a card two tables can be dealt

    def shown_cards() -> set:
        """The shared cards whose pair the report (data or CSV) shows, by field, not by substring."""
        data = room.report()
        pairs = {(r["target"], r["foil"]) for t in data["tables"] for r in t["rounds"]}
        pairs |= {(r["target"], r["foil"]) for r in csv.DictReader(io.StringIO(room.report_csv()))}
        texts = {c["text"] for t in data["tables"] for r in t["rounds"] for c in r["clues"]}
        return {k for k in shared if any(p in pairs for p in k) or any(w in texts for p in k for w in p)}

    for _ in range(4):  # table 1 plays its whole deck; table 3 has not played yet
        play_round(tables[0], "correct")
        assert shown_cards() == set()
    assert len(room.report()["tables"][0]["rounds"]) == 4  # the rounds are listed, their words withheld
    for _ in range(4):  # as table 3 resolves a shared card, both tables have: it is shown
        play_round(tables[2], "correct")  # no penalty card: every card of the deck gets played
        done = {k for k in shared for r in tables[2].state.history if (r.target, r.foil) in k}
        assert shown_cards() == done
    assert shown_cards() == shared  # every table that could be dealt them has played them: shown


def test_one_device_joins_at_most_a_few_names_and_others_still_join():
    from dichotomy_widget.class_mode.classroom import MAX_JOINS_PER_DEVICE

    room = new_class(0)
    for i in range(MAX_JOINS_PER_DEVICE):
        room.join(f"Flood{i}", device="dev-a")
    with pytest.raises(DichotomyError) as refused:
        room.join("Flood9", device="dev-a")
    assert refused.value.code == "device_join_limit"
    room.join("Ada", device="dev-b")  # another device
    room.join("Ben")  # a device the server does not bound (the teacher's own computer)
    assert len(room.state.students) == MAX_JOINS_PER_DEVICE + 2
    reopened = Classroom.open(room.code, room.store)  # the limit survives a new kernel
    with pytest.raises(DichotomyError):
        reopened.join("Flood10", device="dev-a")


def test_the_teacher_removes_a_student_who_then_cannot_come_back_with_the_link():
    room = new_class(0)
    tickets = {name: room.join(name, device=f"d-{name}") for name in ("Ada", "Bo", "Cy", "Poo")}
    room.remove("Poo")
    assert [s.name for s in room.state.students] == ["Ada", "Bo", "Cy"]
    with pytest.raises(SeatNotFound):
        room.student_for_token(tickets["Poo"].token)
    with pytest.raises(DichotomyError):  # the device's join does not come back by removing
        for i in range(5):
            room.join(f"Poo{i}", device="d-Poo")
    room.make_tables()
    assert all(tickets["Poo"].student not in t.members for t in room.state.tables)
    room.start_all()
    with pytest.raises(SeatingError) as started:
        room.remove("Ada")
    assert started.value.code == "table_started"


def test_a_refused_class_action_still_tells_listeners_what_changed_meanwhile():
    store = MemoryStore()
    room = new_class(3, store=store)
    other = Classroom.open(room.code, store)  # another kernel (a student's page)
    heard = []
    room.subscribe(lambda r: heard.append(len(r.state.students)))
    other.join("Late")
    with pytest.raises(SeatingError):
        room.add_table()  # refused: no tables yet; the refresh inside found "Late"
    assert heard and heard[-1] == 4


# --- the class move table (issue 28) ----------------------------------------------------------------
from dichotomy_widget.class_mode import moves as class_moves  # noqa: E402


def moves_of(room: Classroom) -> dict[str, list[tuple]]:
    return room.legal_moves()


def every_candidate(room: Classroom) -> list[tuple]:
    """Every (kind, args) the move table could be asked about in this class."""
    return [(kind, args) for kind, move in class_moves.CLASS_MOVES.items() for args in move.arguments(room.state)]


def assert_dispatch_follows_the_table(room: Classroom) -> None:
    """Each move the table calls illegal is refused by the engine with a stable code, and changes
    nothing; each legal one is accepted (tried on a copy of the class in its own store)."""
    legal = moves_of(room)
    for kind, args in every_candidate(room):
        if args in legal.get(kind, []):
            continue
        before = room.state
        with pytest.raises(DichotomyError) as refused:
            room.do(kind, *args)
        assert refused.value.code and refused.value.code != "seating_error", (kind, args)
        assert room.state == before, (kind, args)
    for kind, argss in legal.items():
        for args in argss[:3]:
            copy = Classroom(room.code, _copied(room.store))
            copy.do(kind, *args)  # legal: accepted
            assert copy.state.version > room.state.version, (kind, args)


def _copied(store: MemoryStore) -> MemoryStore:
    other = MemoryStore()
    for stream in list(store._tables):  # the memory store's streams (a test may look inside)
        other.create_table(stream, store.table_meta(stream))
        records = store.load(stream)
        if records:
            other.append(stream, 0, [(r.type, r.payload) for r in records])
    return other


def test_the_move_table_before_seating():
    room = new_class(2)
    assert moves_of(room) == {"remove": [(0,), (1,)]}  # too few students to make tables
    room.join(NAMES[2])
    legal = moves_of(room)
    assert set(legal) == {"make_tables", "remove"} and legal["make_tables"] == [()]
    assert class_moves.class_phase(room.state, {}) == "joining"
    assert_dispatch_follows_the_table(room)


def test_the_move_table_after_seating():
    room = new_class(9, table_size=4)
    room.make_tables()
    room.join("Late")
    legal = moves_of(room)
    assert class_moves.class_phase(room.state, {}) == "seated"
    assert set(legal) == {"make_tables", "start_all", "start_table", "add_table", "seat", "move", "remove"}
    late = room.student_id("Late")
    assert [len(t.members) for t in room.state.tables] == [5, 4]
    assert [n for (s, n) in legal["seat"] if s == late] == [1, 2]  # one button per table with a place
    room.seat("Late", 1)
    room.move(room.state.table(2).members[0], 1)
    assert len(room.state.table(1).members) == 7  # full: no more seats there
    room.join("Later")
    assert [n for (s, n) in moves_of(room)["seat"] if s == room.student_id("Later")] == [2]
    assert all(s != late for (s, _n) in legal["move"])  # a late joiner is seated, not moved
    room.add_table()
    assert "add_table" not in moves_of(room)  # an empty table waits: no second one
    assert_dispatch_follows_the_table(room)


def test_the_move_table_while_playing_and_after_the_game():
    room = new_class(8, table_size=4, rounds=1)
    room.make_tables()
    room.start_all()
    room.join("Late")
    legal = moves_of(room)
    assert class_moves.class_phase(room.state, room.table_phases()) == "playing"
    assert set(legal) == {"add_table", "remove", "end_class"}  # the late joiner waits; only they may go
    assert legal["remove"] == [(room.student_id("Late"),)]
    assert_dispatch_follows_the_table(room)
    for table in room.tables():
        play_round(table, "correct")
    assert [t.state.phase for t in room.tables()] == ["over", "over"]
    legal = moves_of(room)
    assert class_moves.class_phase(room.state, room.table_phases()) == "over"
    assert legal["play_again"] == [(1,), (2,)] and legal["end_class"] == [()]
    assert [n for (s, n) in legal["seat"] if s == room.student_id("Late")] == [1, 2]
    assert "start_all" not in legal and "make_tables" not in legal
    assert_dispatch_follows_the_table(room)


def test_play_again_keeps_the_players_deals_the_next_cards_and_seats_a_late_joiner():
    room = new_class(8, table_size=4, rounds=2)
    room.make_tables()
    first = room.start_all()[0]
    first_cards = {tuple(map(tuple, c)) for c in first.state.round_deck} | {first.state.current}
    first.act(None, {"type": "end"})
    room.join("Late")
    room.seat("Late", 1)
    again = room.play_again(1)
    assert again.code != first.code and room.state.table(1).games == (first.code,)
    assert [s.name for s in again.state.seats] == [s.name for s in first.state.seats] + ["Late"]
    dealt = {tuple(map(tuple, c)) for c in again.state.round_deck} | {again.state.current}
    assert not dealt & first_cards  # the next cards, not the same ones
    seat = room.seat_of("Late")
    assert seat is not None and seat[0].code == again.code
    with pytest.raises(SeatingError) as refused:
        room.play_again(1)
    assert refused.value.code == "game_not_over"
    assert [t["code"] for t in room.report()["tables"] if t["number"] == 1] == [first.code, again.code]


def test_ending_the_class_ends_its_games_and_refuses_every_move_and_join():
    room = new_class(8, table_size=4)
    room.make_tables()
    tables = room.start_all()
    with pytest.raises(SeatingError):
        Classroom.open(room.code, room.store).do("no_such_move")
    room.end_class()
    assert room.state.ended and all(t.state.phase == "over" for t in tables)
    assert room.legal_moves() == {}
    with pytest.raises(SeatingError) as refused:
        room.join("Too late")
    assert refused.value.code == "class_ended"
    with pytest.raises(SeatingError) as refused:
        room.add_table()
    assert refused.value.code == "class_ended"
    again = Classroom.open(room.code, room.store)  # the events replay: TablePlayedAgain / ClassEnded
    assert again.state == room.state


def test_the_dashboard_view_lists_the_legal_moves_and_a_stuck_tables_alert():
    room = new_class(8, table_size=4)
    room.make_tables()
    table = room.start_all()[0]
    view = room.dashboard_view()
    assert view["phase"] == "playing" and set(view["moves"]) == {"add_table", "end_class"}
    row = view["tables"][0]["row"]
    drawer = table.state.name(table.state.drawer)
    assert [p["name"] for p in row["players"] if p["acting"]] == [drawer]
    assert row["status"] == f"{drawer} is picking a pair…" and row["alerts"] == []
    assert set(row["host"]) == {"random_pick"}
    from dichotomy_widget.class_mode.views import STUCK_AFTER, dashboard_view

    later = dashboard_view(room, "en", table.last_event_at + STUCK_AFTER + 5)
    assert later["tables"][0]["row"]["alerts"] == [{"kind": "reveal", "names": [drawer], "seconds": STUCK_AFTER + 5}]
    assert dashboard_view(room, "en", None)["tables"][0]["row"]["alerts"] == []
