"""Which device a page kernel serves: a tag the server hands each page kernel it bounds per device.

The server (:class:`~.bounded_kernels.BoundedKernelManager`) knows each page request's client address;
it gives the kernel started for that page (or the pool kernel handed to it) ``$DICHOTOMY_DEVICE``: a
short hash of the address, never the address itself. The teacher's own computer and servers that do
not bound devices give ``""``: no per-device bound applies there (the per-page ones still do).
"""

from __future__ import annotations

import hashlib
import os
from typing import Mapping

__all__ = ["DEVICE_ENV", "device_tag", "page_device"]

DEVICE_ENV = "DICHOTOMY_DEVICE"


def device_tag(address: str) -> str:
    """The tag of a client address: 16 hex digits of its SHA-256 (the same address, the same tag)."""
    return hashlib.sha256(f"dichotomy-device:{address}".encode()).hexdigest()[:16]


def page_device(env: Mapping[str, str] | None = None) -> str:
    """This page's device tag, or ``""`` where devices are not bounded."""
    value = (os.environ if env is None else env).get(DEVICE_ENV, "")
    return value if len(value) == 16 and all(c in "0123456789abcdef" for c in value) else ""
