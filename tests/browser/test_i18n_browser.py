"""A seat widget in Spanish in a real Chromium: its words, plural, ``lang`` and its own language menu.

Lean on purpose: the test of every screen in every language (with axe) lives elsewhere.
"""

from __future__ import annotations

import importlib
import re

import pytest

pytestmark = pytest.mark.browser

playwright_api = importlib.import_module("playwright.sync_api")
expect = playwright_api.expect

RENDER_TIMEOUT = 90_000  # the first voila page starts a kernel and imports the engine

#: English words the seat's lobby shows in English: none may be left on the Spanish screen.
ENGLISH = ["Waiting to start", "players at the table", "The host starts", "Players", "Round", "Score",
           "Cards left", "Discarded", "Language", "(you)", "Waiting for players"]


def test_a_seat_renders_in_spanish_and_switches_to_german(page, voila_server, screenshots):
    page.goto(voila_server.url("spanish_seat.ipynb"), wait_until="domcontentloaded", timeout=RENDER_TIMEOUT)
    root = page.locator(".dw-root[data-phase=lobby]")
    root.wait_for(timeout=RENDER_TIMEOUT)
    expect(root).to_have_attribute("lang", "es")
    expect(page.locator("html")).to_have_attribute("lang", "es")  # a voila page: the whole page is Spanish
    expect(root.locator(".dw-h")).to_have_text("Esperando para empezar")
    expect(root).to_contain_text("3 jugadores en la mesa. Dichotomy necesita de 3 a 7.")  # tn, Intl plural
    expect(root.get_by_test_id("dw-status")).to_have_text(
        "Esperando jugadores: se han unido 3 (pueden jugar de 3 a 7).")  # the kernel's sentence
    expect(root.locator(".dw-players")).to_have_attribute("aria-label", "Jugadores")
    expect(root.locator(".dw-me .dw-name")).to_have_text("Ada (tú)")
    text = root.inner_text()
    left = [w for w in ENGLISH if re.search(rf"\b{re.escape(w)}", text)]
    assert not left, left
    menu = root.get_by_label("Idioma")  # the language menu is labelled for screen readers
    expect(menu).to_have_value("es")
    expect(menu.locator("option")).to_have_text(["English", "Español", "Français", "Deutsch"])
    screenshots("i18n-seat-es", root)

    menu.select_option("de")  # this screen only: the kernel checks the code and answers in German
    expect(root).to_have_attribute("lang", "de", timeout=30_000)
    expect(page.locator("html")).to_have_attribute("lang", "de")
    expect(root.locator(".dw-h")).to_have_text("Warten auf den Start")
    expect(root).to_contain_text("3 Personen am Tisch.")
    expect(root.get_by_test_id("dw-status")).to_contain_text("Warten auf Mitspielende: 3 sind beigetreten")
    expect(root.get_by_label("Sprache")).to_have_value("de")
    errors = [e for e in page.console_errors if "Failed to load resource" not in e]
    assert not errors, errors
