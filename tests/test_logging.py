"""Errors are seen: swallowed exceptions are logged (one logger per module) without any hidden word,
and a missing dependency raises instead of judging "no variant"."""

from __future__ import annotations

import importlib
import logging
import sys

import pytest

from dichotomy_widget import DependencyMissing, words
from dichotomy_widget.words import matcher
from game_helpers import lock, new_game


def test_a_failing_comparison_is_logged_without_the_words(monkeypatch, caplog):
    def broken(a, b, lang, strict):
        raise KeyError(a + "/" + b)  # an exception whose message quotes the words

    monkeypatch.setattr(matcher, "_morph_reason", broken)
    with caplog.at_level(logging.ERROR, logger="dichotomy_widget.words.matcher"):
        assert words.variant_reason("quokkasecret", "wombathidden", "en") is None
    assert [r.name for r in caplog.records] == ["dichotomy_widget.words.matcher"]
    assert "KeyError" in caplog.text and "matcher.py" in caplog.text
    assert "quokkasecret" not in caplog.text and "wombathidden" not in caplog.text


def test_a_missing_word_list_raises(monkeypatch, tmp_path):
    monkeypatch.setattr(matcher, "_DATA", tmp_path)
    matcher._clear_caches()
    try:
        with pytest.raises(DependencyMissing) as err:
            words.variant_reason("mouse", "mice", "en")
        assert err.value.code == "dependency_missing" and "en.sqlite" in err.value.message
    finally:
        monkeypatch.undo()
        matcher._clear_caches()
    assert words.variant_reason("mouse", "mice", "en") == "inflection"


def test_a_missing_stemmer_raises(monkeypatch):
    monkeypatch.setitem(sys.modules, "snowballstemmer", None)  # import fails
    matcher._stemmer.cache_clear()
    try:
        with pytest.raises(DependencyMissing):
            matcher._stemmer("en")
    finally:
        monkeypatch.undo()
        matcher._stemmer.cache_clear()


def test_a_failing_listener_is_logged_and_the_others_still_hear(caplog):
    table, _ = new_game(3)
    lock(table)
    target = table.state.target
    heard = []

    def broken(t):
        raise RuntimeError(f"could not draw {t.state.target}")

    table.subscribe(broken)
    table.subscribe(lambda t: heard.append(t.seq))
    with caplog.at_level(logging.ERROR, logger="dichotomy_widget.table"):
        table.act(table.state.current_writer, {"type": "clue", "text": "zebra"})
    assert heard == [table.seq]
    assert "RuntimeError" in caplog.text and table.code in caplog.text
    assert target not in caplog.text


def test_an_internal_error_in_a_widget_is_logged_without_hidden_words(monkeypatch, caplog):
    importlib.import_module("anywidget")
    table, _ = new_game(3)
    lock(table)
    target, foil = table.state.target, table.state.foil
    from dichotomy_widget.ui.widgets import SeatWidget

    writer = SeatWidget(table, table.state.current_writer)
    sent = []
    writer.send = lambda content, buffers=None: sent.append(content)

    def broken(*args, **kwargs):
        raise ValueError(f"{target} vs {foil}")

    monkeypatch.setattr(table, "act", broken)
    with caplog.at_level(logging.ERROR, logger="dichotomy_widget.ui.widgets"):
        writer._handle_custom_msg({"id": 1, "type": "clue", "text": "zebra"}, [])
    assert sent[-1]["code"] == "internal_error"
    assert "ValueError" in caplog.text and "clue" in caplog.text
    assert target not in caplog.text and foil not in caplog.text
    assert target not in str(sent) and foil not in str(sent)
