"""Practice with bots in real Chromium against ``dichotomy serve``: a student joins a class, opens the
practice page from the class lobby (a new tab), starts a one-card practice with two bots, sees a bot
"writing…", guesses with the keyboard, and gets the personal recap; the class keeps no trace of it.
Screenshot: ``artifacts/screenshots/practice-recap.png``.
"""

from __future__ import annotations

import importlib
import re
import sys

import pytest
from browser_support import conftest_helpers as _shared
from browser_support import wait_until_ready

from dichotomy_widget import Classroom

ServerProcess, free_port, server_env = _shared().ServerProcess, _shared().free_port, _shared().server_env

pytestmark = pytest.mark.browser
playwright_api = importlib.import_module("playwright.sync_api")
expect = playwright_api.expect

RENDER = 120_000


@pytest.fixture(scope="module")
def serve(tmp_path_factory):
    store = tmp_path_factory.mktemp("practice") / "tables.sqlite3"
    port = free_port()
    cmd = [sys.executable, "-m", "dichotomy_widget.server.serve", "serve", "--store", str(store), "--port", str(port),
           "--ip", "127.0.0.1", "--connect-timeout", "300"]  # a loaded machine: pages connect slowly
    server = ServerProcess(cmd, port, env=server_env(), log_name="serve-practice")
    server.store = store  # type: ignore[attr-defined]
    try:
        server.wait_ready("/voila/tree", timeout=120)
        yield server
    finally:
        server.stop()


def test_a_student_practises_from_the_class_lobby(browser, serve, screenshots):
    room = Classroom.create("Unit 4", deck="en", rounds=5, store=str(serve.store))
    context = browser.new_context(viewport={"width": 420, "height": 900})  # a phone's width
    try:
        page = context.new_page()
        page.goto(f"{serve.base}/voila/render/class.ipynb?class={room.code}")
        page.locator(".dichotomy-name input").wait_for(timeout=RENDER)
        wait_until_ready(page, RENDER)
        page.locator(".dichotomy-name input").fill("Ana")
        page.locator(".dichotomy-name input").press("Enter")
        link = page.locator("a.dichotomy-practice-link")
        link.wait_for(timeout=RENDER)
        assert link.get_attribute("href") == f"practice.ipynb?class={room.code}"
        with page.expect_popup() as popup:
            link.click()
        practice = popup.value
        wait_until_ready(practice, RENDER)
        expect(practice).to_have_title(re.compile(r"^Practise alone · Dichotomy$"))
        practice.locator(".dichotomy-rounds input").fill("1")
        practice.locator(".dichotomy-rounds input").press("Tab")
        practice.locator(".dichotomy-name input").fill("Ana")
        practice.locator(".dichotomy-name input").press("Enter")  # Enter starts, like the button
        practice.locator(".dw-root[data-you='Ana']").wait_for(timeout=RENDER)
        status = practice.get_by_test_id("dw-status")
        expect(status).to_contain_text(re.compile(r"(Robo|Bip) is writing a clue"), timeout=60_000)
        guess = practice.get_by_test_id("guess-input")
        guess.wait_for(timeout=60_000)
        chips = practice.locator(".dw-guess").inner_text()
        guess.fill("zebra")
        guess.press("Enter")
        practice.get_by_test_id("recap").wait_for(timeout=60_000)
        practice.get_by_role("button", name="Continue").click()
        recap = practice.locator(".dichotomy-practice-recap")
        recap.wait_for(timeout=60_000)
        expect(recap.locator("h3")).to_have_text(re.compile(r"^Your practice: [01] of 1$"))
        missed = recap.locator(".dichotomy-practice-missed li")
        expect(missed).to_have_count(1)
        expect(missed).to_contain_text("you said zebra")
        given = re.search(r"clues: (.+);", missed.inner_text()).group(1).split(", ")
        assert given and all(clue in chips for clue in given)  # the clues the student was shown
        screenshots("practice-recap", practice)
    finally:
        context.close()
    again = Classroom.open(room.code, str(serve.store))
    assert again.state.tables == () and [s.name for s in again.state.students] == ["Ana"]
