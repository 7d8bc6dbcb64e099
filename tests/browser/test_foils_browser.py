"""A plain word list becomes a deck in a real Chromium through ``dichotomy serve``: paste one column of
Targets, see each with its Foil shortlist, keep the first, pick another, type one, see the preview follow,
and create a table from it. One server for the module; the screenshot goes to
``artifacts/screenshots/foils-paste.png`` (``docs/images/foils-paste.png`` is a copy of it)."""

from __future__ import annotations

import importlib

import pytest
from browser_support import sibling

pytestmark = pytest.mark.browser
playwright_api = importlib.import_module("playwright.sync_api")
expect = playwright_api.expect

shared = sibling("conftest.py")
decks = sibling("test_serve_decks.py")
RENDER_TIMEOUT = decks.RENDER_TIMEOUT

WORDS = ["cat", "coffee", "knife", "rain", "king", "apple", "horse", "bread", "teacher", "river"]


@pytest.fixture(scope="module")
def serve(tmp_path_factory):
    server = decks.Serve(tmp_path_factory.mktemp("store") / "tables.sqlite3", shared.free_port())
    try:
        yield server
    finally:
        server.stop()


def menu(page, target: str):
    """The Foil menu (a <select>) of ``target``'s row."""
    return page.locator(".dichotomy-foil-row", has=page.locator("label", has_text=target)).locator("select")


def test_paste_a_word_list_choose_foils_and_create_a_table(serve, browser, screenshots):
    ctx = browser.new_context(viewport={"width": 900, "height": 1800})
    ctx.set_default_timeout(30_000)
    try:
        host = decks.open_host(ctx, serve)
        decks.choose_source(host, "Paste a list")
        expect(host.locator(".dichotomy-foil-hint")).to_contain_text("one per line")
        host.locator(".dichotomy-deck-paste textarea").fill("\n".join(WORDS))
        host.locator(".dichotomy-deck-lang-choice select").select_option(label="English (en)")
        host.locator("button.dichotomy-deck-check").click()
        preview = host.locator(".dichotomy-deck-preview")
        expect(preview).to_contain_text("Pasted list: 2 cards, language English", timeout=RENDER_TIMEOUT)
        expect(host.locator(".dichotomy-foil-row")).to_have_count(len(WORDS))
        # each row: the Target, its shortlist (reasons as text), the first suggestion chosen
        cat = menu(host, "cat")
        options = [o.replace("\xa0", " ") for o in cat.locator("option").all_inner_texts()]  # ipywidgets: nbsp
        assert len(options) >= 6 and "same category as" in options[0] and options[-1] == "type another Foil"
        first = options[0].split(" — ")[0]
        expect(preview).to_contain_text(f"cat / {first}")
        # pick another suggestion
        coffee = menu(host, "coffee")
        second = coffee.locator("option").nth(1).inner_text().replace("\xa0", " ").split(" — ")[0]
        coffee.select_option(index=1)
        expect(preview).to_contain_text(f"coffee / {second}")
        # type one (Enter submits it)
        typed = host.locator(".dichotomy-foil-row", has=host.locator("label", has_text="king")).locator("input")
        typed.fill("queen")
        typed.press("Enter")
        expect(preview).to_contain_text("king / queen")
        # "type another" with nothing typed: asked for, as text, and no table can be made
        menu(host, "rain").select_option(index=menu(host, "rain").locator("option").count() - 1)
        problems = host.locator(".dichotomy-deck-problems [role=alert]")
        expect(problems).to_contain_text("“rain”")
        assert host.locator("button.dichotomy-create").is_disabled()
        menu(host, "rain").select_option(index=0)
        expect(problems).to_have_count(0)
        screenshots("foils-paste", host.locator(".dichotomy-deck-form"))
        decks.set_rounds(host, 1)
        decks.click_until(host, "button.dichotomy-create", ".dichotomy-table-code")
        assert "Traceback" not in serve.log()
        host.close()
    finally:
        ctx.close()
