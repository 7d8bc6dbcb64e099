"""Which tables and classes a hub user hosted, taught or sat at: the list on the hub landing page.

An event-sourced stream in the ordinary table store (like the saved decks of
:mod:`dichotomy_widget.deck_library`): ``hub-visits:<owner>``, where ``<owner>`` is derived from the
service's secret and the hub user name, so nobody without the secret can tell whose list a stream is.
Each event (``Visited``) names a table or class, the user's role there and when they first came; a
page records a visit once (:func:`remember`), when the user is known to hold that role (a seat taken,
a table hosted with its token).

A host's or teacher's link needs its secret token. The stream keeps that token only encrypted under
the service's secret (XOR with an HMAC-SHA256 key stream of secret, user and code), so a copy of the
store alone gives nobody a host link. Seat tokens of hub users are derived anyway
(:func:`.hub_identity.hub_seat_token`) and are not kept.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import logging
import time
from dataclasses import dataclass
from typing import Mapping

from ..errors import TableExists, TableNotFound, VersionConflict
from ..stores import TableStore
from ..logs import log_failure

__all__ = ["Visit", "remember", "remember_page", "visits", "stream_id", "KINDS", "ROLES", "HISTORY_PREFIX", "MAX_VISITS"]

log = logging.getLogger(__name__)

HISTORY_PREFIX = "hub-visits:"
VISITED = "Visited"
EVENT_VERSION = 1
#: What a visit is to, and as whom.
KINDS = ("table", "class")
ROLES = ("host", "seat", "teacher", "student")
#: The landing page lists at most this many of each kind (newest first).
MAX_VISITS = 12
_MAX_RETRIES = 20


@dataclass(frozen=True)
class Visit:
    """A table or class (``kind``, ``code``) where the user was ``role`` since ``at`` (unix seconds);
    ``token``: the host or teacher token (decrypted), the student's class token, or ``""``."""

    kind: str
    role: str
    code: str
    at: float
    token: str = ""


def _mac(secret: bytes, *parts: str) -> bytes:
    return hmac.new(secret, b"\x00".join(p.encode("utf-8") for p in parts), hashlib.sha256).digest()


def stream_id(secret: bytes, user: str) -> str:
    """The store stream holding ``user``'s visits (not a valid table code: it has a colon)."""
    return HISTORY_PREFIX + _mac(secret, "visits", user).hex()[:40]


def _pad(secret: bytes, user: str, code: str, size: int) -> bytes:
    out = b""
    block = 0
    while len(out) < size:
        out += _mac(secret, "visit-token", user, code, str(block))
        block += 1
    return out[:size]


def _seal(secret: bytes, user: str, code: str, token: str) -> str:
    data = token.encode("utf-8")
    return base64.urlsafe_b64encode(bytes(a ^ b for a, b in zip(data, _pad(secret, user, code, len(data))))).decode()


def _open(secret: bytes, user: str, code: str, sealed: str) -> str:
    try:
        data = base64.urlsafe_b64decode(sealed.encode("ascii"))
        return bytes(a ^ b for a, b in zip(data, _pad(secret, user, code, len(data)))).decode("utf-8")
    except (ValueError, UnicodeError):
        return ""


def _load(store: TableStore, stream: str) -> list[dict]:
    try:
        return [r.payload for r in store.load(stream) if r.type == VISITED]
    except TableNotFound:
        return []


def visits(store: TableStore, secret: bytes, user: str) -> list[Visit]:
    """``user``'s visits, newest first (one per kind, role and code)."""
    out = []
    for p in _load(store, stream_id(secret, user)):
        if p.get("kind") not in KINDS or p.get("role") not in ROLES or not isinstance(p.get("code"), str):
            continue
        out.append(Visit(kind=p["kind"], role=p["role"], code=p["code"], at=float(p.get("at", 0.0)),
                         token=_open(secret, user, p["code"], str(p.get("token", "")))))
    return sorted(out, key=lambda v: -v.at)


def remember(store: TableStore, secret: bytes, user: str, kind: str, role: str, code: str, token: str = "") -> bool:
    """Record that ``user`` is ``role`` at ``kind`` ``code`` (once); True if a new visit was written.
    A store failure is logged and does not stop the page (the list is a convenience)."""
    if kind not in KINDS or role not in ROLES:
        raise ValueError(f"unknown visit {kind!r}/{role!r}")
    stream = stream_id(secret, user)
    payload = {"v": EVENT_VERSION, "kind": kind, "role": role, "code": code, "at": time.time(),
               "token": _seal(secret, user, code, token) if token else ""}
    try:
        for _ in range(_MAX_RETRIES):
            records = store.load(stream) if store.table_exists(stream) else []
            if any(r.payload.get("kind") == kind and r.payload.get("role") == role and r.payload.get("code") == code
                   for r in records):
                return False
            if not records:
                try:
                    store.create_table(stream, {"kind": "hub-visits"})
                except TableExists:
                    pass
            try:
                store.append(stream, records[-1].seq if records else 0, [(VISITED, payload)])
                return True
            except VersionConflict:
                continue
    except Exception as err:  # noqa: BLE001 - the list on the landing page is a convenience; the game goes on
        log_failure(log, "could not record a hub user's visit to %s %s", err, kind, code)
    return False


def remember_page(store: TableStore, kind: str, role: str, code: str, token: str = "",
                  env: Mapping[str, str] | None = None) -> bool:
    """:func:`remember` for the signed-in hub user of this page; False (nothing written) outside a hub
    or without a valid hub identity. For pages that are not hub-specific (the class pages)."""
    from .hub_identity import HubIdentityError, current_identity, hub_mode, hub_secret

    if not hub_mode(env):
        return False
    try:
        identity, secret = current_identity(env), hub_secret(env)
    except HubIdentityError:
        return False
    return remember(store, secret, identity.name, kind, role, code, token)
