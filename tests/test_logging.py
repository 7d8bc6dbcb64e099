"""Errors are seen: swallowed exceptions are logged (one logger per module) without any hidden word,
and a missing dependency raises instead of judging "no variant"."""

from __future__ import annotations

import ast
import importlib
import io
import logging
import os
import sys
from pathlib import Path

import pytest

from dichotomy_widget import DependencyMissing, words
from dichotomy_widget.class_mode.classroom import Classroom
from dichotomy_widget.errors import InvalidAction
from dichotomy_widget.logs import log_failure
from dichotomy_widget.stores import MemoryStore
from dichotomy_widget.wordsdata import tables
from dichotomy_widget.pages.page_lang import error_text
from dichotomy_widget.words import matcher
from game_helpers import confirm_all, lock, new_game, unique_clues, word_deck, write


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
    monkeypatch.setattr(tables, "SOURCES_DIR", tmp_path)
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
    from dichotomy_widget.widgets.game import SeatWidget

    writer = SeatWidget(table, table.state.current_writer)
    sent = []
    writer.send = lambda content, buffers=None: sent.append(content)

    def broken(*args, **kwargs):
        raise ValueError(f"{target} vs {foil}")

    monkeypatch.setattr(table, "act", broken)
    with caplog.at_level(logging.ERROR, logger="dichotomy_widget.widgets.game"):
        writer._handle_custom_msg({"id": 1, "type": "clue", "text": "zebra"}, [])
    assert sent[-1]["code"] == "internal_error"
    assert "ValueError" in caplog.text and "clue" in caplog.text
    assert target not in caplog.text and foil not in caplog.text
    assert target not in str(sent) and foil not in str(sent)


# --- one logging policy: no hidden word in any log line, from any module ------------------------

PACKAGE = Path(__file__).resolve().parent.parent / "dichotomy_widget"
LEVELS = {"debug", "info", "warning", "warn", "error", "critical", "exception", "log"}
#: How a log line may name a caught error: by its code or errno, its class, or these helpers.
SAFE_CALLS = {"where", "failure", "type"}


def _uses_message(node: ast.AST, caught: frozenset) -> bool:
    """Does ``node`` use a caught exception other than as ``err.code``, ``type(err)``, ``where(err)``
    or ``failure(err)`` (its ``str`` may quote a hidden word)?"""
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in caught:
        return node.attr not in ("code", "errno")
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in SAFE_CALLS:
        return False
    if isinstance(node, ast.Name):
        return node.id in caught
    return any(_uses_message(child, caught) for child in ast.iter_child_nodes(node))


def log_policy_breaches(source: str, where_: str) -> list[str]:
    """Log calls in ``source`` that print an exception's message or traceback text: ``log.exception``,
    ``exc_info=``/``stack_info=``, or a caught exception passed as an argument."""
    found: list[str] = []

    def visit(node: ast.AST, caught: frozenset) -> None:
        if isinstance(node, ast.ExceptHandler) and node.name:
            caught = caught | {node.name}
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in LEVELS
                and isinstance(node.func.value, ast.Name) and node.func.value.id in ("log", "_log", "logger", "logging")):
            if (node.func.attr == "exception" or any(k.arg in ("exc_info", "stack_info") for k in node.keywords)
                    or any(_uses_message(arg, caught) for arg in node.args)):
                found.append(f"{where_}:{node.lineno}")
        for child in ast.iter_child_nodes(node):
            visit(child, caught)

    visit(ast.parse(source), frozenset())
    return found


def test_the_policy_check_sees_a_breach():
    bad = ("try:\n    pass\nexcept Exception as err:\n    log.warning('failed: %s', err)\n"
           "try:\n    pass\nexcept Exception:\n    log.exception('failed')\n"
           "log.debug('x', exc_info=True)\n"
           "try:\n    pass\nexcept OSError as exc:\n    log.info('%s', exc.strerror)\n")
    assert log_policy_breaches(bad, "x.py") == ["x.py:4", "x.py:8", "x.py:9", "x.py:13"]
    good = ("try:\n    pass\nexcept Exception as err:\n"
            "    log.warning('failed: %s %s %s', err.code, type(err).__name__, failure(err))\n")
    assert log_policy_breaches(good, "x.py") == []


