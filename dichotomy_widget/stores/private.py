"""The SQLite store's folder and files are private to the account that runs the game server.

The store holds every table's hidden words, so ``dichotomy serve`` and the JupyterHub service
(:func:`dichotomy_widget.server.voila_launch.resolve_store`) keep it from other Unix users (on a hub they
include every student's single-user server):

* a missing store folder is created ``0700`` (every missing level), and the store file ``0600``
  before SQLite opens it; SQLite gives its ``-wal`` and ``-shm`` files the database file's mode;
* an older store file, or one SQLite made under a loose umask, is narrowed to ``0600`` (with a log line);
* a store folder that others may read or write is refused (:class:`OpenStoreFolder`, with the
  ``chmod`` line that fixes it): the server does not change a folder it did not make.
"""

from __future__ import annotations

import logging
import os
import shlex
import stat
from pathlib import Path

from ..errors import StoreError

__all__ = ["PRIVATE_DIR_MODE", "PRIVATE_FILE_MODE", "STORE_FILE_SUFFIXES", "OpenStoreFolder", "make_private_folder",
           "check_private_folder", "private_store_files", "prepare_private_store", "open_to_others"]

log = logging.getLogger(__name__)

PRIVATE_DIR_MODE = 0o700
PRIVATE_FILE_MODE = 0o600
#: The files of one SQLite store: the database, its write-ahead log, its shared-memory index, a rollback journal.
STORE_FILE_SUFFIXES = ("", "-wal", "-shm", "-journal")
#: Group or other users may read or write (execute alone lets them pass through, not list or read).
_OPEN_BITS = stat.S_IRGRP | stat.S_IWGRP | stat.S_IROTH | stat.S_IWOTH


class OpenStoreFolder(StoreError):
    """The store's folder can be read or written by other users (message: the command that fixes it)."""

    code = "store_folder_open"


def open_to_others(path: Path) -> bool:
    """True if users other than the owner may read or write ``path``."""
    return bool(os.stat(path).st_mode & _OPEN_BITS)


def make_private_folder(folder: Path) -> None:
    """Create ``folder`` and any missing parent, each ``0700`` (existing folders are left as they are)."""
    missing: list[Path] = []
    here = folder
    while not here.exists():
        missing.append(here)
        if here.parent == here:
            break
        here = here.parent
    for level in reversed(missing):
        try:
            os.mkdir(level, PRIVATE_DIR_MODE)
        except FileExistsError:
            continue  # another process made it first: checked below like any existing folder
        os.chmod(level, PRIVATE_DIR_MODE)  # the umask may have narrowed it; never widened


def check_private_folder(folder: Path) -> None:
    """Refuse (:class:`OpenStoreFolder`) a folder other users may read or write."""
    if open_to_others(folder):
        mode = stat.S_IMODE(os.stat(folder).st_mode)
        raise OpenStoreFolder(  # untranslated: developer-only (the terminal of whoever starts the server)
            f"The table store's folder {folder} can be read or written by other users (mode {mode:o}); "
            f"the store holds every table's hidden words. Make it private, then start again:\n"
            f"    chmod 700 {shlex.quote(str(folder))}")


def private_store_files(db_path: Path) -> None:
    """Narrow the store's existing files (database, ``-wal``, ``-shm``, journal) that this account owns to ``0600``."""
    for suffix in STORE_FILE_SUFFIXES:
        path = Path(f"{db_path}{suffix}")
        try:
            info = os.stat(path)
        except FileNotFoundError:
            continue
        if stat.S_IMODE(info.st_mode) & 0o077 and info.st_uid == os.geteuid():
            os.chmod(path, PRIVATE_FILE_MODE)
            log.warning("store file %s was mode %o: now %o", path, stat.S_IMODE(info.st_mode), PRIVATE_FILE_MODE)


def prepare_private_store(db_path: str | os.PathLike[str]) -> Path:
    """Make ``db_path``'s folder (``0700``) and file (``0600``) if missing, refuse an open folder,
    narrow the store's files; the absolute path."""
    path = Path(db_path).expanduser().resolve()
    try:
        make_private_folder(path.parent)
    except OSError as exc:
        raise StoreError("Cannot create the folder for the table store {path}: {detail}",
                         params={"path": str(path), "detail": str(exc)}) from None
    check_private_folder(path.parent)
    if not path.exists():
        try:
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT, PRIVATE_FILE_MODE))
        except OSError as exc:
            raise StoreError("Cannot create the folder for the table store {path}: {detail}",
                             params={"path": str(path), "detail": str(exc)}) from None
    private_store_files(path)
    return path
