"""The one logging policy: a log line says what failed and names the error by its class and stable code
(or, for an unexpected error, the line that raised it), never by its message, which may quote a word a
seat must not see (a Target, a Foil, a clue). Every module logs a caught error through
:func:`log_failure` (or puts :func:`failure` in its own line); ``tests/test_logging.py`` checks that no
module logs an exception object, its message or its traceback text any other way.
"""

from __future__ import annotations

import errno
import logging
import traceback

from .errors import DichotomyError, where

__all__ = ["failure", "log_failure"]


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
    line = f"{what} (%s)"
    if isinstance(err, DichotomyError) or err.__traceback__ is None:
        logger.log(level, line, *args, failure(err), stacklevel=2)
    else:
        logger.log(level, line + "\n%s", *args, failure(err), _frames(err), stacklevel=2)
