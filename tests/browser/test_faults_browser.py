"""Faults with real processes in a real browser: one seat's kernel SIGKILLed, then the whole
``dichotomy serve`` (voila and every kernel) SIGKILLed and restarted mid-round. Every link resumes,
the other seats never notice the first kill, and no event is lost.
"""

from __future__ import annotations

import importlib
import os
import signal
import sys
import time
from pathlib import Path

import pytest
from browser_support import conftest_helpers as _shared

from dichotomy_widget import SqliteStore, Table

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from support import child_pids  # noqa: E402




ServerProcess, free_port, server_env = _shared().ServerProcess, _shared().free_port, _shared().server_env

pytestmark = [pytest.mark.browser, pytest.mark.faults]
playwright_api = importlib.import_module("playwright.sync_api")
expect = playwright_api.expect

RENDER_TIMEOUT = 90_000
KERNEL_ID = "JSON.parse(document.getElementById('jupyter-config-data').textContent).kernelId"


def serve(store: Path, port: int) -> "ServerProcess":
    cmd = [sys.executable, "-m", "dichotomy_widget.server.serve", "serve", "--store", str(store), "--port", str(port),
           "--ip", "127.0.0.1", "--connect-timeout", "300"]  # a loaded machine: pages connect slowly
    server = ServerProcess(cmd, port, env=server_env(), log_name="faults-serve")
    server.wait_ready("/voila/tree", timeout=90)
    return server


def pids_with(text: str) -> list[int]:
    """Processes whose command line contains ``text`` (a kernel's id is in its connection file name)."""
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if text in (entry / "cmdline").read_bytes().decode(errors="replace"):
                    out.append(int(entry.name))
            except OSError:
                continue
    return out


def wait_port_free(port: int, timeout: float = 30.0) -> None:
    import socket

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as voila binds: TIME_WAIT is fine
            try:
                sock.bind(("127.0.0.1", port))
                return
            except OSError:
                time.sleep(0.25)
    import subprocess

    held = subprocess.run(["ss", "-ltnp"], capture_output=True, text=True).stdout
    raise AssertionError(f"port {port} still in use: {[l for l in held.splitlines() if str(port) in l]}")


def open_page(context, url: str, ready_selector: str):
    page = context.new_page()
    page.goto(url)
    page.locator(ready_selector).wait_for(timeout=RENDER_TIMEOUT)
    page.locator("html[data-dichotomy-ready]").wait_for(state="attached", timeout=RENDER_TIMEOUT)
    return page


def events(path: Path, code: str) -> list[tuple[str, dict]]:
    store = SqliteStore(path)
    try:
        return [(r.type, r.payload) for r in store.load(code)]
    finally:
        store.close()


def test_kernel_and_server_killed_mid_round_lose_nothing(browser, tmp_path):
    path = tmp_path / "tables.sqlite3"
    store = SqliteStore(path)
    table = Table.create(deck="en", seed=21, rounds=2, store=store)
    tickets = {name: table.join(name) for name in ("Ana", "Ben", "Cy")}
    table.start()
    table.act(table.state.drawer, {"type": "pick", "pair": 1})
    table.act(table.state.current_writer, {"type": "clue", "text": "zebra"})
    target = table.state.target
    names = {t.seat: n for n, t in tickets.items()}
    writer, guesser = names[table.state.current_writer], names[table.state.guesser]
    code, host_token = table.code, table.host_token
    store.close()

    port = free_port()
    server = serve(path, port)
    context = browser.new_context(viewport={"width": 1000, "height": 800})
    context.set_default_timeout(60_000)
    try:
        seat_url = {n: f"{server.base}/voila/render/seat.ipynb?table={code}&seat={t.token}" for n, t in tickets.items()}
        host_url = f"{server.base}/voila/render/host.ipynb?table={code}&host={host_token}"
        wpage = open_page(context, seat_url[writer], "[data-testid=clue-input]")
        gpage = open_page(context, seat_url[guesser], f".dw-root[data-you='{guesser}']")
        host = open_page(context, host_url, ".dw-kind-table")

        # 1. the writer's kernel dies: the writer reloads and resumes; the Guesser never notices
        kernel = wpage.evaluate(KERNEL_ID)
        victims = pids_with(kernel)
        assert victims, "the writer's kernel process was not found"
        for pid in victims:
            os.kill(pid, signal.SIGKILL)
        wpage.reload()
        box = wpage.locator("[data-testid=clue-input]")
        box.wait_for(timeout=RENDER_TIMEOUT)
        wpage.locator("html[data-dichotomy-ready]").wait_for(state="attached", timeout=RENDER_TIMEOUT)
        box.fill("quartz")
        box.press("Enter")
        gpage.locator("[data-testid=guess-input]").wait_for(timeout=30_000)  # live, on the untouched kernel
        expect(gpage.locator(".dw-notice")).to_have_text("")
        before = events(path, code)
        assert [p.get("text") for t, p in before if t == "ClueSubmitted"] == ["zebra", "quartz"]

        # 2. voila and every kernel are SIGKILLed mid-round; `dichotomy serve` is started again
        voila = child_pids(server.proc.pid)
        kernels = {k for v in voila for k in child_pids(v)}
        assert voila and kernels
        for pid in voila | kernels:
            os.kill(pid, signal.SIGKILL)
        server.proc.wait(timeout=60)  # `dichotomy serve` exits when its voila dies
        server.stop()
        wait_port_free(port)
        server = serve(path, port)
        assert events(path, code) == before  # nothing lost, nothing added
        gpage.reload()
        guess = gpage.locator("[data-testid=guess-input]")
        guess.wait_for(timeout=RENDER_TIMEOUT)
        gpage.locator("html[data-dichotomy-ready]").wait_for(state="attached", timeout=RENDER_TIMEOUT)
        host.reload()
        host.locator(".dw-kind-table[data-phase=guess]").wait_for(timeout=RENDER_TIMEOUT)
        wpage.reload()
        wpage.locator(f".dw-root[data-you='{writer}'][data-phase=guess]").wait_for(timeout=RENDER_TIMEOUT)
        guess.fill(target)
        guess.press("Enter")
        host.locator("[data-outcome=correct]").wait_for(timeout=30_000)
        after = events(path, code)
        assert after[: len(before)] == before and after[len(before)][0] == "GuessJudged"
        again = Table.open(code, SqliteStore(path))
        assert again.replayed() == again.state and again.state.phase == "recap"
    finally:
        context.close()
        server.stop()


