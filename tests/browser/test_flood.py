"""One device floods a real ``dichotomy serve`` while a class plays: the page bounds hold.

Linux routes all of 127.0.0.0/8 to this machine, so each loopback address is one more 'device': the
flooder is 127.0.0.66, two students are wire clients (tests/browser/wire_student.py: seat page over
HTTP, then the kernel's websocket, like a browser) on 127.0.0.11 and .12, one student and the host are
Chromium pages on 127.0.0.1 (the teacher's own computer, which the per-device bound does not limit).

The server runs with small bounds (2 pages per device, 7 kernels, 1 kept for host pages, 20 s to
connect) so a short test reaches them all; every wait is on a condition, with bounds generous enough for a loaded two-core machine. No timing is asserted, only counts and what each side sees.
"""

from __future__ import annotations

import importlib
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from browser_support import click_until, conftest_helpers as _shared

TESTS = Path(__file__).resolve().parents[1]
for _p in (str(TESTS), str(TESTS / "browser")):
    if _p not in sys.path:
        sys.path.insert(0, _p)

from support import http_get, tree_usage  # noqa: E402
from wire_student import WireStudent  # noqa: E402




ServerProcess, free_port, server_env = _shared().ServerProcess, _shared().free_port, _shared().server_env

pytestmark = pytest.mark.browser
playwright_api = importlib.import_module("playwright.sync_api")
expect = playwright_api.expect

PER_DEVICE, MAX_KERNELS, HOST_RESERVE, CONNECT_TIMEOUT = 2, 7, 1, 40  # 40 s: a loaded machine starts the crowd slowly
FLOOD = 32
#: A kernel the server has already let go (replaced or timed out) can still be exiting when the next
#: one starts, so the process count may briefly show one more than the ledger counts.
EXITING = 1
KERNEL_BYTES = 160 * 1024 * 1024  # a page kernel is ~75 MB RSS; twice that as a generous ceiling
RENDER = 240_000  # generous: on a loaded two-core machine a kernel can take minutes to start
SLOW = 300.0  # seconds: an HTTP answer or a wire view on that machine
TOO_MANY = "Too many Dichotomy pages are open on this device"
FULL = "The Dichotomy server is full"
REPLACED = "This page was opened again on this device"


class Sampler(threading.Thread):
    """Peak kernel processes and peak RSS of the server's process tree, every 0.25 s."""

    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.pid, self.peak_kernels, self.peak_rss, self.kernels = pid, 0, 0, 0
        self.running = True

    def run(self) -> None:
        while self.running:
            kernels, rss = tree_usage(self.pid)
            self.kernels = kernels
            self.peak_kernels, self.peak_rss = max(self.peak_kernels, kernels), max(self.peak_rss, rss)
            time.sleep(0.25)


@pytest.fixture(scope="module")
def bounded(tmp_path_factory):
    store = tmp_path_factory.mktemp("flood") / "tables.sqlite3"
    port = free_port()
    cmd = [sys.executable, "-m", "dichotomy_widget.server.serve", "serve", "--store", str(store), "--port", str(port),
           "--ip", "127.0.0.1", "--max-pages-per-device", str(PER_DEVICE), "--max-kernels", str(MAX_KERNELS),
           "--host-reserve", str(HOST_RESERVE), "--connect-timeout", str(CONNECT_TIMEOUT)]
    server = ServerProcess(cmd, port, env=server_env(), log_name="flood")
    try:
        server.wait_ready("/voila/tree", timeout=90)
        server.store = store  # type: ignore[attr-defined]
        yield server
    finally:
        server.stop()


