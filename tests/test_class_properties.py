"""Property test of the class views, the twin of the ``seat_view`` playthroughs in ``test_properties.py``.

Hypothesis drives random class plays: students join, tables are made, late joiners get an extra table,
tables start one by one and play random rounds, with a deck smaller than tables x rounds so tables share
cards; students join late while tables play and are seated at a finished table, which plays again (the
moves chosen from the class move table). After every step, no class view (teacher dashboard, class projector, report, every student's
lobby) and no class page HTML built from them holds a word still hidden at some table at that moment:
a Target or Foil of the card of a round in progress, a clue of a live round, or a word of a card that
table can still be dealt.
"""

from __future__ import annotations

import json
import os
import random
import string

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dichotomy_widget import rules
from dichotomy_widget.class_mode.views import class_projector_view, dashboard_view, report, student_lobby_view
from dichotomy_widget.class_mode.classroom import Classroom
from dichotomy_widget.decks import Card, Deck, Pair
from dichotomy_widget.errors import DichotomyError
from dichotomy_widget.i18n import translator
from dichotomy_widget.stores import MemoryStore
from dichotomy_widget.pages import class_html

EXAMPLES = int(os.environ.get("DICHOTOMY_CLASS_PROPERTY_EXAMPLES", "25"))
LIVE = ("reveal", "clues", "guess")


def letters(n: int) -> str:
    """0 -> "a", 25 -> "z", 26 -> "ba": distinct letter strings (deck words must be words)."""
    out = ""
    while True:
        out = string.ascii_lowercase[n % 26] + out
        n //= 26
        if not n:
            return out


def synthetic_deck(cards: int) -> Deck:
    """Cards of distinct words that no page text holds (``qtgt…`` / ``qfol…``)."""
    return Deck(name="synthetic", lang="en", cards=tuple(
        Card(tuple(Pair(f"qtgt{letters(c)}{letters(p)}z", f"qfol{letters(c)}{letters(p)}z") for p in range(5)))
        for c in range(cards)))


def card_words(card) -> set[str]:
    return {w for pair in card for w in pair}


class ClassPlay:
    """A class driven through its public commands, checking every class view after each step."""

    def __init__(self, rng: random.Random, students: int, rounds: int, deck: int) -> None:
        self.rng = rng
        self.room = Classroom.create("Props", deck=synthetic_deck(deck), rounds=rounds, table_size=4,
                                     seed=rng.randrange(2 ** 31), store=MemoryStore())
        self.tickets = []
        self.clues = 0
        self.replays = 0
        self.tr = translator("en", "pages")
        self.checks = 0
        for _ in range(students):
            self.join()

    # --- steps ----------------------------------------------------------------------------------
    def join(self) -> None:
        self.tickets.append(self.room.join(f"Kid{letters(len(self.tickets))}"))
        self.check()

    def seat_latecomers(self) -> None:
        """Three late joiners at an extra table."""
        late = [self.room.join(f"Late{letters(len(self.tickets) + i)}") for i in range(3)]
        self.tickets += late
        number = self.room.add_table()
        self.check()
        for ticket in late:
            self.room.move(ticket.student, number)
            self.check()

    def join_late(self) -> None:
        """A student joins while tables play (the class move table then offers to seat them)."""
        self.tickets.append(self.room.join(f"Latest{letters(len(self.tickets))}"))
        self.check()

    def class_move(self) -> bool:
        """Seat a late joiner at a finished table, or play a finished table again (once per class)."""
        legal = self.room.legal_moves()
        options = [("seat", a) for a in legal.get("seat", [])]
        if not self.replays:
            options += [("play_again", a) for a in legal.get("play_again", [])]
        if not options:
            return False
        kind, args = self.rng.choice(options)
        self.room.do(kind, *args)
        self.replays += kind == "play_again"
        self.check()
        return True

    def start_one(self) -> bool:
        waiting = [t.number for t in self.room.state.tables if not t.started and len(t.members) >= 3]
        if not waiting:
            return False
        self.room.start_table(self.rng.choice(waiting))
        self.check()
        return True

    def act_somewhere(self) -> bool:
        tables = [t for t in self.room.tables() if t.state.phase != "over"]
        if not tables:
            return False
        table = self.rng.choice(tables)
        s = table.state
        actors = rules.legal_moves(s)
        if not actors or self.rng.random() < 0.03:
            actors = [(None, a) for a in rules.allowed_actions(s, None) if a not in ("end", "reorder", "remove")]
        if not actors:
            return False
        seat, kind = self.rng.choice(actors)
        action: dict = {"type": kind}
        if kind == "pick":
            action["pair"] = self.rng.randint(1, 5)
        elif kind == "clue":
            self.clues += 1
            action["text"] = self.rng.choice([f"qclue{letters(self.clues)}z", s.target or "x", ""])
        elif kind == "guess":
            action["text"] = self.rng.choice([s.target, s.foil, "nothingq"])
        try:
            table.act(seat, action)
        except DichotomyError:
            pass  # a refused move (a clue the rules cancel) changes nothing
        self.check()
        return True

    # --- the invariant --------------------------------------------------------------------------
    def hidden_words(self) -> set[str]:
        """Every word some table still hides now."""
        hidden: set[str] = set()
        dealable = self.room.still_dealable()
        for t in self.room.state.tables:
            if not t.started:  # an unstarted table's slice of the deck, as the class will deal it
                for card in dealable[t.number]:
                    hidden |= card_words(card)
                continue
            s = self.room.table(t.code).state
            if s.phase == "over":
                continue
            for card in s.round_deck:
                hidden |= card_words(card)
            if s.current is not None and s.phase in LIVE:
                hidden |= card_words(s.current)
                hidden |= {c.text for c in s.clues if c.text}
        return hidden

    def texts(self) -> dict[str, str]:
        """Every class view, and the class page HTML built from it, as text."""
        room, tr = self.room, self.tr
        dash, overview, data = dashboard_view(room), class_projector_view(room), report(room)
        link = lambda code, number: f"projector.ipynb?table={code}&n={number}"  # noqa: E731
        out = {
            "dashboard": json.dumps(dash),
            "dashboard html": class_html.roster_html(dash, tr)
            + "".join(class_html.dashboard_row_html(t, tr, link) for t in dash["tables"])
            + "".join(class_html.host_label(k, d, "en") for t in dash["tables"] for k, d in t.get("row", {}).get("host", {}).items())
            + "".join(class_html.late_html(s["name"], tr) for s in dash["late"]),
            "class projector": json.dumps(overview) + class_html.overview_html(overview, tr, link),
            "report": json.dumps(data) + class_html.report_html(data, tr),
        }
        for ticket in self.tickets:
            lobby = student_lobby_view(room, ticket.student)
            out[f"lobby {ticket.name}"] = json.dumps(lobby) + class_html.lobby_html(lobby, tr)
        return out

    def check(self) -> None:
        self.room.poll()
        hidden = self.hidden_words()
        for name, text in self.texts().items():
            leaked = sorted(w for w in hidden if w in text)
            assert not leaked, (name, leaked)
        self.checks += 1


