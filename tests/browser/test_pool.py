"""``dichotomy serve --expect N``: pages served from voila's pre-started kernel pool, in real Chromium.

The server pre-starts 2 seat kernels (and 1 for the host page). Checked: a seat link served from the
pool shows that link's own seat (the pool kernel reads its query only when the request arrives, never
an earlier page's); two students who open the join link at the same moment on pool kernels get two
different seats; the page bounds hold for pooled pages (per device, total); a page whose front end never
comes up shows a clear retry instead of a blank wait; with ``--expect-page class``, two students who open
the class link at once on pool kernels join as two students, each on their own page. No timing is
asserted (bench/join_burst.py measures speed).
"""

from __future__ import annotations

import importlib
import re
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from browser_support import conftest_helpers as _shared

TESTS = Path(__file__).resolve().parents[1]
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

from support import http_get, tree_usage  # noqa: E402

ServerProcess, free_port, server_env = _shared().ServerProcess, _shared().free_port, _shared().server_env

pytestmark = pytest.mark.browser
playwright_api = importlib.import_module("playwright.sync_api")
expect = playwright_api.expect

POOL, PER_DEVICE, MAX_KERNELS, HOST_RESERVE, CONNECT_TIMEOUT = 2, 2, 8, 1, 20
RENDER = 120_000
SERVED = re.compile(r"pre-started kernel \S+ serves a seat\.ipynb page")
SPARES = re.compile(r"pool kernel \S+ started: (\d+) spare kernels")


def serve_with_pool(tmp_path_factory, name: str, *options: str):
    """``dichotomy serve`` with ``options`` on a fresh store, until the module's tests are done."""
    store = tmp_path_factory.mktemp(name) / "tables.sqlite3"
    port = free_port()
    cmd = [sys.executable, "-m", "dichotomy_widget.server.serve", "serve", "--store", str(store), "--port", str(port),
           "--ip", "127.0.0.1", *options]
    server = ServerProcess(cmd, port, env=server_env(), log_name=name)
    try:
        server.wait_ready("/voila/tree", timeout=90)
        server.store = store  # type: ignore[attr-defined]
        server.render = f"{server.base}/voila/render"  # type: ignore[attr-defined]
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def pooled(tmp_path_factory):
    yield from serve_with_pool(tmp_path_factory, "pool", "--expect", str(POOL), "--max-pages-per-device",
                               str(PER_DEVICE), "--max-kernels", str(MAX_KERNELS), "--host-reserve",
                               str(HOST_RESERVE), "--connect-timeout", str(CONNECT_TIMEOUT))


def served(server) -> int:
    """Seat pages the server has handed a pre-started kernel so far."""
    return len(SERVED.findall(server.log_path.read_text(errors="replace")))


