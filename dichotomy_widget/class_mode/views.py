"""Views of a class: the teacher's dashboard, the class projector, the debrief report and a student's
lobby. Every class page renders only from these (``pages/class_html.py``).

Every per-table part is built from ``Table.view(None)`` (the projector view, which never holds a word a
live round still hides) or from the table's resolved rounds (``state.history``), withheld while another
table can still be dealt their card. Nothing here reads the card in play, the locked pair or the clues
of a live round, and nothing here writes: the views are plain data of what the class object holds now.
"""

from __future__ import annotations

import csv
import io
import json
import re
from typing import Any, Protocol

from .cards import record_card
from .moves import class_phase, free_places, legal_moves
from ..i18n import translator
from ..views import recap_json


class Classroom(Protocol):
    """What the views read of a :class:`~dichotomy_widget.class_mode.classroom.Classroom` (no import: no cycle)."""

    code: str
    state: Any

    def names(self, members: tuple) -> list[str]: ...

    def table(self, which: "int | str") -> Any: ...

    def still_dealable(self) -> dict[int, set]: ...

__all__ = ["dashboard_view", "table_row", "STUCK_AFTER", "class_projector_view", "student_lobby_view", "table_summary", "report",
           "report_csv", "report_json", "CSV_COLUMNS"]

CSV_COLUMNS = ["class", "table", "table_code", "round", "guesser", "drawer", "target", "foil", "clue_author",
               "clue", "timeout", "eliminated", "eliminated_reason", "guess", "passed", "outcome",
               "score_after"]


def table_summary(public: dict[str, Any]) -> dict[str, Any]:
    """The dashboard line of one table, from its projector view: phase, round, score, whose turn, who
    has not continued."""
    players = public["players"]
    phase = public["phase"]
    name_of = {p["seat"]: p["name"] for p in players}
    guesser = next((p["name"] for p in players if p["guesser"]), None)
    drawer = next((p["name"] for p in players if p["drawer"]), None)
    if phase == "reveal":
        turn = drawer
    elif phase == "clues":
        turn = name_of.get(public["turn"])
    elif phase == "guess":
        turn = guesser
    else:
        turn = None
    return {
        "phase": phase,
        "round": public["round"],
        "rounds": public["rounds"],
        "rounds_played": len(public["history"]),
        "score": public["score"],
        "guesser": guesser,
        "turn": turn,
        "not_continued": [p["name"] for p in players if phase == "recap" and not p["confirmed"]],
        "status": public["status"],
        "players": [p["name"] for p in players],
    }


#: Seconds a table may wait on the same players before the dashboard raises an alert.
STUCK_AFTER = 60

#: The host actions a dashboard row offers (the rest stay in the table's full view).
ROW_ACTIONS = ("random_pick", "timeout", "confirm_absent")


def _acting(public: dict[str, Any]) -> set:
    """The seats the table waits on now: the Drawer picking, the writer, the Guesser, or whoever has
    not continued from the recap."""
    phase, players = public["phase"], public["players"]
    if phase == "reveal":
        return {p["seat"] for p in players if p["drawer"]}
    if phase == "clues":
        return {public["turn"]}
    if phase == "guess":
        return {p["seat"] for p in players if p["guesser"]}
    if phase == "recap":
        return {p["seat"] for p in players if not p["confirmed"]}
    return set()


def table_row(public: dict[str, Any], waited: float | None) -> dict[str, Any]:
    """A started table's dashboard row from its public view (in the dashboard's language): players with
    who is to act, its own status sentence, round, score, the host actions the row offers and its
    alerts. ``waited``: seconds since the table last moved (``None``: unknown, no alert)."""
    acting = _acting(public)
    players = [{"name": p["name"], "acting": p["seat"] in acting} for p in public["players"]]
    names = [p["name"] for p in players if p["acting"]]
    alerts = []
    if names and waited is not None and waited >= STUCK_AFTER:
        alerts.append({"kind": "not_continued" if public["phase"] == "recap" else public["phase"],
                       "names": names, "seconds": int(waited)})
    host: dict[str, Any] = {}
    for kind in public["actions"]:
        if kind == "random_pick":
            nxt = public.get("next")
            host[kind] = {"name": nxt["drawer"]["name"] if nxt else next(
                (p["name"] for p in public["players"] if p["drawer"]), "?")}
        elif kind == "timeout":
            host[kind] = {"phase": public["phase"], "name": names[0] if names else "?"}
        elif kind == "confirm_absent":
            host[kind] = {"names": [p["name"] for p in public["players"] if not p["confirmed"]]}
    return {"phase": public["phase"], "status": public["status"], "round": public["round"],
            "rounds": public["rounds"], "rounds_played": len(public["history"]), "score": public["score"],
            "players": players, "alerts": alerts, "host": host}


