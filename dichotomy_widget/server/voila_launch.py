"""Start voila on the packaged pages: the command line, the store the kernels share, and the
environment of a source checkout. Shared by ``dichotomy serve`` and the JupyterHub service."""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path
from typing import Mapping, Sequence

from ..config import PAGE_EXTENSIONS

__all__ = ["CULL_IDLE_TIMEOUT", "CULL_INTERVAL", "VOILA_TEMPLATE", "voila_command", "page_extension_options",
           "resolve_store", "sqlite_store_file", "die_with_parent", "private_child", "norm_base_url", "checkout_path_env", "template_path_env",
           "pool_env", "VOILA_MODULE"]

CULL_IDLE_TIMEOUT = 600  # seconds without activity before an unconnected kernel is shut down
CULL_INTERVAL = 60
# voila's "lab" template without its Font Awesome CDN links (pages request nothing outside the server);
# it lives in pages/voila/templates/dichotomy/, found through JUPYTER_PATH (template_path_env)
VOILA_TEMPLATE = "dichotomy"
TEMPLATE_ROOT = Path(__file__).resolve().parents[1] / "pages"
VOILA_MODULE = "dichotomy_widget.server.pooled_voila"
#: Kernels talk to voila over Unix sockets in voila's private connection folder, not TCP ports: with many
#: kernels starting at once (a class clicking the link), jupyter's pick-a-free-TCP-port-then-bind races
#: ("Address already in use"), the kernel dies before its page is rendered and the page stalls.
KERNEL_TRANSPORT = ("--KernelManager.transport=ipc",) if os.name == "posix" else ()


def norm_base_url(base_url: str) -> str:
    """``/``, or the base URL with one leading and one trailing slash."""
    base = "/" + base_url.strip().strip("/")
    return base if base == "/" else base + "/"


def voila_command(pages: Path, port: int, ip: str, base_url: str = "/", *,
                  cull_idle_timeout: int = CULL_IDLE_TIMEOUT, cull_interval: int = CULL_INTERVAL,
                  extra: Sequence[str] = ()) -> list[str]:
    """The voila command line ``dichotomy serve`` runs: voila's application with the page handler that
    keeps pooled pages inside the page bounds (:mod:`dichotomy_widget.server.pooled_voila`)."""
    return [
        sys.executable, "-m", VOILA_MODULE, str(pages),
        "--no-browser",
        f"--port={port}",
        "--Voila.port_retries=0",
        f"--Voila.ip={ip}",
        f"--Voila.base_url={norm_base_url(base_url)}",
        "--show_tracebacks=False",
        "--strip_sources=True",
        f"--MappingKernelManager.cull_idle_timeout={cull_idle_timeout}",
        f"--MappingKernelManager.cull_interval={cull_interval}",
        "--MappingKernelManager.cull_connected=False",
        f"--template={VOILA_TEMPLATE}",
        *page_extension_options(),
        *KERNEL_TRANSPORT,
        # the browser's preferred languages reach the page kernel as $HTTP_ACCEPT_LANGUAGE (pages/page_lang.py)
        "--VoilaConfiguration.http_header_envs=Accept-Language",
        # kernels die with voila through the OS, not a thread polling every second (server/kernel_launcher.py)
        "--VoilaConfiguration.kernel_spec_manager_class=dichotomy_widget.server.kernel_specs.QuietKernelSpecManager",
        # the teacher's terminal: voila's own chatter (connection files, one line per kernel) stays out;
        # the teacher's lines come from the pages (logs.py) and the address from `dichotomy serve`
        # (`--voila-arg=--Voila.log_level=INFO` brings it back: traitlets takes one value only)
        *([] if any(a.startswith("--Voila.log_level=") for a in extra) else ["--Voila.log_level=WARN"]),
        *extra,
    ]


def page_extension_options() -> list[str]:
    """voila's options that load only :data:`~dichotomy_widget.config.PAGE_EXTENSIONS` in a page: one
    ``--…extension_allowlist=NAME`` per extension (traitlets 5 warns at a list literal)."""
    return [f"--VoilaConfiguration.extension_allowlist={name}" for name in PAGE_EXTENSIONS]


def resolve_store(store: str | None) -> str:
    """An absolute store path or URL for the kernels; refuse a memory store (kernels must share it).

    An SQLite store is private (:mod:`dichotomy_widget.stores.private`): its folder is made ``0700`` and
    its files ``0600``, and a folder other users may read or write is refused with the ``chmod`` that
    fixes it (voila itself starts under :func:`private_child`).
    """
    from ..errors import StoreError
    from ..stores import default_store_path, open_store
    from ..stores.private import prepare_private_store

    if store is not None and store.strip().lower() in ("", "memory", ":memory:", "memory://", "mem://"):
        raise SystemExit("dichotomy serve needs a store shared by kernels: an SQLite file path or a "
                         "postgresql:// URL.")
    if not store:
        path = str(default_store_path())
    elif "://" in store:
        path = store
    else:
        path = str(Path(store).expanduser().resolve())
    sqlite_file = sqlite_store_file(path)
    try:
        if sqlite_file is not None:
            prepare_private_store(sqlite_file)
        open_store(path).close()  # create it now: a clear error here beats one inside a page
    except StoreError as exc:
        raise SystemExit(f"dichotomy: {exc.message}") from None
    return path


def sqlite_store_file(store: str) -> Path | None:
    """The SQLite file of a store path or ``sqlite:``/``file:`` URL; None for PostgreSQL."""
    scheme, sep, rest = store.partition("://")
    if not sep:
        return Path(store)
    if scheme.lower() in ("sqlite", "sqlite3", "file"):
        if rest.startswith("//"):
            rest = rest[1:]
        if rest:
            return Path(rest)
        from ..stores import default_store_path

        return default_store_path()
    return None


def private_child() -> None:  # pragma: no cover - runs in the child between fork and exec
    """Before voila starts: umask ``077`` (voila and every page kernel create nothing other users can
    read), and :func:`die_with_parent`."""
    os.umask(0o077)
    die_with_parent()


def die_with_parent() -> None:  # pragma: no cover - runs in the child between fork and exec
    """Linux: voila gets SIGTERM if ``dichotomy serve`` itself is killed (no orphaned server)."""
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
        except Exception:  # noqa: BLE001
            pass



def checkout_path_env(env: Mapping[str, str]) -> dict[str, str]:
    """``{"PYTHONPATH": ...}`` putting this source checkout first for the kernels, or ``{}`` when
    the package is installed (not a checkout)."""
    package_parent = Path(__file__).resolve().parents[2]
    if not (package_parent / "pyproject.toml").exists():
        return {}
    return {"PYTHONPATH": os.pathsep.join(p for p in (str(package_parent), env.get("PYTHONPATH", "")) if p)}


def template_path_env(env: Mapping[str, str]) -> dict[str, str]:
    """``{"JUPYTER_PATH": ...}`` with this package's voila template folder first (see VOILA_TEMPLATE)."""
    return {"JUPYTER_PATH": os.pathsep.join(p for p in (str(TEMPLATE_ROOT), env.get("JUPYTER_PATH", "")) if p)}


def pool_env(ip: str) -> dict[str, str]:
    """``{"VOILA_APP_IP": ...}``: where a pre-started kernel reaches voila to learn its page's request
    (``voila.utils.wait_for_request`` defaults to 127.0.0.1, which a server bound to one LAN address
    does not answer)."""
    host = "127.0.0.1" if ip in ("", "0.0.0.0") else "::1" if ip == "::" else ip
    return {"VOILA_APP_IP": f"[{host}]" if ":" in host else host}