def wait_pool_full(server, spares: int = POOL + 1, timeout: float = 240.0) -> None:
    """Wait until ``spares`` pool kernels (seat and host) are ready since the last page took one."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        text = server.log_path.read_text(errors="replace")
        last_take = max((m.end() for m in SERVED.finditer(text)), default=0)
        counts = [int(m.group(1)) for m in SPARES.finditer(text, last_take)]
        if (counts and counts[-1] >= spares) or (last_take == 0 and len(SPARES.findall(text)) >= spares):
            time.sleep(3)  # the pool kernels run the page up to its wait for a request
            return
        time.sleep(0.5)
    raise AssertionError("the pool was not refilled:\n" + server.log()[-2000:])


def open_together(browser, urls: list[str]):
    """One browser context (one 'student') per URL; all navigations start before any is waited for."""
    contexts = [browser.new_context(viewport={"width": 900, "height": 800}) for _ in urls]
    pages = [ctx.new_page() for ctx in contexts]
    for page, url in zip(pages, urls):
        page.goto(url, wait_until="commit", timeout=RENDER)
    for page in pages:
        page.locator("html[data-dichotomy-ready]").wait_for(state="attached", timeout=RENDER)
    return contexts, pages


def test_seat_links_served_from_the_pool_show_their_own_seat(browser, pooled):
    from dichotomy_widget import Table

    table = Table.create(store=str(pooled.store), rounds=2, seed=3)
    tickets = {name: table.join(name) for name in ("Ana", "Ben", "Cleo")}
    wait_pool_full(pooled)
    before = served(pooled)
    urls = [f"{pooled.render}/seat.ipynb?table={table.code}&seat={tickets[n].token}" for n in ("Ana", "Ben")]
    contexts, pages = open_together(browser, urls)
    try:
        assert served(pooled) == before + 2, "both pages came from the pool"
        for name, page in zip(("Ana", "Ben"), pages):
            page.locator(f".dw-root[data-you='{name}']").wait_for(timeout=RENDER)
            expect(page).to_have_title(f"{name} · table {table.code} · Dichotomy")
            assert page.url.endswith(f"seat={tickets[name].token}")
            other = "Ben" if name == "Ana" else "Ana"
            assert page.locator(f".dw-root[data-you='{other}']").count() == 0
        log = pooled.log_path.read_text(errors="replace")
        assert all(t.token not in log for t in tickets.values())
    finally:
        for ctx in contexts:
            ctx.close()


def test_two_students_joining_at_once_on_pool_kernels_get_two_seats(browser, pooled):
    from dichotomy_widget import Table

    table = Table.create(store=str(pooled.store), rounds=2, seed=4)
    wait_pool_full(pooled)
    before = served(pooled)
    contexts, pages = open_together(browser, [f"{pooled.render}/seat.ipynb?table={table.code}"] * 2)
    try:
        assert served(pooled) == before + 2
        names = ("Dev", "Eve")
        for page, name in zip(pages, names):
            page.locator(".dichotomy-name input").fill(name)
        for page in pages:  # both press Enter before either is seated
            page.locator(".dichotomy-name input").press("Enter")
        for page, name in zip(pages, names):
            page.locator(f".dw-root[data-you='{name}']").wait_for(timeout=RENDER)
            expect(page).to_have_title(f"{name} · table {table.code} · Dichotomy")
        tokens = {page.url.split("seat=", 1)[1] for page in pages}
        assert len(tokens) == 2
        seated = Table.open(table.code, str(pooled.store)).state
        assert sorted(seat.name for seat in seated.seats) == ["Dev", "Eve"]
        assert {seated.seat_record(table.seat_for_token(t)).name for t in tokens} == {"Dev", "Eve"}
    finally:
        for ctx in contexts:
            ctx.close()


def test_a_page_that_cannot_start_offers_a_reload(browser, pooled):
    """In the browser's language (no kernel answered to say the page's), or the one in ``?lang=``."""
    context = browser.new_context()
    french = browser.new_context(locale="fr-FR")
    try:
        page, other, chosen = context.new_page(), french.new_page(), french.new_page()
        for p in (page, other, chosen):
            p.route("**/voila/labextensions/**", lambda route: route.abort())  # the widgets never come up
        page.goto(f"{pooled.render}/seat.ipynb", wait_until="commit", timeout=RENDER)
        other.goto(f"{pooled.render}/seat.ipynb", wait_until="commit", timeout=RENDER)
        chosen.goto(f"{pooled.render}/seat.ipynb?lang=de", wait_until="commit", timeout=RENDER)
        alert = page.locator("#dichotomy-stalled[role=alert]")
        alert.wait_for(timeout=60_000)
        expect(alert).to_contain_text("taking longer than it should")
        expect(other.locator("#dichotomy-stalled[role=alert][lang=fr]")).to_contain_text(
            "met plus de temps que prévu", timeout=30_000)
        expect(other.get_by_role("button", name="Recharger la page")).to_be_visible()
        expect(chosen.locator("#dichotomy-stalled[role=alert][lang=de]")).to_contain_text(
            "braucht länger als sonst", timeout=30_000)
        page.unroute("**/voila/labextensions/**")
        # the click waits for the reload's navigation: a new kernel's page, slow on a loaded machine
        alert.get_by_role("button", name="Reload the page").click(timeout=RENDER)
        page.locator("html[data-dichotomy-ready]").wait_for(state="attached", timeout=RENDER)
        expect(page.locator(".dichotomy-code input")).to_be_visible()
        expect(page.locator("#dichotomy-stalled")).to_have_count(0)
    finally:
        context.close()
        french.close()


def test_pooled_pages_stay_inside_the_page_bounds(pooled):
    from dichotomy_widget import Table

    table = Table.create(store=str(pooled.store), rounds=2, seed=5)
    wait_pool_full(pooled, spares=2)  # earlier tests' closed tabs may still hold kernels: room for fewer
    before = served(pooled)
    url = f"{pooled.render}/seat.ipynb?table={table.code}"
    with ThreadPoolExecutor(4) as pool:  # one device: its share, then the refusal page (no kernel)
        device = [f.result(timeout=300) for f in [pool.submit(http_get, url, "127.0.0.77") for _ in range(3)]]
    assert sorted(status for status, _ in device) == [200, 200, 429]
    assert served(pooled) > before, "the pool served this device"
    with ThreadPoolExecutor(8) as pool:  # many devices: the server is full below the host reserve
        crowd = [f.result(timeout=300) for f in [pool.submit(http_get, url, f"127.0.0.{90 + i}") for i in range(8)]]
    statuses = [status for status, _ in crowd]
    assert set(statuses) <= {200, 503} and 503 in statuses
    kernels, _ = tree_usage(pooled.proc.pid)
    assert kernels <= MAX_KERNELS + 1  # +1: a kernel let go may still be exiting
    host = http_get(f"{pooled.render}/host.ipynb", "127.0.0.1")
    assert host[0] == 200, "the host page keeps its reserve"


@pytest.fixture(scope="module")
def pooled_class(tmp_path_factory):
    yield from serve_with_pool(tmp_path_factory, "pool-class", "--expect", "2", "--expect-page", "class",
                               "--max-pages-per-device", "4")


def test_two_students_opening_the_class_link_at_once_on_pool_kernels_join_as_two(browser, pooled_class):
    from dichotomy_widget import Classroom

    room = Classroom.create("Year 9", store=str(pooled_class.store), rounds=2, seed=6)
    class_served = re.compile(r"pre-started kernel \S+ serves a class\.ipynb page")
    wait_pool_full(pooled_class, spares=3)  # 2 class + 1 host
    contexts, pages = open_together(browser, [f"{pooled_class.render}/class.ipynb?class={room.code}"] * 2)
    try:
        assert len(class_served.findall(pooled_class.log_path.read_text(errors="replace"))) == 2
        names = ("Fay", "Gus")
        for page, name in zip(pages, names):
            page.locator(".dichotomy-name input").fill(name)
        for page in pages:
            page.locator(".dichotomy-name input").press("Enter")
        for page, name in zip(pages, names):
            expect(page.locator(".dichotomy-lobby-box")).to_contain_text(f"Hello {name}!", timeout=60_000)
            expect(page.locator(".dichotomy-opening")).to_have_count(0)
        tokens = {page.url.split("student=", 1)[1] for page in pages}
        assert len(tokens) == 2
        assert sorted(s.name for s in Classroom.open(room.code, str(pooled_class.store)).state.students) == list(names)
    finally:
        for ctx in contexts:
            ctx.close()
