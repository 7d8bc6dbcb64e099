"""Where a language's lexicon table lives, and building it when its text sources changed.

A wheel carries the tables ready-built (``hatch_build.py`` compiles them and leaves the text out).
A source checkout or an editable install builds a language's table on first use
(``table_build``), next to its sources when that folder is writable and in the user's cache
otherwise, under a file lock so that kernels starting together build it once. A table records the
sources it was built from (their sizes and modification times, and a hash of their text); when
they change, the next use builds it again.
"""

from __future__ import annotations

import logging
import os
import sqlite3
from collections.abc import Iterable
from pathlib import Path

from ..errors import DependencyMissing
from ..logs import failure, log_failure
from .table_build import LANGUAGES, build_table, digest, source_files, stamp

__all__ = ["LANGUAGES", "SOURCES_DIR", "prepare", "stale", "table_path"]

log = logging.getLogger(__name__)

#: Where the text sources (and, in a source checkout, the built tables) live.
SOURCES_DIR = Path(__file__).parent  # absolute already (no resolve(): a syscall per part, on every kernel)
#: Seconds a process waits for another one building the same table.
LOCK_TIMEOUT = 900


def _meta(path: Path) -> dict[str, str]:
    """A table's ``meta`` rows ({} if it is missing or unreadable)."""
    if not path.is_file():
        return {}
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True)
        try:
            return dict(db.execute("SELECT key, value FROM meta").fetchall())
        finally:
            db.close()
    except sqlite3.Error as exc:
        log.warning("word table %s is unreadable (%s); building it again", path, failure(exc))
        return {}


def _current(path: Path, files: list[Path], known: list[str]) -> bool:
    """Was ``path`` built from these sources? The stamp first; when it differs (a checkout rewrote
    the files), their hash, computed once into ``known``."""
    meta = _meta(path)
    if not meta:
        return False
    if meta.get("stamp") == stamp(files):
        return True
    if not known:
        known.append(digest(files))
    return meta.get("sha256") == known[0]


def _cache_dir() -> Path:
    override = os.environ.get("DICHOTOMY_WORDS_CACHE")
    if override:
        return Path(override)
    import platformdirs

    return Path(platformdirs.user_cache_dir("dichotomy_widget")) / "wordsdata"


def _built(lang: str, folder: Path, files: list[Path], known: list[str]) -> Path | None:
    """The table of ``lang`` already built from ``files``: beside them, else in the cache; None if neither."""
    shipped = folder / f"{lang}.sqlite"
    if _current(shipped, files, known):
        return shipped
    cached = _cache_dir() / f"{lang}.sqlite"  # (platformdirs is imported only here)
    return cached if _current(cached, files, known) else None


def table_path(lang: str, folder: Path | None = None) -> Path:
    """The table of ``lang`` built from the current sources, building it first if needed.

    A folder without text sources for ``lang`` (a wheel, where the tables come built) gives its
    ``<lang>.sqlite`` as it is. Raises ``DependencyMissing`` when neither is there, or when the
    table cannot be built (no writable place, a lock held too long)."""
    folder = SOURCES_DIR if folder is None else folder
    shipped = folder / f"{lang}.sqlite"
    files = source_files(lang, folder)
    if not files:
        if shipped.is_file():
            return shipped
        raise DependencyMissing("The {lang} word list ({file}) is missing from this installation, so "
                                "clues cannot be compared. Reinstall dichotomy_widget.",
                                params={"lang": lang, "file": shipped.name})
    known: list[str] = []
    built = _built(lang, folder, files, known)
    if built is not None:
        return built
    target = shipped if os.access(folder, os.W_OK) else _cache_dir() / f"{lang}.sqlite"
    from filelock import FileLock, Timeout

    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        with FileLock(str(target) + ".lock", timeout=LOCK_TIMEOUT):
            if not _current(target, files, known):  # another process may have built it meanwhile
                log.info("building the %s word table from its sources (first use)", lang)
                build_table(lang, target, folder)
    except (OSError, Timeout, sqlite3.Error) as exc:
        log_failure(log, "could not build the %s word table at %s", exc, lang, target)
        raise DependencyMissing("The {lang} word list could not be prepared ({file}), so clues cannot "
                                "be compared. Check that the folder is writable and has free space.",
                                params={"lang": lang, "file": target.name}) from exc
    return target


def stale(langs: Iterable[str] = LANGUAGES, folder: Path | None = None) -> list[str]:
    """The languages whose table must be built before use (their sources changed, or no table yet)."""
    folder = SOURCES_DIR if folder is None else folder
    out = []
    for lang in langs:
        files = source_files(lang, folder)
        if files and _built(lang, folder, files, []) is None:
            out.append(lang)
    return out


def prepare(langs: Iterable[str] = LANGUAGES) -> dict[str, Path]:
    """Make sure every table is built (``dichotomy serve`` and the test session call it at start)."""
    return {lang: table_path(lang) for lang in langs}
