"""Look-alike characters (the Unicode TR39 confusables list, as shipped by ``confusable_homoglyphs``)
and words that mix scripts.

- ``fold(text)``: every character that is not an ordinary Latin letter (ASCII, or a letter of the
  Latin-1 and Latin Extended-A blocks, so é, ß, ñ, œ, ł stay as they are) and that Unicode's
  confusables list says looks like ASCII is replaced by it: Cyrillic "а" and "р" become "a" and "p",
  Latin alpha "ɑ" becomes "a"; capitals are looked up as typed, and a letter with no look-alike of
  its own takes that of its other case, so folding is case-proof ("ТНЕМЕ" and "тнеме" are "theme",
  "Ƅurrito" is "burrito"). Comparing folded words is how a clue spelled with borrowed letters
  ("mаp") is recognised as the Target.
- ``mixes_scripts(word)``: the word's letters come from more than one script, other than the
  combinations one language writes together (Japanese Han + Hiragana + Katakana, Korean Han +
  Hangul, Chinese Han + Bopomofo, each also with Latin), as in TR39's "highly restrictive" level.
- ``has_letter_or_digit(text)``: at least one Unicode letter or digit.

The data ships inside the package ``confusable_homoglyphs`` (pure Python, built from Unicode's
``confusables.txt`` and ``Scripts.txt``; no compiler, nothing downloaded, so ``pip install`` works on
any teacher's computer). It is a hard dependency: without it importing this module raises, it never
guesses. A character folds to the ASCII letter or digit the list gives it (the list names at most one
per character), as TR39's skeleton does for letters that look like ASCII.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

from confusable_homoglyphs import categories, confusables

__all__ = ["fold", "mixes_scripts", "has_letter_or_digit"]

#: Scripts that a single language writes together (TR39 "highly restrictive"), besides one script.
_ONE_WRITING_SYSTEM = (
    frozenset({"LATIN", "HAN", "HIRAGANA", "KATAKANA"}),
    frozenset({"LATIN", "HAN", "HANGUL"}),
    frozenset({"LATIN", "HAN", "BOPOMOFO"}),
)
_NEUTRAL = frozenset({"COMMON", "INHERITED"})


def _ordinary_latin(ch: str) -> bool:
    """ASCII, or a letter of Latin-1 Supplement / Latin Extended-A (the letters of European languages)."""
    return ch.isascii() or 0x00C0 <= ord(ch) <= 0x017F


def _ascii_look_alike(ch: str) -> str | None:
    """The ASCII letter or digit the confusables list says ``ch`` looks like, else None."""
    for entry in confusables.confusables_data.get(ch, ()):  # at most one is an ASCII letter or digit
        if entry["c"].isascii() and entry["c"].isalnum():
            return entry["c"]
    return None


@lru_cache(maxsize=4096)
def _fold_char(ch: str) -> str:
    """``ch`` as the ASCII letter it looks like, in the case it is typed; failing that, as the letter its
    other case looks like (Cyrillic "н" is capital "Н", which looks like "H"). Case-proof: a word and
    the same word in capitals fold alike (ТНЕМЕ and тнеме both fold to "theme")."""
    if _ordinary_latin(ch):
        return ch
    for form in (ch, ch.upper(), ch.lower()):
        if len(form) == 1 and not (form != ch and _ordinary_latin(form)):
            found = _ascii_look_alike(form)
            if found is not None:
                return found
    return ch


def fold(text: str) -> str:
    """``text`` with every look-alike of an ASCII letter from another script (or an unusual Latin
    letter) replaced by that letter, then NFC and case-folded. Fold before any case-folding of your
    own: capitals are looked up as typed (Greek "Η" looks like "H", its small "η" like "n")."""
    folded = "".join(_fold_char(ch) for ch in text)
    return unicodedata.normalize("NFC", folded).casefold()


def mixes_scripts(word: str) -> bool:
    """True if ``word``'s letters come from scripts that no one language writes together."""
    if word.isascii():  # ASCII letters are all Latin, its digits common to every script
        return False
    scripts = {categories.alias(ch) for ch in word if unicodedata.category(ch)[0] in "LN"} - _NEUTRAL
    if len(scripts) <= 1:
        return False
    return not any(scripts <= allowed for allowed in _ONE_WRITING_SYSTEM)


def has_letter_or_digit(text: str) -> bool:
    """True if ``text`` holds a letter or a digit of any script."""
    return any(unicodedata.category(ch)[0] in "LN" for ch in text)