def play(rng: random.Random, students: int, rounds: int, deck: int, late: bool) -> ClassPlay:
    game = ClassPlay(rng, students, rounds, deck)
    game.room.make_tables()
    game.check()
    if late:
        game.seat_latecomers()
    for _ in range(2000):
        if rng.random() < 0.15 and game.start_one():
            continue
        if rng.random() < 0.02 and len(game.tickets) < students + (5 if late else 2):
            game.join_late()
        if rng.random() < 0.1 and game.class_move():
            continue
        if not game.act_somewhere() and not game.start_one():
            break
    assert all(t.started for t in game.room.state.tables)
    assert all(t.state.phase == "over" for t in game.room.tables()), "a table did not end"
    game.room.end_class()
    game.check()
    return game


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(students=st.integers(6, 9), rounds=st.integers(2, 3), late=st.booleans(), spare=st.integers(0, 3),
       choices=st.integers(0, 2 ** 32))
def test_no_class_view_holds_a_word_still_hidden_at_some_table(students, rounds, late, spare, choices):
    tables_at_least = 2  # 6 to 9 students at a preferred size of 4 make two tables
    deck = min(rounds + spare, tables_at_least * rounds - 1)  # fewer cards than tables x rounds: shared
    game = play(random.Random(choices), students, rounds, deck, late)
    assert game.checks > 10
    resolved = sum(len(game.room.table(c).state.history) for t in game.room.state.tables for c in t.codes)
    shown = [r for t in report(game.room)["tables"] for r in t["rounds"] if not r.get("withheld")]
    assert len(shown) == resolved  # every table is over: nothing is withheld any more


def test_the_property_sees_a_leak(monkeypatch):
    """Guards the property: a report page that shows a live round's Target is caught."""
    game = ClassPlay(random.Random(3), 6, 2, 3)
    game.room.make_tables()
    table = game.room.start_table(1)
    table.act(table.state.drawer, {"type": "pick", "pair": 1})
    assert table.state.target in game.hidden_words()
    monkeypatch.setattr(class_html, "report_html", lambda data, tr: table.state.target)
    with pytest.raises(AssertionError, match="report"):
        game.check()


def test_a_lobby_names_the_table_and_the_tablemates():
    game = ClassPlay(random.Random(1), 6, 2, 3)
    ada = game.tickets[0]
    assert game.room.lobby_view(ada) == {"class": game.room.code, "name": "Props", "deck_lang": "en", "students": 6,
                                        "me": ada.name, "table": None, "tablemates": [], "all_started": False}
    game.room.make_tables()
    lobby = game.room.lobby_view(ada.name)
    mates = [n for n in game.room.dashboard_view()["tables"][lobby["table"] - 1]["members"] if n != ada.name]
    assert lobby["table"] in (1, 2) and lobby["tablemates"] == mates and len(mates) == 2
    game.room.start_all()
    assert game.room.lobby_view(ada)["all_started"]