def dashboard_view(room: Classroom, lang: str = "en", now: float | None = None) -> dict[str, Any]:
    """The teacher's dashboard: roster (with ids, for the seating controls), one row per table (a
    started table's from its projector view, sentences in ``lang``), the students without a table, and
    the class moves legal now (``moves``, from the class move table: the page offers exactly these).
    ``now`` (unix seconds) dates the alerts; ``None``: no alert. No hidden word is in it."""
    s = room.state
    started = {m for t in s.tables if t.started for m in t.members}
    publics = {t.number: room.table(t.code).view(None, lang) for t in s.tables if t.started}  # type: ignore[arg-type]
    phases = {n: v["phase"] for n, v in publics.items()}
    moves = legal_moves(s, phases)
    can = {kind: {args for args in argss} for kind, argss in moves.items()}
    tables = []
    for t in s.tables:
        entry: dict[str, Any] = {"number": t.number, "code": t.code, "started": t.started,
                                 "members": room.names(t.members), "free": free_places(t), "game": len(t.codes),
                                 "start": (t.number,) in can.get("start_table", ()),
                                 "play_again": (t.number,) in can.get("play_again", ())}
        if t.started:
            public = publics[t.number]
            changed = getattr(room.table(t.code), "last_event_at", 0.0)  # type: ignore[arg-type]
            waited = now - changed if now is not None and changed else None
            entry["summary"] = table_summary(public)
            entry["row"] = table_row(public, waited)
        tables.append(entry)
    by_id = {st.id: st for st in s.students}
    late = [{"id": sid, "name": by_id[sid].name,
             "tables": [n for (x, n) in moves.get("seat", []) if x == sid]}
            for sid in s.unseated if s.tables]
    movers = {x for (x, _n) in moves.get("move", [])} | {x for (x,) in moves.get("remove", [])}
    return {
        "phase": class_phase(s, phases),
        "moves": {kind: [list(a) for a in argss] for kind, argss in moves.items()},
        "late": late,
        "movable": [{"id": st.id, "name": st.name,
                     "table": s.table_of(st.id).number if s.table_of(st.id) else None,  # type: ignore[union-attr]
                     "targets": [n for (x, n) in moves.get("move", []) if x == st.id],
                     "removable": (st.id,) in can.get("remove", ())}
                    for st in s.students if st.id in movers],
        "ended": s.ended,
        "version": f"{s.version}:{sum(v['version'] for v in publics.values())}",  # what it was drawn from
        "class": room.code,
        "name": s.name,
        "deck": s.deck_name,
        "rounds": s.rounds,
        "table_size": s.table_size,
        "time_limit": s.time_limit,
        "students": [{"id": st.id, "name": st.name,
                      "table": (s.table_of(st.id).number if s.table_of(st.id) else None),  # type: ignore[union-attr]
                      "movable": st.id not in started}
                     for st in s.students],
        "unseated": room.names(s.unseated),
        "any_started": s.any_started,
        "tables": tables,
    }


def class_projector_view(room: Classroom) -> dict[str, Any]:
    """The class overview for a projector: tables, players, phase, rounds played, score."""
    s = room.state
    tables = []
    for t in s.tables:
        entry: dict[str, Any] = {"number": t.number, "code": t.code, "players": room.names(t.members),
                                 "started": t.started, "phase": "seating", "rounds_played": 0, "score": 0,
                                 "rounds": s.rounds}
        if t.started:
            summary = table_summary(room.table(t.code).view(None))  # type: ignore[arg-type]
            entry.update(phase=summary["phase"], rounds_played=summary["rounds_played"],
                         score=summary["score"], players=summary["players"])
        tables.append(entry)
    return {"class": room.code, "name": s.name, "students": len(s.students), "tables": tables}


def student_lobby_view(room: Classroom, student: int) -> dict[str, Any]:
    """What a student's class lobby shows: the class, how many joined, and this student's table and
    tablemates once seated (``me`` is ``None`` once the teacher removed them). Names and numbers only."""
    s = room.state
    me = s.student(student)
    mine = s.table_of(student) if me is not None else None
    return {
        "class": room.code,
        "name": s.name,
        "deck_lang": s.lang,
        "students": len(s.students),
        "me": me.name if me is not None else None,
        "table": mine.number if mine is not None else None,
        "tablemates": [n for n in room.names(mine.members) if me is None or n != me.name] if mine else [],
        "all_started": bool(s.tables) and all(t.started for t in s.tables),
    }


