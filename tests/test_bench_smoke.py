"""Every script in ``bench/`` runs in its ``--smoke`` mode and prints its figures, so a change that
breaks a benchmark fails here (the full runs stay manual; their figures are not checked).

The scripts are found by listing ``bench/*.py``: a new bench is run without being named here, and
must accept ``--smoke``. They run as subprocesses, two at a time, once per test session; the
benches that ran (and their seconds) are listed in pytest's terminal summary (``tests/conftest.py``).
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
BENCHES = sorted(p.name for p in (REPO / "bench").glob("*.py") if not p.name.startswith("_"))
#: Seconds one smoke run may take (at a load average of 30 on 2 cores they took 4-340 s).
TIMEOUT = 600


def _run(name: str) -> tuple[int, str, float]:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        p for p in (str(REPO), str(REPO / "tests"), os.environ.get("PYTHONPATH", "")) if p))
    start = time.monotonic()
    proc = subprocess.Popen([sys.executable, str(REPO / "bench" / name), "--smoke"], cwd=REPO, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        stdout, stderr = proc.communicate(timeout=TIMEOUT)
        code, out = proc.returncode, stdout + "\n--- stderr ---\n" + stderr[-4000:]
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # the bench and the servers it started
        stdout, _ = proc.communicate()
        code, out = -1, f"timed out after {TIMEOUT} s\n{stdout}"
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # anything the bench left behind in its group
        except ProcessLookupError:
            pass
    return code, out, time.monotonic() - start


@pytest.fixture(scope="module")
def smoke_runs(request: pytest.FixtureRequest) -> dict[str, tuple[int, str, float]]:
    """The ``--smoke`` run of every bench whose test was selected (``-k 'not latency'`` leaves one
    out): exit code, output, seconds (two at a time)."""
    selected = sorted({item.callspec.params["name"] for item in request.session.items
                       if getattr(item, "module", None) is request.module and hasattr(item, "callspec")})
    with ThreadPoolExecutor(max_workers=2) as pool:
        return dict(zip(selected, pool.map(_run, selected)))


def test_every_bench_is_found() -> None:
    assert "engine.py" in BENCHES and "latency.py" in BENCHES, BENCHES


@pytest.mark.parametrize("name", BENCHES)
def test_bench_smoke_runs_and_prints_figures(name: str, smoke_runs: dict[str, tuple[int, str, float]],
                                            record_property) -> None:
    code, out, seconds = smoke_runs[name]
    record_property("bench", (f"bench/{name}", round(seconds, 1), code))  # for the terminal summary
    assert code == 0, f"bench/{name} --smoke exited with {code}:\n{out[-6000:]}"
    stdout = out.split("\n--- stderr ---\n")[0]
    assert re.search(r"\d", stdout), f"bench/{name} --smoke printed no figures:\n{out[-3000:]}"
    assert "Traceback" not in stdout, out[-6000:]