def test_one_device_flooding_cannot_take_the_class_down(browser, bounded):
    from dichotomy_widget import Table

    base = bounded.base
    render = f"{base}/voila/render"
    sampler = Sampler(bounded.proc.pid)
    _, idle_rss = tree_usage(bounded.proc.pid)
    sampler.start()

    table = Table.create(store=str(bounded.store), rounds=2)
    code = table.code
    wira, wes = table.join("Wira"), table.join("Wes")
    flood_urls = [f"{render}/host.ipynb", f"{render}/seat.ipynb", f"{render}/seat.ipynb?table={code}",
                  f"{render}/host.ipynb?table={code}&host=forged"]

    # 1. The flood starts; the class joins while it runs.
    pool = ThreadPoolExecutor(8)
    flood = [pool.submit(http_get, flood_urls[i % len(flood_urls)], "127.0.0.66", SLOW) for i in range(FLOOD)]
    host_ctx, seat_ctx = (browser.new_context(viewport={"width": 1000, "height": 800}) for _ in range(2))
    students: list[WireStudent] = []
    try:
        host = host_ctx.new_page()
        host.goto(f"{render}/host.ipynb?table={code}&host={table.host_token}")
        host.locator(".dw-kind-table").wait_for(timeout=RENDER)
        students = [WireStudent(f"{render}/seat.ipynb?table={code}&seat={ticket.token}", address, timeout=SLOW)
                    for ticket, address in ((wira, "127.0.0.11"), (wes, "127.0.0.12"))]
        cleo = seat_ctx.new_page()
        cleo.goto(f"{render}/seat.ipynb?table={code}")
        cleo.locator(".dichotomy-name input").wait_for(timeout=RENDER)
        cleo.locator("html[data-dichotomy-ready]").wait_for(state="attached", timeout=RENDER)
        cleo.locator(".dichotomy-name input").fill("Cleo")
        click_until(cleo, "button.dichotomy-join", ".dw-root[data-you='Cleo']")
        results = [f.result(timeout=2 * SLOW) for f in flood]
        flood_peak = sampler.peak_kernels

        # The flooder got at most its share; every other answer was the clear page, with no kernel (a
        # page replaced by its own link loaded again while its kernel started says so: 409).
        statuses = [status for status, _body in results]
        assert set(statuses) <= {200, 409, 429}, statuses
        refused = [body for status, body in results if status in (409, 429)]
        assert len(refused) >= FLOOD - 3 * PER_DEVICE, statuses
        assert all(TOO_MANY in body and "close one" in body for status, body in results if status == 429)
        assert all(REPLACED in body for status, body in results if status == 409)
        assert flood_peak <= MAX_KERNELS + EXITING

        # 2. The class plays: joins, the host's Start and a student's pick reach everyone.
        for student in students:
            student.wait(lambda v: sorted(p["name"] for p in v["players"]) == ["Cleo", "Wes", "Wira"], SLOW)
        expect(host.locator(".dw-kind-table .dw-players li")).to_have_count(3, timeout=RENDER)
        click_until(host, ".dw-kind-table button[data-action=start]", ".dw-root.dw-kind-table[data-phase=reveal]")
        views = [student.wait(lambda v: v["phase"] == "reveal", SLOW) for student in students]
        cleo.locator(".dw-root[data-phase=reveal]").wait_for(timeout=RENDER)
        drawer = next((s for s, v in zip(students, views) if "pick" in v["actions"]), None)
        if drawer is not None:
            drawer.act({"type": "pick", "pair": 2})
        else:
            cleo.locator(".dw-pair[data-pair='2']").click()
        for student in students:
            student.wait(lambda v: v["phase"] == "clues", SLOW)
        cleo.locator(".dw-root[data-phase=clues]").wait_for(timeout=RENDER)
        host.locator(".dw-root.dw-kind-table[data-phase=clues]").wait_for(timeout=RENDER)

        # 3. Many devices at once fill the server: the rest get "the server is full"; the host still works.
        crowd = [pool.submit(http_get, f"{render}/seat.ipynb?table={code}", f"127.0.0.{70 + i}", SLOW) for i in range(8)]
        crowd_results = [f.result(timeout=2 * SLOW) for f in crowd]
        assert {status for status, _ in crowd_results} <= {200, 503}
        full = [body for status, body in crowd_results if status == 503]
        assert full and all(FULL in body for body in full)
        host.reload()
        host.locator(".dw-root.dw-kind-table[data-phase=clues]").wait_for(timeout=RENDER)
        assert sampler.peak_kernels <= MAX_KERNELS + EXITING

        # 4. Pages that never connected are shut down; the connected ones stay and keep playing.
        deadline = time.monotonic() + CONNECT_TIMEOUT + SLOW
        while sampler.kernels > 4 and time.monotonic() < deadline:
            time.sleep(0.5)
        assert sampler.kernels == 4, "host, Cleo, Wira and Wes keep their kernels; the rest are shut down"
        writer = next((s for s in students if "clue" in s.view.get("actions", [])), None)
        before = [s.view["version"] for s in students]
        if writer is not None:
            writer.act({"type": "clue", "text": "zebra"})
        else:
            cleo.get_by_test_id("clue-input").fill("zebra")
            cleo.get_by_test_id("clue-input").press("Enter")
        for student, version in zip(students, before):
            student.wait(lambda v, version=version: v["version"] > version, SLOW)
        assert sampler.peak_kernels <= MAX_KERNELS + EXITING
        assert sampler.peak_rss <= idle_rss + (MAX_KERNELS + EXITING) * KERNEL_BYTES
        log = bounded.log_path.read_text(errors="replace")
        assert "refused a" in log and "127.0.0.66" in log and "too_many_pages" in log
        assert "Traceback" not in log and "never retrieved" not in log  # nothing the teacher should not see
        assert wira.token not in log and table.host_token not in log
    finally:
        sampler.running = False
        for student in students:
            student.close()
        host_ctx.close()
        seat_ctx.close()
        pool.shutdown(wait=False, cancel_futures=True)