def test_no_module_logs_an_exception_message_or_traceback():
    """Every module names a caught error by code, class or line (``logs.failure``), never by message."""
    breaches = [b for path in sorted(PACKAGE.rglob("*.py")) if path != PACKAGE / "logs.py"
                for b in log_policy_breaches(path.read_text(encoding="utf-8"), str(path.relative_to(PACKAGE)))]
    assert not breaches, breaches


def test_log_failure_names_the_error_without_its_message(caplog):
    log = logging.getLogger("dichotomy_widget.test")
    try:
        raise ValueError("quokkasecret")
    except ValueError as err:
        with caplog.at_level(logging.DEBUG, logger="dichotomy_widget"):
            log_failure(log, "doing %s failed", err, "it")
    try:
        raise InvalidAction("{word} is not allowed", code="bad_word", params={"word": "wombathidden"})
    except InvalidAction as err:
        with caplog.at_level(logging.DEBUG, logger="dichotomy_widget"):
            log_failure(log, "a move failed", err, level=logging.WARNING)
    first, second = caplog.records
    assert first.getMessage().startswith("doing it failed (ValueError at test_logging.py:")
    assert "test_logging.py:" in first.getMessage().splitlines()[1]  # the frames are kept, the message is not
    assert first.funcName == "test_log_failure_names_the_error_without_its_message"
    assert second.getMessage() == "a move failed (InvalidAction bad_word)" and second.levelno == logging.WARNING
    assert "quokkasecret" not in caplog.text and "wombathidden" not in caplog.text


def test_a_class_and_a_table_log_no_hidden_word_at_debug(caplog):
    """A class plays a round while listeners fail with messages that quote the words and a page meets
    an unexpected error: no Target, Foil or clue reaches any log record, at any level."""
    room = Classroom.create("Logged", deck=word_deck(), rounds=2, table_size=4, seed=5, store=MemoryStore())
    with caplog.at_level(logging.DEBUG, logger="dichotomy_widget"):
        for i in range(6):
            room.join(f"Kid{chr(65 + i)}")
        room.make_tables()
        table = room.start_all()[0]
        words_seen: set[str] = set()

        def broken_class_listener(r):
            t = r.tables()[0].state
            raise RuntimeError(f"cannot draw {t.target} / {t.foil} / {[c.text for c in t.clues]}")

        def broken_table_listener(t):
            raise KeyError(f"{t.state.target}:{t.state.foil}")

        room.subscribe(broken_class_listener)
        table.subscribe(broken_table_listener)
        for pair in (1, 2):
            lock(table, pair)
            words_seen |= {table.state.target, table.state.foil}
            clues = unique_clues(table)
            words_seen |= set(clues)
            write(table, clues)
            error_text(ValueError(f"the word was {table.state.target}"), "en")  # a page's unexpected error
            room.poll()
            table.act(table.state.guesser, {"type": "guess", "text": table.state.target})
            confirm_all(table)
            room.report()
    text = caplog.text + "\n".join(r.getMessage() for r in caplog.records)
    assert "RuntimeError" in text and room.code in text and "KeyError" in text  # the failures are logged
    assert "unexpected error on a page (ValueError" in text
    leaked = sorted(w for w in words_seen if w.lower() in text.lower())
    assert not leaked, leaked


# --- the teacher's lines (issue 28: a quiet server log) -------------------------------------------------

