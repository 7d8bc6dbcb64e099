"""A cheap check, as a page opens, that an SQLite store file is still an SQLite database.

A kernel that already has the store open keeps reading what SQLite's write-ahead log holds, so a store
file overwritten with garbage while the server runs (a bad copy, a sync tool) can go unnoticed by
pages opened afterwards: they would play on and write into a file that is no longer there. Every page
reads the file's first 16 bytes when it opens (one small read) and refuses with the store's own clear
message when they are not SQLite's header.
"""

from __future__ import annotations

import logging
from pathlib import Path

from ..errors import StoreError
from ..stores import TableStore
from ..logs import failure

__all__ = ["check_store_file", "SQLITE_HEADER"]

log = logging.getLogger(__name__)

SQLITE_HEADER = b"SQLite format 3\x00"


def check_store_file(store: TableStore) -> None:
    """Raise :class:`StoreError` (``store_corrupt``) when ``store`` is an SQLite file whose header is
    no longer SQLite's; other stores (PostgreSQL, memory) and a file not yet written pass."""
    path = getattr(store, "path", None)
    if not isinstance(path, Path):
        return
    try:
        with open(path, "rb") as handle:
            head = handle.read(len(SQLITE_HEADER))
    except FileNotFoundError:
        return  # not created yet, or moved away: the store reports that itself
    except OSError as exc:
        log.warning("cannot read the store file's header: %s", failure(exc))
        return
    if head and head != SQLITE_HEADER:
        log.error("the store file %s is no longer an SQLite database", path)
        raise StoreError("{path} is not a dichotomy table store (not an SQLite database).", code="store_corrupt",
                         params={"path": str(path)})
