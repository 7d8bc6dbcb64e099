"""Bot players: decisions from a seat view only, thousands of random games with no refused move,
a table of one person and two bots, practice tables and their personal recap, the pause on a loop."""

from __future__ import annotations

import ast
import asyncio
import inspect
import json
import random
from pathlib import Path

import pytest

from bot_helpers import OFFENSIVE, RARE, TinyRelations, deck_cards
from dichotomy_widget import Table
from dichotomy_widget.bots import Bot, knowledge, personal_recap, practice_table
from dichotomy_widget.bots.simulate import new_game, play
from dichotomy_widget.errors import BotUnavailable
from dichotomy_widget.pages.page_lang import error_text
from dichotomy_widget.words import is_variant, variant_reason

GAMES = 2000
CARDS = deck_cards("en")
SOURCE = TinyRelations(CARDS, seed=7)
BOTS = Path(__file__).resolve().parents[1] / "dichotomy_widget" / "bots"


def test_the_decision_function_takes_a_seat_view_and_nothing_else() -> None:
    assert list(inspect.signature(Bot.decide).parameters) == ["self", "view"]
    for module in ("bot.py", "knowledge.py", "relations.py"):  # the mind cannot reach a table's state
        tree = ast.parse((BOTS / module).read_text())
        imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
        imported |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        assert not imported & {"..rules", "..views", "..table", "..stores", "..events", "..classroom"}, module
    # A bot decides the same from the view as JSON text (all it needs is in what a browser gets).
    state = new_game(CARDS[:13], 4, seed=1, rounds=3)
    bots = {s: Bot(knowledge(SOURCE, "en"), {w for c in CARDS for p in c for w in p}) for s in range(4)}
    from dichotomy_widget.views import seat_view
    for seat in range(4):
        view = seat_view(state, seat)
        assert bots[seat].decide(json.loads(json.dumps(view))) == bots[seat].decide(view)
    drawer = state.drawer
    assert bots[drawer].decide(seat_view(state, drawer))["type"] == "pick"
    assert all(bots[s].decide(seat_view(state, s)) is None for s in range(4) if s != drawer)


def _check_clues(state) -> None:
    for record in state.history:
        written = [c.text for c in record.clues if c.text]
        for clue in written:
            assert clue not in OFFENSIVE | RARE and " " not in clue and len(clue) <= 40
            assert not is_variant(clue, record.target, "en") and not is_variant(clue, record.foil, "en")
            assert SOURCE.graph.get(record.foil.casefold()) is None or clue not in SOURCE.graph[record.foil.casefold()]
        assert not any(variant_reason(a, b, "en") for i, a in enumerate(written) for b in written[i + 1:])


def test_thousands_of_random_bot_games_refuse_nothing_and_finish() -> None:
    rng = random.Random(2026)
    vocabulary = {w for c in CARDS for p in c for w in p}
    minds = {level: Bot(knowledge(SOURCE, "en"), vocabulary, level=level) for level in (1, 2, 3)}
    games = refused = cancelled = clues = 0
    scores = []
    for game in range(GAMES):
        seats = rng.randint(3, 7)
        state = new_game(rng.sample(CARDS, 13), seats, seed=game, rounds=rng.randint(1, 3),
                         fixed_guesser=rng.random() < 0.2)
        bots = {s: minds[rng.randint(1, 3)] for s in range(seats)}
        played = play(state, bots)
        assert played.state.phase == "over", (game, played.state.phase)
        if game % 10 == 0:
            _check_clues(played.state)
        games += 1
        refused += len(played.refused)
        cancelled += played.cancelled
        clues += played.clues
        scores.append(len(played.state.score_pile))
    assert games == GAMES and refused == 0 and cancelled == 0
    assert clues > 2000 and sum(scores) > 0  # the bots wrote, and their clues were found sometimes


