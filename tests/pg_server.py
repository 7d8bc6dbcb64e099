"""A throwaway PostgreSQL server for tests and benchmarks (a real server, no mocks).

    with PostgresServer() as server:          # initdb + start: ~1-3 s
        dsn = server.create_database()        # a fresh, empty database, as a DSN with a password
        dsn = server.create_schema()          # or a fresh schema (cheaper): DSN with search_path
        ...

``initdb`` makes a fresh cluster in a temporary directory; ``postgres`` listens on 127.0.0.1 on a
free port (password authentication, scram-sha-256) with its Unix socket inside that directory, in
its own process group. :meth:`PostgresServer.stop` shuts it down (fast shutdown, then SIGKILL of the
whole group) and deletes the directory.

PostgreSQL refuses to run as root: as root, the cluster belongs to the ``postgres`` OS user (created
by Debian's ``postgresql`` package) and every server command runs through ``runuser -u postgres --``.
As any other user it runs as that user.

The binaries are looked up in ``$DICHOTOMY_PG_BIN``, then ``/usr/lib/postgresql/<newest>/bin``,
then ``$PATH``. If they are missing, :class:`PostgresUnavailable` says how to install them.
"""

from __future__ import annotations

import glob
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

from dichotomy_widget.config import PG_BIN_ENV

__all__ = ["PostgresServer", "PostgresUnavailable", "find_pg_bin"]

#: Settings for a fast, disposable test server (durability off: the data dies with the test run).
FAST_SETTINGS = {"fsync": "off", "synchronous_commit": "off", "full_page_writes": "off"}

INSTALL_HINT = (
    "install PostgreSQL's server binaries (Debian/Ubuntu: apt-get install -y postgresql; "
    "they land in /usr/lib/postgresql/<version>/bin) or set $DICHOTOMY_PG_BIN to the folder "
    "holding initdb and postgres"
)


class PostgresUnavailable(RuntimeError):
    """The PostgreSQL server binaries are missing or the server would not start."""


