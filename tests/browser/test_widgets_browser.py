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


# --- 6. every region follows every view value it draws (issue 25) -------------------------------------


def _game_states() -> list[dict]:
    """Each widget's synced state after every step of a short game (lobby joins one by one, a host
    reorder, every phase of two rounds, every seat continuing itself), for a host projector and two seats."""
    from dichotomy_widget import Table
    from dichotomy_widget.options import TableOptions
    from dichotomy_widget.widgets.game import SeatWidget, TableWidget

    table = Table.create(deck="en", seed=11, options=TableOptions(rounds=2))
    host = TableWidget(table)
    states: list[dict] = []

    def snap() -> None:
        for w in [host, *seats]:
            states.append({"who": w.kind + str(getattr(w, "_seat", "")), "kind": w.kind, "view": w.view,
                           "lang": w.lang, "i18n": w.i18n, "host": getattr(w, "host", False), "name": getattr(w, "name", "")})

    seats: list = []
    snap()
    for name in ("Ada", "Ben", "Cy", "Dee"):
        ticket = table.join(name)
        if len(seats) < 2:
            seats.append(SeatWidget(table, ticket.seat))
        snap()
    table.act(None, {"type": "reorder", "order": [1, 0, 2, 3]})
    snap()
    table.start()
    snap()
    for _round in range(2):
        table.act(table.state.drawer, {"type": "pick", "pair": 2})
        snap()
        while table.state.phase == "clues":
            table.act(table.state.current_writer, {"type": "clue", "text": f"clue{len(table.state.clues)}"})
            snap()
        table.act(table.state.guesser, {"type": "pass"})
        snap()
        for seat in list(table.state.order):
            if table.state.phase == "recap":
                table.act(seat, {"type": "continue"})
                snap()
    assert table.state.phase == "over"
    for w in [host, *seats]:
        w.close()
    return states


#: The widget module on a bare page, each instance on a stub of anywidget's model; ``regions`` reads what
#: a widget shows (its text, region by region).
HARNESS = """
class Model {
  constructor(state) { this.state = state; this.handlers = {}; }
  get(k) { return this.state[k]; }
  set(k, v) { this.state[k] = v; }
  on(ev, cb) { (this.handlers[ev] ||= []).push(cb); }
  off() {}
  send(msg) { (window.sent ||= []).push(msg); }
  save_changes() {}
  update(changes) {
    this.state = { ...this.state, ...changes };
    for (const k of Object.keys(changes)) for (const cb of this.handlers["change:" + k] || []) cb();
  }
}
window.mount = (state) => {
  const el = document.createElement("div");
  document.body.append(el);
  const model = new Model(JSON.parse(JSON.stringify(state)));
  dwRender({ model, el });
  return { el, model };
};
window.regions = (el) => [".dw-header", ".dw-players", ".dw-main", ".dw-host"].map((s) => el.querySelector(s).textContent);
/** Incremental == fresh: one widget lives through `states` (same `who`), and after each update it shows what
 * a widget mounted on that state shows; then from `at` states each leaf of the view is changed on its own. */
window.check = (states, mutateAt) => {
  const problems = [];
  let changes = 0;
  const compare = (live, state, what) => {
    let fresh;
    try { fresh = mount(state); } catch (e) { return; } // an impossible view: nothing to compare
    const a = regions(live.el), b = regions(fresh.el);
    fresh.el.remove();
    if (JSON.stringify(a) !== JSON.stringify(b)) problems.push({ what, live: a, fresh: b });
  };
  const byWho = {};
  for (const s of states) (byWho[s.who] ||= []).push(s);
  for (const [who, seq] of Object.entries(byWho)) {
    const live = mount(seq[0]);
    seq.forEach((s, i) => {
      live.model.update({ view: JSON.parse(JSON.stringify(s.view)) });
      compare(live, s, `${who} step ${i}`);
    });
    live.el.remove();
    for (const i of mutateAt) {
      const base = seq[Math.min(i, seq.length - 1)];
      const leaves = [];
      const shapes = new Set(); // one leaf of each shape (players.1.name stands for players.N.name)
      const walk = (v, path) => {
        if (v !== null && typeof v === "object") for (const k of Object.keys(v)) walk(v[k], [...path, k]);
        else if (!shapes.has(path.map((k) => (/^[0-9]+$/.test(k) ? "#" : k)).join("."))) {
          shapes.add(path.map((k) => (/^[0-9]+$/.test(k) ? "#" : k)).join("."));
          leaves.push(path);
        }
      };
      walk(base.view, []);
      const before = JSON.stringify(regions(mount(base).el));
      for (const path of leaves) {
        const view = JSON.parse(JSON.stringify(base.view));
        let o = view;
        for (const k of path.slice(0, -1)) o = o[k];
        const k = path[path.length - 1], v = o[k];
        o[k] = typeof v === "string" ? v + "Q" : typeof v === "number" ? v + 1 : typeof v === "boolean" ? !v : "Q";
        const one = mount(base);
        try { one.model.update({ view }); } catch (e) { document.body.replaceChildren(); continue; } // an impossible view
        compare(one, { ...base, view }, `${who} state ${i}: ${path.join(".")}`);
        if (JSON.stringify(regions(one.el)) !== before) changes += 1;
        one.el.remove();
        document.body.replaceChildren();
      }
    }
  }
  return { problems, changes };
};
"""


