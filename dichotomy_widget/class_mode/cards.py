"""Which card a class table was dealt or played: the key the class report and the deal compare by."""

from __future__ import annotations

from typing import Any

__all__ = ["card_key", "record_card"]


def card_key(card: Any) -> tuple:
    """A card (JSON lists or Pairs tuples) as a hashable tuple of (target, foil) tuples."""
    return tuple((str(t), str(f)) for t, f in card)


def record_card(state: Any, record: Any) -> tuple | None:
    """The card (:func:`card_key`) a resolved round of a table was played with, from its deck."""
    for card in state.deck:
        pairs = card_key(card)
        if 0 < record.pair_number <= len(pairs) and pairs[record.pair_number - 1] == (record.target, record.foil):
            return pairs
    return None
