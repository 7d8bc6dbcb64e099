"""The affix helpers in dichotomy_widget/words/affix_rules.py that the build and the matcher share."""

from __future__ import annotations

import pytest

from dichotomy_widget.words import affix_rules as rules


@pytest.mark.parametrize(
    "participle,verb",
    [
        ("rappelnd", "rappeln"),  # present participle: infinitive + d
        ("plombiert", "plombieren"),  # -ieren verbs take no ge-
        ("verheddert", "verheddern"),  # inseparable prefix, -ern verb
        ("bespritzt", "bespritzen"),
        ("gebadet", "baden"),  # ge- ... -et
        ("getrennt", "trennen"),
        ("gefeiert", "feiern"),
        ("aufgemacht", "aufmachen"),  # separable prefix stays in front
        ("ausverkauft", "ausverkaufen"),
    ],
)
def test_de_participle_verbs_finds_the_verb(participle: str, verb: str) -> None:
    assert verb in rules.de_participle_verbs(participle)


@pytest.mark.parametrize("word", ["recht", "leicht", "elend", "geheim", "Abend".casefold(), "laut"])
def test_de_participle_verbs_ignores_words_that_are_no_participles(word: str) -> None:
    assert rules.de_participle_verbs(word) == []
