"""Student screens on a phone (touch, light and dark), measured on every screen of a game at 320,
360 and 430 px wide.

One ``dichotomy serve`` (SQLite) for the module; the games are driven through the engine, three seat
pages (the Drawer, the second Clue-Giver, the Guesser) and a join page are real Chromium pages with
touch. On every screen: no element wider than the viewport, no word broken inside, every enabled
control at least 44 x 44 px, text boxes at 16 px or more. Along the way: the lobby counts players as
they join, a clue drafted before its turn is sent when the turn comes (and its duplicate is eliminated),
the header's piles move only when the staged reveal reaches its outcome, the recap stays on a screen
whose player has not continued after the next Drawer picked, a phone is told to tap (not "Press 1 to
5"), a page opened in a dark-preferring browser is dark, and on a table with a recap countdown the
recap counts down and the game moves on by itself.
"""

from __future__ import annotations

import re
import sys

import pytest
from playwright.sync_api import expect

from conftest import ServerProcess, free_port, server_env
from dichotomy_widget import SqliteStore, Table

WIDTH = 360
WIDTHS = (320, WIDTH, 430)  # the narrowest and widest phones the screens are made for
TIMEOUT = 120_000

# Problems on the current page: elements wider than the viewport, words broken across lines (a line
# may end after a word's hyphen, as in "one-|word", never inside "chameleo|n"), enabled
# controls smaller than 44 x 44 px, text boxes under 16 px. Hidden and zero-size elements are skipped.
PROBLEMS = r"""() => {
  const vw = document.documentElement.clientWidth;
  const out = [];
  const shown = (el) => {
    const r = el.getBoundingClientRect();
    if (r.width < 1 || r.height < 1) return null;
    const st = getComputedStyle(el);
    if (st.visibility === "hidden" || st.display === "none" || el.closest("[hidden]")) return null;
    return r;
  };
  const name = (el) => `${el.tagName.toLowerCase()}.${String(el.className).split(" ").slice(0, 2).join(".")}` +
    ` "${(el.textContent || el.value || "").trim().slice(0, 30)}"`;
  for (const el of document.querySelectorAll("body *")) {
    if (el.closest("#loading, script, style, .dichotomy-stalled")) continue;
    const r = shown(el);
    if (r && (r.right > vw + 1 || r.left < -1)) out.push(`wider than ${vw}: ${name(el)} ${Math.round(r.left)}..${Math.round(r.right)}`);
  }
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    if (!parent || parent.closest("script, style, #loading") || !shown(parent)) continue;
    for (const m of node.data.matchAll(/[^\s\-\u2010\u2013]+/g)) {  // a line may break after a hyphen or dash
      const range = document.createRange();
      range.setStart(node, m.index);
      range.setEnd(node, m.index + m[0].length);
      const tops = new Set([...range.getClientRects()].filter((q) => q.width > 0).map((q) => Math.round(q.top / 4)));
      if (tops.size > 1) out.push(`word broken: "${m[0]}" in ${name(parent)}`);
    }
  }
  for (const el of document.querySelectorAll("button, input, select, textarea, a[href], summary")) {
    const r = shown(el);
    if (!r || el.disabled) continue;
    if (r.width < 43.5 || r.height < 43.5) out.push(`small control: ${name(el)} ${Math.round(r.width)}x${Math.round(r.height)}`);
    if (["INPUT", "SELECT", "TEXTAREA"].includes(el.tagName) && parseFloat(getComputedStyle(el).fontSize) < 16) {
      out.push(`small text in ${name(el)}: ${getComputedStyle(el).fontSize}`);
    }
  }
  return out;
}"""


def check(page, screen: str, seen: dict) -> None:
    """Measure the screen now on ``page`` at every width of ``WIDTHS`` (after its layout settles);
    remember it as measured. The page is left at ``WIDTH``."""
    page.wait_for_timeout(200)
    page.evaluate(SETTLED)
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 760})
        page.evaluate("() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")
        problems = page.evaluate(PROBLEMS)
        assert not problems, f"{screen} at {width} px: {problems[:8]}"
    page.set_viewport_size({"width": WIDTH, "height": 760})
    seen[screen] = True


# Wait for the screen's motion to end (a card turning over, a stamp landing): a loaded machine may
# still be playing it. Endless animations (a "writing…" pulse) are not waited for.
SETTLED = """() => Promise.all(document.getAnimations()
  .filter((a) => a.effect && a.effect.getComputedTiming().iterations !== Infinity).map((a) => a.finished.catch(() => null)))
  .then(() => null)"""