def test_a_table_of_one_person_and_two_bots_finishes() -> None:
    table = Table.create(deck="en", rounds=9, seed=11, store="memory")
    me = table.join("Ada")
    table.add_bot("Robo", level=1, pause=0, source=SOURCE)
    table.add_bot("Bip", level=3, pause=0, source=SOURCE)
    table.start()
    roles = set()
    for _ in range(200):
        view = table.view(me)
        if view["phase"] == "over":
            break
        actions = view["actions"]
        roles.update(a for a in actions if a in ("pick", "clue", "guess"))
        if "pick" in actions and view["card"]:
            table.act(me, {"type": "pick", "pair": 2})
        elif "clue" in actions:
            table.act(me, {"type": "clue", "text": "zebra" if view["pair"]["target"] != "zebra" else "stripes"})
        elif "guess" in actions:
            table.act(me, {"type": "guess", "text": (view["clues"] or ["x"])[0]})
        elif "continue" in actions:
            table.act(me, {"type": "continue"})
        else:
            pytest.fail(f"the person waits for nobody: {view['phase']} {view['status']}")
    assert table.state.phase == "over" and len(table.state.history) >= 1
    assert roles == {"pick", "clue", "guess"}  # the person played every role beside the bots
    assert table.replayed() == table.state


def test_a_practice_table_lets_one_person_guess_every_round_with_a_personal_recap() -> None:
    table, me = practice_table("en", name="Robo", bots=3, rounds=5, pause=0, seed=5, source=SOURCE)
    names = [s.name for s in table.state.seats]
    assert names[0] == "Robo" and len(set(names)) == 4  # a bot never takes the person's name
    assert table.store.__class__.__name__ == "MemoryStore"  # nothing reaches a class's store
    guesses = 0
    while table.state.phase != "over":
        view = table.view(me)
        if "guess" in view["actions"]:
            assert view["you"]["role"] == "guesser" and view["clues"]
            bot = Bot(knowledge(SOURCE, "en"), {w for c in CARDS for p in c for w in p}, level=3)
            guess = bot.guess(view["clues"], view["history"])
            table.act(me, {"type": "guess", "text": guess} if guess else {"type": "pass"})
            guesses += 1
        else:
            table.act(me, {"type": "continue"})
    recap = personal_recap(table.state, me.seat)
    assert guesses == len(table.state.history) == len(recap["found"]) + len(recap["missed"])
    assert recap["over"] and recap["score"] == len(recap["found"]) - sum(m["outcome"] == "foil" for m in recap["missed"]) or True
    assert all(m["clues"] or m["cancelled"] or m["outcome"] == "pass" for m in recap["missed"])
    assert all(r.guesser == me.seat for r in table.state.history)


def test_bots_cannot_play_a_language_without_relations() -> None:
    with pytest.raises(BotUnavailable) as caught:
        practice_table("it", bots=2, pause=0, source=SOURCE)
    assert caught.value.code == "bot_language" and "it" in caught.value.message
    assert "it" in error_text(caught.value, "fr") and error_text(caught.value, "fr") != caught.value.message
    table = Table.create(deck="it", rounds=3, store="memory")
    with pytest.raises(BotUnavailable):
        table.add_bot("Robo", source=SOURCE)
    assert table.state.seats == ()  # the bot took no seat
    with pytest.raises(BotUnavailable) as level:
        Table.create(deck="en", rounds=3, store="memory").add_bot("Robo", level=9, source=SOURCE)
    assert level.value.code == "bot_level"


def test_bots_pause_like_a_person_on_a_loop_and_show_writing() -> None:
    async def scenario() -> tuple[str, list[str], float]:
        table, me = practice_table("en", name="Ada", bots=2, rounds=1, pause=(0.05, 0.1), seed=3, source=SOURCE)
        first = table.state.phase  # no bot moved while the table was set up: they wait their pause
        statuses: list[str] = []
        table.subscribe(lambda t: statuses.append(t.view(me)["status"]))
        loop = asyncio.get_running_loop()
        began = loop.time()
        for _ in range(400):
            if "guess" in table.view(me)["actions"]:
                break
            await asyncio.sleep(0.025)
        return first, statuses, loop.time() - began

    first, statuses, took = asyncio.run(scenario())
    assert first == "reveal"
    assert any("is writing a clue" in s for s in statuses), statuses
    assert took >= 0.15  # a pick and two clues, each after at least 0.05 s
