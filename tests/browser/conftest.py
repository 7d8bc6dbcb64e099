"""Shared fixtures for browser tests: free ports, servers in their own process group, Chromium.

Reusable pieces:

- ``free_port()`` / the ``free_port`` fixture: an unused TCP port on 127.0.0.1.
- ``ServerProcess`` / ``start_server(cmd, port, ...)``: start any server command in a new session
  (process group), wait until it answers HTTP, and kill the whole group on ``stop()`` (the fixtures do
  this in their teardown, so kernels started by the server die too).
- ``voila_server``: voila serving ``tests/browser/notebooks/`` (``voila_server.url(name, **query)``).
- ``browser`` (per module) and ``page`` (per test, 1100x900): Debian's Chromium driven by Playwright.
  ``CHROMIUM`` (env var) overrides the executable; Playwright's own browsers are never downloaded.
- ``screenshots``: ``screenshots("name", page)`` saves ``artifacts/screenshots/name.png``.
"""

from __future__ import annotations

import importlib
import contextlib
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Callable, Iterator, Sequence

import pytest

from dichotomy_widget.server.voila_launch import page_extension_options

TESTS = str(Path(__file__).resolve().parents[1])
if TESTS not in sys.path:  # this file is also loaded by path (browser_support.conftest_helpers)
    sys.path.insert(0, TESTS)
from dichotomy_widget.logs import KERNEL_LOG_ENV  # noqa: E402
from support import free_port, server_env, tree_pids  # noqa: E402  (tests/support.py: shared with the non-browser tests)

REPO = Path(__file__).resolve().parents[2]
NOTEBOOKS = Path(__file__).resolve().parent / "notebooks"
ARTIFACTS = REPO / "artifacts"
SCREENSHOTS = ARTIFACTS / "screenshots"
#: How long an ``expect(...)`` assertion without its own timeout waits for its condition (Playwright's
#: default is 5 s: too short for a page update on a loaded two-core machine running two suites).
EXPECT_TIMEOUT = 45_000
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
    "--disable-background-networking", "--no-first-run",
]


def chromium_path() -> str | None:
    """Debian's Chromium (or ``$CHROMIUM``), never a Playwright download."""
    for candidate in (os.environ.get("CHROMIUM"), "/usr/bin/chromium", shutil.which("chromium"),
                      shutil.which("chromium-browser")):
        if candidate and Path(candidate).exists():
            return candidate
    return None


def _tail(path: Path, size: int) -> str:
    """The last ``size`` characters of the text file ``path`` ("" if it cannot be read)."""
    try:
        return path.read_text(errors="replace")[-size:]
    except OSError:
        return ""


