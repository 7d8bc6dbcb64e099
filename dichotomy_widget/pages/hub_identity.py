"""Who is at this page, when Dichotomy runs as a JupyterHub service (kernel side, standard library only).

The service process (``dichotomy hub-service``, see :mod:`dichotomy_widget.server.hub_auth`) checks every
request with the hub's OAuth. For a page request it replaces the ``X-Dichotomy-Identity`` request
header with the hub user it authenticated, signed with HMAC-SHA256 under the service's secret
(``$DICHOTOMY_HUB_SECRET``); any such header the browser sent is dropped first. Voila copies that one
header into the new kernel's environment (``VoilaConfiguration.http_header_envs``) as
``$HTTP_X_DICHOTOMY_IDENTITY``; the page code in the kernel verifies the signature here before it
trusts the name. A browser cannot set a kernel's environment otherwise, and cannot run code in it
(voila refuses ``execute_request``), so it cannot pose as another hub user.

A hub seat's secret token is derived, not random: ``HMAC(secret, "seat", table code, hub user name)``.
The same hub user therefore gets the same token, and so the same seat, on any device, and nobody can
compute another user's token without the secret. The seat link's ``seat=`` value only names a seat;
the page checks that it is the signed-in user's own before showing it. A student's class token is
derived the same way (:func:`hub_student_token`), so a class link works only for its own hub user.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
from dataclasses import dataclass
from typing import Mapping

from ..config import HUB_ENV, HUB_IDENTITY_ENV as IDENTITY_ENV, HUB_IDENTITY_HEADER as IDENTITY_HEADER
from ..config import HUB_SECRET_ENV as SECRET_ENV
from ..errors import HubIdentityError

__all__ = ["HubIdentity", "HubIdentityError", "HUB_ENV", "SECRET_ENV", "IDENTITY_HEADER", "IDENTITY_ENV",
           "hub_mode", "hub_secret", "sign_identity", "verify_identity", "current_identity", "hub_seat_token",
           "hub_student_token", "hub_library_secret", "HOME_PAGE"]

MIN_SECRET_LENGTH = 16
#: The service's landing page (pages/hub_home.py); the service's base URL leads there (server/hub_auth.py).
HOME_PAGE = "home.ipynb"


@dataclass(frozen=True)
class HubIdentity:
    """A hub user as the service authenticated them: unique ``name``, shown ``display_name``, may host."""

    name: str
    display_name: str
    host: bool = False

    def to_json(self) -> dict:
        return {"u": self.name, "n": self.display_name, "h": bool(self.host)}


def hub_mode(env: Mapping[str, str] | None = None) -> bool:
    """True when the pages run as a JupyterHub service (``$DICHOTOMY_HUB`` is set and not 0)."""
    env = os.environ if env is None else env
    return env.get(HUB_ENV, "").strip().lower() not in ("", "0", "false", "no")


def hub_secret(env: Mapping[str, str] | None = None) -> bytes:
    """The signing secret from ``$DICHOTOMY_HUB_SECRET``; :class:`HubIdentityError` if missing or short."""
    env = os.environ if env is None else env
    secret = env.get(SECRET_ENV, "").strip()
    if len(secret) < MIN_SECRET_LENGTH:
        raise HubIdentityError(f"The service has no {SECRET_ENV} (at least {MIN_SECRET_LENGTH} characters).",
                               code="hub_secret")
    return secret.encode("utf-8")


def _mac(secret: bytes, *parts: str) -> bytes:
    message = b"\x00".join(p.encode("utf-8") for p in parts)
    return hmac.new(secret, message, hashlib.sha256).digest()


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode("ascii").rstrip("=")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def sign_identity(identity: HubIdentity, secret: bytes) -> str:
    """``payload.signature`` (both base64url) for the identity header."""
    payload = _b64(json.dumps(identity.to_json(), separators=(",", ":"), ensure_ascii=True).encode("ascii"))
    return f"{payload}.{_b64(_mac(secret, 'identity', payload))}"


def verify_identity(value: str | None, secret: bytes) -> HubIdentity:
    """The identity in a signed header value; :class:`HubIdentityError` unless the signature is right."""
    if not value or not isinstance(value, str) or len(value) > 4096 or value.count(".") != 1:
        raise HubIdentityError("This page was not opened through the hub.")
    payload, signature = value.split(".")
    try:
        good = hmac.compare_digest(_unb64(signature), _mac(secret, "identity", payload))
    except (ValueError, TypeError):
        good = False
    if not good:
        raise HubIdentityError("This page's hub identity is not valid.")
    try:
        data = json.loads(_unb64(payload))
        name, display = data["u"], data.get("n") or data["u"]
        if not isinstance(name, str) or not name or not isinstance(display, str):
            raise ValueError(name)
    except (ValueError, KeyError, TypeError) as exc:
        raise HubIdentityError("This page's hub identity is not valid.") from exc
    return HubIdentity(name=name, display_name=display, host=data.get("h") is True)


def current_identity(env: Mapping[str, str] | None = None) -> HubIdentity:
    """The verified hub identity of this kernel's page (voila put the signed header in its environment)."""
    env = os.environ if env is None else env
    return verify_identity(env.get(IDENTITY_ENV), hub_secret(env))


def hub_seat_token(secret: bytes, table_code: str, user: str) -> str:
    """The seat token of hub ``user`` at ``table_code`` (24 characters, like a random seat token)."""
    return _b64(_mac(secret, "seat", table_code, user))[:24]


def hub_student_token(secret: bytes, class_code: str, user: str) -> str:
    """The class token of hub ``user`` in class ``class_code`` (24 characters): their class link, and their
    seat at the class's table once it starts (the class seats a student with the hash of this token)."""
    return _b64(_mac(secret, "student", class_code, user))[:24]


def hub_library_secret(secret: bytes, user: str) -> str:
    """The key of hub ``user``'s saved-deck library (:class:`~dichotomy_widget.deck_library.DeckLibrary`):
    the same on every device, and nobody without the service's secret can compute it."""
    return _b64(_mac(secret, "decks", user))
