"""Without a hub: does a `dichotomy serve` page say when its server goes away, and come back on Reload?

    python tools/page_watch_check.py

Starts `dichotomy serve` (temporary store, free port), opens the host page in Chromium and creates a
table, then (a) SIGKILLs the page's kernel (the server restarts it; the page has lost its state) and
(b) SIGKILLs the whole server and starts it again; each time it prints how long the page took to show
the "connection to the game server was lost" banner and checks that Reload brings the host page of the
same table back. The browser test of the same with a hub is tests/browser/test_hub_browser.py.
"""
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

work = Path(tempfile.mkdtemp())


def port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


P = port()
ROOT = Path(__file__).resolve().parents[1]
env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))


def start() -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "dichotomy_widget.server.serve", "serve", "--store", str(work / "s" / "t.sqlite3"),
                             "--port", str(P), "--ip", "127.0.0.1"], env=env, start_new_session=True,
                            stdout=open(work / "log", "a"), stderr=subprocess.STDOUT)


def wait_up() -> None:
    import urllib.request

    for _ in range(240):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{P}/voila/render/host.ipynb", timeout=30)
            return
        except OSError:
            time.sleep(0.5)
    raise SystemExit("no server")


proc = start()
wait_up()
with sync_playwright() as pw:
    b = pw.chromium.launch(executable_path=shutil.which("chromium") or None, args=["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"])
    pg = b.new_page()
    pg.set_default_timeout(120000)
    pg.goto(f"http://127.0.0.1:{P}/voila/render/host.ipynb")
    pg.locator("button.dichotomy-create").wait_for()
    pg.locator("html[data-dichotomy-ready]").wait_for(state="attached")
    for _ in range(8):
        pg.locator("button.dichotomy-create").click()
        try:
            pg.locator(".dichotomy-table-code").wait_for(timeout=5000)
            break
        except Exception:  # noqa: BLE001 - playwright's TimeoutError: the click came before the kernel
            pass
    code = pg.locator(".dichotomy-table-code").inner_text().strip()
    print("table", code, pg.url)
    kid = pg.evaluate('JSON.parse(document.getElementById("jupyter-config-data").textContent).kernelId')
    # (a) the kernel process dies (the server restarts it): the page must notice
    pids = []
    for p in Path("/proc").iterdir():
        if p.name.isdigit():
            try:
                if kid.encode() in (p / "cmdline").read_bytes():
                    pids.append(int(p.name))
            except OSError:
                pass
    print("kernel pids", pids)
    t = time.monotonic()
    for pid in pids:
        os.kill(pid, signal.SIGKILL)
    pg.locator("#dichotomy-gone").wait_for(timeout=30000)
    print(f"(a) kernel killed: banner after {time.monotonic()-t:.1f} s")
    pg.locator(".dichotomy-gone-reload").click()
    pg.locator(".dichotomy-table-code").wait_for()
    print("(a) after Reload: host page of", pg.locator(".dichotomy-table-code").inner_text().strip())
    pg.locator("html[data-dichotomy-ready]").wait_for(state="attached")
    # (b) the whole server stops
    t = time.monotonic()
    os.killpg(proc.pid, signal.SIGKILL)
    pg.locator("#dichotomy-gone").wait_for(timeout=30000)
    print(f"(b) server killed: banner after {time.monotonic()-t:.1f} s")
    time.sleep(1)
    proc = start()
    wait_up()
    pg.locator(".dichotomy-gone-reload").click()
    pg.locator(".dichotomy-table-code").wait_for()
    print("(b) after restart + Reload: host page of", pg.locator(".dichotomy-table-code").inner_text().strip())
    b.close()
os.killpg(proc.pid, signal.SIGTERM)
shutil.rmtree(work, ignore_errors=True)
