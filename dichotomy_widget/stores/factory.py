"""Open a store by URL or path: memory, an SQLite file, or PostgreSQL (imported only when asked)."""

from __future__ import annotations

import os
from pathlib import Path

from ..config import DATA_DIR_NAME, MEMORY_STORE_NAMES, PG_RELAY_ENV, STORE_FILE_NAME
from ..errors import StoreError
from .base import TableStore
from .memory import MemoryStore
from .sqlite import SqliteStore

__all__ = ["open_store", "default_store_path"]



def default_store_path() -> Path:
    """``tables.sqlite3`` in the user's data directory (``platformdirs.user_data_dir("dichotomy")``)."""
    import platformdirs

    return Path(platformdirs.user_data_dir(DATA_DIR_NAME)) / STORE_FILE_NAME


def _looks_like_dsn(text: str) -> bool:
    """True for libpq ``key=value`` strings such as ``host=db dbname=game``."""
    return "=" in text and any(text.startswith(k + "=") or f" {k}=" in text
                               for k in ("host", "dbname", "user", "port", "password"))


def open_store(url_or_path: str | os.PathLike[str] | None = None) -> TableStore:
    """Open a store from ``None``/``"memory"``, a file path, ``sqlite:///path`` or ``postgresql://...``.

    ``sqlite://`` with no path opens :func:`default_store_path`. A libpq ``key=value`` connection
    string is refused (use a ``postgresql://`` URL) rather than taken for a file name.
    """
    if url_or_path is None:
        return MemoryStore()
    if not isinstance(url_or_path, str):
        return SqliteStore(os.fspath(url_or_path))
    text = url_or_path.strip()
    if text.lower() in MEMORY_STORE_NAMES:
        return MemoryStore()
    scheme, sep, rest = text.partition("://")
    if not sep:
        if _looks_like_dsn(text):
            raise StoreError("That looks like a PostgreSQL key=value connection string; "
                             "write it as a URL: postgresql://user@host:5432/dbname")
        return SqliteStore(text)
    return _open_url(scheme.lower(), rest, text)


def _open_url(scheme: str, rest: str, url: str) -> TableStore:
    if scheme in ("sqlite", "sqlite3", "file"):
        if rest.startswith("//"):  # sqlite:////abs/path
            rest = rest[1:]
        return SqliteStore(rest or default_store_path())
    if scheme.split("+")[0] in ("postgres", "postgresql"):
        from .postgres import PostgresStore  # imports psycopg lazily; if missing: StoreError with the pip command

        return PostgresStore(url, relay_dir=os.environ.get(PG_RELAY_ENV) or None)  # relayed in dichotomy serve
    raise StoreError(f"Unknown table store {url!r}: use 'memory', a file path or sqlite:///path.")  # untranslated: developer-only