def test_a_click_made_on_a_screen_that_moved_on_is_refused_not_applied(browser, tmp_path):
    """The host presses "Time out Ana" while Ana's clue is on its way: the host page's kernel is
    paused (SIGSTOP) so the press reaches it only after Ana's clue is in. That press was made on
    Ana's turn, so it must be refused ("moved on"), not time out the next writer."""
    path = tmp_path / "tables.sqlite3"
    store = SqliteStore(path)
    table = Table.create(deck="en", seed=5, rounds=2, store=store)
    tickets = {name: table.join(name) for name in ("Ana", "Ben", "Cy", "Dee")}
    table.start()
    table.act(table.state.drawer, {"type": "pick", "pair": 1})
    writer = next(t for t in tickets.values() if t.seat == table.state.current_writer)
    code, host_token = table.code, table.host_token
    store.close()
    port = free_port()
    server = serve(path, port)
    context = browser.new_context(viewport={"width": 1000, "height": 800})
    context.set_default_timeout(60_000)
    try:
        button = ".dw-kind-table button[data-action=timeout]"
        host = open_page(context, f"{server.base}/voila/render/host.ipynb?table={code}&host={host_token}", button)
        seat = open_page(context, f"{server.base}/voila/render/seat.ipynb?table={code}&seat={writer.token}",
                         "[data-testid=clue-input]")
        paused = pids_with(host.evaluate(KERNEL_ID))
        assert paused
        for pid in paused:
            os.kill(pid, signal.SIGSTOP)
        try:
            expect(host.locator(button)).to_contain_text(writer.name)
            host.locator(button).click()  # waits in the paused kernel's queue
            seat.locator("[data-testid=clue-input]").fill("zebra")
            seat.locator("[data-testid=clue-input]").press("Enter")
            deadline = time.monotonic() + 30
            while not any(t == "ClueSubmitted" for t, _ in events(path, code)):
                assert time.monotonic() < deadline, "the writer's clue was not recorded"
                time.sleep(0.2)
        finally:
            for pid in paused:
                os.kill(pid, signal.SIGCONT)
        expect(host.locator(".dw-kind-table")).to_contain_text("moved on", timeout=30_000)
        clues = [p for t, p in events(path, code) if t == "ClueSubmitted"]
        assert [(c["seat"], c["cause"]) for c in clues] == [(writer.seat, "clue")]  # nobody timed out
    finally:
        context.close()
        server.stop()


def test_a_full_disk_shows_a_banner_on_every_page_even_a_waiting_one(browser, tmp_path):
    """The store's disk fills while nobody acts: the waiting Guesser's page and the host's page both
    show the trouble in an alert banner within seconds, and the banner goes when space is freed."""
    import shutil
    import subprocess

    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.fail("mounting a small tmpfs needs root (CI runs as root)")
    disk = tmp_path / "disk"
    disk.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=512k,mode=700", "tmpfs", str(disk)], check=True)  # a private store folder
    server = context = None
    try:
        path = disk / "tables.sqlite3"
        store = SqliteStore(path)
        table = Table.create(deck="en", seed=8, rounds=2, store=store)
        tickets = {name: table.join(name) for name in ("Ana", "Ben", "Cy")}
        table.start()
        table.act(table.state.drawer, {"type": "pick", "pair": 1})
        guesser = next(t for t in tickets.values() if t.seat == table.state.guesser)
        code, host_token = table.code, table.host_token
        store.close()
        server = serve(path, free_port())
        context = browser.new_context(viewport={"width": 390, "height": 800})
        context.set_default_timeout(60_000)
        gpage = open_page(context, f"{server.base}/voila/render/seat.ipynb?table={code}&seat={guesser.token}",
                          f".dw-root[data-you='{guesser.name}']")
        host = open_page(context, f"{server.base}/voila/render/host.ipynb?table={code}&host={host_token}",
                         ".dw-kind-table")
        banners = [page.locator("[data-testid=dw-store-trouble]") for page in (gpage, host)]
        for banner in banners:
            expect(banner).to_be_hidden()
        filler = disk / "filler"
        try:  # fill the disk to the last block
            with open(filler, "wb") as f:
                while True:
                    f.write(b"\0" * 4096)
                    f.flush()
        except OSError:
            pass
        for banner in banners:
            expect(banner).to_be_visible(timeout=60_000)
            expect(banner).to_contain_text("is full, so nothing was saved")
            expect(banner).to_have_attribute("role", "alert")
        filler.unlink()
        for banner in banners:
            expect(banner).to_be_hidden(timeout=60_000)
    finally:
        if context is not None:
            context.close()
        if server is not None:
            server.stop()
        subprocess.run(["umount", "-l", str(disk)], check=False)