# The header's discard pile and the staged reveal's step, once a recap is on the page.
REVEAL_AND_PILE = """() => {
  const recap = document.querySelector("[data-testid=recap]");
  const pile = document.querySelector(".dw-pile-discard");
  return recap && pile ? {step: recap.dataset.step || "", discard: pile.querySelector(".dw-stat-value").textContent,
                          moved: pile.classList.contains("dw-moved")} : null;
}"""


def play_to_recap(table: Table, guess: str) -> None:
    """Drive ``table`` through the engine (any seat) until its round's recap opens."""
    table.refresh()
    while table.state.phase != "recap":
        s = table.state
        if s.phase == "reveal":
            table.act(s.drawer, {"type": "pick", "pair": 1})
        elif s.phase == "clues":
            table.act(s.current_writer, {"type": "clue", "text": a_clue(table, {c.text for c in s.clues})})
        else:
            table.act(s.guesser, {"type": "guess", "text": guess})
        table.refresh()


@pytest.fixture(scope="module")
def serve(tmp_path_factory):
    store = tmp_path_factory.mktemp("phone") / "tables.sqlite3"
    port = free_port()
    cmd = [sys.executable, "-m", "dichotomy_widget.server.serve", "serve", "--store", str(store), "--port", str(port),
           "--ip", "127.0.0.1", "--connect-timeout", "300"]  # a loaded machine: pages connect slowly
    server = ServerProcess(cmd, port, env=server_env(), log_name="serve-phone")
    try:
        server.wait_ready("/voila/tree", timeout=120)
        server.store = SqliteStore(store)  # type: ignore[attr-defined]
        server.page = lambda q: f"{server.base}/voila/render/seat.ipynb?{q}"  # type: ignore[attr-defined]
        yield server
    finally:
        server.stop()


def phone(browser, dark: bool = False):
    return browser.new_context(viewport={"width": WIDTH, "height": 760}, has_touch=True,
                               color_scheme="dark" if dark else "light")


def open_seat(context, url: str):
    page = context.new_page()
    page.set_default_timeout(60_000)
    page.goto(url, timeout=TIMEOUT)
    page.locator("html[data-dichotomy-ready]").wait_for(state="attached", timeout=TIMEOUT)
    return page


def a_clue(table: Table, taken: set[str]) -> str:
    """A word the engine accepts for this pair (not the Target or Foil, nor a form of them)."""
    pair = f"{table.state.target} {table.state.foil}".casefold()
    return next(w for w in ("zebra", "quartz", "nimbus", "tulip", "kayak", "lantern", "origami")
                if w not in taken and w[:4] not in pair)


