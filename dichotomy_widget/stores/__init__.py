"""Table stores: one protocol (:mod:`.base`), one module per backend, and :func:`open_store` to
choose one by URL or path.

* :class:`MemoryStore` -- one kernel, thread-safe, nothing on disk.
* :class:`SqliteStore` -- one SQLite file (WAL mode) shared by many kernels and processes.
* ``PostgresStore`` (:mod:`.postgres`) -- tables shared across machines; psycopg is imported only
  when a ``postgresql://`` store is opened.

Importing this package is cheap (standard library only).
"""

from __future__ import annotations

from .base import SCHEMA_VERSION, Record, TableStore
from .factory import default_store_path, open_store
from .memory import MemoryStore
from .sqlite import SqliteStore

__all__ = ["Record", "TableStore", "MemoryStore", "SqliteStore", "open_store", "default_store_path",
           "SCHEMA_VERSION"]
