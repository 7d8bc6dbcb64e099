"""Several ``dichotomy serve`` processes on one PostgreSQL store behind HAProxy (and optionally
PgBouncer), as processes on this machine: shared by ``tests/browser/test_scale_out.py`` and
``bench/scale_out.py``.

Each process runs in its own process group and dies with its group. HAProxy (Debian's ``haproxy``)
keeps a page's HTTP and websocket traffic on one server with a cookie it inserts
(``DICHOTOMY_SERVER=a``), health-checks every server and sends new pages only to live ones;
``option redispatch`` moves a page whose server died to another. PgBouncer (Debian's ``pgbouncer``)
runs in transaction mode when asked.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from support import free_port, server_env  # tests/support.py (bench/scale_out.py puts tests/ on sys.path)

REPO = Path(__file__).resolve().parents[1]
COOKIE = "DICHOTOMY_SERVER"


def stop_group(proc: subprocess.Popen | None, grace: float = 10.0) -> None:
    """SIGTERM the process's group, then SIGKILL what is left."""
    if proc is None:
        return
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 10.0)):
        try:
            os.killpg(proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            proc.wait(wait)
            if sig == signal.SIGTERM:  # the leader is gone; its kernels may linger: kill the group
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            return
        except subprocess.TimeoutExpired:
            continue


def kill_group(proc: subprocess.Popen) -> None:
    """A server lost at once: SIGKILL its whole group (voila and every kernel), no goodbye."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait(30)


def wait_http(url: str, timeout: float, proc: subprocess.Popen | None = None) -> None:
    deadline = time.monotonic() + timeout
    last = ""
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"{url}: the process exited with {proc.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=5) as resp:
                if resp.status == 200:
                    return
        except OSError as exc:
            last = str(exc)
        time.sleep(0.3)
    raise TimeoutError(f"{url} did not answer in {timeout:.0f} s ({last})")


class Serve:
    """One ``dichotomy serve`` process (its own group), its log in ``log``."""

    def __init__(self, name: str, store: str, log_dir: Path, *, pool: int = 4, listen_url: str | None = None,
                 extra: list[str] | None = None) -> None:
        self.name, self.port = name, free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log = log_dir / f"serve-{name}.log"
        cmd = [sys.executable, "-m", "dichotomy_widget.server.serve", "serve", "--store", store, "--port", str(self.port),
               "--ip", "127.0.0.1", "--pg-pool", str(pool), *(extra or [])]
        if listen_url:
            cmd += ["--pg-listen-url", listen_url]
        with open(self.log, "ab") as out:
            self.proc = subprocess.Popen(cmd, env=server_env(), stdout=out, stderr=subprocess.STDOUT,
                                         start_new_session=True)

    def wait_ready(self, timeout: float = 120.0) -> None:
        wait_http(f"{self.base}/voila/tree", timeout, self.proc)

    def stop(self, grace: float = 3.0) -> None:
        stop_group(self.proc, grace=grace)


def haproxy_config(port: int, servers: list[tuple[str, int]], check_every_ms: int = 500,
                   stats_socket: Path | None = None) -> str:
    """HAProxy: cookie stickiness, health checks, redispatch from a dead server (docs/scale-out.md).

    ``timeout check``: a busy server (starting several kernels on a loaded machine) may take more than
    one check interval to answer; without it HAProxy gives a check only ``inter`` and marks a live server
    down. A dead server refuses the connection at once, so it is still noticed within two checks."""
    lines = [
        "global", "    maxconn 4096", *([f"    stats socket {stats_socket} level user"] if stats_socket else []),
        "defaults", "    mode http", "    timeout connect 5s", "    timeout client 1h", "    timeout server 1h",
        "    timeout tunnel 1h", "    timeout check 10s", "    option redispatch", "    retries 2", "    option forwardfor",
        "frontend dichotomy", f"    bind 127.0.0.1:{port}", "    default_backend pages",
        "backend pages", "    balance roundrobin",
        f"    cookie {COOKIE} insert indirect nocache httponly",
        "    option httpchk GET /voila/tree", "    http-check expect status 200",
    ]
    lines += [f"    server {name} 127.0.0.1:{p} cookie {name} check inter {check_every_ms} fall 2 rise 2"
              for name, p in servers]
    return "\n".join(lines) + "\n"


class HAProxy:
    def __init__(self, servers: list[tuple[str, int]], work: Path) -> None:
        exe = shutil.which("haproxy") or "/usr/sbin/haproxy"
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.config = work / "haproxy.cfg"
        self.socket = work / "haproxy.sock"
        self.config.write_text(haproxy_config(self.port, servers, stats_socket=self.socket))
        subprocess.run([exe, "-c", "-q", "-f", str(self.config)], check=True)
        self.log = work / "haproxy.log"
        with open(self.log, "ab") as out:
            self.proc = subprocess.Popen([exe, "-db", "-f", str(self.config)], stdout=out, stderr=subprocess.STDOUT,
                                         start_new_session=True)

    def status(self, server: str) -> str:
        """HAProxy's view of a server: ``UP``, ``DOWN``, ``UP 1/2`` ... (from its stats socket)."""
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(5)
            sock.connect(str(self.socket))
            sock.sendall(b"show stat\n")
            data = b""
            while chunk := sock.recv(65536):
                data += chunk
        for line in data.decode().splitlines():
            fields = line.split(",")
            if len(fields) > 17 and fields[0] == "pages" and fields[1] == server:
                return fields[17]
        return "?"

    def stop(self) -> None:
        stop_group(self.proc, grace=5)


class PgBouncer:
    """PgBouncer in transaction mode in front of ``host:port`` (auth by a plain userlist file)."""

    def __init__(self, host: str, port: int, user: str, password: str, dbname: str) -> None:
        import tempfile

        exe = shutil.which("pgbouncer") or "/usr/sbin/pgbouncer"
        self.port = free_port()
        self.dir = work = Path(tempfile.mkdtemp(prefix="dichotomy-pgbouncer-"))  # the postgres user can reach it
        (work / "userlist.txt").write_text(f'"{user}" "{password}"\n')
        (work / "pgbouncer.ini").write_text(
            "[databases]\n"
            f"{dbname} = host={host} port={port} dbname={dbname}\n"
            "[pgbouncer]\n"
            f"listen_addr = 127.0.0.1\nlisten_port = {self.port}\nunix_socket_dir =\n"
            f"auth_type = scram-sha-256\nauth_file = {work / 'userlist.txt'}\n"
            "pool_mode = transaction\nmax_client_conn = 1000\ndefault_pool_size = 10\n"
            f"logfile = {work / 'pgbouncer.log'}\npidfile = {work / 'pgbouncer.pid'}\n")
        self.dsn = f"postgresql://{user}:{password}@127.0.0.1:{self.port}/{dbname}"
        cmd = [exe, str(work / "pgbouncer.ini")]
        if os.geteuid() == 0:  # PgBouncer refuses to run as root
            shutil.chown(work, "postgres")
            for f in work.iterdir():
                shutil.chown(f, "postgres")
            cmd = ["runuser", "-u", "postgres", "--", *cmd]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT,
                                     start_new_session=True)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError(f"pgbouncer did not start: {(work / 'pgbouncer.log').read_text(errors='replace')[-800:]}")

    def stop(self) -> None:
        stop_group(self.proc, grace=5)
        shutil.rmtree(self.dir, ignore_errors=True)


def client_connections(admin_dsn: str, dbname: str) -> int:
    """Client connections PostgreSQL holds open to ``dbname`` right now."""
    import psycopg

    with psycopg.connect(admin_dsn, autocommit=True) as conn:
        return int(conn.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = %s AND "
                                "backend_type = 'client backend' AND pid <> pg_backend_pid()",
                                (dbname,)).fetchone()[0])
