"""Seating: balanced tables of 3-7, as close to the preferred size as possible (hypothesis)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dichotomy_widget.errors import DichotomyError
from dichotomy_widget.class_mode.seating import split_roster, table_sizes


@settings(max_examples=300, deadline=None)
@given(n=st.integers(3, 300), preferred=st.integers(4, 6))
def test_sizes_are_balanced_legal_and_closest_to_preferred(n, preferred):
    sizes = table_sizes(n, preferred)
    assert sum(sizes) == n
    assert all(3 <= s <= 7 for s in sizes)  # never a table of 1 or 2
    assert max(sizes) - min(sizes) <= 1
    worst = max(abs(s - preferred) for s in sizes)
    for k in range(1, n + 1):  # no other even split into legal tables is closer to the preferred size
        base, extra = divmod(n, k)
        other = [base + 1] * extra + [base] * (k - extra)
        if min(other) >= 3 and max(other) <= 7:
            assert max(abs(s - preferred) for s in other) >= worst


@settings(max_examples=100, deadline=None)
@given(roster=st.lists(st.integers(), min_size=3, max_size=80, unique=True), preferred=st.integers(4, 6))
def test_split_roster_seats_everybody_once(roster, preferred):
    tables = split_roster(roster, preferred)
    assert sorted(x for t in tables for x in t) == sorted(roster)
    assert [len(t) for t in tables] == table_sizes(len(roster), preferred)


def test_examples():
    assert table_sizes(12, 4) == [4, 4, 4]
    assert table_sizes(28, 5) == [5, 5, 5, 5, 4, 4]
    assert table_sizes(30, 6) == [6, 6, 6, 6, 6]
    assert table_sizes(8, 6) == [4, 4]  # never 6 + 2
    assert table_sizes(3, 6) == [3]


@pytest.mark.parametrize("n", [0, 1, 2])
def test_too_few_students(n):
    with pytest.raises(DichotomyError) as err:
        table_sizes(n, 5)
    assert err.value.code == "too_few_students"


@pytest.mark.parametrize("preferred", [3, 7, 0, "5", True])
def test_preferred_size_is_4_to_6(preferred):
    with pytest.raises(DichotomyError) as err:
        table_sizes(10, preferred)
    assert err.value.code == "invalid_table_size"