def test_a_class_gives_the_teacher_one_line_per_thing_and_no_word(caplog):
    from dichotomy_widget.logs import TEACHER_LOG

    with caplog.at_level(logging.INFO, logger=TEACHER_LOG):
        room = Classroom.create("Year 9", deck="en", rounds=2, table_size=4, store=MemoryStore(), seed=4)
        for name in ("Ana", "Ben", "Cy", "Dee", "Eli", "Fay", "Gus", "Hal"):
            room.join(name)
        room.make_tables()
        tables = room.start_all()
        tables[0].act(None, {"type": "end"})
        again = room.play_again(1)
        room.end_class()
    lines = [r.getMessage() for r in caplog.records if r.name == TEACHER_LOG]
    code = room.code
    assert lines == [f"class {code} created: 'Year 9', tables of 4, 2 rounds",
                     *(f"class {code}: {n!r} joined" for n in ("Ana", "Ben", "Cy", "Dee", "Eli", "Fay", "Gus", "Hal")),
                     f"class {code}: tables made: 2 (students at each: 4, 4)",
                     *(f"class {code}: table {i} started (table code {t.code})" for i, t in enumerate(tables, 1)),
                     f"class {code}: table 1 plays again (table code {again.code})",
                     f"class {code} ended by the teacher"]
    tables.append(again)
    words = {w for t in tables for card in t.state.round_deck for pair in card for w in pair}
    assert len(words) > 10
    assert not any(w in line for w in words for line in lines if len(w) > 3)


def test_every_class_event_and_no_other_has_a_teachers_line():
    from dichotomy_widget.events import EVENT_TYPES
    from dichotomy_widget.logs import TEACHER_LINES

    assert set(TEACHER_LINES) == {name for name, cls in EVENT_TYPES.items() if cls.stream_kind == "class"}


@pytest.fixture()
def package_logger():
    """The package's logger, and its handlers, level and propagation as they were: put back (the
    handlers a test added closed) when the test ends."""
    package = logging.getLogger("dichotomy_widget")
    handlers, level, propagate = list(package.handlers), package.level, package.propagate
    try:
        yield package
    finally:
        for handler in package.handlers[len(handlers):]:
            handler.close()
        package.handlers[:] = handlers
        package.setLevel(level)
        package.propagate = propagate


def test_the_teachers_lines_reach_the_servers_terminal_only_in_a_served_kernel(monkeypatch, package_logger):
    from dichotomy_widget import logs

    package = package_logger
    before = list(package.handlers)
    assert logs.served_logging({}) is False and package.handlers == before
    out = io.StringIO()
    monkeypatch.setattr(sys, "__stderr__", out)
    assert logs.served_logging({"DICHOTOMY_WIDGET_CODE": "served"}) is True
    assert logs.served_logging({"DICHOTOMY_WIDGET_CODE": "served"}) is True  # once: one handler
    assert len(package.handlers) == len(before) + 1
    logs.refused("class ABC123", "Ana", InvalidAction("nope {x}", params={"x": "secretword"}))
    logging.getLogger("dichotomy_widget.table").info("an info line the teacher does not need")
    logging.getLogger("dichotomy_widget.table").warning("a warning the teacher sees")
    text = out.getvalue()
    assert "class ABC123: a student joining as 'Ana' was refused (InvalidAction " in text
    assert "a warning the teacher sees" in text and "does not need" not in text
    assert "secretword" not in text and text.startswith("[Dichotomy ")


def test_a_served_kernel_with_a_kernel_log_appends_every_info_line_there_and_the_terminal_stays_quiet(
        monkeypatch, tmp_path, package_logger):
    """``DICHOTOMY_KERNEL_LOG``: every INFO line of the package (with process and thread) goes to that file
    as well, for troubleshooting a kernel; the terminal still gets the teacher's lines and warnings only."""
    from dichotomy_widget import logs

    before = len(package_logger.handlers)
    out, path = io.StringIO(), tmp_path / "kernels.log"
    monkeypatch.setattr(sys, "__stderr__", out)
    assert logs.served_logging({"DICHOTOMY_WIDGET_CODE": "served", logs.KERNEL_LOG_ENV: str(path)}) is True
    assert len(package_logger.handlers) == before + 2
    logging.getLogger("dichotomy_widget.widgets.game").info("table ABC123: a screen asked for its view again")
    logging.getLogger("dichotomy_widget.table").warning("a warning the teacher sees")
    kept = path.read_text(encoding="utf-8")
    assert f" {os.getpid()} MainThread] INFO dichotomy_widget.widgets.game: table ABC123: a screen asked" in kept
    assert "WARNING dichotomy_widget.table: a warning the teacher sees" in kept
    assert "a screen asked" not in out.getvalue() and "a warning the teacher sees" in out.getvalue()

