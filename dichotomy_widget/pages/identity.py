"""Who is at a page: one strategy, chosen once per page from the environment (:func:`page_identity`).

* :class:`LinkIdentity` (``dichotomy serve``, a notebook): the secret token in the page's link is who
  you are. A player types a name; joining draws a fresh random token, and whoever holds the link is
  that player.
* :class:`HubUserIdentity` (``dichotomy hub-service`` behind JupyterHub): the hub user the service
  signed (:func:`.hub_identity.current_identity`). There is no name box (the seat or student name is
  the hub name), a token is derived from the hub user and the table or class, and a link that holds
  another user's token is refused (:meth:`HubUserIdentity.owns`).

Pages ask the strategy, never the environment: :meth:`problem` (a refusal before anything shows),
:meth:`token` / :meth:`owns` (tokens), :meth:`names` (no name box when it has some), :meth:`may_host`,
:meth:`framed` (the "Signed in as" bar) and :meth:`remember` (the hub start page's list).
"""

from __future__ import annotations

import hmac
import html
import logging
import os
from typing import Mapping, Sequence, Union

import ipywidgets as W

from ..errors import DichotomyError
from ..i18n import N_, Translator
from ..rules import MAX_NAME_LENGTH, clean_name
from ..stores import TableStore
from .hub_identity import (HubIdentity, HubIdentityError, current_identity, hub_library_secret, hub_mode,
                           hub_secret, hub_seat_token, hub_student_token)

__all__ = ["LinkIdentity", "HubUserIdentity", "PageIdentity", "page_identity", "hub_names"]

log = logging.getLogger(__name__)

#: Kinds of token a page asks for: a seat at a table, a student in a class.
TOKEN_KINDS = ("table", "class")

_NO_IDENTITY = (N_("Open Dichotomy through the hub"),
                N_("This page did not come through the hub's sign-in. Open the game from the hub "
                   "(Services → Dichotomy) or with the join link again."))


def hub_names(user: HubIdentity) -> list[str]:
    """Names to try for a hub user's seat or place in a class, best first: display name, then user name."""
    names: list[str] = []
    for candidate in (user.display_name, user.name):
        try:
            name = clean_name(candidate[:MAX_NAME_LENGTH])
        except DichotomyError:
            continue
        if name not in names:
            names.append(name)
    return names


class LinkIdentity:
    """No hub: the link's token is the identity, the player types a name, anyone may host."""

    hub = False
    user: HubIdentity | None = None
    secret: bytes | None = None
    bar: W.HTML | None = None

    def problem(self, tr: Translator) -> tuple[str, str] | None:
        """Why this page may not show at all (title, body), or None."""
        return None

    def token(self, kind: str, code: str) -> str | None:
        """This user's own token at table or class ``code``; None: joining draws a random one."""
        return None

    def owns(self, kind: str, code: str, token: str | None) -> bool:
        """Whether a link's ``token`` may be used on this page (here: holding the link is the proof)."""
        return True

    def names(self) -> list[str]:
        """Names this user plays under, best first; empty: the page asks with a name box."""
        return []

    def may_host(self) -> bool:
        """Whether this user may create or run tables and classes (a teacher key may still be asked)."""
        return True

    def framed(self, children: Sequence[W.Widget], tr: Translator) -> list[W.Widget]:
        """``children`` with whatever this identity shows on every page (here: nothing)."""
        return list(children)

    def remember(self, store: TableStore, kind: str, role: str, code: str, token: str = "") -> bool:
        """Note a visit for the hub start page's list (here: there is no such list)."""
        return False

    def library_secret(self) -> str | None:
        """The key of this user's saved decks when they follow the account (here: None, one browser's)."""
        return None


class HubUserIdentity:
    """Behind JupyterHub: the signed-in hub user (``user`` is None when the page has no valid identity)."""

    hub = True

    def __init__(self, user: HubIdentity | None, secret: bytes | None,
                 env: Mapping[str, str] | None = None) -> None:
        self.user = user
        self.secret = secret
        self._prefix = (os.environ if env is None else env).get("JUPYTERHUB_SERVICE_PREFIX", "/")
        self.bar = W.HTML()
        self.bar.add_class("dichotomy-hub-bar")

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> "HubUserIdentity":
        """The page's verified hub user, or one with ``user=None`` (its pages refuse) when unsigned."""
        try:
            return cls(current_identity(env), hub_secret(env), env)
        except HubIdentityError as exc:
            log.warning("page without a valid hub identity: %s", exc.code)
            return cls(None, None, env)

    def problem(self, tr: Translator) -> tuple[str, str] | None:
        if self.user is None or self.secret is None:
            return tr.gettext(_NO_IDENTITY[0]), tr.gettext(_NO_IDENTITY[1])
        return None

    def token(self, kind: str, code: str) -> str | None:
        if self.user is None or self.secret is None:
            return None
        if kind == "table":
            return hub_seat_token(self.secret, code, self.user.name)
        if kind == "class":
            return hub_student_token(self.secret, code, self.user.name)
        raise ValueError(f"unknown token kind {kind!r}")

    def owns(self, kind: str, code: str, token: str | None) -> bool:
        """A link's token is usable only if it is this hub user's own (no token: nothing to check)."""
        if token is None:
            return True
        mine = self.token(kind, code)
        return mine is not None and hmac.compare_digest(token.encode(), mine.encode())

    def names(self) -> list[str]:
        return hub_names(self.user) if self.user is not None else []

    def may_host(self) -> bool:
        return self.user is not None and self.user.host

    def framed(self, children: Sequence[W.Widget], tr: Translator) -> list[W.Widget]:
        """"Signed in to the hub as Ana · Sign out" after the page's first widget (its address), once:
        a classroom computer is often shared."""
        who = html.escape(self.user.display_name if self.user else tr.gettext("nobody"))
        logout = html.escape(self._prefix.rstrip("/") + "/logout", quote=True)
        value = ('<p class="dichotomy-hub-user">'
                 + html.escape(tr.gettext("Signed in to the hub as {name}")).format(name=f"<b>{who}</b>")
                 + f' · <a href="{logout}">' + html.escape(tr.gettext("Sign out")) + "</a></p>")
        if self.bar.value != value:
            self.bar.value = value
        rest = [c for c in children if c is not self.bar]
        return [*rest[:1], self.bar, *rest[1:]]

    def remember(self, store: TableStore, kind: str, role: str, code: str, token: str = "") -> bool:
        from .hub_history import remember

        if self.user is None or self.secret is None:
            return False
        return remember(store, self.secret, self.user.name, kind, role, code, token)

    def library_secret(self) -> str | None:
        if self.user is None or self.secret is None:
            return None
        return hub_library_secret(self.secret, self.user.name)


PageIdentity = Union[LinkIdentity, HubUserIdentity]


def page_identity(env: Mapping[str, str] | None = None) -> PageIdentity:
    """The identity strategy of a page in ``env`` (default: this kernel's environment)."""
    return HubUserIdentity.from_env(env) if hub_mode(env) else LinkIdentity()
