"""Page kernels die with voila, told by the OS (a pidfd), without ipykernel's once-a-second parent poll
(server/kernel_launcher.py, server/kernel_specs.py)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from jupyter_client import BlockingKernelClient

from support import pid_alive  # tests/support.py

from dichotomy_widget.server.kernel_specs import LAUNCHER, QuietKernelSpecManager, quiet_argv
from dichotomy_widget.server.voila_launch import voila_command

REPO = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="pidfd is Linux's")

# like voila: the kernel is started from a thread that ends at once (jupyter_server does that), and
# the kernel must live on until the whole process ends
PARENT = textwrap.dedent('''
    import os, subprocess, sys, threading, time
    env = dict(os.environ, JPY_PARENT_PID=str(os.getpid()))  # as jupyter_client sets it
    started = []
    launcher = threading.Thread(target=lambda: started.append(subprocess.Popen(
        [sys.executable, "-m", sys.argv[1], "-f", sys.argv[2]], env=env, start_new_session=True)))
    launcher.start()
    launcher.join()
    print(started[0].pid, flush=True)
    time.sleep(600)
''')


def test_the_usual_ipykernel_spec_starts_through_the_launcher() -> None:
    assert quiet_argv(["python", "-m", "ipykernel_launcher", "-f", "{connection_file}"]) == \
        ["python", "-m", LAUNCHER, "-f", "{connection_file}"]
    other = ["/opt/r/bin/R", "--slave", "-e", "IRkernel::main()", "--args", "{connection_file}"]
    assert quiet_argv(other) == other
    assert QuietKernelSpecManager().get_kernel_spec("python3").argv[1:3] == ["-m", LAUNCHER]


def test_serve_runs_voila_with_the_quiet_kernel_specs(tmp_path: Path) -> None:
    command = voila_command(tmp_path, 8866, "127.0.0.1")
    assert "--VoilaConfiguration.kernel_spec_manager_class=" \
           "dichotomy_widget.server.kernel_specs.QuietKernelSpecManager" in command


@pytest.mark.parametrize("module", [LAUNCHER, "ipykernel_launcher"])
def test_a_kernel_dies_with_its_parent_and_only_ipykernels_own_polls(tmp_path: Path, module: str) -> None:
    connection = tmp_path / "kernel.json"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]))
    parent = subprocess.Popen([sys.executable, "-c", PARENT, module, str(connection)], stdout=subprocess.PIPE,
                              text=True, env=env, start_new_session=True)
    kernel_pid = int(parent.stdout.readline())
    client = None
    try:
        deadline = time.monotonic() + 60
        while not connection.exists() or connection.stat().st_size == 0:
            assert time.monotonic() < deadline, "the kernel never wrote its connection file"
            time.sleep(0.1)
        time.sleep(0.5)
        client = BlockingKernelClient(connection_file=str(connection))
        client.load_connection_file()
        client.start_channels()
        client.wait_for_ready(timeout=60)
        seen: list[str] = []
        client.execute_interactive(
            "import threading; print(sorted(type(t).__name__ for t in threading.enumerate()))", timeout=60,
            output_hook=lambda msg: seen.append(msg["content"].get("text", "")))
        threads = "".join(seen)
        assert "_MainThread" in threads  # the kernel answered with its threads
        assert ("ParentPollerUnix" in threads) == (module == "ipykernel_launcher")
        os.kill(parent.pid, signal.SIGKILL)  # voila killed
        parent.wait(10)
        deadline = time.monotonic() + 20
        while pid_alive(kernel_pid):
            assert time.monotonic() < deadline, "the kernel outlived its parent"
            time.sleep(0.1)
    finally:
        if client is not None:
            client.stop_channels()
        for pid in (parent.pid, kernel_pid):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

