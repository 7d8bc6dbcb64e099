"""The widgets in a real Chromium against a real voila server: pass-and-play and shared-kernel seats.

Screenshots of each phase go to ``artifacts/screenshots/``.
"""

from __future__ import annotations

import importlib
import re

import pytest

pytestmark = pytest.mark.browser

playwright_api = importlib.import_module("playwright.sync_api")
expect = playwright_api.expect

RENDER_TIMEOUT = 90_000  # the first voila page starts a kernel and imports the engine


def open_notebook(page, voila_server, name, **query):
    page.goto(voila_server.url(name, **query), wait_until="domcontentloaded", timeout=RENDER_TIMEOUT)
    page.locator(".dw-root").first.wait_for(state="visible", timeout=RENDER_TIMEOUT)
    page.locator(".dw-root[data-phase]").first.wait_for(timeout=RENDER_TIMEOUT)


def no_errors(page):
    """No script error on the page and no failed request to our own server (offline CDNs are fine)."""
    errors = [e for e in page.console_errors if "Failed to load resource" not in e]
    assert not errors, errors
    ours = [u for u in page.failed_requests if u.startswith("http://127.0.0.1")]
    assert not ours, ours


# --- 1. a full pass-and-play game by clicking and typing ----------------------------------------------


def test_pass_and_play_full_game(page, voila_server, screenshots):
    open_notebook(page, voila_server, "pass_and_play.ipynb")
    root = page.locator(".dw-root")
    expect(root).to_have_attribute("data-phase", "lobby")
    expect(root.locator(".dw-players li")).to_have_count(3)
    screenshots("01-pass-lobby", root)
    root.get_by_role("button", name="Start the game").click()

    shot = set()
    targets: dict[int, str] = {}
    round_no = 1
    clue_plan = {1: ["zebra", "zebra"], 2: ["quartz", "banjo"]}  # round 1: a duplicate pair cancels
    written = 0
    for _step in range(40):
        curtain = root.get_by_test_id("curtain")
        final = root.get_by_test_id("final")
        if final.is_visible():
            break
        phase = root.get_attribute("data-phase")
        if phase == "curtain":
            text = curtain.inner_text()
            assert re.search(r"Hand the screen to (Ada|Ben|Cy), then tap to show", text)
            # nothing private is on screen behind a curtain
            assert root.locator(".dw-pairs, .dw-pairbox, .dw-clues, [data-testid=clue-input]").count() == 0
            if "curtain" not in shot:
                screenshots("02-pass-curtain", root)
                shot.add("curtain")
            expect(curtain).to_be_focused()  # keyboard: Enter lifts the curtain
            page.keyboard.press("Enter")
            expect(root).not_to_have_attribute("data-phase", "curtain")
            continue
        if root.locator(".dw-pairs").is_visible():
            if "pick" not in shot:
                screenshots("03-pass-drawer-pick", root)
                shot.add("pick")
            expect(root.locator(".dw-pair").first).to_be_focused()
            page.keyboard.press("1")  # keyboard pick of pair 1
            expect(root.locator(".dw-pairs")).to_have_count(0)
            continue
        clue_input = root.get_by_test_id("clue-input")
        if clue_input.is_visible():
            targets[round_no] = root.get_by_test_id("target").inner_text()
            expect(clue_input).to_be_focused()
            if round_no == 1 and written == 0:
                # a clue that is the Target is refused inline, in words a student understands
                page.keyboard.type(targets[round_no])
                page.keyboard.press("Enter")
                error = root.locator(".dw-entry .dw-error")
                expect(error).to_contain_text("Target")
                screenshots("04-pass-refused-clue", root)
                clue_input.fill("")
            page.keyboard.type(clue_plan[round_no][written % 2])
            if "writer" not in shot:
                screenshots("05-pass-writer", root)
                shot.add("writer")
            page.keyboard.press("Enter")
            written += 1
            # the next writer is another player: the curtain comes down, the text box is gone
            expect(root.get_by_test_id("clue-input")).to_have_count(0)
            continue
        guess_input = root.get_by_test_id("guess-input")
        if guess_input.is_visible():
            expect(guess_input).to_be_focused()
            if "guess" not in shot:
                screenshots(f"06-pass-guesser-round{round_no}", root)
            if round_no == 1:
                expect(root.locator(".dw-noclues")).to_be_visible()  # both clues cancelled
                root.get_by_role("button", name="Pass", exact=True).click()
            else:
                expect(root.locator(".dw-clue")).to_have_count(2)
                page.keyboard.type(targets[round_no])
                page.keyboard.press("Enter")
            expect(root.get_by_test_id("recap")).to_be_visible()
            continue
        recap = root.get_by_test_id("recap")
        if recap.is_visible():
            screenshots(f"07-pass-recap-round{round_no}", root)
            if round_no == 1:
                expect(recap.locator("s")).to_have_count(2)  # eliminated clues struck through
                expect(recap.locator(".dw-reason").first).to_contain_text("eliminated")
                expect(recap).to_contain_text("passed")
                expect(recap.locator("[data-outcome=pass]")).to_be_visible()
            else:
                expect(recap.locator("[data-outcome=correct]")).to_be_visible()
            button = root.locator("button[data-action=continue]")
            button.click()
            round_no += 1
            written = 0
            expect(root.locator("button[data-action=continue]")).to_have_count(0)
            continue
        page.wait_for_timeout(150)
    final = root.get_by_test_id("final")
    expect(final).to_be_visible()
    expect(final).to_contain_text("Game over")
    expect(final.locator(".dw-final-number")).to_have_text("1")
    expect(final.locator(".dw-history-row")).to_have_count(2)
    screenshots("08-pass-final", root)
    no_errors(page)


