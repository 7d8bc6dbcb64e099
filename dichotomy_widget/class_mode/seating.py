"""Pure seating logic for a class: how many tables, how big, and who sits where.

A class of ``n`` students is split into tables of 3 to 7 (the game's seat limits) whose sizes differ by
at most one, with the number of tables chosen so the sizes are as close as possible to the teacher's
preferred size. No I/O and no randomness of its own: the caller passes the order to seat in.
"""

from __future__ import annotations

from typing import Sequence, TypeVar

from ..errors import DichotomyError
from ..config import MAX_SEATS, MIN_SEATS

__all__ = ["MIN_PREFERRED", "MAX_PREFERRED", "table_sizes", "split_roster"]

MIN_PREFERRED, MAX_PREFERRED = 4, 6

T = TypeVar("T")


def _check_preferred(preferred: int) -> int:
    if isinstance(preferred, bool) or not isinstance(preferred, int) or not MIN_PREFERRED <= preferred <= MAX_PREFERRED:
        raise DichotomyError("The preferred table size is {least} to {most}.", code="invalid_table_size",
                             params={"least": MIN_PREFERRED, "most": MAX_PREFERRED})
    return preferred


def _sizes(n: int, k: int) -> list[int]:
    base, extra = divmod(n, k)
    return [base + 1] * extra + [base] * (k - extra)


def table_sizes(n: int, preferred: int = 5) -> list[int]:
    """Balanced table sizes (largest first) for ``n`` students, each 3 to 7, closest to ``preferred``.

    Among the table counts whose even split fits 3..7, the one with the smallest largest distance to
    ``preferred`` wins, then the smallest total distance, then fewer tables. Fewer than 3 students
    cannot make a table: :class:`DichotomyError` ``too_few_students``.
    """
    _check_preferred(preferred)
    if isinstance(n, bool) or not isinstance(n, int) or n < MIN_SEATS:
        raise DichotomyError("A table needs at least {least} students; {n} joined.", code="too_few_students",
                             params={"least": MIN_SEATS, "n": max(0, int(n))})
    best: tuple[tuple[int, int, int], list[int]] | None = None
    for k in range(-(-n // MAX_SEATS), n // MIN_SEATS + 1):
        sizes = _sizes(n, k)
        if sizes[-1] < MIN_SEATS or sizes[0] > MAX_SEATS:
            continue
        score = (max(abs(s - preferred) for s in sizes), sum(abs(s - preferred) for s in sizes), k)
        if best is None or score < best[0]:
            best = (score, sizes)
    assert best is not None  # for n >= 3 the split into ceil(n / 7) tables always fits
    return best[1]


def split_roster(students: Sequence[T], preferred: int = 5) -> list[list[T]]:
    """``students`` cut into consecutive tables of :func:`table_sizes` (dealt round-robin)."""
    sizes = table_sizes(len(students), preferred)
    tables: list[list[T]] = [[] for _ in sizes]
    # round-robin, so neighbours in the given order (e.g. join order) land at different tables
    slots = [t for i in range(max(sizes)) for t, size in enumerate(sizes) if i < size]
    for student, t in zip(students, slots):
        tables[t].append(student)
    return tables