def report(room: Classroom, lang: str = "en") -> dict[str, Any]:
    """Resolved rounds only, per table: Target, Foil, clues with authors and fates, guess, outcome, score.

    A round whose card another table can still be dealt (tables share cards when the deck has fewer
    than tables x rounds) is listed with its words withheld (``"withheld": True``) until no table can.

    Its sentences (``outcome_text``, ``reason_text``) are in ``lang``; every other field is data."""
    tr = translator(lang)
    s = room.state
    tables = []
    dealable = room.still_dealable() if s.tables else {}
    everywhere = set().union(set(), *dealable.values())
    for t in s.tables:
        for game, code in enumerate(t.codes):
            table = room.table(code)
            # a game's own cards cannot come back in that game; an earlier game's may in the next one
            elsewhere = (set().union(set(), *(cards for n, cards in dealable.items() if n != t.number))
                         if code == t.code else everywhere)
            rounds = [_withheld(recap_json(table.state, record, tr))
                      if record_card(table.state, record) in elsewhere else recap_json(table.state, record, tr)
                      for record in table.state.history]
            tables.append({"number": t.number, "code": code, "game": game + 1,
                           "players": [p.name for p in table.state.seats], "rounds": rounds})
    return {"class": room.code, "name": s.name, "deck": s.deck_name, "tables": tables}


#: What a withheld round hides: every word of its card a student could still meet at another table.
_WITHHELD = {"target": "", "foil": "", "clues": [], "guess": None, "pair_number": None, "reason": None,
             "reason_text": None}


def _withheld(round_json: dict[str, Any]) -> dict[str, Any]:
    return {**round_json, **_WITHHELD, "withheld": True}


def _rows(data: dict[str, Any]) -> list[dict[str, Any]]:
    rows = []
    for t in data["tables"]:
        for r in t["rounds"]:
            base = {"class": data["name"], "table": t["number"], "table_code": t["code"], "round": r["round"],
                    "guesser": r["guesser"], "drawer": r["drawer"], "target": r["target"], "foil": r["foil"],
                    "guess": r["guess"] or "", "passed": "yes" if r["passed"] else "no",
                    "outcome": r["outcome"], "score_after": r["score"]}
            clues = r["clues"] or [None]
            for c in clues:
                row = dict(base)
                if c is not None:
                    row.update(clue_author=c["author"], clue=c["text"] or "", timeout="yes" if c["timeout"] else "no",
                               eliminated="yes" if c["eliminated"] else "no",
                               eliminated_reason=(c["reason_text"] or c["reason"] or "") if c["eliminated"] else "")
                rows.append(row)
    return rows


#: Characters a spreadsheet may start a formula with (ASCII and full-width), and the separators a
#: spreadsheet may split a line on, whatever this file's own separator and quoting say.
_FORMULA_STARTS = "=+-@\t\r\uff1d\uff0b\uff0d\uff20"
_SEPARATORS = ",;\t|\r\n"
_FORMULA_AFTER_SEPARATOR = re.compile("(^|[" + re.escape(_SEPARATORS) + "])([\\s\"']*)([" + re.escape(_FORMULA_STARTS) + "])")


def _safe_cell(value: Any) -> Any:
    """Spreadsheet-safe text: every formula start at the beginning of the text *or after a separator*
    (``x;=4+4`` in a spreadsheet that splits on ``;``) gets a ``'`` before it. Numbers stay numbers."""
    if not isinstance(value, str):
        return value
    return _FORMULA_AFTER_SEPARATOR.sub(lambda m: m.group(1) + m.group(2) + "'" + m.group(3), value)


def report_csv(data: dict[str, Any]) -> str:
    """The report as CSV, one row per clue (a round without clues gets one row). Every text field is
    quoted and no cell holds a formula start, at its beginning or after any separator."""
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=CSV_COLUMNS, restval="", lineterminator="\n",
                            quoting=csv.QUOTE_NONNUMERIC)
    writer.writeheader()
    for row in _rows(data):
        writer.writerow({k: _safe_cell(v) for k, v in row.items()})
    return buf.getvalue()


def report_json(data: dict[str, Any]) -> str:
    """The report as pretty JSON text (UTF-8, not ASCII-escaped)."""
    return json.dumps(data, ensure_ascii=False, indent=2)