def find_pg_bin() -> Path:
    """The folder holding ``initdb`` and ``postgres``; :class:`PostgresUnavailable` if none."""
    candidates: list[Path] = []
    if os.environ.get(PG_BIN_ENV):
        candidates.append(Path(os.environ[PG_BIN_ENV]))

    def version(path: str) -> tuple[int, ...]:
        return tuple(int(p) for p in re.findall(r"\d+", Path(path).parent.name)) or (0,)

    candidates += [Path(p) for p in sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=version, reverse=True)]
    on_path = shutil.which("initdb")
    if on_path:
        candidates.append(Path(on_path).parent)
    for folder in candidates:
        if (folder / "initdb").is_file() and (folder / "postgres").is_file():
            return folder
    raise PostgresUnavailable(
        "No PostgreSQL server binaries (initdb, postgres) found in "
        f"{', '.join(map(str, candidates)) or '/usr/lib/postgresql/*/bin or $PATH'}: {INSTALL_HINT}."
    )


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class PostgresServer:
    """One temporary PostgreSQL cluster and server; see the module docstring."""

    def __init__(
        self,
        *,
        settings: dict[str, str] | None = None,
        base_dir: str | os.PathLike[str] | None = None,
        start_timeout: float = 30.0,
    ) -> None:
        self.bin = find_pg_bin()
        self.settings = dict(FAST_SETTINGS if settings is None else settings)
        self.base_dir = base_dir
        self.start_timeout = start_timeout
        self.user = "postgres"
        self.password = "pw-" + secrets.token_hex(12)  # never shown by the store's messages
        self.host = "127.0.0.1"
        self.port = 0
        self.dir: Path | None = None
        self.proc: subprocess.Popen | None = None
        self._databases = 0
        self._version: int | None = None

    # -- life cycle ------------------------------------------------------------------------------

    def __enter__(self) -> PostgresServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _as_server_user(self) -> list[str]:
        """Command prefix running a program as the cluster's owner."""
        if os.geteuid() != 0:
            return []
        if not shutil.which("runuser"):
            raise PostgresUnavailable("Running as root needs runuser (util-linux) to start PostgreSQL as 'postgres'.")
        return ["runuser", "-u", "postgres", "--"]

    def _make_dir(self) -> Path:
        base = self.base_dir or tempfile.gettempdir()
        if os.geteuid() == 0 and self.base_dir is None and not os.stat(base).st_mode & 0o001:
            base = "/tmp"  # the postgres user must be able to reach the cluster
        path = Path(tempfile.mkdtemp(prefix="dichotomy-pg-", dir=base))
        if os.geteuid() == 0:
            import pwd

            try:
                owner = pwd.getpwnam("postgres")
            except KeyError:
                shutil.rmtree(path, ignore_errors=True)
                raise PostgresUnavailable(
                    f"Running as root, PostgreSQL needs the 'postgres' OS user, which does not exist: {INSTALL_HINT}."
                ) from None
            os.chown(path, owner.pw_uid, owner.pw_gid)
        return path

    def start(self) -> PostgresServer:
        """initdb a fresh cluster and start the server; waits until it accepts connections."""
        if self.proc is not None:
            return self
        self.dir = self._make_dir()
        try:
            self._initdb()
            for attempt in range(3):  # a free port can be taken between probing and binding
                self.port = _free_port()
                if self._launch():
                    return self
            raise PostgresUnavailable(f"PostgreSQL would not start:\n{self.log_tail()}")
        except BaseException:
            self.stop()
            raise

    def _run(self, args: list[str], what: str) -> None:
        out = subprocess.run(self._as_server_user() + args, capture_output=True, text=True, cwd=self.dir)
        if out.returncode:
            raise PostgresUnavailable(f"{what} failed ({out.returncode}):\n{out.stdout}\n{out.stderr}")

    def _initdb(self) -> None:
        assert self.dir is not None
        pwfile = self.dir / "pwfile"
        pwfile.write_text(self.password + "\n")
        if os.geteuid() == 0:
            import pwd

            owner = pwd.getpwnam("postgres")
            os.chown(pwfile, owner.pw_uid, owner.pw_gid)
        pwfile.chmod(0o600)
        self._run(
            [
                str(self.bin / "initdb"),
                "-D", str(self.dir / "data"),
                "-U", self.user,
                f"--pwfile={pwfile}",
                "--auth-host=scram-sha-256",
                "--auth-local=trust",
                "--encoding=UTF8",
                "--locale=C",
                "--no-sync",
                "--no-instructions",
            ],
            "initdb",
        )
        pwfile.unlink()

    def _launch(self) -> bool:
        """Start ``postgres`` on ``self.port``; True once it answers, False if the port was taken."""
        assert self.dir is not None
        log = open(self.dir / "server.log", "ab")
        settings = {
            "listen_addresses": self.host,
            "port": str(self.port),
            "unix_socket_directories": str(self.dir),
            "max_connections": "200",
            "shared_buffers": "32MB",
            **self.settings,
        }
        args = [str(self.bin / "postgres"), "-D", str(self.dir / "data")]
        for key, value in settings.items():
            args += ["-c", f"{key}={value}"]
        try:
            self.proc = subprocess.Popen(
                self._as_server_user() + args,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=log,
                cwd=self.dir,
                start_new_session=True,  # its own process group: teardown kills it all
            )
        finally:
            log.close()
        deadline = time.monotonic() + self.start_timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                text = self.log_tail()
                self._reap()
                if "could not bind" in text or "Address already in use" in text:
                    return False
                raise PostgresUnavailable(f"PostgreSQL exited at start ({self.proc.returncode}):\n{text}")
            if self._answers():
                return True
            time.sleep(0.05)
        raise PostgresUnavailable(f"PostgreSQL did not accept connections within {self.start_timeout:g} s:\n{self.log_tail()}")

    def _answers(self) -> bool:
        try:
            import psycopg
        except ImportError as exc:  # pragma: no cover - the test extra installs it
            raise PostgresUnavailable('psycopg is missing: pip install "psycopg[binary]"') from exc
        try:
            psycopg.connect(self.dsn(), connect_timeout=2).close()
            return True
        except psycopg.OperationalError:
            return False

    def log_tail(self, lines: int = 30) -> str:
        try:
            text = (self.dir / "server.log").read_text(errors="replace") if self.dir else ""
        except OSError:
            return ""
        return "\n".join(text.splitlines()[-lines:])

    def _postmaster_pid(self) -> int | None:
        try:
            return int((self.dir / "data" / "postmaster.pid").read_text().split()[0])  # type: ignore[operator]
        except (OSError, ValueError, IndexError, TypeError):
            return None

    def _reap(self) -> None:
        """Kill whatever is left of the server's process group and wait for the child."""
        if self.proc is None:
            return
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:  # pragma: no cover
            pass
        self.proc = None

    def stop(self) -> None:
        """Fast shutdown, then SIGKILL the process group; delete the cluster. Idempotent."""
        if self.proc is not None:
            pid = self._postmaster_pid()
            if pid is not None and self.proc.poll() is None:
                try:
                    os.kill(pid, signal.SIGINT)  # "fast" shutdown: disconnect clients, stop
                except (ProcessLookupError, PermissionError):
                    pass
                try:
                    self.proc.wait(10)
                except subprocess.TimeoutExpired:
                    pass
            self._reap()
        if self.dir is not None:
            shutil.rmtree(self.dir, ignore_errors=True)
            self.dir = None

    # -- using it --------------------------------------------------------------------------------

    def dsn(self, dbname: str = "postgres", *, password: bool = True) -> str:
        """A ``postgresql://`` URL for ``dbname`` on this server (with the password unless told)."""
        auth = f"{self.user}:{self.password}" if password else self.user
        return f"postgresql://{auth}@{self.host}:{self.port}/{dbname}"

    def admin(self, sql: str) -> None:
        """Run one statement in autocommit as the superuser (CREATE/DROP DATABASE, ...)."""
        import psycopg

        with psycopg.connect(self.dsn(), autocommit=True) as conn:
            conn.execute(sql)

    def version(self) -> int:
        """``server_version_num``, e.g. 150008."""
        if self._version is None:
            import psycopg

            with psycopg.connect(self.dsn()) as conn:
                self._version = conn.info.server_version
        return self._version

    def create_database(self, name: str | None = None) -> str:
        """A fresh empty database; returns its DSN."""
        if name is None:
            self._databases += 1
            name = f"t{os.getpid()}_{self._databases}"
        if not re.fullmatch(r"[a-z_][a-z0-9_]*", name):
            raise ValueError(f"not a plain database name: {name!r}")
        # PostgreSQL 15+: copying the files is faster than WAL-logging a small template
        strategy = " STRATEGY file_copy" if self.version() >= 150000 else ""
        self.admin(f"CREATE DATABASE {name} TEMPLATE template0{strategy}")
        return self.dsn(name)

    def create_schema(self, name: str | None = None, dbname: str = "postgres") -> str:
        """A fresh, empty schema in ``dbname``; returns a DSN whose ``search_path`` is that schema.

        Much cheaper than a database (milliseconds, even on a loaded machine).
        """
        if name is None:
            self._databases += 1
            name = f"s{os.getpid()}_{self._databases}"
        if not re.fullmatch(r"[a-z_][a-z0-9_]*", name):
            raise ValueError(f"not a plain schema name: {name!r}")
        import psycopg

        with psycopg.connect(self.dsn(dbname), autocommit=True) as conn:
            conn.execute(f"CREATE SCHEMA {name}")
        return f"{self.dsn(dbname)}?options=-csearch_path%3D{name}"

    def drop_database(self, name: str) -> None:
        """Drop a database, disconnecting whoever is still in it."""
        if not re.fullmatch(r"[a-z_][a-z0-9_]*", name):
            raise ValueError(f"not a plain database name: {name!r}")
        self.admin(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