class ServerProcess:
    """A server started in its own process group; ``stop()`` kills the whole group."""

    def __init__(self, cmd: Sequence[str], port: int, cwd: Path | str | None = None,
                 env: dict[str, str] | None = None, log_name: str = "server") -> None:
        self.cmd = list(cmd)
        self.port = port
        self.base = f"http://127.0.0.1:{port}"
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        self.log_path = ARTIFACTS / f"{log_name}-{port}.log"
        self._log = open(self.log_path, "wb")  # noqa: SIM115 - closed in stop()
        # every INFO line of its kernels (logs.KERNEL_LOG_ENV), for a failure on a loaded machine
        self.kernel_log_path = ARTIFACTS / f"{log_name}-{port}-kernels.log"
        self.kernel_log_path.unlink(missing_ok=True)
        env = {KERNEL_LOG_ENV: str(self.kernel_log_path), **(env or server_env())}
        self.proc = subprocess.Popen(self.cmd, cwd=str(cwd or REPO), env=env,
                                     stdout=self._log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                     start_new_session=True)

    def log(self) -> str:
        return _tail(self.log_path, 4000)

    def kernel_log(self, size: int = 6000) -> str:
        """The end of the kernels' log (every INFO line, with process and thread)."""
        return _tail(self.kernel_log_path, size)

    def stacks(self) -> str:
        """Where the server and each of its kernels wait now (``py-spy dump`` of every process below the
        server), saved next to its log: what a stuck kernel was doing."""
        dumps = []
        server = self.proc.pid
        for pid in [server, *sorted(tree_pids(server) - {server})]:
            try:
                out = subprocess.run(["py-spy", "dump", "--pid", str(pid)], capture_output=True, text=True,
                                     timeout=60)
                dumps.append(out.stdout or out.stderr)
            except (OSError, subprocess.TimeoutExpired) as exc:
                dumps.append(f"py-spy dump --pid {pid}: {exc!r}")
        text = "\n".join(dumps)
        (self.log_path.with_suffix(".stacks.txt")).write_text(text)
        return text

    def wait_ready(self, path: str = "/", timeout: float = 60.0) -> None:
        """Wait until ``GET path`` answers (any status below 500)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited with {self.proc.returncode}:\n{self.log()}")
            try:
                with urllib.request.urlopen(self.base + path, timeout=2) as resp:
                    if resp.status < 500:
                        return
            except urllib.error.HTTPError as err:
                if err.code < 500:
                    return
            except (urllib.error.URLError, ConnectionError, OSError):
                pass
            time.sleep(0.25)
        self.stop()
        raise RuntimeError(f"server did not answer within {timeout} s:\n{self.log()}")

    def stop(self) -> None:
        """SIGTERM the process group, then SIGKILL whatever is left."""
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=8)
            except subprocess.TimeoutExpired:
                pass
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)  # kernels the server started, too
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=5)
        self._log.close()


def start_server(cmd: Sequence[str], port: int, ready_path: str = "/", timeout: float = 60.0,
                 **kwargs) -> ServerProcess:
    """Start ``cmd`` (which listens on ``port``) and wait until it answers."""
    server = ServerProcess(cmd, port, **kwargs)
    server.wait_ready(ready_path, timeout)
    return server


def voila_command(target: Path | str, port: int, *extra: str) -> list[str]:
    """``voila`` on ``target`` (a notebook or a folder), bound to 127.0.0.1:port, no browser."""
    exe = shutil.which("voila")
    base = [exe] if exe else [sys.executable, "-m", "voila"]
    return base + ["--no-browser", f"--port={port}", "--Voila.ip=127.0.0.1",
                   "--VoilaConfiguration.allow_theme_override=YES", *page_extension_options(), *extra,
                   str(target)]


class VoilaServer:
    """A running voila serving a folder of notebooks."""

    def __init__(self, server: ServerProcess) -> None:
        self.server = server
        self.base = server.base

    def url(self, notebook: str, **query: str) -> str:
        q = "&".join(f"{k}={v}" for k, v in query.items())
        return f"{self.base}/voila/render/{notebook}" + (f"?{q}" if q else "")


@pytest.fixture(name="free_port")
def free_port_fixture() -> int:
    return free_port()


@pytest.fixture(scope="session")
def voila_server() -> Iterator[VoilaServer]:
    """voila serving ``tests/browser/notebooks`` for the whole session (one process group)."""
    if not (shutil.which("voila") or _has_module("voila")):
        pytest.fail("voila is not installed (the [test] extra has it)")
    port = free_port()
    server = start_server(voila_command(NOTEBOOKS, port), port, ready_path="/voila/tree",
                          cwd=NOTEBOOKS, log_name="voila")
    try:
        yield VoilaServer(server)
    finally:
        server.stop()


def _has_module(name: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(name) is not None


@pytest.fixture(scope="module")
def browser():
    """Debian's Chromium through Playwright's sync API (fails when no Chromium exists).

    Module-scoped on purpose: Playwright's sync API keeps an asyncio loop running in the main thread
    while it is open, which would break later (non-browser) tests that call ``asyncio.run``.
    """
    exe = chromium_path()
    if exe is None:
        pytest.fail("no Chromium found (install Debian's chromium; CI does)")
    sync_api = importlib.import_module("playwright.sync_api")
    sync_api.expect.set_options(timeout=EXPECT_TIMEOUT)
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=exe, args=CHROMIUM_ARGS, headless=True)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture()
def page(browser):
    """A fresh page (own context) 1100x900.

    Console errors and page errors are kept in ``page.console_errors``, failed request URLs in
    ``page.failed_requests`` (voila's page asks for a few external resources that fail offline).
    """
    context = browser.new_context(viewport={"width": 1100, "height": 900})
    pg = context.new_page()
    pg.console_errors = []  # type: ignore[attr-defined]
    pg.on("console", lambda msg: pg.console_errors.append(msg.text) if msg.type == "error" else None)
    pg.on("pageerror", lambda exc: pg.console_errors.append(str(exc)))
    pg.failed_requests = []  # type: ignore[attr-defined]
    pg.on("requestfailed", lambda req: pg.failed_requests.append(req.url))
    pg.set_default_timeout(60_000)
    try:
        yield pg
    finally:
        context.close()


@pytest.fixture(scope="session")
def screenshots() -> Callable[..., Path]:
    """``screenshots(name, page_or_locator, **kwargs)`` saves ``artifacts/screenshots/<name>.png``."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)

    def shoot(name: str, target, **kwargs) -> Path:
        path = SCREENSHOTS / f"{name}.png"
        target.screenshot(path=str(path), **kwargs)
        return path

    return shoot
