"""Small helpers shared by the tests and the bench scripts (which put tests/ on sys.path)."""

from __future__ import annotations

import os
import socket
from pathlib import Path

from dichotomy_widget.errors import VersionConflict
from dichotomy_widget.stores import TableStore


REPO = Path(__file__).resolve().parents[1]


def free_port() -> int:
    """An unused TCP port on 127.0.0.1."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def server_env(**extra: str) -> dict[str, str]:
    """The environment for a server under test: the checkout importable, no browser, quiet."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH", "")) if p)
    env.setdefault("JUPYTER_PLATFORM_DIRS", "1")
    env.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")
    env["BROWSER"] = "true"
    env.update(extra)
    return env


def append_with_retry(store: TableStore, table_id: str, events: list[tuple[str, dict]]) -> int:
    """The table layer's loop: read the last seq, append, and on conflict try again. Returns conflicts."""
    conflicts = 0
    while True:
        try:
            store.append(table_id, store.last_seq(table_id), events)
            return conflicts
        except VersionConflict:
            conflicts += 1


def child_pids(pid: int) -> set[int]:
    """The direct children of process ``pid`` (read from /proc)."""
    out = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                out.add(int(entry.name))
    return out


def tree_pids(pid: int) -> set[int]:
    """``pid`` and all its descendants (read from /proc)."""
    out, todo = set(), [pid]
    while todo:
        current = todo.pop()
        if current not in out:
            out.add(current)
            todo += child_pids(current)
    return out


def _rss_bytes(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


def pid_alive(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie is as good as gone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _is_kernel(pid: int) -> bool:
    try:
        command = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False
    # ipykernel_launcher, or dichotomy serve's dichotomy_widget.server.kernel_launcher (no parent poll)
    return b"ipykernel" in command or b"kernel_launcher" in command


def tree_usage(pid: int) -> tuple[int, int]:
    """(kernel processes, summed RSS in bytes) of ``pid``'s process tree (a server and its kernels)."""
    pids = tree_pids(pid)
    return sum(1 for p in pids if _is_kernel(p)), sum(_rss_bytes(p) for p in pids)


def http_get(url: str, source: str | None = None, timeout: float = 120.0) -> tuple[int, str]:
    """GET ``url`` from local address ``source`` (e.g. ``127.0.0.66``: Linux routes all of 127/8 to this
    machine, so each such address is one more 'device'); returns (status, body)."""
    import http.client
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout,
                                      source_address=(source, 0) if source else None)
    try:
        conn.request("GET", parts.path + (f"?{parts.query}" if parts.query else ""))
        resp = conn.getresponse()
        return resp.status, resp.read().decode("utf-8", "replace")
    finally:
        conn.close()
