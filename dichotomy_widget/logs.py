"""The one logging policy: a log line says what failed and names the error by its class and stable code
(or, for an unexpected error, the line that raised it), never by its message, which may quote a word a
seat must not see (a Target, a Foil, a clue). Every module logs a caught error through
:func:`log_failure` (or puts :func:`failure` in its own line); ``tests/test_logging.py`` checks that no
module logs an exception object, its message or its traceback text any other way.
"""

from __future__ import annotations

import errno
import logging
import os
import sys
import traceback
from typing import Any, Callable, Sequence

from .errors import DichotomyError, where

__all__ = ["failure", "log_failure", "TEACHER_LOG", "announce", "refused", "teacher_lines", "TEACHER_LINES",
           "served_logging", "KERNEL_LOG_ENV"]

#: The teacher's lines: one per thing a teacher running ``dichotomy serve`` may need (a class created, a
#: student joined or refused, tables made, a table started). Names, codes and numbers only: never a word.
TEACHER_LOG = "dichotomy_widget.teacher"
#: Set in the environment of every kernel ``dichotomy serve`` starts (``widgets/widget_code.py``).
_SERVED_ENV = "DICHOTOMY_WIDGET_CODE"
_FORMAT = "[Dichotomy %(asctime)s] %(message)s"
#: A file every kernel of ``dichotomy serve`` also appends all of this package's INFO lines to, with the
#: process and thread (for troubleshooting a kernel; the terminal keeps the teacher's lines and warnings).
KERNEL_LOG_ENV = "DICHOTOMY_KERNEL_LOG"
_KERNEL_FORMAT = "[%(asctime)s %(process)d %(threadName)s] %(levelname)s %(name)s: %(message)s"


def served_logging(env: "dict[str, str] | os._Environ[str] | None" = None) -> bool:
    """In a kernel of ``dichotomy serve``: the teacher's lines and every warning or error of this package
    go to the server's terminal (the kernel's own stderr, not the page), once per process. True if they
    do."""
    environ = os.environ if env is None else env
    if environ.get(_SERVED_ENV) != "served":
        return False
    package = logging.getLogger("dichotomy_widget")
    if not any(getattr(h, "_dichotomy_served", False) for h in package.handlers):
        handler = logging.StreamHandler(sys.__stderr__)
        handler.setFormatter(logging.Formatter(_FORMAT, "%H:%M:%S"))
        handler.setLevel(logging.INFO)
        handler.addFilter(lambda r: r.levelno >= logging.WARNING or r.name == TEACHER_LOG)
        handler._dichotomy_served = True  # type: ignore[attr-defined]
        package.addHandler(handler)  # found on the way up: the root logger's last resort stays silent
        _add_kernel_log(package, environ.get(KERNEL_LOG_ENV, ""))
        if package.level == logging.NOTSET or package.level > logging.INFO:
            package.setLevel(logging.INFO)
    return True


def _add_kernel_log(package: logging.Logger, path: str) -> None:
    """Append every INFO line of the package to ``path`` too (:data:`KERNEL_LOG_ENV`), if set."""
    if not path:
        return
    try:
        handler = logging.FileHandler(path, encoding="utf-8")
    except OSError as exc:
        package.warning("cannot write the kernel log %s (%s)", path, failure(exc))
        return
    handler.setFormatter(logging.Formatter(_KERNEL_FORMAT))
    handler.setLevel(logging.INFO)
    package.addHandler(handler)


#: The teacher's line for each kind of class event (by its type), from the event and the class's log name.
TEACHER_LINES: dict[str, Callable[[str, Any], str]] = {
    "ClassCreated": lambda n, e: f"{n} created: {e.name!r}, tables of {e.table_size}, {e.options.rounds} rounds",
    "StudentJoined": lambda n, e: f"{n}: {e.name!r} joined",
    "StudentRemoved": lambda n, e: f"{n}: student {e.student} removed",
    "TablesMade": lambda n, e: (f"{n}: tables made: {len(e.tables)} "
                                f"(students at each: {', '.join(str(len(t)) for t in e.tables)})"),
    "TableAdded": lambda n, e: f"{n}: table {e.number} added",
    "StudentMoved": lambda n, e: f"{n}: student {e.student} seated at table {e.table}",
    "TableStarted": lambda n, e: f"{n}: table {e.number} started (table code {e.code})",
    "TablePlayedAgain": lambda n, e: f"{n}: table {e.number} plays again (table code {e.code})",
    "ClassEnded": lambda n, e: f"{n} ended by the teacher",
}


def teacher_lines(log_name: str, events: Sequence[Any]) -> list[str]:
    """The teacher's lines for ``events`` just appended to the stream ``log_name`` names (a class): one
    per event of a kind :data:`TEACHER_LINES` has (a table's events have none)."""
    return [TEACHER_LINES[e.type](log_name, e) for e in events if getattr(e, "type", "") in TEACHER_LINES]


def announce(log_name: str, events: Sequence[Any]) -> None:
    """Log the teacher's lines for ``events`` (see :func:`teacher_lines`) at INFO."""
    lines = teacher_lines(log_name, events)
    if lines:
        served_logging()
        log = logging.getLogger(TEACHER_LOG)
        for line in lines:
            log.info("%s", line)


def refused(log_name: str, name: object, err: BaseException) -> None:
    """The teacher's line for a student refused at the door: the name tried and the refusal's code."""
    served_logging()
    logging.getLogger(TEACHER_LOG).info("%s: a student joining as %r was refused (%s)", log_name,
                                        str(name)[:60], failure(err))


def failure(err: BaseException) -> str:
    """``StoreError store_busy``, ``OSError ENOSPC at sqlite.py:88 (append)`` or ``KeyError at
    table.py:201 (_execute)``: what an error is, without its message."""
    if isinstance(err, DichotomyError):
        return f"{type(err).__name__} {err.code}"
    if isinstance(err, OSError) and err.errno in errno.errorcode:
        name = errno.errorcode[err.errno]
        return where(err).replace(type(err).__name__, f"{type(err).__name__} {name}", 1)
    return where(err)


def _frames(err: BaseException) -> str:
    """The traceback's frames as ``file:line (function)``: neither the exception's message nor the
    source lines (a notebook cell's source may hold a deck's words)."""
    return "\n".join(f"  {frame.filename}:{frame.lineno} ({frame.name})"
                     for frame in traceback.extract_tb(err.__traceback__))


def log_failure(logger: logging.Logger, what: str, err: BaseException, *args: object,
                level: int = logging.ERROR) -> None:
    """Log ``what % args`` at ``level`` with :func:`failure` of ``err``; an unexpected error (not a
    :class:`DichotomyError`) also gets its traceback's frames (file, line, function: no message, no
    source line)."""
    served_logging()
    line = f"{what} (%s)"
    if isinstance(err, DichotomyError) or err.__traceback__ is None:
        logger.log(level, line, *args, failure(err), stacklevel=2)
    else:
        logger.log(level, line + "\n%s", *args, failure(err), _frames(err), stacklevel=2)