# --- 2. three seats in one kernel see each other's marks without a re-run ------------------------------


def seat(page, name):
    return page.locator(f".dw-root[data-you='{name}']")


def test_three_seats_update_each_other(page, voila_server, screenshots):
    page.set_viewport_size({"width": 1100, "height": 2900})  # voila scrolls inside the page: show all
    open_notebook(page, voila_server, "three_seats.ipynb")
    names = ("Ada", "Ben", "Cy")
    for name in names:
        expect(seat(page, name)).to_be_visible()
    projector = page.locator(".dw-kind-table")
    expect(projector).to_contain_text("is picking a pair")

    drawer = next(n for n in names if seat(page, n).locator(".dw-pairs").count())
    guesser = next(n for n in names if seat(page, n).locator(".dw-guesser-wait").count())
    screenshots("10-seats-reveal", page, full_page=True)
    expect(seat(page, guesser)).to_contain_text("You are guessing this round")
    seat(page, drawer).locator(".dw-pair[data-pair='2']").click()

    # the Drawer writes first; everyone else follows without a re-run
    expect(seat(page, drawer).get_by_test_id("clue-input")).to_be_visible()
    target = seat(page, drawer).get_by_test_id("target").inner_text()
    for name in names:
        if name != guesser:
            expect(seat(page, name).get_by_test_id("target")).to_have_text(target)
    expect(seat(page, guesser).get_by_test_id("target")).to_have_count(0)
    expect(seat(page, guesser).locator(f"[data-testid='player-{drawer}'] [data-mark=writing]")).to_be_visible()
    # a per-turn time limit shows a countdown to everyone
    expect(seat(page, drawer).get_by_test_id("clock")).to_contain_text(re.compile(r"You have \d+ seconds? left"))
    expect(projector.get_by_test_id("clock")).to_contain_text(re.compile(rf"{drawer} has \d+ seconds? left"))
    screenshots("11-seats-clues", page, full_page=True)

    box = seat(page, drawer).get_by_test_id("clue-input")
    box.fill("glacier")
    box.press("Enter")
    for name in names:  # the mark reached every seat and the projector
        expect(seat(page, name).locator(f"[data-testid='player-{drawer}'] [data-mark=submitted]")).to_be_visible()
    expect(projector.locator(f"[data-testid='player-{drawer}'] [data-mark=submitted]")).to_be_visible()
    expect(page.get_by_text("glacier")).to_have_count(1)  # only on the author's own slate

    writer = next(n for n in names if n not in (drawer, guesser))
    second = seat(page, writer).get_by_test_id("clue-input")
    expect(second).to_be_visible()
    expect(seat(page, writer).locator(".dw-status")).to_have_text("Your turn: write one clue.")
    expect(seat(page, guesser).locator(".dw-status")).to_contain_text(f"{writer} is writing")
    expect(projector.locator(".dw-big-status")).to_have_text(f"{writer} is writing a clue…")  # headline follows the turn
    screenshots("12-seats-second-writer", page, full_page=True)
    second.fill("mosaic")
    second.press("Enter")

    guess = seat(page, guesser).get_by_label("Your guess")  # a labelled text box
    expect(guess).to_be_visible()
    expect(seat(page, guesser).locator(".dw-status")).to_have_attribute("aria-live", "polite")
    expect(seat(page, guesser).locator(".dw-clue")).to_have_text(["glacier", "mosaic"])
    expect(projector.locator(".dw-clue")).to_have_count(2)
    screenshots("13-seats-guess", page, full_page=True)
    guess.fill(target)
    guess.press("Enter")
    for name in names:
        recap = seat(page, name).get_by_test_id("recap")
        expect(recap).to_be_visible()
        expect(recap.locator("[data-outcome=correct]")).to_be_visible()
    expect(projector.get_by_test_id("recap")).to_be_visible()
    screenshots("14-seats-recap", page, full_page=True)
    screenshots("15-projector-recap", projector)
    # the recap names the next round (view.next): the Drawer guesses next, the third seat picks next
    expect(projector.locator(f"[data-testid='player-{drawer}'] .dw-badge-guesser")).to_have_text("Next guesser")
    expect(projector.locator(f"[data-testid='player-{writer}'] .dw-badge-drawer")).to_have_text("Next drawer")
    seat(page, "Ada").locator("button[data-action=continue]").click()
    expect(projector.locator("[data-testid='player-Ada'] [data-mark=confirmed]")).to_be_visible()
    # Ada has read the recap: her screen moves on to the next round while the others still read
    next_screen = {writer: ".dw-pairs", drawer: ".dw-guesser-wait", guesser: ".dw-wait"}["Ada"]
    expect(seat(page, "Ada").locator(next_screen)).to_be_visible()
    expect(seat(page, "Ada").get_by_test_id("recap")).to_have_count(0)
    expect(seat(page, "Ben").get_by_test_id("recap")).to_be_visible()
    no_errors(page)


