"""``dichotomy serve``: run the packaged host and seat pages with voila, for a classroom.

    dichotomy serve                       # all network interfaces, port 8866, store in the user's data dir
    dichotomy serve --ip 127.0.0.1        # this computer only (a trial run)
    dichotomy serve --store /srv/dichotomy/tables.sqlite3 --port 8900
    dichotomy serve --store postgresql://dichotomy@db/dichotomy --pg-pool 8   # one of several servers (docs/scale-out.md)
    dichotomy serve --decks ~/vocab       # also offer every valid deck file in ~/vocab
    dichotomy serve --teacher-key-file ~/.dichotomy-key   # creating a table needs the key
    dichotomy serve --expect 30           # 30 seat kernels started before the class clicks the link
    dichotomy pages ~/dichotomy           # copy host.ipynb and seat.ipynb
    dichotomy hub-config                  # run it as a JupyterHub service instead (docs/jupyterhub.md)

With a PostgreSQL store this process LISTENs once for all its kernels and gives them ``--pg-pool``
connection slots (``stores/pg_relay.py``, ``stores/pg_slots.py``).

Voila runs as a child process in its own process group with: no tracebacks shown to students,
idle kernels culled, no browser opened, and the store path in ``$DICHOTOMY_STORE`` for the pages.
Ctrl-C (SIGINT) or SIGTERM stops voila (its kernels shut down) and, if it lingers, kills its group.

``--ip`` defaults to ``0.0.0.0`` (every interface): students join from their own devices on the
classroom network, which 127.0.0.1 would not allow. Use ``--ip 127.0.0.1`` to keep it on one computer.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Sequence

from ..config import (DECKS_DIR_ENV, HOST_PAGE, SEAT_PAGE, SEAT_URL_ENV, STORE_ENV,
                     TEACHER_KEY_ENV, TEACHER_PAGE)
from .. import errors
from . import bounds
from .voila_launch import (CULL_IDLE_TIMEOUT, checkout_path_env, norm_base_url, pool_env, private_child,
                           resolve_store, template_path_env, voila_command)

__all__ = ["main", "host_url", "lan_address", "build_parser"]

DEFAULT_PORT = 8866
DEFAULT_IP = "0.0.0.0"
#: PostgreSQL connections a server's kernels share (docs/scale-out.md).
DEFAULT_PG_POOL = 8


def _pages_dir() -> Path:
    return Path(__file__).resolve().parents[1] / "pages" / "notebooks"


def lan_address() -> str | None:
    """A non-loopback IPv4 address of this computer, or None. Sends no network traffic.

    Tries the host name's addresses, then ``hostname -I`` (Linux, where the host name often maps to
    127.0.1.1).
    """
    candidates: list[str] = []
    try:
        candidates += [str(info[4][0]) for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)]
    except OSError:
        pass
    if shutil.which("hostname"):
        try:
            out = subprocess.run(["hostname", "-I"], capture_output=True, text=True, timeout=5).stdout
            candidates += [a for a in out.split() if "." in a]
        except (OSError, subprocess.SubprocessError):
            pass
    for addr in candidates:
        if not addr.startswith("127."):
            return addr
    return None


def host_url(ip: str, port: int, base_url: str = "/", public_url: str | None = None) -> str:
    """The address of the host page (to open on the teacher's computer)."""
    if public_url:
        root = public_url.rstrip("/") + "/"
    else:
        host = ip
        if ip in ("0.0.0.0", "", "::"):
            host = lan_address() or "localhost"
        if ":" in host and not host.startswith("["):
            host = f"[{host}]"
        root = f"http://{host}:{port}{norm_base_url(base_url)}"
    return root + "voila/render/" + HOST_PAGE


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="dichotomy", description="Dichotomy: a cooperative classroom word game.")
    sub = parser.add_subparsers(dest="command")
    serve = sub.add_parser("serve", help="serve the host and seat pages with voila (for a classroom)",
                           description="Serve the Dichotomy host and seat pages with voila.")
    serve.add_argument("--store", default=None,
                       help="table store: an SQLite file path, sqlite:///path, or postgresql://user@host/db when seats run on several machines (default: tables.sqlite3 in "
                            "the user's data directory)")
    serve.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT})")
    serve.add_argument("--ip", default=DEFAULT_IP,
                       help="address to listen on (default 0.0.0.0: every interface, so students on the "
                            "classroom network can join; 127.0.0.1 for this computer only)")
    serve.add_argument("--base-url", default="/", help="URL prefix, e.g. /dichotomy/ behind a proxy")
    serve.add_argument("--public-url", default=None,
                       help="address students use to reach this server (e.g. http://10.0.0.5:8866/); "
                            "join links and QR codes use it")
    serve.add_argument("--cull-idle-timeout", type=int, default=CULL_IDLE_TIMEOUT,
                       help=f"seconds before an idle, unconnected kernel is shut down (default {CULL_IDLE_TIMEOUT})")
    serve.add_argument("--decks", default=None, metavar="DIR",
                       help="a folder of deck files (.csv, .tsv, .txt, .json) to offer besides the packaged "
                            "decks; invalid files are listed here with their first problem")
    key = serve.add_mutually_exclusive_group()
    key.add_argument("--teacher-key", default=None, metavar="KEY",
                     help="creating a table needs this key, typed on the host page (without a key, anyone "
                          "who can open the host page can create a table)")
    key.add_argument("--teacher-key-file", default=None, metavar="PATH",
                     help="like --teacher-key, the key read from the first line of a file (not visible in "
                          "the process list)")
    bounds.add_arguments(serve)
    serve.add_argument("--pg-pool", type=int, default=DEFAULT_PG_POOL, metavar="N",
                       help="with a PostgreSQL store: at most N connections for all this server's kernels "
                            f"(default {DEFAULT_PG_POOL}), plus one that listens for changes")
    serve.add_argument("--pg-listen-url", default=None, metavar="URL",
                       help="with a PostgreSQL store behind PgBouncer (transaction mode): PostgreSQL's own "
                            "address for the one connection that listens for changes (default: --store)")
    serve.add_argument("--voila-arg", action="append", default=[], metavar="ARG",
                       help="extra argument passed to voila (repeatable)")
    pages = sub.add_parser("pages", help="copy host.ipynb and seat.ipynb into a folder")
    pages.add_argument("dest", help="folder to copy the pages into")
    from .hub_service import add_commands  # hub-config, hub-service (docs/jupyterhub.md)

    add_commands(sub)
    return parser


