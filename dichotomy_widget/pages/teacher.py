"""Who may create tables (and classes): the optional teacher key of ``dichotomy serve``.

``dichotomy serve --teacher-key KEY`` (or ``--teacher-key-file PATH``) hands the key to the page kernels
in :data:`TEACHER_KEY_ENV`. When it is set, a host page asks for the key once and creating a table needs
it; without it anyone who can open the host page can create a table (as before). The key is compared
with :func:`hmac.compare_digest` and never put in a URL, a synced trait or a log line.

Other code (e.g. a class creation form) calls :func:`require_teacher` with what the teacher typed.
This module imports nothing heavy: ``dichotomy serve`` uses it too.
"""

from __future__ import annotations

import hmac
import os
from pathlib import Path
from typing import Mapping

from ..config import TEACHER_KEY_ENV
from ..errors import DichotomyError, TeacherKeyRequired

__all__ = ["TEACHER_KEY_ENV", "MIN_KEY_LENGTH", "teacher_key", "key_required", "is_teacher",
           "require_teacher", "read_key_file", "check_key"]

MIN_KEY_LENGTH = 6
MAX_KEY_LENGTH = 200


def teacher_key(env: Mapping[str, str] | None = None) -> str | None:
    """The teacher key the server was started with, or None (no key: anyone may create tables)."""
    value = (os.environ if env is None else env).get(TEACHER_KEY_ENV, "")
    return value or None


def key_required(env: Mapping[str, str] | None = None) -> bool:
    """Whether creating a table needs the teacher key."""
    return teacher_key(env) is not None


def is_teacher(typed: object, env: Mapping[str, str] | None = None) -> bool:
    """True when no key is set, or ``typed`` is the key (constant-time comparison)."""
    key = teacher_key(env)
    if key is None:
        return True
    if not isinstance(typed, str) or not typed or len(typed) > MAX_KEY_LENGTH:
        return False
    return hmac.compare_digest(typed.encode("utf-8", "surrogatepass"), key.encode("utf-8", "surrogatepass"))


def require_teacher(typed: object, env: Mapping[str, str] | None = None, for_class: bool = False) -> None:
    """Raise :class:`TeacherKeyRequired` unless :func:`is_teacher`; the message never repeats the key.
    ``for_class``: the key is asked to create a class (the message says so)."""
    if not is_teacher(typed, env):
        if not typed:
            if for_class:
                raise TeacherKeyRequired("Creating a class needs the teacher key: type it first.")
            raise TeacherKeyRequired("Creating a table needs the teacher key: type it first.")
        raise TeacherKeyRequired("That is not the teacher key. Check it and try again.")


def check_key(key: str, where: str = "--teacher-key") -> str:
    """A usable key (surrounding spaces and a final newline removed), or :class:`DichotomyError`."""
    key = key.strip()
    if len(key) < MIN_KEY_LENGTH or len(key) > MAX_KEY_LENGTH or any(ord(ch) < 32 for ch in key):
        raise DichotomyError("{where}: a teacher key is {low} to {high} characters on one line.",
                             code="bad_teacher_key", params={"where": where, "low": MIN_KEY_LENGTH,
                                                             "high": MAX_KEY_LENGTH})
    return key


def read_key_file(path: "str | os.PathLike[str]") -> str:
    """The teacher key stored in a file (its first line)."""
    try:
        text = Path(path).expanduser().read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise DichotomyError(f"--teacher-key-file: cannot read {path} ({exc.__class__.__name__}).",
                             code="bad_teacher_key") from None
    lines = text.splitlines()
    return check_key(lines[0] if lines else "", "--teacher-key-file")