def _load_harness(page) -> None:
    """The widget module and :data:`HARNESS` on a bare page."""
    from dichotomy_widget.widgets.game import JS_DIR

    source = (JS_DIR / "widget.js").read_text(encoding="utf-8").replace("export default { render };",
                                                                         "window.dwRender = render;")
    page.set_content("<!doctype html><html><body></body></html>")
    page.add_script_tag(content=source, type="module")
    page.add_script_tag(content=HARNESS, type="module")
    page.wait_for_function("typeof window.check === 'function'")


def test_every_region_follows_every_view_value_it_draws(page):
    """A widget updated view by view shows exactly what a widget mounted on that view shows, over a
    whole game (the lobby count follows each join, the host's seat rows follow a reorder) and for a
    change of any single value of the view in the lobby, a writer's turn, a recap and the end."""
    states = _game_states()
    page.emulate_media(reduced_motion="reduce")  # no staged reveal: what a screen shows does not wait on timers
    _load_harness(page)
    host = [s for s in states if s["who"] == "table"]
    counts = [page.evaluate("(s) => { const w = mount(s); const n = w.el.querySelector('[data-testid=lobby-count]');"
                            " return n ? n.textContent : null; }", s) for s in host[:5]]
    assert counts[1].startswith("1 player") and counts[4].startswith("4 players"), counts
    steps = len(host)
    # every value changed alone: in the lobby (3 players), at a writer's turn, in the last recap
    result = page.evaluate("([s, at]) => check(s, at)", [states, [3, 8, steps - 4]])
    assert result["problems"] == [], result["problems"][:3]
    assert result["changes"] > 100  # most changed values were drawn: the comparison had something to catch
    assert not page.console_errors, page.console_errors[:3]


# --- 7. a screen whose view never came asks for it again ----------------------------------------------

def test_a_screen_without_its_view_asks_the_kernel_again_until_it_has_it(page):
    """A seat whose view update never arrived (run T2, loaded: a class seat on "Connecting to the table…"
    for good) asks the kernel every few seconds; the kernel's answer is drawn even when no change event
    came with it, and then the screen stops asking."""
    from dichotomy_widget import Table
    from dichotomy_widget.options import TableOptions
    from dichotomy_widget.widgets.game import SeatWidget

    table = Table.create(deck="en", seed=11, options=TableOptions(rounds=2))
    for name in ("Ada", "Ben", "Cy"):
        table.join(name)
    table.start()
    ada = SeatWidget(table, "Ada")
    keys: list = []
    ada.send_state = lambda key=None: keys.append(key)
    _load_harness(page)
    page.evaluate("(s) => { window.sent = []; window.one = mount(s); }",
                  {"kind": "seat", "view": {}, "lang": ada.lang, "i18n": ada.i18n, "store_trouble": ""})
    expect(page.locator(".dw-root")).to_contain_text("Connecting to the table")
    page.wait_for_function("window.sent.some((m) => m.type === 'send_view')", timeout=30_000)
    ask = page.evaluate("window.sent.find((m) => m.type === 'send_view')")
    ada._handle_custom_msg(ask, [])  # the kernel's answer, as its widget gives it
    assert len(keys) == 1 and ada.last_reply.get("ack", "missing") is None
    page.evaluate("(s) => { Object.assign(one.model.state, s); }", ada.get_state(keys[0]))  # no change event: missed
    expect(page.locator(".dw-root[data-you='Ada']")).to_have_attribute("data-phase", "reveal", timeout=30_000)
    asking = "window.sent.filter((m) => m.type === 'send_view' && !('version' in m)).length"
    asked = page.evaluate(asking)
    page.wait_for_timeout(9_000)  # two more retry periods: no more asking once the view is here
    assert page.evaluate(asking) == asked
    assert not page.console_errors, page.console_errors[:3]


