"""Word normalisation and variant matching (first version: Snowball stems plus irregular forms).

Public contract (the engine depends on exactly these):

- ``normalize(text) -> str``: trimmed, NFKC, case-folded.
- ``variant_reason(a, b, lang) -> str | None``: why two words count as the same word for clues
  ("same", "inflection", "family", "spelling") or ``None``.
- ``is_variant(a, b, lang) -> bool``: ``variant_reason(...) is not None``.
- ``guess_reason(guess, word, lang) -> str | None``: the (stricter) judgement of a guess.
- ``SUPPORTED_LANGUAGES``: languages with full support; others fall back to exact matching.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

__all__ = [
    "SUPPORTED_LANGUAGES",
    "normalize",
    "is_variant",
    "variant_reason",
    "guess_reason",
    "REASON_TEXT",
]

SUPPORTED_LANGUAGES = ("en", "es", "fr", "de")

_SNOWBALL_NAMES = {"en": "english", "es": "spanish", "fr": "french", "de": "german"}

REASON_TEXT = {
    "same": "the same word",
    "inflection": "a form of the same word",
    "family": "the same word family",
    "spelling": "a spelling variant",
}

_IRREGULAR_EN = {
    "mice": "mouse", "men": "man", "women": "woman", "children": "child", "teeth": "tooth",
    "feet": "foot", "geese": "goose", "people": "person", "ran": "run", "went": "go", "gone": "go",
    "was": "be", "were": "be", "been": "be", "is": "be", "am": "be", "are": "be", "ate": "eat",
    "eaten": "eat", "better": "good", "best": "good", "worse": "bad", "worst": "bad",
}


def normalize(text: str) -> str:
    """Trim, apply Unicode NFKC and case-fold."""
    return unicodedata.normalize("NFKC", text).strip().casefold()


@lru_cache(maxsize=8)
def _stemmer(lang: str):
    from nltk.stem.snowball import SnowballStemmer  # lazy: keeps `import dichotomy_widget` cheap

    return SnowballStemmer(_SNOWBALL_NAMES[lang])


@lru_cache(maxsize=65536)
def _stem(word: str, lang: str) -> str:
    if lang == "en":
        word = _IRREGULAR_EN.get(word, word)
    return _stemmer(lang).stem(word)


def variant_reason(a: str, b: str, lang: str = "en") -> str | None:
    """Why ``a`` and ``b`` count as one word for clue purposes, or ``None``."""
    na, nb = normalize(a), normalize(b)
    if not na or not nb:
        return None
    if na == nb:
        return "same"
    if lang not in SUPPORTED_LANGUAGES:
        return None
    if _stem(na, lang) == _stem(nb, lang):
        return "inflection"
    return None


def is_variant(a: str, b: str, lang: str = "en") -> bool:
    """True when ``a`` and ``b`` are the same word, an inflection or the same word family."""
    return variant_reason(a, b, lang) is not None


def guess_reason(guess: str, word: str, lang: str = "en") -> str | None:
    """Judge a guess against a Target or Foil (may be stricter than clue cancelling)."""
    return variant_reason(guess, word, lang)