# --- 3. a phone-sized screen and the dark theme ------------------------------------------------------


def test_narrow_and_dark(browser, voila_server, screenshots):
    context = browser.new_context(viewport={"width": 360, "height": 780})
    page = context.new_page()
    try:
        open_notebook(page, voila_server, "pass_and_play.ipynb", theme="dark")
        root = page.locator(".dw-root")
        expect(page.locator("body")).to_have_attribute("data-jp-theme-light", "false")
        root.get_by_role("button", name="Start the game").click()
        root.get_by_test_id("curtain").click()
        expect(root.locator(".dw-pairs")).to_be_visible()
        screenshots("20-narrow-dark-pick", page, full_page=True)
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 360, f"horizontal scroll at 360 px: {width}"
        for box in root.locator(".dw-pair").all():
            bb = box.bounding_box()
            assert bb and bb["x"] >= 0 and bb["x"] + bb["width"] <= 360
        page.keyboard.press("3")
        expect(root.get_by_test_id("clue-input")).to_be_focused()
        page.keyboard.type("orbit")
        screenshots("21-narrow-dark-writer", page, full_page=True)
        colors = page.evaluate("""() => {
            const el = document.querySelector('.dw-root');
            const s = getComputedStyle(el);
            return [s.color, s.backgroundColor];
        }""")
        assert colors[0] != colors[1]
        page.keyboard.press("Enter")
        # the next writer, then the Guesser: through the curtain each time
        root.get_by_test_id("curtain").click()
        root.get_by_test_id("clue-input").fill("nectar")
        root.get_by_test_id("clue-input").press("Enter")
        root.get_by_test_id("curtain").click()
        root.get_by_role("button", name="Pass", exact=True).click()
        expect(root.get_by_test_id("recap")).to_be_visible()
        screenshots("22-narrow-dark-recap", page, full_page=True)
        assert page.evaluate("document.documentElement.scrollWidth") <= 360
        # End the game (asks twice) from the public recap: the final screen, still 360 px wide
        end = root.locator("button[data-action=end]")
        end.click()
        expect(end).to_contain_text("Really end")
        end.click()
        expect(root.get_by_test_id("final")).to_be_visible()
        expect(root.get_by_test_id("final")).to_contain_text("The game was ended early.")
        screenshots("23-narrow-dark-final", page, full_page=True)
        assert page.evaluate("document.documentElement.scrollWidth") <= 360
    finally:
        context.close()


