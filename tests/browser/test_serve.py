"""``dichotomy serve`` in a real Chromium: the host creates a table, seats join through the link, a full
game is played by clicking and typing, a seat is reloaded mid-round and resumes, forged links are refused.

Each voila page is its own kernel (2-4 s to start on a 2-core machine), so the seven-seat test only fills
the lobby and starts the game; the full game is played with three seats and two rounds.
Screenshots go to ``artifacts/screenshots/serve-*.png``.
"""

from __future__ import annotations

import importlib
import re
import sys
import time
from urllib.parse import parse_qs, urlsplit

import pytest
from browser_support import conftest_helpers as _shared
from browser_support import click_until, hidden_from, show_or_reload

from dichotomy_widget.widgets.widget_code import ROUTE

ServerProcess, free_port, server_env = _shared().ServerProcess, _shared().free_port, _shared().server_env

pytestmark = pytest.mark.browser

playwright_api = importlib.import_module("playwright.sync_api")
expect = playwright_api.expect

RENDER_TIMEOUT = 90_000
CLUES = ["zebra", "quartz", "nimbus", "tulip", "saffron", "kayak", "origami", "lantern", "mosaic", "glacier"]


@pytest.fixture(scope="module")
def serve(tmp_path_factory):
    """``dichotomy serve`` (the console script's code) on a free port with a fresh SQLite store."""
    store = tmp_path_factory.mktemp("serve") / "tables.sqlite3"
    port = free_port()
    cmd = [sys.executable, "-m", "dichotomy_widget.server.serve", "serve", "--store", str(store), "--port", str(port),
           "--ip", "127.0.0.1", "--connect-timeout", "300",  # a loaded machine: pages connect slowly
           "--voila-arg=--Voila.log_level=INFO"]  # voila's "Kernel shutdown: <id>" lines, read below
    server = ServerProcess(cmd, port, env=server_env(), log_name="serve")
    try:
        server.wait_ready("/voila/tree", timeout=90)
        server.host_url = f"{server.base}/voila/render/host.ipynb"  # type: ignore[attr-defined]
        server.store = store  # type: ignore[attr-defined]
        yield server
    finally:
        server.stop()


@pytest.fixture()
def context(browser):
    ctx = browser.new_context(viewport={"width": 1000, "height": 800})
    ctx.set_default_timeout(RENDER_TIMEOUT)  # a loaded two-core machine renders slowly
    try:
        yield ctx
    finally:
        ctx.close()


def ready(page) -> None:
    """Wait until the page's kernel answers (html[data-dichotomy-ready], set by the app's UrlQuery widget)."""
    page.locator("html[data-dichotomy-ready]").wait_for(state="attached", timeout=RENDER_TIMEOUT)


def continue_recap(page, tries: int = 4) -> None:
    """Press Continue until the page has taken it (its Continue button is gone or pressed): on a loaded
    machine a click can land while the staged reveal redraws the recap, and a lost click would leave the
    recap kept on this seat into the next round, as it would for a student who never pressed it."""
    pending = page.locator("button[data-action=continue]:enabled")
    for _ in range(tries):
        if pending.count() == 0:
            return
        pending.first.click()
        try:
            expect(pending).to_have_count(0, timeout=15_000)
            return
        except AssertionError:
            continue
    raise AssertionError("Continue was never taken on this page")


def create_table(context, serve, rounds: int = 2):
    host = context.new_page()
    host.goto(serve.host_url, wait_until="commit", timeout=RENDER_TIMEOUT)
    show_or_reload(host, "button.dichotomy-create", RENDER_TIMEOUT)
    ready(host)
    expect(host.get_by_text("Language: English")).to_be_visible()
    rounds_box = host.locator(".dichotomy-rounds input")
    rounds_box.fill(str(rounds))
    rounds_box.press("Tab")
    host.wait_for_timeout(300)
    click_until(host, "button.dichotomy-create", ".dichotomy-table-code")
    expect(host).to_have_url(re.compile(r"host\.ipynb\?table=[A-Z0-9]{6}&host=[\w-]+$"))
    code = host.locator(".dichotomy-table-code").inner_text().strip()
    expect(host).to_have_title(f"Host · table {code} · Dichotomy")
    link = host.locator(".dichotomy-join-link").get_attribute("href")
    assert link and link.endswith(f"seat.ipynb?table={code}")
    assert "host=" not in link
    expect(host.locator(".dichotomy-qr svg")).to_be_visible()
    host.locator(".dw-kind-table").wait_for(timeout=RENDER_TIMEOUT)
    return host, code, link


