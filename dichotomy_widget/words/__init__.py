"""Variant judgement: when two words count as the same word (clue cancelling, right guesses).

:mod:`.matcher` answers from the shipped lexicon tables (``dichotomy_widget/wordsdata/``) and
general rules; :mod:`.confusables` folds look-alike letters (TR39) and spots words that mix scripts;
:mod:`.affix_rules` holds the affix rules that the table build and the matcher share;
:mod:`.relations` gives near words from the shipped relation tables (``wordrel/``) and
:mod:`.foils` turns them into Foil shortlists.
"""

from __future__ import annotations

from .confusables import has_letter_or_digit, mixes_scripts
from .foils import FoilSuggestion, suggest_foils
from .matcher import (REASON_TEXT, SUPPORTED_LANGUAGES, guess_reason, is_known, is_variant, normalize,
                      variant_pairs, variant_reason)
from .relations import Neighbour, frequency, has_relations, is_offensive, neighbours

__all__ = ["SUPPORTED_LANGUAGES", "normalize", "is_variant", "variant_reason", "variant_pairs", "guess_reason",
           "is_known", "REASON_TEXT", "mixes_scripts", "has_letter_or_digit", "FoilSuggestion", "suggest_foils",
           "Neighbour", "has_relations", "neighbours", "frequency", "is_offensive"]
