"""Word relations and Foil suggestions (dichotomy_widget.words.relations, words.foils): the refusal rules
hold for a seeded sample of every language's words; the tables are what the README says they are."""

from __future__ import annotations

import random
import re
from dataclasses import FrozenInstanceError
from importlib import resources

import pytest

from dichotomy_widget.errors import DependencyMissing
from dichotomy_widget.i18n import translator
from dichotomy_widget.words import (FoilSuggestion, Neighbour, frequency, has_relations, is_offensive, is_variant,
                                    neighbours, suggest_foils)
from dichotomy_widget.words import relations
from dichotomy_widget.words.foils import REASONS

FLOOR = {"en": 3.0, "es": 2.8, "fr": 2.8, "de": 2.8, "pt": 2.8}  # tools/build_relations.py
SAMPLE = 12
ONE_WORD = re.compile(r"^[^\W\d_]{2,}$")
TABLES = resources.files("dichotomy_widget") / "wordrel"


def table_words(lang: str) -> list[str]:
    lines = (TABLES / f"{lang}.words.tsv").read_text(encoding="utf-8").splitlines()
    return [line.split("\t")[1] for line in lines]


def blocklist(lang: str) -> list[str]:
    return (TABLES / f"{lang}.block.txt").read_text(encoding="utf-8").split()


@pytest.mark.parametrize("lang", relations.RELATION_LANGUAGES)
def test_neighbours_keep_every_refusal_rule(lang):
    rng = random.Random(31)
    words = rng.sample(table_words(lang), SAMPLE)
    blocked = set(blocklist(lang))
    seen = 0
    for word in words:
        near = neighbours(word, lang)
        assert len(near) <= relations.MAX_NEIGHBOURS
        assert [n.score for n in near] == sorted((n.score for n in near), reverse=True), word
        for n in near:
            seen += 1
            assert n.kind in relations.KINDS and n.via
            assert ONE_WORD.match(n.word), (word, n.word)              # never multi-word
            assert frequency(n.word, lang) >= FLOOR[lang], (word, n.word)  # never rare
            assert n.word.casefold() not in blocked and not is_offensive(n.word, lang)
            assert n.word.casefold() != word.casefold() and not is_variant(word, n.word, lang), (word, n.word)
    assert seen > SAMPLE * 3, "most sampled words have neighbours"


def test_the_same_part_of_speech_as_the_first_sense():
    tables = relations._tables("en")
    for word in ["knife", "run", "hot", "quickly", "teacher", "eat"]:
        gids = tables.words[word][2]
        pos = tables.groups[gids[0]].pos
        for n in neighbours(word, "en"):
            their = {tables.groups[g].pos for g in tables.words[n.word.casefold()][2]}
            assert pos in their, (word, pos, n)


def test_variants_and_blocked_words_are_left_out_even_when_the_data_links_them():
    # WordNet puts "axe" and "ax" in one synset; "teach" and "teacher" share a family
    assert "ax" not in [n.word for n in neighbours("axe", "en")]
    assert all(not is_variant("colour", n.word, "en") for n in neighbours("colour", "en"))
    bad = blocklist("en")[0]
    assert is_offensive(bad, "en") and is_offensive(bad.upper(), "en") and not is_offensive("kettle", "en")
    for lang in relations.RELATION_LANGUAGES:
        words = set(blocklist(lang))
        for word in ["cat", "gato", "chat", "Katze", "mar", "mer", "Meer"]:
            assert not words & {n.word.casefold() for n in neighbours(word, lang)}


def test_known_rivals_rank_near_the_top():
    for target, rival in [("cat", "dog"), ("coffee", "tea"), ("rain", "snow"), ("hot", "cold")]:
        assert rival in [s.word for s in suggest_foils(target, "en", 5)], target
    assert "tigre" in [s.word for s in suggest_foils("lion", "fr", 10)]


def test_italian_and_unknown_input_give_nothing():
    assert not has_relations("it") and has_relations("pt-BR") and has_relations("en")
    assert neighbours("gatto", "it") == () and suggest_foils("gatto", "it") == []
    assert frequency("gatto", "it") == 0.0 and not is_offensive("gatto", "it")
    assert neighbours("qwxzv", "en") == () and frequency("qwxzv", "en") == 0.0
    for odd in ["", "   ", "two words", "<b>cat</b>", "🐱", None, 3]:
        assert neighbours(odd, "en") == ()  # type: ignore[arg-type]
    assert suggest_foils("cat", "en", 0) == [] and len(suggest_foils("cat", "en", 3)) == 3


def test_frequency_comes_from_the_shipped_table():
    assert frequency("the", "en") == 0.0 or frequency("the", "en") > 6  # only relation words are listed
    assert 4 < frequency("dog", "en") < 7 and frequency("Dog", "en") == frequency("dog", "en")
    assert frequency("Hund", "de") > 4


def test_suggestions_are_frozen_and_explain_themselves_in_each_language():
    s = suggest_foils("cat", "en", 1)[0]
    assert isinstance(s, FoilSuggestion) and s.kind in REASONS and s.via
    with pytest.raises(FrozenInstanceError):
        s.word = "x"  # type: ignore[misc]
    with pytest.raises(FrozenInstanceError):
        neighbours("cat", "en")[0].word = "x"  # type: ignore[misc]
    assert isinstance(neighbours("cat", "en")[0], Neighbour)
    english = s.reason_text()
    assert s.via in english
    for lang in ("es", "fr", "de"):
        text = s.reason_text(translator(lang, "dichotomy"))
        assert s.via in text and text != english, lang


def test_missing_tables_say_so_and_are_logged(monkeypatch, tmp_path, caplog):
    monkeypatch.setattr(relations, "_cache", {})
    relations._scored.cache_clear()
    relations._ranked.cache_clear()
    monkeypatch.setattr(relations.resources, "files", lambda _package: tmp_path)
    with pytest.raises(DependencyMissing, match="Reinstall dichotomy_widget"):
        neighbours("cat", "en")
    assert "word relation tables for en cannot be read" in caplog.text
    relations._scored.cache_clear()
    relations._ranked.cache_clear()