def join_seat(context, link: str, name: str, keyboard: bool = False):
    page = context.new_page()
    page.goto(link, wait_until="commit", timeout=RENDER_TIMEOUT)
    show_or_reload(page, ".dichotomy-name input", RENDER_TIMEOUT)
    ready(page)
    page.locator(".dichotomy-name input").fill(name)
    if keyboard:  # Enter in the name box joins, like the button
        page.locator(".dichotomy-name input").press("Enter")
        page.locator(f".dw-root[data-you='{name}']").wait_for(timeout=RENDER_TIMEOUT)
    else:
        click_until(page, "button.dichotomy-join", f".dw-root[data-you='{name}']")
    expect(page).to_have_url(re.compile(r"seat\.ipynb\?table=[A-Z0-9]{6}&seat=[\w-]+$"))
    expect(page).to_have_title(re.compile(rf"^{re.escape(name)} · table [A-Z0-9]{{6}} · Dichotomy$"))
    return page


def seat_token(page) -> str:
    return parse_qs(urlsplit(page.url).query)["seat"][0]


def wait_all(pages, selector: str, timeout: float = 30.0) -> None:
    for p in pages:
        p.locator(selector).first.wait_for(timeout=timeout * 1000)


def find(pages: dict, selector: str, timeout: float = 30.0):
    """The (name, page) whose widget shows ``selector`` (e.g. the Drawer's pairs)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for name, p in pages.items():
            if p.locator(selector).count() and p.locator(selector).first.is_visible():
                return name, p
        time.sleep(0.1)
    seen = {name: (p.locator(".dw-root").first.get_attribute("data-phase") if p.locator(".dw-root").count() else None,
                   p.locator(".dw-root").first.inner_text()[:300] if p.locator(".dw-root").count() else "")
            for name, p in pages.items()}
    raise AssertionError(f"no page shows {selector}; the pages show {seen}")


def test_three_seats_play_a_full_game_with_a_reload(context, serve, screenshots):
    host, code, link = create_table(context, serve, rounds=2)
    screenshots("serve-host-created", host, full_page=True)
    pages = {}
    for name in ("Ada", "Ben", "Cy"):
        pages[name] = join_seat(context, link, name, keyboard=name == "Cy")
        expect(host.locator(f".dw-kind-table [data-testid='player-{name}']")).to_be_visible()  # lobby, live
    screenshots("serve-host-lobby", host, full_page=True)
    screenshots("serve-seat-lobby", pages["Ada"], full_page=True)
    # a name already taken: clear message, nothing created
    dup = context.new_page()
    dup.goto(link, wait_until="commit", timeout=RENDER_TIMEOUT)
    dup.locator(".dichotomy-name input").wait_for(timeout=RENDER_TIMEOUT)
    dup.locator(".dichotomy-name input").fill("ben")
    click_until(dup, "button.dichotomy-join", ".dichotomy-feedback:has-text('already called')")
    dup.close()

    click_until(host, ".dw-kind-table button[data-action=start]", ".dw-root.dw-kind-table[data-phase=reveal]")
    reloaded = False
    for rnd in (1, 2):
        drawer, dpage = find(pages, ".dw-pairs")
        if rnd == 1:
            screenshots("serve-drawer-pick", dpage, full_page=True)
        dpage.locator(".dw-pair[data-pair='1']").click()
        guesser, gpage = find(pages, ".dw-guesser-wait")
        writers = [n for n in pages if n != guesser]
        target = pages[writers[0]].locator("[data-testid=target]").first.inner_text().strip()
        foil = pages[writers[0]].locator("[data-testid=foil]").first.inner_text().strip()
        assert gpage.locator("[data-testid=target]").count() == 0
        # the Guesser's page never has them (as words: "car" is inside the header's "Discarded")
        assert hidden_from(gpage, target, tuple(pages)) and hidden_from(gpage, foil, tuple(pages))
        if rnd == 1:
            # the Guesser closes the tab (voila shuts the kernel down) and opens the seat link again
            link_of_guesser = gpage.url
            gpage.close()
            gpage = context.new_page()
            gpage.goto(link_of_guesser, wait_until="commit", timeout=RENDER_TIMEOUT)
            gpage.locator(".dw-guesser-wait").wait_for(timeout=RENDER_TIMEOUT)
            ready(gpage)
            pages[guesser] = gpage
        words = iter(CLUES)
        for i in range(len(writers)):
            writer, wpage = find(pages, "[data-testid=clue-input]")
            if rnd == 2 and not reloaded:
                # reload a seat mid-round: it resumes with the same token and the same screen
                token = seat_token(wpage)
                wpage.reload()
                wpage.locator(f".dw-root[data-you='{writer}']").wait_for(timeout=RENDER_TIMEOUT)
                assert seat_token(wpage) == token
                wpage.locator("[data-testid=clue-input]").wait_for(timeout=RENDER_TIMEOUT)
                ready(wpage)
                screenshots("serve-seat-reloaded", wpage, full_page=True)
                reloaded = True
            box = wpage.locator("[data-testid=clue-input]")
            for _attempt in range(4):
                box.fill(next(words))
                box.press("Enter")
                try:
                    expect(wpage.locator("[data-testid=clue-input]")).to_have_count(0, timeout=8_000)
                    break
                except AssertionError:
                    continue  # refused (a variant of the pair) or lost: type another word
            if rnd == 1 and i == 0:
                screenshots("serve-host-clues", host, full_page=True)
        gpage.locator("[data-testid=guess-input]").wait_for()
        expect(gpage.locator(".dw-clue")).to_have_count(len(writers))
        screenshots(f"serve-guesser-round{rnd}", gpage, full_page=True)
        if rnd == 1:
            gpage.locator("[data-testid=guess-input]").fill(target)
            gpage.locator("[data-testid=guess-input]").press("Enter")
            expect(host.locator("[data-outcome=correct]")).to_be_visible()
        else:
            gpage.locator("button[data-action=pass]").click()
            expect(host.locator("[data-outcome=pass]")).to_be_visible()
        wait_all(pages.values(), "[data-testid=recap]")
        screenshots(f"serve-recap-round{rnd}", pages[writers[0]], full_page=True)
        for p in pages.values():
            continue_recap(p)
    wait_all(list(pages.values()) + [host], "[data-testid=final]")
    for p in list(pages.values()) + [host]:
        expect(p.locator(".dw-final-number")).to_have_text("1")
        expect(p.locator(".dw-history-row")).to_have_count(2)
    screenshots("serve-final-seat", pages["Ada"], full_page=True)
    screenshots("serve-final-host", host, full_page=True)
    assert reloaded

    # a forged seat token and a forged host token: clear pages, nothing created
    forged = context.new_page()
    forged.goto(f"{serve.base}/voila/render/seat.ipynb?table={code}&seat=forged-token-123", wait_until="commit", timeout=RENDER_TIMEOUT)
    expect(forged.locator(".dichotomy-message")).to_contain_text("not valid", timeout=RENDER_TIMEOUT)
    assert forged.locator(".dw-root").count() == 0
    screenshots("serve-forged-seat", forged, full_page=True)
    forged.goto(f"{serve.base}/voila/render/host.ipynb?table={code}&host=forged", wait_until="commit", timeout=RENDER_TIMEOUT)
    expect(forged.locator(".dichotomy-message")).to_contain_text("not valid", timeout=RENDER_TIMEOUT)
    assert forged.locator(".dw-root").count() == 0
    forged.goto(f"{serve.base}/voila/render/seat.ipynb?table=ZZZZZZ", wait_until="commit", timeout=RENDER_TIMEOUT)
    expect(forged.locator(".dichotomy-message")).to_contain_text("No table", timeout=RENDER_TIMEOUT)
    # the host link resumes hosting after a reload
    host.reload()
    host.locator(".dichotomy-table-code").wait_for(timeout=RENDER_TIMEOUT)
    expect(host.locator(".dichotomy-table-code")).to_have_text(code)


def test_seven_seats_fill_the_lobby_and_an_eighth_is_refused(context, serve, screenshots):
    """Seven seats join; the lobby count of the host page and of the first seat page follows every join
    live (no reload: it once said "1 player" while four had joined); an eighth is refused."""
    host, code, link = create_table(context, serve, rounds=1)
    names = [f"S{i}" for i in range(1, 8)]
    pages = {}
    for n, name in enumerate(names, start=1):
        pages[name] = join_seat(context, link, name)
        count = re.compile(rf"^{n} players? at the table")
        for page in (host, pages["S1"]):
            expect(page.locator("[data-testid=lobby-count]")).to_have_text(count, timeout=30_000)
    expect(host.locator(".dw-kind-table .dw-players li")).to_have_count(7)
    screenshots("serve-host-seven", host, full_page=True)
    late = context.new_page()
    late.goto(link, wait_until="commit", timeout=RENDER_TIMEOUT)
    expect(late.locator(".dichotomy-message")).to_contain_text("full", timeout=RENDER_TIMEOUT)
    late.close()
    click_until(host, ".dw-kind-table button[data-action=start]", ".dw-root.dw-kind-table[data-phase=reveal]")
    drawer, dpage = find(pages, ".dw-pairs")
    guesser, _ = find(pages, ".dw-guesser-wait")
    assert drawer != guesser
    dpage.locator(".dw-pair[data-pair='2']").click()
    for name, p in pages.items():  # every seat moves on; only Clue-Givers see the pair
        p.locator(".dw-root[data-phase=clues]").wait_for()
        assert (p.locator("[data-testid=target]").count() > 0) == (name != guesser)
    screenshots("serve-seven-clues", pages[drawer], full_page=True)


PROBE_KERNEL = """async () => {
  const config = JSON.parse(document.getElementById("jupyter-config-data").textContent);
  const kernelId = config.kernelId;
  const url = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}${config.baseUrl}api/kernels/${kernelId}/channels?session_id=probe`;
  const ws = new WebSocket(url);
  const seen = [];
  ws.onmessage = (event) => {
    try {
      const msg = JSON.parse(event.data);
      seen.push([msg.msg_type || msg.header.msg_type, msg.parent_header && msg.parent_header.msg_id]);
    } catch (err) { seen.push(["binary", null]); }
  };
  await new Promise((resolve, reject) => { ws.onopen = resolve; ws.onerror = reject; });
  const send = (id, type, content) => ws.send(JSON.stringify({
    header: {msg_id: id, msg_type: type, username: "probe", session: "probe", version: "5.3", date: new Date().toISOString()},
    parent_header: {}, metadata: {}, content, channel: "shell", buffers: [],
  }));
  send("probe-exec", "execute_request", {code: "import os; print('PWNED', os.getcwd())", silent: false,
    store_history: false, user_expressions: {}, allow_stdin: false, stop_on_error: true});
  send("probe-info", "kernel_info_request", {});
  await new Promise((resolve) => setTimeout(resolve, 4000));
  ws.close();
  return {kernelId, seen};
}"""


def test_a_seat_page_cannot_run_code_in_its_kernel(context, serve):
    """A student who opens the developer tools can talk to their kernel's websocket, but voila only lets
    widget (comm) and info messages through: an execute_request is dropped, so no code can read the store."""
    host, _code, link = create_table(context, serve, rounds=2)
    page = join_seat(context, link, "Mallory")
    result = page.evaluate(PROBE_KERNEL)
    replies = {(msg_type, parent) for msg_type, parent in result["seen"]}
    assert ("kernel_info_reply", "probe-info") in replies  # the socket works: a permitted request is answered
    assert not any(parent == "probe-exec" for _type, parent in replies)  # no execute_reply, stream or status
    assert "PWNED" not in page.inner_text("body")
    host.close()
    page.close()


NAMES = ["Dariusz", "Bartholomew", "Anastasia", "Maximilian", "Kristofer", "Guadalupe"]


def test_fast_typed_names_keep_every_letter_and_no_page_asks_another_host(context, serve):
    """Names typed at 25 ms a key and sent with Enter arrive whole (12 tries); the box stops at the name
    limit; the host and seat pages request nothing from any host but the server."""
    from urllib.parse import urlsplit as split

    from dichotomy_widget import SqliteStore, Table

    outside: list[str] = []

    def guard(route):
        host = split(route.request.url).hostname or ""
        if route.request.url.startswith(("data:", "blob:")) or host in ("127.0.0.1", "localhost", "::1"):
            route.continue_()
        else:
            outside.append(route.request.url)
            route.abort()

    context.route("**/*", guard)
    create_table(context, serve, rounds=1)  # the host page, rendered under the guard
    store = SqliteStore(serve.store)
    table = Table.create(deck="en", rounds=1, store=store)
    for name in NAMES:
        table.join(name)
    page = context.new_page()
    page.goto(f"{serve.base}/voila/render/seat.ipynb?table={table.code}", wait_until="commit", timeout=RENDER_TIMEOUT)
    box = page.locator(".dichotomy-name input")
    box.wait_for(timeout=RENDER_TIMEOUT)
    ready(page)
    feedback = page.locator(".dichotomy-feedback")
    for name in NAMES + [n.upper() for n in NAMES]:  # every one is taken: the refusal quotes what arrived
        box.fill("")
        box.press_sequentially(name, delay=25)
        box.press("Enter")
        expect(feedback).to_contain_text(f"already called {name}.", timeout=20_000)
    box.fill("")
    box.press_sequentially("x" * 30, delay=5)
    assert box.input_value() == "x" * 24  # limited as you type
    box.fill("")
    box.press_sequentially("Wojciechowska", delay=25)
    box.press("Enter")
    page.locator(".dw-root[data-you='Wojciechowska']").wait_for(timeout=RENDER_TIMEOUT)
    assert [s.name for s in Table.open(table.code, store).state.seats] == NAMES + ["Wojciechowska"]
    assert outside == []


def test_a_second_page_takes_the_widget_code_from_the_browser_cache(context, serve):
    """The content-hashed front-end files (widget manager, anywidget) are sent as immutable, so a student
    who opened one page (the join page) loads none of them again: 30 students reopening their seat links
    ask the server for the page and its kernel, not for megabytes of JavaScript each."""
    from dichotomy_widget import SqliteStore, Table
    from dichotomy_widget.server.pooled_voila import CONTENT_HASHED

    table = Table.create(deck="en", rounds=1, store=SqliteStore(serve.store))
    links = [f"{serve.base}/voila/render/seat.ipynb?table={table.code}&seat={table.join(n).token}"
             for n in ("Ana", "Ben")]
    headers: dict[str, str] = {}
    first = context.new_page()
    first.on("response", lambda r: headers.setdefault(r.url, r.headers.get("cache-control", "")))
    first.goto(links[0], timeout=RENDER_TIMEOUT)  # "load": its resources are read below
    ready(first)
    hashed = {u: h for u, h in headers.items()
              if "/voila/labextensions/" in u and CONTENT_HASHED.search(urlsplit(u).path.rsplit("/", 1)[-1])}
    assert len(hashed) >= 5, sorted(headers)
    assert all("immutable" in h and "max-age=31536000" in h for h in hashed.values()), hashed
    unhashed = {u: h for u, h in headers.items() if u.endswith("/package.json") or u.endswith("/style.js")}
    assert all("immutable" not in h for h in unhashed.values()), unhashed
    second = context.new_page()
    second.goto(links[1], timeout=RENDER_TIMEOUT)  # "load": its resources are read below
    ready(second)
    entries = second.evaluate("performance.getEntriesByType('resource')"
                              ".map(e => [e.name, e.transferSize, e.decodedBodySize])")
    again = [(name, sent) for name, sent, size in entries if name in hashed and size > 0]
    assert len(again) >= 5 and all(sent == 0 for _, sent in again), again  # all from the cache
    ours = [(name, sent) for name, sent, size in entries if f"/{ROUTE}widget." in name and size > 0]
    assert len(ours) == 2 and all(sent == 0 for _, sent in ours), ours  # the widget's code and style too


def test_the_widget_code_comes_by_url_not_inside_every_page(context, serve):
    """Behind ``dichotomy serve`` a seat widget's state carries a small loader (widgets/widget_code.py), the
    page fetches the code and style from the server's content-hashed route (immutable), and renders."""
    from dichotomy_widget import SqliteStore, Table
    from dichotomy_widget.widgets.widget_code import CODE, JS_DIR, STYLE, served_name

    table = Table.create(deck="en", rounds=1, store=SqliteStore(serve.store))
    link = f"{serve.base}/voila/render/seat.ipynb?table={table.code}&seat={table.join('Ana').token}"
    page = context.new_page()
    sent: list[str] = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda frame: sent.append(str(frame))))
    fetched: dict[str, tuple[int, str, str]] = {}
    page.on("response", lambda r: fetched.setdefault(r.url, (r.status, r.headers.get("cache-control", ""),
                                                             r.headers.get("content-type", ""))))
    page.goto(link, wait_until="commit", timeout=RENDER_TIMEOUT)
    ready(page)
    page.locator(".dw-root[data-you='Ana']").wait_for(timeout=RENDER_TIMEOUT)
    expect(page.locator(".dw-root")).to_have_css("max-width", "860px")  # widget.css applied
    code_url = f"{serve.base}/{ROUTE}{served_name(CODE)}"
    style_url = f"{serve.base}/{ROUTE}{served_name(STYLE)}"
    assert fetched[code_url][0] == 200 and "immutable" in fetched[code_url][1], fetched.get(code_url)
    assert "javascript" in fetched[code_url][2] and "css" in fetched[style_url][2]
    marker = "dw-root"  # a class name the code sets; the loader does not contain it
    assert marker in (JS_DIR / CODE).read_text(encoding="utf-8")
    assert sent and not any(marker in frame for frame in sent), "the widget code went over the websocket"
    answer = context.request.get(code_url)
    assert answer.status == 200 and answer.body() == (JS_DIR / CODE).read_bytes()
    for wrong in (f"widget.{'0' * 16}.js", CODE, "../pyproject.toml", "%2e%2e/README.md", ""):
        assert context.request.get(f"{serve.base}/{ROUTE}{wrong}").status == 404, wrong


def test_a_widget_whose_code_arrives_late_still_follows_its_table(browser, serve):
    """anywidget gives a widget's module 2 s to load and then drops, for good and silently, every
    message the kernel sends to that widget. The loader therefore exports at once and loads the code
    and style in ``render``: with the style 3.5 s late (a loaded server), the seat still shows each
    join after it was drawn. (The loader that waited for them: a class seat stayed on "Connecting to
    the table…" in loaded runs while its kernel answered every ask.)"""
    from dichotomy_widget import SqliteStore, Table
    from dichotomy_widget.widgets.widget_code import STYLE, served_name

    table = Table.create(deck="en", rounds=1, store=SqliteStore(serve.store))
    link = f"{serve.base}/voila/render/seat.ipynb?table={table.code}&seat={table.join('Ana').token}"
    late: list[str] = []

    def slow_style(route) -> None:
        late.append(route.request.url)
        time.sleep(3.5)  # holds this request only; the page goes on
        route.continue_()

    ctx = browser.new_context(viewport={"width": 1000, "height": 800})  # nothing cached
    ctx.set_default_timeout(RENDER_TIMEOUT)
    try:
        page = ctx.new_page()
        page.route(f"**/{ROUTE}{served_name(STYLE)}", slow_style)
        page.goto(link, wait_until="commit", timeout=RENDER_TIMEOUT)
        ready(page)
        page.locator(".dw-root[data-you='Ana']").wait_for(timeout=RENDER_TIMEOUT)
        assert late, "the style was not fetched through the slow route"
        for name in ("Ben", "Cy"):  # updates after the widget was drawn
            table.join(name)
            expect(page.locator(".dw-players")).to_contain_text(name, timeout=30_000)
        expect(page.locator("[data-testid=lobby-count]")).to_contain_text("3", timeout=30_000)
    finally:
        ctx.close()


def test_host_reorders_and_removes_seats_in_the_lobby(context, serve):
    from dichotomy_widget import SqliteStore, Table

    host, code, _link = create_table(context, serve, rounds=1)
    store = SqliteStore(serve.store)
    table = Table.open(code, store)
    for name in ("Ana", "Ben", "Cy"):
        table.join(name)
    rows = host.locator(".dw-seat-controls .dw-seat-row")
    expect(rows).to_have_count(3, timeout=30_000)
    host.get_by_role("button", name="Move Ana down").click()
    expect(rows.first).to_have_attribute("data-seat-name", "Ben")
    table.refresh()
    assert [table.state.name(s) for s in table.state.order] == ["Ben", "Ana", "Cy"]
    remove = host.get_by_role("button", name="Remove Cy")
    remove.click()
    expect(remove).to_have_text(re.compile("Really remove Cy"))  # a second press confirms
    remove.click()
    expect(rows).to_have_count(2)
    table.refresh()
    assert [s.name for s in table.state.seats] == ["Ana", "Ben"]


def _open_blank_seat_page(context, serve):
    page = context.new_page()
    page.goto(f"{serve.base}/voila/render/seat.ipynb", wait_until="commit", timeout=RENDER_TIMEOUT)
    page.locator(".dichotomy-code input").wait_for(timeout=RENDER_TIMEOUT)
    page.locator(".dichotomy-name input").wait_for(timeout=RENDER_TIMEOUT)
    ready(page)
    return page


def test_a_code_and_a_20_letter_name_typed_at_full_speed_seat_exactly_that_name(context, serve):
    """The seat page's code box and name box, typed with no delay between keys and sent with Enter from
    either box, open the right table and seat the whole name (the code box's Enter used to arrive before
    the code's last letters)."""
    from dichotomy_widget import SqliteStore, Table

    store = SqliteStore(serve.store)
    table = Table.create(deck="en", rounds=1, store=store)
    first, second = "Maximiliano Gonzalez", "Anastasia Kowalewska"
    assert len(first) == len(second) == 20
    page = _open_blank_seat_page(context, serve)
    page.locator(".dichotomy-name input").click()
    page.keyboard.type(first)  # name first, then the code, and Enter in the code box
    page.locator(".dichotomy-code input").click()
    page.keyboard.type(table.code.lower())
    page.keyboard.press("Enter")
    page.locator(f".dw-root[data-you='{first}']").wait_for(timeout=RENDER_TIMEOUT)
    other = _open_blank_seat_page(context, serve)
    other.locator(".dichotomy-code input").click()
    other.keyboard.type(table.code)  # code first, then the name, and Enter in the name box
    other.keyboard.press("Tab")
    other.keyboard.type(second)
    other.keyboard.press("Enter")
    other.locator(f".dw-root[data-you='{second}']").wait_for(timeout=RENDER_TIMEOUT)
    assert [s.name for s in Table.open(table.code, store).state.seats] == [first, second]
    page.close()
    other.close()


SHUT_DOWN = """async ([kernel, key]) => {
  const form = new FormData();
  const xsrf = document.cookie.match("\\\\b_xsrf=([^;]*)\\\\b");
  form.append("_xsrf", xsrf ? xsrf[1] : "");
  if (key !== null) form.append("dichotomy_page_key", key);
  const answer = await fetch(`${location.origin}/voila/api/shutdown/${kernel}`, {method: "POST", body: form});
  return answer.status;
}"""
KERNEL_ID = "() => JSON.parse(document.getElementById('jupyter-config-data').textContent).kernelId"
PAGE_KEY = "() => window[Symbol.for('dichotomy.pageKey')] || null"


def test_only_the_page_that_owns_a_kernel_can_shut_it_down(context, serve):
    """A second page on the same device (same browser, same cookies) knows the first page's kernel id
    and its own page key: the server refuses to shut the first page's kernel down for it, and the
    first page still plays; closing the first page (voila's unload beacon) does shut its kernel down."""
    from dichotomy_widget import SqliteStore, Table

    table = Table.create(deck="en", rounds=1, store=SqliteStore(serve.store))
    owner = context.new_page()
    owner.goto(f"{serve.base}/voila/render/seat.ipynb?table={table.code}", wait_until="commit", timeout=RENDER_TIMEOUT)
    ready(owner)
    kernel = owner.evaluate(KERNEL_ID)
    second = context.new_page()
    second.goto(f"{serve.base}/voila/render/seat.ipynb?table={table.code}", wait_until="commit", timeout=RENDER_TIMEOUT)
    ready(second)
    own_key = second.evaluate(PAGE_KEY)
    assert own_key and kernel and second.evaluate(KERNEL_ID) != kernel
    for key in (None, "", own_key):  # voila's bare beacon, an empty key, the second page's own key
        assert second.evaluate(SHUT_DOWN, [kernel, key]) == 403
    owner.locator(".dichotomy-name input").fill("Ana")
    owner.locator(".dichotomy-name input").press("Enter")
    owner.locator(".dw-root[data-you='Ana']").wait_for(timeout=RENDER_TIMEOUT)  # its kernel still serves it
    assert f"Kernel shutdown: {kernel}" not in serve.log_path.read_text(errors="replace")
    owner.close(run_before_unload=True)  # voila's unload beacon, with the owner's key
    deadline = time.monotonic() + 60
    while f"Kernel shutdown: {kernel}" not in serve.log_path.read_text(errors="replace"):
        assert time.monotonic() < deadline, "the owner's unload did not shut its kernel down"
        time.sleep(0.25)
    second.close()
