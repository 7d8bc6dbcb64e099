"""Foil suggestions: a ranked shortlist of close rivals for a Target, each with its reason.

A human Foil is one good answer among several, so this gives a shortlist for a teacher to pick
from, never a silent automatic Foil. Suggestions come from :func:`.relations.neighbours` (sister
terms, synonyms and opposites first, then two-step neighbours; broader and narrower words last)
and so obey its rules: frequent single words, blocklist applied, never a variant of the Target.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..i18n import N_
from .matcher import is_variant
from .relations import best_neighbours, has_relations

__all__ = ["FoilSuggestion", "suggest_foils", "REASONS", "MIN_SUGGESTIONS"]

#: A Target with fewer suggestions than this counts as not covered (``bench/foils.py``).
MIN_SUGGESTIONS = 5
_FIRST_KINDS = ("sister", "synonym", "antonym", "related")

#: Why a word is suggested, by kind; ``{via}`` is the shared category or sense.
REASONS: dict[str, str] = {
    "sister": N_("same category as “{via}”"),
    "synonym": N_("similar to “{via}”"),
    "antonym": N_("opposite of “{via}”"),
    "related": N_("close in meaning to “{via}”"),
    "hypernym": N_("broader word (“{via}”)"),
    "hyponym": N_("a kind of “{via}”"),
}


@dataclass(frozen=True)
class FoilSuggestion:
    """One suggested Foil: the word, how it relates to the Target (``kind``, ``via``) and its score."""

    word: str
    kind: str
    via: str
    score: float

    @property
    def reason(self) -> str:
        """The English reason template (translate it, then ``.format(via=self.via)``)."""
        return REASONS[self.kind]

    def reason_text(self, tr=None) -> str:
        """The reason as text, through a :class:`~dichotomy_widget.i18n.Translator` when given."""
        if tr is not None:
            return tr.gettext(self.reason, via=self.via)
        return self.reason.format(via=self.via)


def suggest_foils(target: str, lang: str, limit: int = 10) -> list[FoilSuggestion]:
    """Up to ``limit`` Foils for ``target``, best first; empty when the data has none (or for Italian).

    Sister terms, near-synonyms, opposites and two-step neighbours come before broader or
    narrower words, each group in the order of :func:`.relations.neighbours`.
    """
    if not has_relations(lang) or not isinstance(target, str) or limit <= 0:
        return []
    near = best_neighbours(target, lang, limit + 10)
    first = [n for n in near if n.kind in _FIRST_KINDS]
    rest = [n for n in near if n.kind not in _FIRST_KINDS]
    out: list[FoilSuggestion] = []
    for n in first + rest:
        # one spelling of a word is enough ("ax" after "axe"); variants share their first letters
        if any(s.word[:2].casefold() == n.word[:2].casefold() and is_variant(s.word, n.word, lang) for s in out):
            continue
        out.append(FoilSuggestion(n.word, n.kind, n.via, n.score))
        if len(out) >= limit:
            break
    return out
