"""Follow docs/jupyterhub.md's "From a bare machine" in an empty folder, end to end.

    python tools/hub_walkthrough.py [--keep]

It takes the blocks the page marks ``<!-- walkthrough: file PATH -->`` (written as they stand),
``<!-- walkthrough: run -->`` (run) and ``<!-- walkthrough: start -->`` (the hub, started), with the
page's absolute paths moved into a fresh temporary folder (``/etc/jupyterhub`` -> ``DIR/etc/jupyterhub``,
``/srv/`` -> ``DIR/srv/``, ``/opt/jupyterhub/bin/`` -> this Python's ``bin/``). Only the hub's ports and
pid files are added to the page's configuration (free ports; the page's 8000 may be taken). Step 1
(installing packages) is assumed done: this Python has jupyterhub and the game, and
configurable-http-proxy is on PATH.

Then, in Chromium (Playwright): the teacher signs in with the teachers' password from the page, lands
on the start page, presses Host a table and creates a table; a participant signs in with any name and
the participants' password, types the table's code into the start page's box and joins; the
participant is refused the report page; the store and configuration files have the modes the page
promises. Prints what it did with timings; exit status 0 when every step passed.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import textwrap
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "jupyterhub.md"
BLOCK = re.compile(r"<!-- walkthrough: (file (?P<path>\S+)|(?P<kind>run|start)) -->[ \t]*\n(?P<fence>[ \t]*)```\w*\n"
                   r"(?P<body>.*?)\n(?P=fence)```", re.S)
CHROMIUM = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"]
TIMEOUT = 120_000


def blocks(text: str) -> list[tuple[str, str, str]]:
    """``(kind, path, body)`` for each marked block, in page order (kind: file, run or start)."""
    found = []
    for m in BLOCK.finditer(text):
        kind = "file" if m.group("path") else m.group("kind")
        found.append((kind, m.group("path") or "", textwrap.dedent(m.group("body"))))
    return found


def moved(text: str, work: Path) -> str:
    """The page's absolute paths, inside ``work``."""
    bin_dir = Path(sys.executable).parent
    text = text.replace("/opt/jupyterhub/bin/", f"{bin_dir}/")
    text = text.replace("/etc/jupyterhub", f"{work}/etc/jupyterhub")
    return re.sub(r"(?<!\w)/srv/", f"{work}/srv/", text)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def service_up(base: str) -> bool:
    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args, **kwargs):
            return None

    try:
        urllib.request.build_opener(NoRedirect).open(base + "/services/dichotomy/", timeout=3)
    except urllib.error.HTTPError as err:
        return err.code == 302 and "oauth2/authorize" in (err.headers.get("Location") or "")
    except OSError:
        return False
    return False


def say(started: float, text: str) -> None:
    print(f"[{time.monotonic() - started:6.1f} s] {text}", flush=True)


def sign_in(browser, base: str, user: str, password: str):
    """A new device signing in at the hub's address; lands on the start page. Returns (context, page)."""
    ctx = browser.new_context(viewport={"width": 1000, "height": 800})
    ctx.set_default_timeout(TIMEOUT)
    page = ctx.new_page()
    page.goto(base + "/")
    page.locator("input[name=username]").fill(user)
    page.locator("input[name=password]").fill(password)
    page.locator("input[name=password]").press("Enter")
    page.wait_for_url(re.compile(r"/services/dichotomy/voila/render/home\.ipynb$"), timeout=TIMEOUT)
    return ctx, page


def ready(page) -> None:
    page.locator("html[data-dichotomy-ready]").wait_for(state="attached", timeout=TIMEOUT)