def _resolve_decks(folder: str | None) -> str | None:
    """The absolute deck folder; its invalid files are listed on stderr with their first problem."""
    if not folder:
        return None
    from ..deck_library import folder_decks
    from ..errors import DeckError

    path = Path(folder).expanduser().resolve()
    try:
        valid, invalid = folder_decks(path)
    except DeckError as exc:
        raise SystemExit(f"--decks: {exc.message}") from None
    for name, problem in invalid:
        print(f"dichotomy serve: deck file not offered: {problem}", file=sys.stderr, flush=True)
    print(f"Decks from {path}: {len(valid)} offered ({', '.join(valid) or 'none'}), {len(invalid)} "
          "not offered.", file=sys.stderr, flush=True)
    return str(path)


def _resolve_teacher_key(args: argparse.Namespace) -> str | None:
    """The teacher key from --teacher-key, --teacher-key-file or an inherited $DICHOTOMY_TEACHER_KEY
    (never printed)."""
    from ..errors import DichotomyError
    from ..pages.teacher import check_key, read_key_file

    try:
        if getattr(args, "teacher_key_file", None):
            return read_key_file(args.teacher_key_file)
        if getattr(args, "teacher_key", None) is not None:
            return check_key(args.teacher_key)
        inherited = os.environ.get(TEACHER_KEY_ENV, "")
        if inherited:
            return check_key(inherited, TEACHER_KEY_ENV)
    except DichotomyError as exc:
        raise SystemExit(exc.message) from None
    return None


def _shown(store: str) -> str:
    """The store for printing: a password in a URL is masked."""
    from urllib.parse import urlsplit, urlunsplit

    if "://" not in store:
        return store
    parts = urlsplit(store)
    if parts.password:
        netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
        return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))
    return store


def _signal_group(proc: subprocess.Popen, sig: int) -> None:
    try:
        if os.name == "posix":
            os.killpg(proc.pid, sig)
        elif sig == signal.SIGTERM:
            proc.terminate()
        else:
            proc.kill()
    except (ProcessLookupError, PermissionError, OSError):
        pass


def _stop(proc: subprocess.Popen, grace: float = 6.0) -> int:
    """SIGTERM voila's process group (voila shuts its kernels down), then SIGKILL what is left."""
    if proc.poll() is not None:
        return proc.returncode
    _signal_group(proc, signal.SIGTERM)
    try:
        return proc.wait(grace)
    except subprocess.TimeoutExpired:
        pass
    _signal_group(proc, getattr(signal, "SIGKILL", signal.SIGTERM))
    return proc.wait()


def _port_free(ip: str, port: int) -> bool:
    family = socket.AF_INET6 if ":" in ip else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((ip, port))
        except OSError:
            return False
    return True


def _prepare_word_tables() -> None:
    """Build every word table whose text sources changed before the first page needs one (a source
    checkout's first start; later starts find them built)."""
    from ..errors import DependencyMissing
    from ..wordsdata import tables

    todo = tables.stale()
    if todo:
        print(f"dichotomy serve: preparing the word tables ({', '.join(todo)}; first start only, under a "
              "minute)...", flush=True)
    try:
        tables.prepare(todo)  # the others are built already
    except DependencyMissing as exc:
        raise SystemExit(exc.message) from None


