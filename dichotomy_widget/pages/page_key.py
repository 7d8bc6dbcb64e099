"""A page's own key for shutting its kernel down: knowing a kernel's id (or sharing its device) is not enough.

Voila's page shuts its kernel down on unload with a beacon to ``/voila/api/shutdown/<kernel>``. The
server (:class:`~.bounded_kernels.BoundedKernelManager`) makes a fresh random key for each page kernel
when it starts it (or hands a pool kernel to a page: :func:`.pooled_voila.request_info`), gives it to
that kernel only (``$DICHOTOMY_PAGE_KEY``) and keeps it beside the kernel id. The kernel tells its own
page the key (the :class:`~.app.UrlQuery` widget's answer to the page's first ping), the page adds it to
voila's beacon (field ``dichotomy_page_key``), and the shutdown handler
(:class:`~.pooled_voila.OwnerShutdownHandler`) refuses any request without the kernel's key: another
tab, another student behind the same school router, or a script that learnt the id.
"""

from __future__ import annotations

import hmac
import os
import secrets
from typing import Mapping

__all__ = ["PAGE_KEY_ENV", "PAGE_KEY_FIELD", "new_page_key", "page_key", "same_key"]

PAGE_KEY_ENV = "DICHOTOMY_PAGE_KEY"
#: The form field of the shutdown beacon that carries the key.
PAGE_KEY_FIELD = "dichotomy_page_key"


def new_page_key() -> str:
    """A fresh random key for one page kernel (32 URL-safe characters)."""
    return secrets.token_urlsafe(24)


def page_key(env: Mapping[str, str] | None = None) -> str:
    """This page kernel's key, or ``""`` where the server gave none (a notebook, a test)."""
    value = (os.environ if env is None else env).get(PAGE_KEY_ENV, "")
    return value if 16 <= len(value) <= 64 else ""


def same_key(expected: str | None, given: str | None) -> bool:
    """Whether ``given`` is the kernel's key (compared in constant time; no key never matches)."""
    if not expected or not isinstance(given, str) or not given:
        return False
    return hmac.compare_digest(expected.encode(), given.encode("utf-8", "surrogatepass"))