def test_a_screen_whose_kernel_never_answers_says_so_after_30_s_and_its_button_reloads_the_page(page):
    """A screen that has had no view for 30 s (a class seat stayed on "Connecting to the table…" in
    loaded runs although it asked every 4 s) says the table is not answering and offers a reload, which
    brings a seat back through its link; it goes on asking, and a view that comes after all is drawn."""
    from dichotomy_widget import Table
    from dichotomy_widget.widgets.game import SeatWidget

    table = Table.create(deck="en", seed=11)
    for name in ("Ada", "Ben", "Cy"):
        table.join(name)
    ada = SeatWidget(table, "Ada", lang="fr")
    page.clock.install()  # the page's timers run when the test says
    _load_harness(page)
    page.evaluate("(s) => { window.sent = []; window.one = mount(s); }",
                  {"kind": "seat", "view": {}, "lang": "fr", "i18n": ada.i18n, "store_trouble": ""})
    root = page.locator(".dw-root")
    expect(root).to_contain_text("Connexion à la table")
    page.clock.run_for(20_000)
    expect(page.locator("button.dw-reload")).to_have_count(0)  # 20 s: still only connecting
    page.clock.run_for(12_000)
    expect(root.locator("[data-testid=dw-status]")).to_contain_text("ne répond pas depuis 30 secondes")
    reload = page.get_by_role("button", name="Recharger la page")
    expect(reload).to_be_visible()
    asked = page.evaluate("window.sent.filter((m) => m.type === 'send_view').length")
    assert asked >= 7  # every 4 s, and on after the notice
    page.evaluate("(s) => one.model.update(s)", ada.get_state(["view"]))  # the kernel answers after all
    expect(page.locator(".dw-root[data-you='Ada']")).to_have_attribute("data-phase", "lobby")
    expect(page.locator("button.dw-reload")).to_have_count(0)
    page.evaluate("(s) => one.model.update(s)", {"view": {}})  # and waits again: the notice only after 30 s more
    page.clock.run_for(8_000)
    expect(root).to_contain_text("Connexion à la table")
    page.clock.run_for(25_000)
    page.evaluate("window.before = 'reload'")
    page.get_by_role("button", name="Recharger la page").click()
    page.wait_for_function("window.before === undefined")  # the page was loaded again
    assert not page.console_errors, page.console_errors[:3]


def test_a_screen_a_phase_behind_tells_its_version_and_draws_the_kernels_answer(page):
    """A screen that missed an update (run V1, loaded: a projector stayed a phase behind) tells the kernel
    the version it shows every 10 s; the kernel sends its traits again only when that is not its own, and
    the screen draws them."""
    from dichotomy_widget import Table
    from dichotomy_widget.options import TableOptions
    from dichotomy_widget.widgets.game import SeatWidget

    table = Table.create(deck="en", seed=11, options=TableOptions(rounds=2))
    for name in ("Ada", "Ben", "Cy"):
        table.join(name)
    ada = SeatWidget(table, "Ada")
    lobby = ada.get_state(["kind", "view", "lang", "i18n", "store_trouble"])  # what the screen has...
    table.start()  # ...when the table starts, an update it never gets
    keys: list = []
    ada.send_state = lambda key=None: keys.append(key)
    _load_harness(page)
    page.evaluate("(s) => { window.sent = []; window.one = mount(s); }", lobby)
    expect(page.locator(".dw-root[data-you='Ada']")).to_have_attribute("data-phase", "lobby")
    telling = "window.sent.filter((m) => m.type === 'send_view' && 'version' in m)"
    page.wait_for_function(f"{telling}.length > 0", timeout=30_000)
    told = page.evaluate(f"{telling}[0]")
    assert told == {"type": "send_view", "version": lobby["view"]["version"]}
    ada._handle_custom_msg(told, [])  # the kernel's answer, as its widget gives it
    assert len(keys) == 1 and set(keys[0]) >= {"view", "lang", "i18n", "store_trouble"}
    page.evaluate("(s) => one.model.update(s)", ada.get_state(keys[0]))
    expect(page.locator(".dw-root[data-you='Ada']")).to_have_attribute("data-phase", "reveal")
    page.wait_for_function(f"{telling}.length > 1", timeout=30_000)  # and it goes on telling: now the new one
    told = page.evaluate(f"{telling}.at(-1)")
    assert told["version"] == table.state.version > lobby["view"]["version"]
    ada._handle_custom_msg(told, [])
    assert len(keys) == 1  # up to date: nothing sent again
    assert not page.console_errors, page.console_errors[:3]