# --- 3. a press in progress survives a view update caused by another seat ------------------------------


def test_host_press_survives_another_seats_move(page, voila_server):
    """The host holds "End the game" down while a writer sends a clue (the turn moves on, so the host
    bar's Time out label changes); on release the press still arms End: the button was not replaced."""
    page.set_viewport_size({"width": 1100, "height": 2900})
    open_notebook(page, voila_server, "three_seats.ipynb")
    names = ("Ada", "Ben", "Cy")
    for name in names:
        expect(seat(page, name)).to_be_visible()
    projector = page.locator(".dw-kind-table")
    drawer = next(n for n in names if seat(page, n).locator(".dw-pairs").count())
    seat(page, drawer).locator(".dw-pair[data-pair='1']").click()
    box = seat(page, drawer).get_by_test_id("clue-input")
    expect(box).to_be_visible()
    timeout = projector.locator(".dw-host button[data-action=timeout]")
    expect(timeout).to_have_text(f"Time out {drawer} (no clue)")
    end = projector.locator(".dw-host button[data-action=end]")
    end.evaluate("b => { b.dataset.probe = 'kept'; }")  # marks this very element
    box.fill("glacier")  # typed first: the press below must not be interrupted by moving the mouse
    end.scroll_into_view_if_needed()
    end.hover()
    page.mouse.down()
    box.press("Enter")  # the keyboard only: the pointer stays down on End
    expect(projector.locator(f"[data-testid='player-{drawer}'] [data-mark=submitted]")).to_be_visible()
    expect(timeout).not_to_have_text(f"Time out {drawer} (no clue)")  # the host bar saw the update
    page.mouse.up()
    expect(end).to_have_text("Really end the game? Press again")
    expect(projector.locator(".dw-host button[data-probe=kept]")).to_have_count(1)
    no_errors(page)


def test_continue_press_survives_another_seats_continue(page, voila_server):
    """On a phone-width page a seat holds Continue down while another seat continues (its "✓ read"
    mark appears in every players list); on release the press still counts: the lists above did not
    re-wrap and move the button away from the pointer (it moved ~76 px before marks kept their room)."""
    page.set_viewport_size({"width": 360, "height": 2400})
    open_notebook(page, voila_server, "three_seats.ipynb")
    names = ("Ada", "Ben", "Cy")
    for name in names:
        expect(seat(page, name)).to_be_visible()
    drawer = next(n for n in names if seat(page, n).locator(".dw-pairs").count())
    guesser = next(n for n in names if seat(page, n).locator(".dw-guesser-wait").count())
    writer = next(n for n in names if n not in (drawer, guesser))
    seat(page, drawer).locator(".dw-pair[data-pair='1']").click()
    for name, word in ((drawer, "glacier"), (writer, "mosaic")):
        box = seat(page, name).get_by_test_id("clue-input")
        expect(box).to_be_visible()
        box.fill(word)
        box.press("Enter")
    guess = seat(page, guesser).get_by_label("Your guess")
    expect(guess).to_be_visible()
    guess.fill("nothing")
    guess.press("Enter")
    for name in names:
        expect(seat(page, name).get_by_test_id("recap")).to_be_visible()
    last = seat(page, "Cy").locator("button[data-action=continue]")
    last.scroll_into_view_if_needed()
    last.hover()
    page.mouse.down()
    seat(page, "Ada").locator("button[data-action=continue]").dispatch_event("click")  # no pointer move
    expect(page.locator(".dw-kind-table [data-testid='player-Ada'] [data-mark=confirmed]")).to_be_visible()
    expect(seat(page, "Cy").locator("[data-testid='player-Ada'] [data-mark=confirmed]")).to_be_visible()
    page.mouse.up()
    # Cy's Continue counted: the projector marks Cy as having read the recap
    expect(page.locator(".dw-kind-table [data-testid='player-Cy'] [data-mark=confirmed]")).to_be_visible()
    no_errors(page)