def click_until(page, button: str, done: str) -> None:
    for _ in range(8):
        page.locator(button).first.click()
        try:
            page.locator(done).first.wait_for(state="visible", timeout=5_000)
            return
        except Exception:  # noqa: BLE001 - playwright's TimeoutError: the click came before the kernel
            if page.locator(done).count():
                return
    raise AssertionError(f"{done} never appeared after clicking {button}")


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def play(base: str, config_text: str, work: Path, started: float) -> None:
    from playwright.sync_api import sync_playwright

    teacher_pw = re.search(r'admin_password = "([^"]+)"', config_text).group(1)
    user_pw = re.search(r'user_password = "([^"]+)"', config_text).group(1)
    teacher_name = re.search(r'admin_users = \{"([^"]+)"', config_text).group(1)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=shutil.which("chromium") or None, args=CHROMIUM)
        try:
            ctx, home = sign_in(browser, base, teacher_name, teacher_pw)
            home.locator(".dichotomy-home-host-table").wait_for(timeout=TIMEOUT)
            say(started, f"{teacher_name} signed in and is on the start page (Host a table, Run a class)")
            home.locator(".dichotomy-home-host-table").click()
            home.locator("button.dichotomy-create").wait_for(timeout=TIMEOUT)
            ready(home)
            click_until(home, "button.dichotomy-create", ".dichotomy-table-code")
            code = home.locator(".dichotomy-table-code").inner_text().strip()
            say(started, f"{teacher_name} pressed Host a table and created table {code}")
            sctx, shome = sign_in(browser, base, "ana", user_pw)
            shome.locator(".dichotomy-home-code input").wait_for(timeout=TIMEOUT)
            ready(shome)
            assert shome.locator(".dichotomy-home-host-table").count() == 0, "a participant was offered hosting"
            shome.locator(".dichotomy-home-code input").fill(code)
            shome.locator(".dichotomy-home-code input").press("Enter")
            shome.locator("button.dichotomy-join").wait_for(timeout=TIMEOUT)
            ready(shome)
            click_until(shome, "button.dichotomy-join", ".dw-root[data-you='ana']")
            home.locator(".dw-kind-table [data-testid='player-ana']").wait_for(timeout=TIMEOUT)
            say(started, f"ana signed in with the participants' password, typed {code} on her start page and joined")
            answer = shome.goto(base + "/services/dichotomy/voila/render/report.ipynb?class=X")
            assert answer is not None and answer.status == 403, "a participant opened a report page"
            say(started, "ana is refused the report page (403, 'This page is for teachers')")
            ctx.close()
            sctx.close()
        finally:
            browser.close()
    store = work / "srv" / "dichotomy" / "tables.sqlite3"
    config = work / "etc" / "jupyterhub" / "dichotomy_config.py"
    assert mode(store.parent) == 0o700, oct(mode(store.parent))
    assert mode(store) == 0o600 and mode(config) == 0o600, (oct(mode(store)), oct(mode(config)))
    say(started, f"modes: {store.parent} 700, store 600, {config.name} 600")


def stop(proc: subprocess.Popen, work: Path) -> None:
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=15)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    marker = f"DICHOTOMY_STORE={work}/srv/"
    for entry in Path("/proc").iterdir():  # the service and its kernels, if the hub left them
        if entry.name.isdigit():
            try:
                if marker in (entry / "environ").read_bytes().decode(errors="replace"):
                    os.kill(int(entry.name), signal.SIGKILL)
            except OSError:
                continue
    try:
        os.kill(int((work / "proxy.pid").read_text()), signal.SIGTERM)
    except (OSError, ValueError):
        pass


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", action="store_true", help="keep the folder (its path is printed)")
    args = parser.parse_args(argv)
    started = time.monotonic()
    work = Path(tempfile.mkdtemp(prefix="hub-walkthrough-"))
    assert not any(work.iterdir())
    say(started, f"empty folder {work}")
    for folder in (work / "etc" / "jupyterhub", work / "srv" / "jupyterhub"):  # step 1's `install -d -m 700`
        folder.mkdir(parents=True, mode=0o700)
    steps = blocks(DOC.read_text(encoding="utf-8"))
    kinds = [k for k, _p, _b in steps]
    assert kinds.count("file") == 1 and "run" in kinds and kinds[-1] == "start", kinds
    port = free_port()
    proc = None
    config_text = ""
    try:
        for kind, path, body in steps:
            if kind == "file":
                config_text = body
                target = Path(moved(path, work))
                extra = (f'\n# added by tools/hub_walkthrough.py: free ports, pid files in {work}\n'
                         f'c.JupyterHub.bind_url = "http://127.0.0.1:{port}"\n'
                         f'c.JupyterHub.hub_port = {free_port()}\n'
                         f'c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{free_port()}"\n'
                         f'c.ConfigurableHTTPProxy.pid_file = "{work}/proxy.pid"\n'
                         f'c.JupyterHub.pid_file = "{work}/hub.pid"\n')
                target.write_text(moved(body, work) + extra)
                say(started, f"wrote {target}")
            elif kind == "run":
                command = moved(body, work)
                subprocess.run(["bash", "-euc", command], check=True)
                say(started, f"ran: {' '.join(command.split())}")
            else:
                command = moved(body, work)
                log = (work / "jupyterhub.log").open("w")
                proc = subprocess.Popen(["bash", "-euc", command], stdout=log, stderr=subprocess.STDOUT,
                                        start_new_session=True)
                base = f"http://127.0.0.1:{port}"
                deadline = time.monotonic() + 180
                while not service_up(base):
                    if proc.poll() is not None or time.monotonic() > deadline:
                        print((work / "jupyterhub.log").read_text()[-4000:])
                        raise SystemExit("the hub or the Dichotomy service did not come up")
                    time.sleep(0.5)
                say(started, f"hub up at {base}, the service answers at /services/dichotomy/")
        play(f"http://127.0.0.1:{port}", config_text, work, started)
    finally:
        if proc is not None:
            stop(proc, work)
        if args.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    say(started, "walkthrough OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
