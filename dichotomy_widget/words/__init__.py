"""Variant judgement: when two words count as the same word (clue cancelling, right guesses).

:mod:`.matcher` answers from the shipped lexicon tables (``dichotomy_widget/wordsdata/``) and
general rules; :mod:`.affix_rules` holds the affix rules that the table build and the matcher share.
"""

from __future__ import annotations

from .matcher import REASON_TEXT, SUPPORTED_LANGUAGES, guess_reason, is_known, is_variant, normalize, variant_reason

__all__ = ["SUPPORTED_LANGUAGES", "normalize", "is_variant", "variant_reason", "guess_reason",
           "is_known", "REASON_TEXT"]