def serve(args: argparse.Namespace) -> int:
    bound_args, bounds_line = bounds.voila_args(args)  # first: an oversized pool is refused at once
    if getattr(args, "pg_pool", DEFAULT_PG_POOL) < 1:
        raise SystemExit("--pg-pool must be at least 1.")
    if getattr(args, "expect", 0):
        print(f"dichotomy serve: starting kernels before the students arrive: {bounds_line.split('; ')[-1]}.",
              flush=True)
    if not _port_free(args.ip, args.port):
        raise SystemExit(f"Port {args.port} is already in use on {args.ip}: is Dichotomy already running? "
                         "Choose another one with --port.")
    _prepare_word_tables()
    store = resolve_store(args.store)
    teacher_key = _resolve_teacher_key(args)
    decks_dir = _resolve_decks(getattr(args, "decks", None))
    pages = _pages_dir()
    env = dict(os.environ)
    env.pop(TEACHER_KEY_ENV, None)
    env.pop(DECKS_DIR_ENV, None)
    if teacher_key:
        env[TEACHER_KEY_ENV] = teacher_key
    if decks_dir:
        env[DECKS_DIR_ENV] = decks_dir
    env[STORE_ENV] = store
    env.update(checkout_path_env(env))
    env.update(template_path_env(env))
    url = host_url(args.ip, args.port, args.base_url, args.public_url)
    if args.public_url:
        env[SEAT_URL_ENV] = args.public_url.rstrip("/") + "/voila/render/" + SEAT_PAGE
    env.update(pool_env(args.ip))
    cmd = voila_command(pages, args.port, args.ip, args.base_url,
                        cull_idle_timeout=args.cull_idle_timeout, extra=[*bound_args, *args.voila_arg])
    if os.name == "posix":
        popen_kw: dict = {"start_new_session": True, "preexec_fn": private_child}  # umask 077 too
    else:  # Windows: its own process group, so Ctrl-C reaches only this command
        popen_kw = {"creationflags": getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0)}
    from ..errors import StoreError
    from ..stores.pg_relay import start_server_relay

    try:  # PostgreSQL: this process listens once for all its kernels (docs/scale-out.md)
        relay_env, stop_relay = start_server_relay(store, getattr(args, "pg_pool", DEFAULT_PG_POOL),
                                                   getattr(args, "pg_listen_url", None))
    except StoreError as exc:
        raise SystemExit(exc.message) from None
    env.update(relay_env)
    try:
        proc = subprocess.Popen(cmd, env=env, **popen_kw)
    except BaseException:
        stop_relay()
        raise
    stopping = {"signal": None}

    def on_signal(signum: int, _frame: object) -> None:
        stopping["signal"] = signum

    old = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        if _wait_listening(args.ip, args.port, proc, stopping):
            hint = (" (if their devices cannot open that address, restart with --public-url)"
                    if args.ip in ("0.0.0.0", "::") and not args.public_url else "")
            who = ("the teacher key is needed" if teacher_key
                   else "no teacher key: anyone who can open the host page")
            print(f"\nDichotomy is running. Table store: {_shown(store)}\n"
                  f"  Creating tables: {who}.\n"
                  f"  Host page (open it on the teacher's computer): {url}\n"
                  f"  Class page (a whole class at many tables): {url.replace(HOST_PAGE, TEACHER_PAGE)}\n"
                  f"  Students join with the link or QR code the host page shows{hint}.\n"
                  f"  Page bounds: {bounds_line}.\n"
                  "  Press Ctrl-C to stop.\n", flush=True)
        while proc.poll() is None and stopping["signal"] is None:
            time.sleep(0.2)
        if stopping["signal"] is not None:
            print("\nStopping Dichotomy...", flush=True)
            _stop(proc)
            return 0
        return proc.returncode or 0
    finally:
        _stop(proc)
        stop_relay()
        for sig, handler in old.items():
            signal.signal(sig, handler)


def _wait_listening(ip: str, port: int, proc: subprocess.Popen, stopping: dict, timeout: float = 60.0) -> bool:
    host = "127.0.0.1" if ip in ("0.0.0.0", "", "::") else ip
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None and stopping["signal"] is None:
        try:
            with socket.create_connection((host, port), timeout=0.5):
                return True
        except OSError:
            time.sleep(0.2)
    return False


def copy_pages(dest: str) -> int:
    target = Path(dest).expanduser()
    target.mkdir(parents=True, exist_ok=True)
    names = sorted(p.name for p in _pages_dir().glob("*.ipynb"))  # HOST_PAGE, SEAT_PAGE and the class pages
    for name in names:
        shutil.copyfile(_pages_dir() / name, target / name)
    print(f"Copied {', '.join(names)} to {target}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command == "serve":
        try:
            return serve(args)
        except errors.DichotomyError as exc:  # a bad store, deck folder or key: a sentence, never a traceback
            raise SystemExit(f"dichotomy serve: {exc.message}") from None
    if args.command == "pages":
        return copy_pages(args.dest)
    from .hub_service import run_command

    if (done := run_command(args)) is not None:
        return done
    parser.print_help()
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