def test_reloading_a_page_shuts_its_previous_kernel_down(browser, bounded):
    """Voila's page shuts its kernel down on unload with a beacon that needs the _xsrf cookie, which the
    bounded manager sets: reloads (here a join page, which has no seat token to replace by) leave no
    kernels behind."""
    context = browser.new_context()
    try:
        page = context.new_page()
        before = tree_usage(bounded.proc.pid)[0]
        page.goto(f"{bounded.base}/voila/render/seat.ipynb")
        for reload in range(4):
            if reload:
                page.reload()
            page.locator("html[data-dichotomy-ready]").wait_for(state="attached", timeout=RENDER)
        assert any(c["name"] == "_xsrf" for c in context.cookies())
        deadline = time.monotonic() + SLOW
        while tree_usage(bounded.proc.pid)[0] > before + 1 and time.monotonic() < deadline:
            time.sleep(0.5)
        assert tree_usage(bounded.proc.pid)[0] <= before + 1  # without the beacon: before + 4
    finally:
        context.close()


def test_a_page_replaced_while_it_is_being_sent_ends_instead_of_waiting_forever(bounded):
    """The same seat link loaded again from one device while the first load's page is still being sent:
    the first load's kernel is shut down (replaced) and its response ends, at the next keep-alive line
    (voila's renderer would otherwise wait for the gone kernel and keep the response open for good),
    with one line in the server's log and no traceback."""
    import http.client
    from urllib.parse import urlsplit

    from dichotomy_widget import Table

    table = Table.create(store=str(bounded.store), rounds=2)
    link = urlsplit(f"{bounded.base}/voila/render/seat.ipynb?table={table.code}&seat={table.join('Xena').token}")
    device = "127.0.0.67"
    log_before = len(bounded.log_path.read_text(errors="replace"))
    first = http.client.HTTPConnection(link.hostname, link.port, timeout=SLOW, source_address=(device, 0))
    pool = ThreadPoolExecutor(2)
    try:
        first.request("GET", f"{link.path}?{link.query}")
        response = first.getresponse()
        assert response.status == 200
        head = response.read1(65536)  # voila sends the page's head once the kernel is started (and counted)
        assert head
        rest = pool.submit(response.read)  # blocks until the first load's response ends
        again = http_get(link.geturl(), device, SLOW)
        assert again[0] == 200 and "</html>" in again[1]
        body = head + rest.result(timeout=SLOW)  # before the fix: keep-alive lines for ever
        assert body.startswith(b"<!DOCTYPE html>") and b"</html>" not in body
    finally:
        first.close()
        pool.shutdown(wait=False, cancel_futures=True)
    deadline = time.monotonic() + SLOW
    while time.monotonic() < deadline:
        log = bounded.log_path.read_text(errors="replace")[log_before:]
        if "ended the page of kernel" in log:
            break
        time.sleep(0.5)
    assert "replaced or evicted by a new seat.ipynb page from 127.0.0.67" in log
    assert "ended the page of kernel" in log
    assert "Traceback" not in log and "never retrieved" not in log
