"""Look-alike characters, by Unicode TR39 (Unicode Security Mechanisms) through ICU's SpoofChecker.

- ``fold(text)``: each character that is not an ordinary Latin letter (ASCII, or a Latin letter
  TR39 recommends for identifiers, so é, ß, ñ, œ stay as they are) is replaced by its TR39
  skeleton: Cyrillic "а" and "р" become "a" and "p", Latin alpha "ɑ" becomes "a". Comparing folded
  words is how a clue spelled with borrowed letters ("mаp") is recognised as the Target.
- ``mixes_scripts(word)``: the word fails TR39's "highly restrictive" level (one script, or Latin
  with Han/Kana/Hangul as in Japanese, Chinese, Korean): "mаp" with a Cyrillic а does.
- ``has_letter_or_digit(text)``: at least one Unicode letter or digit.

ICU (PyICU) is a hard dependency: without it importing this module raises, it never guesses.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

import icu

__all__ = ["fold", "mixes_scripts", "has_letter_or_digit"]

_SKELETON = icu.SpoofChecker()
_RECOMMENDED = _SKELETON.getRecommendedUnicodeSet()
_LATIN = icu.UScriptCode.LATIN
_RESTRICTION = icu.SpoofChecker()
_RESTRICTION.setChecks(icu.USpoofChecks.RESTRICTION_LEVEL)
_RESTRICTION.setRestrictionLevel(icu.URestrictionLevel.HIGHLY_RESTRICTIVE)


@lru_cache(maxsize=4096)
def _fold_char(ch: str) -> str:
    if ch.isascii():
        return ch
    if icu.Script.getScript(ord(ch)).getScriptCode() == _LATIN and _RECOMMENDED.contains(ch):
        return ch
    return _SKELETON.getSkeleton(0, ch)


def fold(text: str) -> str:
    """``text`` with every look-alike of another script (or an unusual Latin letter) replaced by
    its TR39 skeleton, then NFC and case-folded."""
    folded = "".join(_fold_char(ch) for ch in text)
    return unicodedata.normalize("NFC", folded).casefold()


def mixes_scripts(word: str) -> bool:
    """True if ``word`` mixes scripts in a way TR39's highly restrictive level refuses."""
    return bool(word) and bool(_RESTRICTION.check(word) & icu.USpoofChecks.RESTRICTION_LEVEL)


def has_letter_or_digit(text: str) -> bool:
    """True if ``text`` holds a letter or a digit of any script."""
    return any(unicodedata.category(ch)[0] in "LN" for ch in text)
