"""Where a bot's word knowledge comes from: a relation source (neighbours, frequencies, a blocklist).

The real source is :mod:`dichotomy_widget.words.relations` (WordNet for English, open thesauri for
es/fr/de/pt); tests and benches may pass any object with the same four functions
(:class:`RelationSource`). When that module is not installed, :func:`default_source` knows no language,
so every bot says it cannot play instead of playing badly.
"""

from __future__ import annotations

import logging
from typing import Any, Protocol, Sequence

__all__ = ["RelationSource", "Neighbour", "NoRelations", "default_source"]

log = logging.getLogger(__name__)


class Neighbour(Protocol):
    """One related word: ``word``, ``kind`` (synonym, sister, …), ``via`` and a ranking ``score``."""

    word: str
    kind: str
    score: float


class RelationSource(Protocol):
    """The four questions a bot asks about words of a language."""

    def has_relations(self, lang: str) -> bool: ...

    def neighbours(self, word: str, lang: str) -> Sequence[Any]: ...

    def frequency(self, word: str, lang: str) -> float: ...

    def is_offensive(self, word: str, lang: str) -> bool: ...


class NoRelations:
    """A source that knows no language (used when the relation tables are not installed)."""

    def has_relations(self, lang: str) -> bool:
        return False

    def neighbours(self, word: str, lang: str) -> tuple:
        return ()

    def frequency(self, word: str, lang: str) -> float:
        return 0.0

    def is_offensive(self, word: str, lang: str) -> bool:
        return False


def default_source() -> RelationSource:
    """The packaged relation tables (:mod:`dichotomy_widget.words.relations`), or :class:`NoRelations`."""
    try:
        from ..words import relations  # type: ignore[attr-defined]
    except ImportError:
        log.info("word relations are not installed: bots cannot play any language")
        return NoRelations()
    return relations  # type: ignore[return-value]  # the module has the four functions
