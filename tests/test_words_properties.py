"""Properties of the matcher over random word pairs (hypothesis): real forms from the shipped
tables, near neighbours (shared stems), case and accent changes, and arbitrary text."""

from __future__ import annotations

import os
import random
import sqlite3
import unicodedata
from functools import lru_cache

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dichotomy_widget.wordsdata import tables
from dichotomy_widget.words import REASON_TEXT, guess_reason, normalize, variant_reason

EXAMPLES = int(os.environ.get("DICHOTOMY_PROPERTY_EXAMPLES", "1500"))
LANGS = ("en", "es", "fr", "de", "it", "pt")
GUESS_REASONS = {"same", "spelling", "accents", "inflection"}


@lru_cache(maxsize=None)
def lexicon_forms(lang: str) -> list[str]:
    """2000 sorted word forms of a language's shipped table (neighbours often share a stem)."""
    path = tables.table_path(lang)
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        forms = [form for (form,) in db.execute("SELECT form FROM lex")]
    return sorted(random.Random(lang).sample(forms, 2000))


def respell(word: str, how: int) -> str:
    """The same word as a player might type it: capitalised, upper case, spaced, without accents."""
    if how == 1:
        return word.capitalize()
    if how == 2:
        return word.upper()
    if how == 3:
        return f"  {word} "
    if how == 4:
        return "".join(c for c in unicodedata.normalize("NFD", word) if not unicodedata.combining(c))
    return word


@st.composite
def word_pairs(draw) -> tuple[str, str, str]:
    lang = draw(st.sampled_from(LANGS + ("nl",)))
    forms = lexicon_forms(lang if lang in LANGS else "es")
    i = draw(st.integers(0, len(forms) - 1))
    a = forms[i]
    b = draw(st.one_of(
        st.just(forms[min(i + 1, len(forms) - 1)]),  # a neighbour: often the same stem
        st.sampled_from(forms),
        st.sampled_from([a + "s", a + "es", a + "en", a + "e", a[:-1], a + "ment", "un" + a]),
        st.text(max_size=30),
    ))
    return respell(a, draw(st.integers(0, 4))), respell(b, draw(st.integers(0, 4))), lang


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(word_pairs())
def test_matcher_properties(pair: tuple[str, str, str]) -> None:
    a, b, lang = pair
    clue = variant_reason(a, b, lang)
    guess = guess_reason(a, b, lang)
    assert clue is None or clue in REASON_TEXT
    assert clue == variant_reason(b, a, lang), "clue matching must be symmetric"
    assert guess is None or guess in GUESS_REASONS
    if guess is not None:
        assert clue is not None, "a right guess is always a variant for clues too"
    if normalize(a) and normalize(a) == normalize(b):
        assert clue == guess == "same"


@settings(max_examples=EXAMPLES // 3, deadline=None)
@given(st.text(max_size=60), st.text(max_size=60), st.sampled_from(LANGS + ("", "xx", "en-GB")))
def test_arbitrary_text_never_raises(a: str, b: str, lang: str) -> None:
    assert variant_reason(a, b, lang) in (None, *REASON_TEXT)
    assert guess_reason(a, b, lang) in (None, *GUESS_REASONS)