def test_every_student_screen_fits_a_phone(browser, serve):
    seen: dict[str, bool] = {}
    light, dark = phone(browser), phone(browser, dark=True)
    wall = browser.new_context(viewport={"width": 1280, "height": 720})
    try:
        # the join page and the lobby: the count follows classmates joining
        lobby = Table.create(deck="en", rounds=3, store=serve.store, seed=3, recap_time=12)  # played at the end
        join = open_seat(light, serve.page(f"table={lobby.code}"))
        join.locator(".dichotomy-name input").wait_for(timeout=TIMEOUT)
        check(join, "join", seen)
        join.locator(".dichotomy-name input").fill("Zoe")
        join.locator(".dichotomy-name input").press("Enter")
        join.locator(".dw-root[data-you='Zoe']").wait_for(timeout=TIMEOUT)
        expect(join.get_by_test_id("lobby-count")).to_contain_text("1 player")
        for name in ("Ana", "Ben"):
            lobby.join(name)
        expect(join.get_by_test_id("lobby-count")).to_contain_text("3 players")
        expect(join.locator(".dw-howto-card")).to_have_count(3)
        check(join, "lobby", seen)

        # a game of four: the Drawer (light), the second Clue-Giver (light), the Guesser (dark)
        game = Table.create(deck="en", rounds=3, store=serve.store, seed=5)
        tokens = {t.seat: t.token for t in (game.join(n) for n in ("Ana", "Ben", "Cy", "Dee"))}
        game.start()
        game.refresh()
        drawer, guesser = game.state.drawer, game.state.guesser
        url = lambda seat: serve.page(f"table={game.code}&seat={tokens[seat]}")  # noqa: E731
        pick = open_seat(light, url(drawer))
        gpage = open_seat(dark, url(guesser))
        pairs = pick.locator(".dw-pairs")
        pairs.wait_for(timeout=TIMEOUT)
        expect(pick.locator(".dw-panel .dw-help").first).to_contain_text("Tap a pair")  # a phone taps
        check(pick, "pick", seen)
        assert gpage.locator("body").get_attribute("data-jp-theme-light") == "false"  # follows the device
        background = gpage.evaluate("getComputedStyle(document.body).backgroundColor")
        assert background not in ("rgb(255, 255, 255)", "rgba(0, 0, 0, 0)"), background
        check(gpage, "guesser waiting (dark)", seen)
        pick.locator(".dw-pair[data-pair='1']").click()
        pick.get_by_test_id("clue-input").wait_for(timeout=TIMEOUT)
        game.refresh()
        order = [s for s in game.state.writers]
        assert order[0] == drawer
        second = order[1]
        draft = open_seat(light, url(second))
        draft.get_by_test_id("draft-input").wait_for(timeout=TIMEOUT)
        expect(draft.get_by_test_id("next-cue")).to_be_visible()
        check(draft, "writer waiting, drafting", seen)
        word = a_clue(game, set())
        draft.get_by_test_id("draft-input").fill(word)
        draft.locator("button[data-action=send]").click()
        expect(draft.get_by_test_id("draft-ready")).to_contain_text(word)
        game.refresh()
        assert game.state.clues == ()  # nothing sent before the turn

        # the Drawer writes: Send is disabled while the box is empty; Skip is small and asks first
        send = pick.locator("button[data-action=send]")
        expect(send).to_be_disabled()
        check(pick, "writer's turn", seen)
        pick.locator("button[data-action=skip]").click()
        expect(pick.locator("button[data-action=skip]")).to_have_text("Yes, skip my clue")
        game.refresh()
        assert game.state.clues == ()  # one press of Skip sends nothing
        pick.get_by_test_id("clue-input").fill(word)
        expect(send).to_be_enabled()
        send.click()
        # the draft goes by itself when its turn comes, and its duplicate is eliminated in the recap
        expect(draft.locator(".dw-slate")).to_contain_text(word, timeout=60_000)
        game.refresh()
        assert [c.text for c in game.state.clues[:2]] == [word, word]
        while game.state.phase == "clues":
            game.act(game.state.current_writer, {"type": "clue", "text": a_clue(game, {c.text for c in game.state.clues})})
            game.refresh()
        box = gpage.get_by_test_id("guess-input")
        box.wait_for(timeout=TIMEOUT)
        check(gpage, "guess (dark)", seen)
        draft.locator(".dw-watch").wait_for(timeout=TIMEOUT)
        check(draft, "watching the guess", seen)
        game.refresh()
        discarded = len(game.state.discard_pile)
        box.fill("saxophone")
        box.press("Enter")

        # the header's piles keep their sizes while the reveal plays, and move with the outcome
        first = gpage.wait_for_function(REVEAL_AND_PILE, polling="raf", timeout=TIMEOUT).json_value()
        assert first["step"] != "done" and first["discard"] == str(discarded), first

        # the staged reveal ends with the outcome; the recap stays until this player continues
        for p in (gpage, draft):
            recap = p.get_by_test_id("recap")
            expect(recap).to_have_attribute("data-step", "done", timeout=30_000)
            expect(recap.locator(".dw-recap-clue.dw-collided")).to_have_count(2)
            expect(recap.locator(".dw-outcome .dw-stamp")).to_have_text("✗")
        last = gpage.evaluate(REVEAL_AND_PILE)
        assert last["discard"] == str(discarded + 2) and last["moved"], last  # the card and a penalty card
        assert gpage.get_by_test_id("recap-clock").count() == 0  # no countdown unless the host sets one
        check(gpage, "recap (dark)", seen)

        # the table's projector on a 1280 x 720 wall: full width, the class's name for the table in
        # letters of 100 px or more; it has no Continue, so it says where the recap is read
        projector = wall.new_page()
        projector.set_default_timeout(60_000)
        projector.goto(f"{serve.base}/voila/render/projector.ipynb?table={game.code}&n=2", timeout=TIMEOUT)
        projector.locator("html[data-dichotomy-ready]").wait_for(state="attached", timeout=TIMEOUT)
        expect(projector.get_by_test_id("table-name")).to_have_text("Table 2", timeout=60_000)
        size = projector.evaluate("parseFloat(getComputedStyle(document.querySelector('.dw-code')).fontSize)")
        width = projector.evaluate("document.querySelector('.dw-root').getBoundingClientRect().width")
        assert size >= 100 and width >= 0.9 * 1280, (size, width)
        expect(projector.get_by_test_id("dw-status")).to_have_text("Round over: everyone reads the recap on their own screen.")
        assert projector.locator(".dw-main button[data-action=continue]").count() == 0
        expect(projector.locator(".dw-badge-drawer")).to_have_text("Next drawer")

        # the second Clue-Giver draws next round: once it has read the recap, it is picking
        draft.locator("button[data-action=continue]").click()
        draft.locator(".dw-pairs").wait_for(timeout=TIMEOUT)
        game.refresh()
        assert game.state.drawer == second
        for seat in game.state.order:
            if seat not in (second, guesser):
                game.act(seat, {"type": "continue"})
        expect(projector.locator(".dw-badge-drawer")).to_have_text("Drawer")
        expect(projector.get_by_test_id("dw-status")).to_contain_text("is picking a pair")
        projector.close()
        # the last Guesser has not continued: its recap stays after the next Drawer picked
        game.refresh()
        game.act(second, {"type": "pick", "pair": 2})
        game.refresh()
        assert game.state.phase == "clues" and game.state.round == 2
        expect(gpage.get_by_test_id("kept-note")).to_be_visible(timeout=30_000)
        gpage.wait_for_timeout(1500)  # a later view must not wipe it either
        expect(gpage.get_by_test_id("recap")).to_have_attribute("data-round", "1")
        check(gpage, "recap kept after the next pick (dark)", seen)
        gpage.locator("button[data-action=continue]").click()
        expect(gpage.get_by_test_id("recap")).to_have_count(0)
        expect(gpage.locator(".dw-writer").first).to_be_visible()

        # the final screen with its rank ladder
        game.act(None, {"type": "end"})
        for p in (draft, gpage):
            p.get_by_test_id("final").wait_for(timeout=TIMEOUT)
            expect(p.locator(".dw-rung.dw-here")).to_have_count(1)
        check(draft, "final", seen)
        check(gpage, "final (dark)", seen)

        # a table with the host's recap countdown: the recap counts down, then the game moves on by
        # itself (Zoe, whose page stayed open since the lobby, presses nothing)
        lobby.start()
        play_to_recap(lobby, "")  # passes: no penalty card, so a third round follows
        clock = join.get_by_test_id("recap-clock")
        expect(clock).to_have_text(re.compile(r"The next round starts in \d+ seconds?"), timeout=60_000)
        expect(join.get_by_test_id("recap")).to_have_attribute("data-step", "done", timeout=30_000)
        check(join, "recap with a countdown", seen)
        expect(join.get_by_test_id("recap")).to_have_count(0, timeout=60_000)
        lobby.refresh()
        assert lobby.state.phase == "reveal" and lobby.state.round == 2, lobby.state.phase
        confirmed = [e for e in lobby.events if type(e).__name__ == "RecapConfirmed"]
        assert confirmed and confirmed[-1].timed and not confirmed[-1].by_host, confirmed
        assert sum(len(e.seats) for e in confirmed) == 3  # every seat went on, none pressed Continue
        # the next recap is kept when the next Drawer picks at once; its countdown still closes it
        play_to_recap(lobby, "")  # passes: no penalty card, so a third round follows
        expect(join.get_by_test_id("recap")).to_have_attribute("data-round", "2", timeout=60_000)
        lobby.act(lobby.state.drawer, {"type": "pick", "pair": 1})
        expect(join.get_by_test_id("kept-note")).to_be_visible(timeout=60_000)
        expect(clock).to_have_text(re.compile(r"The next round starts in \d+ seconds?"))
        expect(join.get_by_test_id("kept-note")).to_have_count(0, timeout=60_000)
        lobby.refresh()
        assert lobby.state.phase == "clues" and lobby.state.round == 3  # the engine did not wait for it
    finally:
        for context in (light, dark, wall):
            context.close()
    assert len(seen) == 13, sorted(seen)
