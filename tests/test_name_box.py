"""NameBox: every edit and Enter arrive as messages in typing order, with the box's exact text."""

from __future__ import annotations

from dichotomy_widget.pages.page_base import code_box
from dichotomy_widget.widgets.name_box import NameBox


def _sent_values(box: NameBox) -> list:
    sent: list = []
    box._send = lambda msg, buffers=None: sent.append(msg)  # type: ignore[method-assign]
    return sent


def test_edits_set_the_value_without_echo_and_enter_sends_the_exact_text():
    box = NameBox(maxlength=24)
    got: list[str] = []
    box.on_submit(got.append)
    sent = _sent_values(box)
    for typed in ("M", "Ma", "Maximiliano"):
        box._handle_custom_msg({"value": typed}, [])
    assert box.value == "Maximiliano" and got == []  # an edit is not a submit
    assert not any("value" in (m.get("state") or {}) for m in sent)  # the browser has it: no echo
    box._handle_custom_msg({"submit": "Maximilianos"}, [])
    assert got == ["Maximilianos"] and box.value == "Maximilianos"
    box.value = ""  # a reset from the page does reach the browser
    assert any((m.get("state") or {}).get("value") == "" for m in sent)


def test_junk_messages_are_ignored_and_long_text_is_cut():
    box = NameBox(maxlength=3)
    got: list[str] = []
    box.on_submit(got.append)
    for junk in (None, "x", {"value": 5}, {"submit": ["a"]}, {"other": "a"}):
        box._handle_custom_msg(junk, [])
    assert box.value == "" and got == []
    box._handle_custom_msg({"submit": "y" * 100}, [])
    assert got == ["y" * 30] and box.value == "y" * 30


def test_a_code_box_submits_its_code_and_asks_phones_for_capitals():
    got: list[str] = []
    box = code_box(got.append, css="dichotomy-home-code")
    box._handle_custom_msg({"submit": "k7qx2m"}, [])
    assert got == ["k7qx2m"] and box.autocapitalize == "characters"
    assert "dichotomy-home-code" in box._dom_classes
