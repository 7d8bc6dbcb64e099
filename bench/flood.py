"""One device floods ``dichotomy serve`` with page loads while other students load their seat pages.

Three runs in one invocation, each on a fresh server and store:

* ``no flood``:  the students' page loads alone (the baseline);
* ``bounded``:   N page loads from one client (127.0.0.66), C at a time, with the default bounds
                 (4 pages per device, kernel cap from the available memory, 45 s to connect);
* ``unbounded``: the same flood with every bound off (``--max-pages-per-device 0 --max-kernels 0
                 --connect-timeout 0``): what the server did before the bounds.

The flood's loads never open their websocket (a reload loop or a script). Each student (127.0.0.11,
.12, ...) loads its own seat link ``--loads`` times while the flood runs. Printed per run: the flood's
answers, peak kernel processes and peak memory (summed RSS of the server's process tree), and the
students' page-load p50/p95 (full HTTP render of the seat page).

    python bench/flood.py [--n 80] [--concurrency 8] [--students 4] [--loads 3] [--runs none,bounded,unbounded]
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))

from dichotomy_widget import Table  # noqa: E402
from support import http_get, tree_usage  # noqa: E402  (tests/support.py)

ENV = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH", "")) if p),
           JUPYTER_PLATFORM_DIRS="1", BROWSER="true")
UNBOUNDED = ["--max-pages-per-device", "0", "--max-kernels", "0", "--connect-timeout", "0"]
FLOODER = "127.0.0.66"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_server(store: Path, extra: list[str]) -> tuple[subprocess.Popen, str]:
    port = free_port()
    cmd = [sys.executable, "-m", "dichotomy_widget.server.serve", "serve", "--store", str(store), "--port", str(port),
           "--ip", "127.0.0.1", *extra]
    proc = subprocess.Popen(cmd, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            if http_get(base + "/voila/tree", timeout=2)[0] < 500:
                return proc, base
        except OSError:
            time.sleep(0.3)
    stop_server(proc)
    raise RuntimeError("dichotomy serve did not start")


def stop_server(proc: subprocess.Popen) -> None:
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            return
        try:
            proc.wait(10)
            time.sleep(0.5)
        except subprocess.TimeoutExpired:
            continue
    try:
        os.killpg(proc.pid, signal.SIGKILL)  # kernels left in the group
    except (ProcessLookupError, PermissionError):
        pass


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def run(name: str, args: argparse.Namespace, workdir: Path) -> dict:
    store = workdir / f"{name}.sqlite3"
    table = Table.create(store=str(store), rounds=2)
    tickets = [table.join(f"S{i}") for i in range(args.students)]
    proc, base = start_server(store, UNBOUNDED if name == "unbounded" else [])
    peaks = {"kernels": 0, "rss": 0}
    sampling = True

    def sample() -> None:
        while sampling:
            kernels, rss = tree_usage(proc.pid)
            peaks["kernels"], peaks["rss"] = max(peaks["kernels"], kernels), max(peaks["rss"], rss)
            time.sleep(0.25)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    render = f"{base}/voila/render"
    urls = [f"{render}/seat.ipynb", f"{render}/host.ipynb", f"{render}/seat.ipynb?table={table.code}"]
    flood: list[int] = []
    times: list[float] = []
    failures: list[int] = []

    def student(i: int) -> None:
        link = f"{render}/seat.ipynb?table={table.code}&seat={tickets[i].token}"
        for _ in range(args.loads):
            t0 = time.perf_counter()
            try:
                status, _ = http_get(link, f"127.0.0.{11 + i}", timeout=600)
            except OSError:
                status = 0
            (times if status == 200 else failures).append(time.perf_counter() - t0 if status == 200 else status)
            time.sleep(0.5)

    def flood_one(i: int) -> None:
        try:
            flood.append(http_get(urls[i % len(urls)], FLOODER, timeout=600)[0])
        except OSError:
            flood.append(0)

    t0 = time.perf_counter()
    try:
        with ThreadPoolExecutor(args.concurrency) as flooders, ThreadPoolExecutor(args.students) as class_:
            if name != "no flood":
                for i in range(args.n):
                    flooders.submit(flood_one, i)
            for i in range(args.students):
                class_.submit(student, i)
        elapsed = time.perf_counter() - t0
        time.sleep(1.0)
    finally:
        sampling = False
        sampler.join()
        stop_server(proc)
    answers = {code: flood.count(code) for code in sorted(set(flood))}
    return {"run": name, "flood": answers, "kernels": peaks["kernels"], "rss_mb": peaks["rss"] / 2**20,
            "p50": statistics.median(times) if times else float("nan"), "p95": pct(times, 0.95),
            "loads": len(times), "failed": len(failures), "seconds": elapsed}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--n", type=int, default=80, help="page loads from the flooding client (default 80)")
    parser.add_argument("--concurrency", type=int, default=8, help="flood loads at a time (default 8)")
    parser.add_argument("--students", type=int, default=4, help="other students (default 4)")
    parser.add_argument("--loads", type=int, default=3, help="seat page loads per student (default 3)")
    parser.add_argument("--runs", default="no flood,bounded,unbounded",
                        help="comma-separated runs (default: all three)")
    parser.add_argument("--smoke", action="store_true", help="CI: 6 flood loads, 1 student, the bounded run only")
    args = parser.parse_args()
    if args.smoke:
        args.n, args.concurrency, args.students, args.loads, args.runs = 6, 2, 1, 1, "bounded"
    workdir = Path(tempfile.mkdtemp(prefix="dichotomy-flood-"))
    rows = []
    try:
        for name in [r.strip() for r in args.runs.split(",") if r.strip()]:
            print(f"running: {name} ...", flush=True)
            rows.append(run(name, args, workdir))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    print(f"\n{args.n} flood loads ({args.concurrency} at a time) from {FLOODER}; {args.students} students x "
          f"{args.loads} seat page loads; {os.cpu_count()} CPUs")
    print(f"{'run':<10} {'flood answers (HTTP: count)':<28} {'peak kernels':>12} {'peak MB':>8} "
          f"{'student p50 s':>13} {'p95 s':>6} {'failed':>6} {'wall s':>6}")
    for r in rows:
        answers = ", ".join(f"{k}: {v}" for k, v in r["flood"].items()) or "-"
        print(f"{r['run']:<10} {answers:<28} {r['kernels']:>12} {r['rss_mb']:>8.0f} {r['p50']:>13.2f} "
              f"{r['p95']:>6.2f} {r['failed']:>6} {r['seconds']:>6.0f}")


if __name__ == "__main__":
    main()
