"""TableOptions (dichotomy_widget.options): one checked value for how a table plays, given to a table or
a class, read back from their events, and handed by a class to every table it starts."""

from __future__ import annotations

import pytest

from dichotomy_widget import Classroom, DeckError, DichotomyError, Table
from dichotomy_widget.decks import load_deck
from dichotomy_widget.events import SCHEMA_KEY
from dichotomy_widget.options import TableOptions
from dichotomy_widget.stores import MemoryStore


@pytest.mark.parametrize("options, code", [
    (TableOptions(rounds=0), "invalid_rounds"),
    (TableOptions(rounds=True), "invalid_rounds"),
    (TableOptions(rounds=10_000), "deck_too_small"),
    (TableOptions(time_limit=1), "invalid_time_limit"),
    (TableOptions(interface_lang="xx"), "unknown_interface_language"),
])
def test_options_are_checked_once_against_the_deck(options, code):
    with pytest.raises(DichotomyError) as err:
        options.checked(load_deck("en"))
    assert err.value.code == code
    with pytest.raises(DichotomyError) as again:  # the same check whether given as a value or as keywords
        Table.create(deck="en", rounds=options.rounds, time_limit=options.time_limit,
                     interface_lang=options.interface_lang)
    assert again.value.code == code


def test_checked_options_are_normalised():
    checked = TableOptions(rounds=3, time_limit=30, interface_lang="ES").checked(load_deck("en"))
    assert checked == TableOptions(rounds=3, time_limit=30.0, interface_lang="es")
    assert isinstance(checked.time_limit, float)


def test_a_table_stores_its_options_in_its_first_event_and_reads_them_back():
    store = MemoryStore()
    given = TableOptions(rounds=4, time_limit=45.0, interface_lang="fr", fixed_guesser=True)
    table = Table.create(deck="es", seed=3, store=store, options=given)
    first = store.load(table.code)[0].payload
    assert first["options"] == {"rounds": 4, "time_limit": 45.0, "interface_lang": "fr", "fixed_guesser": True,
                                "recap_time": None, "led_by": "host"}
    assert not {"rounds", "time_limit", "interface_lang"} & set(first)  # one nested value, no flat copies
    assert Table.open(table.code, store).options == given == table.options


def test_old_table_events_give_options_too():
    """A version 2 TableCreated (no interface language, no fixed Guesser) upcasts to default options."""
    store = MemoryStore()
    table = Table.create(deck="en", seed=1, rounds=2, store=store, time_limit=60)
    payload = dict(store.load(table.code)[0].payload)
    payload = {**{k: v for k, v in payload.items() if k != "options"}, **payload["options"], SCHEMA_KEY: 2}
    del payload["interface_lang"], payload["fixed_guesser"], payload["recap_time"]
    old = MemoryStore()
    old.create_table(table.code, {})
    old.append(table.code, 0, [("TableCreated", payload)])
    assert Table.open(table.code, old).options == TableOptions(rounds=2, time_limit=60.0)


def test_a_class_hands_its_options_to_every_table_it_starts():
    room = Classroom.create("Unit 4", deck="es", store=MemoryStore(), seed=5,
                            options=TableOptions(rounds=2, time_limit=40.0))
    assert room.options == TableOptions(rounds=2, time_limit=40.0)
    for name in ("Ana", "Ben", "Cy", "Dee"):
        room.join(name)
    room.make_tables()
    table = room.start_table(1)
    # the class's screens' language, and its tables are led by the teacher (the word their screens use)
    assert table.options == TableOptions(rounds=2, time_limit=40.0, interface_lang="es", led_by="teacher")
    assert table.view(0)["led_by"] == "teacher" and table.view(None)["led_by"] == "teacher"
    assert Table.create(deck="en", store=MemoryStore()).view(None)["led_by"] == "host"
    with pytest.raises(DeckError) as err:
        Classroom.create("Unit 5", deck="en", store=MemoryStore(), options=TableOptions(rounds=10_000))
    assert err.value.code == "deck_too_small" and "cards per table" in err.value.message


def test_a_table_is_led_by_a_host_or_a_teacher_and_nothing_else():
    deck = load_deck("en")
    assert TableOptions(led_by="teacher").checked(deck).led_by == "teacher"
    with pytest.raises(DichotomyError) as err:
        TableOptions(led_by="<b>boss</b>").checked(deck)
    assert err.value.code == "invalid_led_by"
