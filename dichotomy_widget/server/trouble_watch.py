"""One write-trouble check for the whole server, so waiting kernels need no timer of their own.

Every watching page shows a banner when the store cannot be written (a full disk, a read-only file).
Thirty kernels each checking every 2 s cost the teacher's laptop more than everything else they do
while idle, so ``dichotomy serve`` checks once for all of them: :class:`TroubleWatch` asks the SQLite
store's :meth:`~dichotomy_widget.stores.SqliteStore.write_trouble` every :data:`CHECK_EVERY` s and, when
the answer changes, :meth:`~dichotomy_widget.stores.SqliteStore.announce` wakes every kernel watching
the file, which then checks for itself and shows (or clears) the banner.
"""

from __future__ import annotations

import logging
import os
from typing import Mapping

from ..config import STORE_ENV
from ..stores.base import write_trouble_text
from ..logs import log_failure

log = logging.getLogger(__name__)

__all__ = ["TroubleWatch", "CHECK_EVERY"]

#: Seconds between two checks (the banner shows within about this long on every page).
CHECK_EVERY = 2.0


class TroubleWatch:
    """Check an SQLite store for write trouble and announce each change to the watching kernels."""

    def __init__(self, store: object) -> None:
        self.store = store
        self.trouble = write_trouble_text(store)

    @classmethod
    def for_server(cls, environ: Mapping[str, str] = os.environ) -> "TroubleWatch | None":
        """The watch for the store the server's pages share (``$DICHOTOMY_STORE``), or None when it is not
        an SQLite file (PostgreSQL cannot tell trouble without writing; its pages learn by acting)."""
        location = environ.get(STORE_ENV, "")
        if not location or "://" in location:
            return None
        from ..stores import SqliteStore

        try:
            return cls(SqliteStore(location, watch_files=False))
        except Exception as err:  # noqa: BLE001 - the pages report a broken store themselves, in their language
            log_failure(log, "cannot open the store %s to watch it for write trouble", err, location)
            return None

    def check(self) -> bool:
        """Check once; True if the trouble changed (and the watching kernels were told)."""
        now = write_trouble_text(self.store)
        if now == self.trouble:
            return False
        self.trouble = now
        if now:
            log.warning("the table store cannot be written now: %s", now)
        else:
            log.info("the table store can be written again")
        announce = getattr(self.store, "announce", None)
        if announce is not None:
            announce()
        return True

    def close(self) -> None:
        close = getattr(self.store, "close", None)
        if close is not None:
            close()
