"""Guessing is throttled per device, across pages: wrong codes typed or opened, wrong teacher keys."""

from __future__ import annotations

import pytest

from dichotomy_widget import Table
from dichotomy_widget.class_mode.classroom import Classroom
from dichotomy_widget.pages import guess_throttle
from dichotomy_widget.pages.seat_page import SeatPage
from dichotomy_widget.pages.student_page import ClassPage
from dichotomy_widget.pages.device import DEVICE_ENV, device_tag
from game_helpers import word_deck

ATTACKER = device_tag("10.0.0.66")


@pytest.fixture()
def store(tmp_path, monkeypatch):
    monkeypatch.setenv(guess_throttle.THROTTLE_DIR_ENV, str(tmp_path / "throttle"))
    return str(tmp_path / "tables.sqlite3")


def test_wrong_table_codes_are_throttled_per_device_across_page_reloads(store, monkeypatch):
    table = Table.create(deck=word_deck(), store=store, rounds=1)
    monkeypatch.setenv(DEVICE_ENV, ATTACKER)
    answers = []
    for i in range(guess_throttle.CODE_GUESSES.limit + 2):
        page = SeatPage("", store=store)  # a new page (a reload) every time
        page.code_input.value = f"ZZZZ{i:02d}"[:6]
        page.join("Eve")
        answers.append(page.feedback.value)
    assert "Too many wrong codes from this device" in answers[-1]
    assert "Too many wrong codes" not in answers[0]
    page = SeatPage("", store=store)
    page.code_input.value = table.code  # even the right code waits: the device is throttled
    assert not page.join("Eve") and "Too many wrong codes" in page.feedback.value
    monkeypatch.setenv(DEVICE_ENV, device_tag("10.0.0.12"))  # another device is not
    page = SeatPage("", store=store)
    page.code_input.value = table.code
    assert page.join("Ann")


def test_wrong_class_codes_in_the_link_are_throttled_per_device(store, monkeypatch):
    monkeypatch.setenv(DEVICE_ENV, ATTACKER)
    for i in range(guess_throttle.CODE_GUESSES.limit):
        assert ClassPage(f"class=QQQQ{i:02d}"[:12], store=store).state == "refused"
    room = Classroom.create("C", deck=word_deck(), rounds=1, store=store)
    page = ClassPage(f"class={room.code}", store=store)
    assert page.state == "refused" and "Too many wrong codes" in page.message


def test_one_device_cannot_fill_a_class_by_reloading_the_join_page(store, monkeypatch):
    room = Classroom.create("C", deck=word_deck(), rounds=1, store=store)
    monkeypatch.setenv(DEVICE_ENV, ATTACKER)
    joined = 0
    for i in range(6):
        page = ClassPage(f"class={room.code}", store=store)
        joined += page.join(f"Bot{i}")
    assert joined == 3 and "This device has already joined 3 students" in page.message
    room.refresh()
    assert len(room.state.students) == 3


def test_wrong_teacher_keys_are_throttled_per_device_not_per_page(store):
    from dichotomy_widget.config import TEACHER_KEY_ENV
    from dichotomy_widget.pages.entry import host_page

    key = "owl-lantern-42"
    env = {TEACHER_KEY_ENV: key, DEVICE_ENV: ATTACKER}
    tries = 0
    for _reload in range(2):  # each reload allows five per page; the device allows ten in all
        page = host_page("", store=store, env=env)
        for i in range(5):
            tries += not page.unlock(f"guess-{tries}-{i}")
    page = host_page("", store=store, env=env)
    assert not page.unlock(key) and "Too many wrong keys from this device" in page.key_box.status
    other = host_page("", store=store, env={TEACHER_KEY_ENV: key, DEVICE_ENV: device_tag("10.0.0.12")})
    assert other.unlock(key)


def test_the_hub_join_boxes_are_throttled_per_device_like_the_other_code_boxes(store):
    """The hub's landing page and hub seat page count wrong codes per device (per hub user)."""
    from dichotomy_widget.pages.hub_home import HomePage
    from dichotomy_widget.pages.hub_identity import IDENTITY_ENV, HubIdentity, sign_identity
    from dichotomy_widget.pages.seat_page import SeatPage

    secret = "a-test-secret-of-enough-length"

    def env(user: str) -> dict[str, str]:
        return {"DICHOTOMY_HUB": "1", "DICHOTOMY_HUB_SECRET": secret, DEVICE_ENV: device_tag(f"hub user {user}"),
                IDENTITY_ENV: sign_identity(HubIdentity(user, user.title()), secret.encode())}

    table = Table.create(deck=word_deck(), store=store, rounds=1)
    room = Classroom.create("C", deck=word_deck(), rounds=1, store=store)
    for i in range(guess_throttle.CODE_GUESSES.limit):  # a new landing page (a reload) every time
        home = HomePage("", store=store, env=env("eve"))
        assert not home.join(f"ZZZZ{i:02d}") and "No table or class has the code" in home.feedback.value
    home = HomePage("", store=store, env=env("eve"))
    for right in (table.code, room.code):  # even right codes wait now
        assert not home.join(right) and "Too many wrong codes from this device" in home.feedback.value
    seat = SeatPage("", store=store, env=env("eve"))
    seat.code_input.value = table.code
    assert not seat.join() and "Too many wrong codes" in seat.message
    assert SeatPage(f"table={table.code}", store=store, env=env("eve")).state == "refused"
    other = HomePage("", store=store, env=env("ann"))  # another hub user is not throttled
    assert other.join(table.code) and other.navigator.href == f"seat.ipynb?table={table.code}"
    assert other.join(room.code) and other.navigator.href == f"class.ipynb?class={room.code}"
