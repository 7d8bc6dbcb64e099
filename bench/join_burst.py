"""A class opens its seat links at the same moment: page times, memory and stalls, beside bare voila.

Servers measured in one invocation, each fresh, in this order (``--configs`` picks some):

* ``bare``       voila on a notebook with one ``ipywidgets.Text`` (the floor of any voila page);
* ``bare-pool``  the same with voila's pre-heated pool of N kernels;
* ``seat``       ``dichotomy serve`` (``--expect 0``): seat pages of N students who have joined already;
* ``seat-pool``  ``dichotomy serve --expect N`` (the pool size docs/classroom.md tells a teacher to use).

Per server and burst (``--bursts``): N plain HTTP requests at once (``--http-students``, up to 60; the time
until the whole page HTML has arrived), then N pages at once: ``--chromium`` of them (default 6) in
Debian's Chromium (several pages per context; the time until the page is usable: the seat widget or name
box shown and its kernel answering, or the bare Text box rendered), the others as wire clients
(tests/browser/wire_student.py: the page over HTTP, the kernel's websocket, every widget's state at once
as ipywidgets 8's front end asks for it: the same work for the server). In a classroom each browser runs
on its student's device; here every Chromium page compiles voila's front end (about 5 MB of JavaScript)
on the server's own 2 cores, so each one added slows all the others: the printed CPU split (server vs
the bench's own clients) shows how much; ``--chromium 1`` is one student's device among 30. By default
each Chromium has opened one page of the server before the burst (``--visits``): the issue's case of
students who joined earlier (see "Browser state" below).
Before the bursts, one student alone opens a page (Chromium, the same cache state): the time for a single
student served from the pool. Printed: p50 / p95 / max,
how many pages came from the pool (``seat-pool``: matched by kernel id in the server log) and their own
figures, stalled pages (no HTML or not usable within ``--stall`` s), the server's memory (RSS of voila and
its kernels) before and after, the CPU seconds the server (voila and kernels) and the bench's own clients
(Chromium, wire clients) used during the page bursts, and every configuration's p95 as a ratio of
``bare`` (no pool).

Browser state (``--cache``): ``profile`` (the default) gives each Chromium its own profile folder, as a
student's own browser has: the HTTP cache and V8's cache of compiled scripts on disk. Chromium keeps
the compiled code of a script from its second load and reuses it from the third, so with the default
``--visits 1`` (the student opened the join page once before) the burst page compiles voila's front
end again and stores it. ``incognito`` is Playwright's default context (an in-memory HTTP cache, no
code cache: every page compiles everything); ``cold`` is a first visit.

    python bench/join_burst.py [--students 30] [--http-students 30] [--bursts 1] [--configs bare,seat-pool]
                               [--cache profile|incognito|cold] [--visits 1]

The machine's load average is printed: on a shared 2-core machine the figures move with it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(REPO / "tests" / "browser"))

from dichotomy_widget import Table  # noqa: E402
from dichotomy_widget.server.voila_launch import page_extension_options  # noqa: E402
from support import free_port, http_get, server_env, tree_pids, tree_usage  # noqa: E402  (tests/support.py)

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--disable-background-networking", "--no-first-run", "--disable-renderer-backgrounding",
                 "--disable-background-timer-throttling", "--disable-backgrounding-occluded-windows"]
BARE_NOTEBOOK = {
    "cells": [{"cell_type": "code", "execution_count": None, "id": "bare", "metadata": {}, "outputs": [],
               "source": ["import ipywidgets as W\n", "W.Text(description='Name')"]}],
    "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}},
    "nbformat": 4, "nbformat_minor": 5,
}
# Usable: a Dichotomy page's kernel answered (html[data-dichotomy-ready]) and its seat widget or name box
# shows; the bare page's Text box is rendered (its state came from the kernel).
USABLE_JS = """
(() => {
  const usable = () => {
    const root = document.documentElement;
    if (document.querySelector('.widget-text input') && !document.querySelector('.dichotomy-seat-page'))
      return true;
    return root.dataset.dichotomyReady === '1' &&
      !!document.querySelector('.dw-root, .dichotomy-name input');
  };
  const tick = () => {
    if (window.__usableAt) return;
    if (usable()) { window.__usableAt = Date.now(); return; }
    setTimeout(tick, 25);
  };
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', tick); else tick();
  tick();
})();
"""
SERVED = re.compile(r"pre-started kernel (\S+) serves")


def cpu_seconds(pid: int, reaped: bool = False) -> float:
    """CPU seconds of ``pid``'s process tree; with ``reaped``, also of the children it has already
    reaped (Chromium's closed renderers, culled kernels)."""
    columns = (11, 12, 13, 14) if reaped else (11, 12)  # utime, stime, cutime, cstime after the name
    total = 0.0
    for p in tree_pids(pid):
        try:
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
            total += sum(int(fields[i]) for i in columns) / os.sysconf("SC_CLK_TCK")
        except (OSError, IndexError, ValueError):
            continue
    return total


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def stats(values: list[float]) -> str:
    if not values:
        return "n/a"
    return f"p50 {statistics.median(values):5.2f} s  p95 {pct(values, 0.95):5.2f} s  max {max(values):5.2f} s"


@dataclass
class Result:
    name: str
    http: list[float] = field(default_factory=list)
    browser: list[float] = field(default_factory=list)
    browser_pooled: list[float] = field(default_factory=list)
    wire: list[float] = field(default_factory=list)
    wire_pooled: list[float] = field(default_factory=list)
    html_in_browser: list[float] = field(default_factory=list)
    alone: list[float] = field(default_factory=list)
    server_cpu: float = 0.0
    client_cpu: float = 0.0
    stalled_http: int = 0
    stalled_browser: int = 0
    banners: int = 0
    pages: int = 0
    rss_before: list[int] = field(default_factory=list)
    rss_after: list[int] = field(default_factory=list)
    start_s: float = 0.0
    idle_kernels: int = 0


class Server:
    """A server command in its own process group, its output in a log file."""

    def __init__(self, cmd: list[str], port: int, work: Path, env: dict[str, str]) -> None:
        self.port, self.base = port, f"http://127.0.0.1:{port}"
        self.log_path = work / f"server-{port}.log"
        self._log = open(self.log_path, "wb")  # noqa: SIM115
        self.proc = subprocess.Popen(cmd, cwd=str(work), env=env, stdout=self._log, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL, start_new_session=True)

    def wait_http(self, timeout: float = 180.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise SystemExit(f"server exited:\n{self.log()[-3000:]}")
            try:
                status, _ = http_get(self.base + "/voila/tree", timeout=5)
                if status < 500:
                    return
            except OSError:
                pass
            time.sleep(0.3)
        raise SystemExit(f"server did not answer:\n{self.log()[-3000:]}")

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def pool_full(self, config: str, size: int) -> bool:
        """Whether the pool has been (re)filled since a page last took a kernel from it."""
        text = self.log()
        if config == "seat-pool":
            last = max((m.end() for m in SERVED.finditer(text)), default=0)
            spares = [int(n) for n in re.findall(r"started: (\d+) spare kernels", text[last:])]
            return bool(spares) and spares[-1] >= size
        if config == "bare-pool":
            last = max((m.end() for m in re.finditer(r"Using pre-heated kernel", text)), default=0)
            return "is filled with" in text[last:]
        return True

    #: Seconds settle() waits at most (``--smoke``: a short wait; its figures are not read).
    settle_timeout = 900.0

    def settle(self, kernels: int, config: str = "", size: int = 0) -> int:
        """Wait until the pool is full, at most ``kernels`` kernels run (a burst's pages are gone) and
        the server's tree is nearly idle; returns the kernels running then."""
        deadline = time.monotonic() + self.settle_timeout
        while time.monotonic() < deadline:
            count, _ = tree_usage(self.proc.pid)
            if count <= max(kernels, 0) and self.pool_full(config, size):
                before = cpu_seconds(self.proc.pid)
                time.sleep(2.0)
                if (cpu_seconds(self.proc.pid) - before) / 2.0 < 0.15:
                    return count
            else:
                time.sleep(1.0)
        return tree_usage(self.proc.pid)[0]

    def stop(self) -> None:
        import signal

        for sig, wait in ((signal.SIGTERM, 10), (signal.SIGKILL, 5)):
            try:
                os.killpg(self.proc.pid, sig)
            except (ProcessLookupError, PermissionError):
                break
            try:
                self.proc.wait(wait)
                break
            except subprocess.TimeoutExpired:
                continue
        self._log.close()


def start(config: str, work: Path, store: Path, pool: int, connect_timeout: float) -> Server:
    port = free_port()
    env = server_env()
    if config.startswith("bare"):
        folder = work / "bare"
        folder.mkdir(exist_ok=True)
        (folder / "bare.ipynb").write_text(json.dumps(BARE_NOTEBOOK))
        cmd = [sys.executable, "-m", "voila", str(folder), "--no-browser", f"--port={port}", "--Voila.ip=127.0.0.1",
               "--MappingKernelManager.cull_idle_timeout=20", "--MappingKernelManager.cull_interval=5",
               "--MappingKernelManager.cull_connected=False", *page_extension_options()]
        if config == "bare-pool":
            cmd += ["--VoilaConfiguration.preheat_kernel=True", f"--VoilaConfiguration.default_pool_size={pool}"]
    else:
        cmd = [sys.executable, "-m", "dichotomy_widget.server.serve", "serve", "--store", str(store), "--port", str(port),
               "--ip", "127.0.0.1", "--connect-timeout", str(connect_timeout), "--max-kernels", "0",
               "--cull-idle-timeout", "20",
               "--expect", str(pool if config == "seat-pool" else 0)]
    server = Server(cmd, port, work, env)
    server.wait_http()
    return server


def seat_links(store: Path, students: int) -> list[str]:
    """``students`` seats already joined, 6 per table (a table takes 3 to 7)."""
    links = []
    while len(links) < students:
        table = Table.create(store=str(store), rounds=2)
        for i in range(min(6, students - len(links))):
            ticket = table.join(f"Student{len(links) + 1}")
            links.append(f"seat.ipynb?table={table.code}&seat={ticket.token}")
    return links


def http_burst(urls: list[str], stall: float) -> tuple[list[float], int]:
    """All URLs at once over plain HTTP: seconds until each whole page has arrived, and stalls."""
    t0 = time.monotonic()

    def one(url: str) -> float | None:
        try:
            status, body = http_get(url, timeout=stall)
        except OSError:
            return None
        return time.monotonic() - t0 if status == 200 and "</html>" in body else None

    pool = ThreadPoolExecutor(len(urls))
    futures = [pool.submit(one, url) for url in urls]
    done: list[float | None] = []
    for future in futures:  # an overall bound: voila's heartbeats keep a stalled response's socket busy
        try:
            done.append(future.result(timeout=max(0.0, t0 + stall - time.monotonic())))
        except Exception:  # noqa: BLE001 - still waiting at the bound: stalled
            done.append(None)
    pool.shutdown(wait=False, cancel_futures=True)
    return [d for d in done if d is not None], sum(1 for d in done if d is None)


def wire_open(url: str, stall: float, t0: float) -> tuple[float | None, str, float | None]:
    """One student without a browser (tests/browser/wire_student.py): the page over HTTP, then its
    kernel's websocket; (seconds until its widget state arrived, kernel id, seconds until the HTML)."""
    from wire_student import WireStudent

    try:
        student = WireStudent(url, "127.0.0.1", timeout=stall)
    except Exception:  # noqa: BLE001 - a refused or failed page counts as stalled
        return None, "", None
    html_at = time.monotonic() - t0

    def usable(states: dict) -> bool:
        return bool(student.seat_comm) or any(
            st.get("_model_name") == "TextModel" or "dichotomy-name" in " ".join(st.get("_dom_classes", ()))
            for st in states.values())

    try:
        return (time.monotonic() - t0 if student.wait_for(usable, stall) else None), student.kernel_id, html_at
    finally:
        student.close()


def cpu_split(server_pid: int | None) -> tuple[float, float]:
    """(server tree, everything else this bench runs) in CPU seconds; the server is this process's
    child, so its share is taken out of the bench's own tree."""
    server = cpu_seconds(server_pid, reaped=True) if server_pid else 0.0
    return server, cpu_seconds(os.getpid(), reaped=True) - server


async def warm_contexts(contexts: list, url: str, stall: float, visits: int = 1) -> None:
    """Each context opens ``url`` ``visits`` times and waits until it is usable (a student who joined
    earlier)."""
    for ctx in contexts:
        for _ in range(visits):
            page = await ctx.new_page()
            try:
                await page.goto(url, wait_until="commit", timeout=stall * 1000)
                deadline = time.monotonic() + stall
                while time.monotonic() < deadline and not await page.evaluate("window.__usableAt || 0"):
                    await asyncio.sleep(0.2)
            except Exception as err:  # noqa: BLE001 - a server that stopped answering: the burst counts it
                print(f"  warm-up page failed: {type(err).__name__}", flush=True)
            finally:
                await page.close()


async def open_devices(pw, count: int, cache: str, folder: str) -> tuple[list, list]:
    """``count`` browser contexts: with ``cache="profile"`` each is a Chromium with its own profile folder
    (a student's browser: disk cache and code cache), else contexts of one Chromium (Playwright's
    incognito-like default). Returns (contexts, browsers to close after them)."""
    options = {"executable_path": CHROMIUM, "args": CHROMIUM_ARGS, "headless": True}
    viewport = {"width": 800, "height": 700}
    if cache == "profile":
        return [await pw.chromium.launch_persistent_context(tempfile.mkdtemp(prefix="student-", dir=folder),
                                                            viewport=viewport, **options)
                for _ in range(count)], []
    browser = await pw.chromium.launch(**options)
    return [await browser.new_context(viewport=viewport) for _ in range(count)], [browser]


async def browser_burst(urls: list[str], chromium: int, stall: float, warm_url: str | None = None,
                        settle=None, server_pid: int | None = None, cache: str = "profile",
                        visits: int = 1) -> dict:
    """All pages at once: the first ``chromium`` in one Chromium (several pages per context), the rest
    as wire clients (they load the server like browsers but cost the 2 shared cores far less than 30
    Chromium tabs would). Usable time per page, HTML time, stalls, kernel ids. With ``warm_url``, each
    context opens it ``visits`` times first, then ``settle()`` waits until the server is idle again."""
    from playwright.async_api import async_playwright

    with tempfile.TemporaryDirectory(prefix="join-burst-profiles-") as folder:  # the browsers' profiles
        async with async_playwright() as pw:
            contexts, browsers = await open_devices(pw, max(1, (chromium + 5) // 6), cache, folder)
            for ctx in contexts:
                await ctx.add_init_script(USABLE_JS)
            if warm_url:
                await warm_contexts(contexts, warm_url, stall, visits)
            if settle is not None:
                await asyncio.get_running_loop().run_in_executor(None, settle)
            pages = [await contexts[i % len(contexts)].new_page() for i in range(chromium)]
            loop = asyncio.get_running_loop()
            executor = ThreadPoolExecutor(max(1, len(urls) - chromium))
            cpu0 = cpu_split(server_pid)
            t0, m0 = time.time() * 1000, time.monotonic()
            wires = [loop.run_in_executor(executor, wire_open, u, stall, m0) for u in urls[chromium:]]
            await asyncio.gather(*(p.goto(u, wait_until="commit", timeout=stall * 1000) for p, u in zip(pages, urls)),
                                 return_exceptions=True)
            deadline = time.monotonic() + stall
            usable: list[float | None] = [None] * len(pages)
            while time.monotonic() < deadline and any(u is None for u in usable):
                for i, page in enumerate(pages):
                    if usable[i] is None:
                        try:
                            at = await page.evaluate("window.__usableAt || 0")
                        except Exception:  # noqa: BLE001 - a page still navigating
                            at = 0
                        if at:
                            usable[i] = (at - t0) / 1000
                await asyncio.sleep(0.2)
            html_times, kernels, banners = [], [], 0
            for page in pages:
                try:
                    info = await page.evaluate(
                        "(() => { const n = performance.getEntriesByType('navigation')[0];"
                        " const c = document.getElementById('jupyter-config-data');"
                        " return [n ? performance.timeOrigin + n.responseEnd : 0,"
                        " c ? JSON.parse(c.textContent).kernelId : '', !!document.getElementById('dichotomy-stalled')]; })()")
                except Exception:  # noqa: BLE001
                    info = [0, "", False]
                if info[0]:
                    html_times.append((info[0] - t0) / 1000)
                kernels.append(info[1])
                banners += bool(info[2])
            wired = []
            for w in wires:
                try:
                    wired.append(await asyncio.wait_for(asyncio.shield(w), max(0.1, m0 + stall - time.monotonic())))
                except asyncio.TimeoutError:
                    wired.append((None, "", None))
            cpu1 = cpu_split(server_pid)
            executor.shutdown(wait=False, cancel_futures=True)
            for ctx in contexts:
                await ctx.close()
            for browser in browsers:
                await browser.close()
    return {"usable": usable, "html": html_times, "kernels": kernels, "banners": banners,
            "server_cpu": cpu1[0] - cpu0[0], "client_cpu": cpu1[1] - cpu0[1],
            "wire_usable": [w[0] for w in wired], "wire_kernels": [w[1] for w in wired],
            "wire_html": [w[2] for w in wired if w[2] is not None]}


def memory(server: Server) -> int:
    return tree_usage(server.proc.pid)[1]


def run_config(config: str, args: argparse.Namespace, work: Path) -> Result:
    store = work / f"{config}.sqlite3"
    result = Result(config)
    started = time.monotonic()
    pool = args.expect if args.expect is not None else args.students
    server = start(config, work, store, pool, args.connect_timeout)
    try:
        pooled = config.endswith("pool")
        baseline = pool + (1 if config == "seat-pool" else 0) if pooled else 0
        result.idle_kernels = server.settle(baseline, config, baseline)
        result.start_s = time.monotonic() - started
        render = f"{server.base}/voila/render/"
        if config.startswith("bare"):
            http_urls = [render + "bare.ipynb"] * args.http_students
            browser_urls = [render + "bare.ipynb"] * args.students
            warm_url = alone_url = render + "bare.ipynb"
        else:
            links = seat_links(store, max(args.students, args.http_students) + 2)
            http_urls = [render + link for link in links[:args.http_students]]
            browser_urls = [render + link for link in links[:args.students]]
            warm_url, alone_url = render + links[-2], render + links[-1]
        warm = warm_url if args.cache != "cold" else None
        mark = {"log": 0}

        def settled() -> None:  # after a warm-up page: the server idle and its pool full again
            server.settle(baseline, config, baseline)
            result.rss_before.append(memory(server))
            mark["log"] = len(server.log())

        if args.students:
            seen = asyncio.run(browser_burst([alone_url], 1, args.stall, warm, settled, server.proc.pid,
                                             args.cache, args.visits))
            result.rss_before.pop()
            result.alone += [u for u in seen["usable"] if u is not None]
            from_pool = bool(set(SERVED.findall(server.log()[mark["log"]:])) & set(seen["kernels"]))
            print(f"  [{config}] one student alone ({args.cache} cache): usable after "
                  f"{stats(result.alone)}{' (from the pool)' if from_pool else ''}", flush=True)
            server.settle(baseline, config, baseline)
        for burst in range(args.bursts):
            if args.http_students:
                result.rss_before.append(memory(server))
                times, stalled = http_burst(http_urls, args.stall)
                result.rss_after.append(memory(server))
                result.http += times
                result.stalled_http += stalled
                print(f"  [{config}] burst {burst + 1}: HTTP {len(times)}/{len(http_urls)} pages, {stats(times)}",
                      flush=True)
                server.settle(baseline, config, baseline)
            if args.students:
                seen = asyncio.run(browser_burst(browser_urls, args.chromium, args.stall, warm, settled,
                                                 server.proc.pid, args.cache, args.visits))
                result.rss_after.append(memory(server))
                served = set(SERVED.findall(server.log()[mark["log"]:]))
                usable = [u for u in seen["usable"] if u is not None]
                wire = [u for u in seen["wire_usable"] if u is not None]
                result.browser += usable
                result.wire += wire
                result.browser_pooled += [u for u, k in zip(seen["usable"], seen["kernels"])
                                          if u is not None and k in served]
                result.wire_pooled += [u for u, k in zip(seen["wire_usable"], seen["wire_kernels"])
                                       if u is not None and k in served]
                result.html_in_browser += seen["html"] + seen["wire_html"]
                result.stalled_browser += sum(1 for u in seen["usable"] + seen["wire_usable"] if u is None)
                result.banners += seen["banners"]
                result.pages += len(browser_urls)
                result.server_cpu += seen["server_cpu"]
                result.client_cpu += seen["client_cpu"]
                print(f"  [{config}] burst {burst + 1}: usable {len(usable) + len(wire)}/{len(browser_urls)}, "
                      f"Chromium {stats(usable)}, wire {stats(wire)}; from the pool: {len(served)}; CPU: server "
                      f"{seen['server_cpu']:.1f} s, bench clients {seen['client_cpu']:.1f} s", flush=True)
                server.settle(baseline, config, baseline)
    finally:
        server.stop()
    return result


def main() -> None:
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # stop the servers (the finally blocks) on kill
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--students", type=int, default=30, help="browser pages per burst (default 30)")
    parser.add_argument("--http-students", type=int, default=None, help="HTTP requests per burst (default "
                        "--students; up to 60)")
    parser.add_argument("--expect", type=int, default=None, help="pool size (default: --students)")
    parser.add_argument("--chromium", type=int, default=6, help="of the --students pages, how many are real "
                        "Chromium pages (the rest are wire clients; default 6)")
    parser.add_argument("--bursts", type=int, default=1)
    parser.add_argument("--stall", type=float, default=60.0, help="seconds after which a page counts as stalled")
    parser.add_argument("--connect-timeout", type=float, default=15.0)
    parser.add_argument("--configs", default="bare,bare-pool,seat,seat-pool")
    parser.add_argument("--visits", type=int, default=1, help="pages of the server each Chromium opened "
                        "before the burst (default 1: the join page)")
    parser.add_argument("--cache", choices=("profile", "incognito", "cold"), default="profile",
                        help="profile (default): each Chromium has its own profile folder (disk and code "
                        "cache) and opened --visits pages of the server before; incognito: the same visits in "
                        "Playwright's default context (no code cache); cold: a first visit")
    parser.add_argument("--keep", action="store_true", help="keep the work folder (server logs) and print it")
    parser.add_argument("--smoke", action="store_true", help="CI: 2 students (wire clients), the seat configuration only")
    args = parser.parse_args()
    if args.smoke:
        args.students, args.http_students, args.chromium, args.configs, args.stall = 2, 2, 0, "seat", 30.0
        args.connect_timeout = 5.0  # the HTTP-only pages' kernels go sooner: settling between steps waits for them
        # a smoke run reads no figures: between steps it waits 3 s at most for the server to settle (a
        # loaded machine may never look idle; 15 s waits made the smoke run take 100 s)
        Server.settle_timeout = 3.0
    if args.http_students is None:
        args.http_students = args.students
    args.http_students = min(args.http_students, 60)
    print(f"join_burst: {args.students} browser pages and {args.http_students} HTTP requests per burst, "
          f"{args.bursts} burst(s), pool {args.expect or args.students}, {args.cache} browser cache; load average {os.getloadavg()}, "
          f"{os.cpu_count()} CPUs", flush=True)
    results: dict[str, Result] = {}
    with tempfile.TemporaryDirectory(prefix="join-burst-") as tmp:
        work = Path(tempfile.mkdtemp(prefix="join-burst-")) if args.keep else Path(tmp)
        for config in args.configs.split(","):
            print(f"{config}: starting (work folder {work})", flush=True)
            results[config] = run_config(config.strip(), args, work)
    print(f"\nload average at the end {os.getloadavg()}")
    base = results.get("bare")
    for name, r in results.items():
        mb = lambda xs: f"{statistics.mean(xs) / 2**20:.0f} MB" if xs else "n/a"  # noqa: E731
        print(f"\n{name}: ready after {r.start_s:.0f} s with {r.idle_kernels} kernels; memory before "
              f"{mb(r.rss_before)}, after {mb(r.rss_after)}")
        print(f"  HTML (HTTP only, {args.http_students} at once):  {stats(r.http)}  stalled {r.stalled_http}")
        print(f"  HTML, page burst ({args.students}):        {stats(r.html_in_browser)}")
        print(f"  usable, all {args.students} pages:           {stats(r.browser + r.wire)}  stalled "
              f"{r.stalled_browser}/{r.pages} (retry banner shown on {r.banners})")
        print(f"  usable, one student alone:       {stats(r.alone)}")
        print(f"  usable, Chromium ({args.chromium} pages):     {stats(r.browser)}")
        print(f"  usable, wire clients:            {stats(r.wire)}")
        bursts = max(1, args.bursts)
        print(f"  CPU per page burst: server (voila and kernels) {r.server_cpu / bursts:.1f} s, bench clients "
              f"(Chromium, wire clients) {r.client_cpu / bursts:.1f} s, on {os.cpu_count()} cores")
        pooled = r.browser_pooled + r.wire_pooled
        if pooled:
            print(f"  usable, served from the pool ({len(pooled)}): {stats(pooled)}"
                  f"  (Chromium: {stats(r.browser_pooled)})")
        if base is not None and name != "bare":
            ratio = lambda a, b: f"{pct(a, .95) / pct(b, .95):.2f}x" if a and b else "n/a"  # noqa: E731
            print(f"  p95 / bare p95: HTML {ratio(r.http, base.http)}, usable {ratio(r.browser + r.wire, base.browser + base.wire)}"
                  f" (Chromium only {ratio(r.browser, base.browser)})")


if __name__ == "__main__":
    main()
