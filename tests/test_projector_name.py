"""A class table's projector page keeps the class's name for it (Table 2), not only its code; the final
view carries the rank ladder the final screen draws (views.py, additive)."""

from __future__ import annotations

from dichotomy_widget import Table
from dichotomy_widget.rules import rank_band
from dichotomy_widget.stores import SqliteStore
from dichotomy_widget.pages.table_projector_page import projector_page
from dichotomy_widget.views import seat_view


def test_the_projector_of_a_class_table_is_named_as_in_the_class(tmp_path):
    store = SqliteStore(tmp_path / "t.sqlite3")
    table = Table.create(deck="en", rounds=3, store=store)
    named = projector_page(f"table={table.code}&n=2", store=store, env={})
    plain = projector_page(f"table={table.code}", store=store, env={})
    junk = projector_page(f"table={table.code}&n=<b>", store=store, env={})
    assert named.widget.name == "2" and plain.widget.name == "" and junk.widget.name == ""


def test_the_final_view_has_the_ladder_of_bands_with_their_lowest_scores(tmp_path):
    store = SqliteStore(tmp_path / "t.sqlite3")
    table = Table.create(deck="en", rounds=5, store=store, seed=2)
    for name in ("Ana", "Ben", "Cy"):
        table.join(name)
    table.start()
    table.act(None, {"type": "end"})
    ladder = seat_view(table.state, None)["final"]["ladder"]
    assert [step["from"] for step in ladder] == sorted({step["from"] for step in ladder})
    assert ladder[0]["from"] == 0 and ladder[-1]["from"] == 5
    for step in ladder:  # each band starts where rank_band first gives it
        assert rank_band(step["from"], 5) == step["band"]
        assert step["from"] == 0 or rank_band(step["from"] - 1, 5) != step["band"]
    german = seat_view(table.state, None, "de")["final"]["ladder"]
    assert len(german) == len(ladder) and german[0]["band"] != ladder[0]["band"]
