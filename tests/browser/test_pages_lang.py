"""The pages' interface language in a real Chromium through ``dichotomy serve`` (issue 14).

A host whose browser asks for German gets the create form in German (``<html lang="de">``: voila hands
``Accept-Language`` to the page kernel), picks Spanish as the table's interface language, and hosts in
Spanish. A student with an English browser opens the join link: the page speaks the table's Spanish, the
language menu switches their own screen to French, the address keeps ``lang=fr`` and a reload keeps it.
Seated, the game widget speaks French; its own menu switches to German, and the address and a reload follow.
"""

from __future__ import annotations

import importlib
import re
import sys

import pytest
from browser_support import sibling

pytestmark = pytest.mark.browser
playwright_api = importlib.import_module("playwright.sync_api")
expect = playwright_api.expect

shared = sibling("conftest.py")
serve_helpers = sibling("test_serve.py")
ready, RENDER_TIMEOUT = serve_helpers.ready, serve_helpers.RENDER_TIMEOUT


@pytest.fixture(scope="module")
def serve(tmp_path_factory):
    store = tmp_path_factory.mktemp("lang") / "tables.sqlite3"
    port = shared.free_port()
    cmd = [sys.executable, "-m", "dichotomy_widget.server.serve", "serve", "--store", str(store), "--port", str(port),
           "--ip", "127.0.0.1", "--connect-timeout", "300"]  # a loaded machine: pages connect slowly
    server = shared.ServerProcess(cmd, port, env=shared.server_env(), log_name="serve-lang")
    try:
        server.wait_ready("/voila/tree", timeout=90)
        server.base = f"http://127.0.0.1:{port}/voila/render"
        yield server
    finally:
        server.stop()


def test_pages_follow_the_browser_the_table_and_the_students_choice(browser, serve):
    teacher = browser.new_context(viewport={"width": 1000, "height": 800}, locale="de-DE")
    student = browser.new_context(viewport={"width": 420, "height": 800}, locale="en-US")
    try:
        host = teacher.new_page()
        host.goto(f"{serve.base}/host.ipynb")
        host.locator("button.dichotomy-create").wait_for(timeout=RENDER_TIMEOUT)
        ready(host)
        expect(host.locator("html")).to_have_attribute("lang", "de")
        expect(host.locator("button.dichotomy-create")).to_have_text("Tisch erstellen")
        host.locator(".dichotomy-interface-lang select").select_option(label="Español")
        host.locator("button.dichotomy-create").click()
        code_box = host.locator(".dichotomy-table-code")
        code_box.wait_for(timeout=RENDER_TIMEOUT)
        expect(host.locator("html")).to_have_attribute("lang", "es")
        expect(host.locator(".dichotomy-join-info")).to_contain_text("Código de la mesa")
        link = host.locator("a.dichotomy-join-link").get_attribute("href")

        seat = student.new_page()
        seat.goto(link)
        seat.locator("button.dichotomy-join").wait_for(timeout=RENDER_TIMEOUT)
        ready(seat)
        expect(seat.locator("html")).to_have_attribute("lang", "es")
        expect(seat.locator("button.dichotomy-join")).to_have_text("Unirme a la mesa")
        seat.get_by_label("Idioma", exact=True).select_option(label="Français")  # a labelled menu
        expect(seat.locator("button.dichotomy-join")).to_have_text("Rejoindre la table", timeout=30_000)
        expect(seat.locator("html")).to_have_attribute("lang", "fr")
        expect(seat).to_have_url(re.compile(r"[?&]lang=fr(&|$)"))
        seat.reload()
        seat.locator("button.dichotomy-join").wait_for(timeout=RENDER_TIMEOUT)
        expect(seat.locator("button.dichotomy-join")).to_have_text("Rejoindre la table")
        expect(seat.locator("html")).to_have_attribute("lang", "fr")
        # joined, the game widget speaks the student's French; its own menu switches to German, kept in the URL
        seat.locator(".dichotomy-name input").fill("Lou")
        seat.locator("button.dichotomy-join").click()
        root = seat.locator(".dw-root")
        root.wait_for(timeout=RENDER_TIMEOUT)
        expect(root).to_have_attribute("lang", "fr")
        expect(seat).to_have_url(re.compile(r"[?&]seat=[^&]+.*lang=fr|lang=fr.*seat="))
        root.get_by_test_id("dw-lang").select_option("de")
        expect(root).to_have_attribute("lang", "de", timeout=30_000)
        expect(seat).to_have_url(re.compile(r"[?&]lang=de(&|$)"), timeout=30_000)
        seat.reload()
        seat.locator(".dw-root").wait_for(timeout=RENDER_TIMEOUT)
        expect(seat.locator(".dw-root")).to_have_attribute("lang", "de")
        expect(seat.locator("html")).to_have_attribute("lang", "de")
    finally:
        teacher.close()
        student.close()
