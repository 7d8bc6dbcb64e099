"""The hub's OAuth in the Dichotomy service process (voila), for ``dichotomy hub-service``.

Three small pieces plug into voila's jupyter_server machinery (``dichotomy hub-service`` configures
them; see docs/jupyterhub.md):

* :class:`HubIdentityProvider` (``Voila.identity_provider_class``): every request is authenticated by
  the hub (JupyterHub's own ``JupyterHubIdentityProvider``, i.e. ``HubOAuth``: a user without
  ``access:services!service=<name>`` gets 403). It then replaces the ``X-Dichotomy-Identity`` header
  with the signed identity of that user (see :mod:`.hub_identity`), which voila hands to a new page
  kernel, and refuses (403) any request about a kernel that another user's page started.
* :class:`HubKernelManager` (``VoilaConfiguration.multi_kernel_manager_class``): ``dichotomy serve``'s
  page bounds, counted per hub user, and which hub user's page started each kernel (from the signed
  identity in the kernel's environment).
* :class:`HubAuthorizer` (``Voila.authorizer_class``): JupyterHub's access-scope check.

The identity provider also routes pages (:func:`page_route`): voila's notebook list (the base URL,
``voila/tree``, the contents API) redirects to the start page (``home.ipynb``, :mod:`.hub_home`), and
the pages in :data:`HOST_ONLY_PAGES` answer a user without the host right with a short 403 page in the
browser's language, before any kernel starts.

Who may host: hub admins (unless ``$DICHOTOMY_HUB_ADMINS_HOST`` is ``0``) and members of the groups in
``$DICHOTOMY_HUB_HOST_GROUPS`` (comma separated).
"""

from __future__ import annotations

import html
import logging
import os
import posixpath
import re
from typing import Any, Mapping, Sequence
from urllib.parse import unquote

from jupyter_server.utils import url_path_join
from jupyterhub.singleuser.extension import JupyterHubAuthorizer, JupyterHubIdentityProvider
from tornado import web

from ..config import CLASS_VIEW_PAGE, HOST_PAGE, PROJECTOR_PAGE, REPORT_PAGE, TEACHER_PAGE
from ..config import HUB_ADMINS_HOST_ENV as ADMINS_HOST_ENV, HUB_HOST_GROUPS_ENV as HOST_GROUPS_ENV
from ..i18n import DEFAULT_LANGUAGE, N_, translator
from .bounded_kernels import BoundedKernelManager
from ..pages.page_lang import accept_language
from ..pages.hub_identity import (HOME_PAGE, IDENTITY_ENV, IDENTITY_HEADER, HubIdentity, HubIdentityError, hub_secret,
                           sign_identity, verify_identity)

__all__ = ["HubIdentityProvider", "HubAuthorizer", "HubKernelManager", "identity_from_hub_user", "kernel_ids_in_path",
           "page_route", "HOST_ONLY_PAGES",
           "host_groups", "HOST_GROUPS_ENV", "ADMINS_HOST_ENV"]

log = logging.getLogger(__name__)
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")



def host_groups(env: Mapping[str, str] | None = None) -> frozenset[str]:
    """The hub groups whose members may host, from ``$DICHOTOMY_HUB_HOST_GROUPS``."""
    env = os.environ if env is None else env
    return frozenset(g.strip() for g in env.get(HOST_GROUPS_ENV, "").split(",") if g.strip())


def _admins_host(env: Mapping[str, str]) -> bool:
    return env.get(ADMINS_HOST_ENV, "1").strip().lower() not in ("0", "false", "no")


def identity_from_hub_user(hub_user: Mapping[str, Any], env: Mapping[str, str] | None = None) -> HubIdentity:
    """The identity of a hub user model (``name``, ``admin``, ``groups``, ``user_info``)."""
    env = os.environ if env is None else env
    name = str(hub_user["name"])
    info = hub_user.get("user_info") or {}
    display = info.get("display_name") or info.get("name") or name
    groups = set(hub_user.get("groups") or ())
    host = bool(groups & host_groups(env)) or (bool(hub_user.get("admin")) and _admins_host(env))
    return HubIdentity(name=name, display_name=str(display), host=host)


def kernel_ids_in_path(path_args: Sequence[Any], path_kwargs: Mapping[str, Any]) -> list[str]:
    """The kernel ids a request's URL names: voila's kernel routes call it ``kernel_id``; its shutdown
    route (``/voila/api/shutdown/<id>``) passes it as the only positional group."""
    found = [path_kwargs.get("kernel_id"), *path_args]
    return [k for k in found if isinstance(k, str) and _UUID.fullmatch(k)]


def _plain_403(handler: web.RequestHandler) -> None:
    """Answer a 403 with a short text page: jupyter_server's error template needs static files that a
    voila server does not configure (rendering it fails and logs a traceback for every refusal)."""
    original = handler.write_error

    def write_error(status_code: int, **kwargs: Any) -> None:
        if status_code != 403:
            return original(status_code, **kwargs)
        handler.set_header("Content-Type", "text/plain; charset=utf-8")
        handler.finish("403 Forbidden: your hub account may not open this Dichotomy page.\n")

    handler.write_error = write_error  # type: ignore[method-assign]


#: Pages behind the hub that only hosts (hub admins, host-group members) may open: creating and running
#: tables and classes, and the token-less projector, class view and report pages (docs/jupyterhub.md).
HOST_ONLY_PAGES = frozenset({HOST_PAGE, TEACHER_PAGE, PROJECTOR_PAGE, CLASS_VIEW_PAGE, REPORT_PAGE})
_REFUSED = (N_("This page is for teachers"),
            N_("You are signed in as {name}. The host, projector, class view and report pages are for the hub's "
               "teachers; join a table or class from the Dichotomy start page."),
            N_("Go to the Dichotomy start page"))


def page_route(path: str, base_url: str) -> tuple[str, str]:
    """What a request path under the service's ``base_url`` asks for: ``("home", "")`` for voila's
    notebook list (the base URL, ``voila/tree``, the contents API), ``("page", NAME)`` for a rendered
    page, ``("other", "")`` for the rest (kernels, static files, OAuth)."""
    base = "/" + base_url.strip("/") + "/" if base_url.strip("/") else "/"
    if not path.startswith(base) and path != base.rstrip("/"):
        return "other", ""
    rest = path[len(base):] if path.startswith(base) else ""
    if rest in ("", "voila", "voila/") or rest.startswith(("voila/tree", "voila/api/contents")):
        return "home", ""
    if rest.startswith("voila/render/"):
        # the file name however the path is spelt (``a/../host.ipynb``, ``%68ost.ipynb``, ``//host.ipynb``)
        return "page", posixpath.basename(posixpath.normpath("/" + unquote(rest[len("voila/render/"):])))
    return "other", ""


def _route_page(handler: web.RequestHandler, identity: HubIdentity) -> None:
    """Send the notebook list to the landing page; refuse a host-only page to a non-host (a short page
    in the browser's language, no kernel started)."""
    kind, page = page_route(handler.request.path, handler.base_url)
    if kind == "home":
        handler.redirect(url_path_join(handler.base_url, "voila/render", HOME_PAGE))
        raise web.Finish()
    if kind == "page" and page in HOST_ONLY_PAGES and not identity.host:
        log.info("refused: hub user %s may not open %s", identity.name, page)
        tr = translator(accept_language(handler.request.headers.get("Accept-Language")) or DEFAULT_LANGUAGE, "pages")
        title = html.escape(tr.gettext(_REFUSED[0]))
        body = html.escape(tr.gettext(_REFUSED[1])).replace("{name}", f"<b>{html.escape(identity.display_name)}</b>")
        home = html.escape(url_path_join(handler.base_url, "voila/render", HOME_PAGE), quote=True)
        handler.set_status(403)
        handler.set_header("Content-Type", "text/html; charset=utf-8")
        handler.finish(f'<!DOCTYPE html><html lang="{tr.lang}"><head><meta charset="utf-8">'
                       '<meta name="viewport" content="width=device-width, initial-scale=1">'
                       f"<title>{title}</title></head><body style=\"font:1.1em system-ui,sans-serif;max-width:40em;"
                       f'margin:2em auto;padding:0 1em"><main><h1 class="dichotomy-refused-title">{title}</h1>'
                       f'<p class="dichotomy-message">{body}</p><p><a class="dichotomy-home-link" href="{home}">'
                       f"{html.escape(tr.gettext(_REFUSED[2]))}</a></p></main></body></html>")
        raise web.Finish()


class HubIdentityProvider(JupyterHubIdentityProvider):
    """JupyterHub OAuth for the service, plus the signed identity header and kernel ownership."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.pop("token", None)  # voila passes token="": no jupyter token login here
        super().__init__(**kwargs)
        # HubOAuth has read the service's hub API token; page kernels inherit this process's
        # environment and have no use for it.
        _ = self.hub_auth.api_token
        os.environ.pop("JUPYTERHUB_API_TOKEN", None)

    @property
    def token(self) -> str:  # type: ignore[override]
        """No jupyter token login: the hub's OAuth is the only way in (voila passes ``token=""``)."""
        return ""

    @token.setter
    def token(self, _value: str) -> None:
        pass

    async def get_user(self, handler: web.RequestHandler):  # type: ignore[override]
        # The browser never chooses the identity header: drop whatever it sent before anything else.
        handler.request.headers.pop(IDENTITY_HEADER, None)
        _plain_403(handler)
        user = await super().get_user(handler)
        if user is None:
            return None
        identity = identity_from_hub_user(user.hub_user)
        _route_page(handler, identity)
        handler.request.headers[IDENTITY_HEADER] = sign_identity(identity, hub_secret())
        owners = getattr(handler.settings.get("kernel_manager"), "owners", {})
        for kernel_id in kernel_ids_in_path(handler.path_args or (), handler.path_kwargs or {}):
            owner = owners.get(kernel_id)
            if owner is not None and owner != identity.name:
                log.warning("refused: hub user %s asked for a kernel of another user's page", identity.name)
                # as jupyter_server's own check_host refusal does, so the error page renders cleanly
                handler.current_user = handler._jupyter_current_user = None
                raise web.HTTPError(403, "That page belongs to another user.")
        return user

    def get_handlers(self) -> list:
        """The OAuth callback and logout, under the service's prefix (voila does not add it)."""
        prefix = self.hub_auth.base_url
        return [(url_path_join(prefix, path), *rest) for path, *rest in super().get_handlers()]


class HubAuthorizer(JupyterHubAuthorizer):
    """JupyterHub's access-scope check (the identity provider already refused other users' kernels)."""


class HubKernelManager(BoundedKernelManager):
    """The page bounds of ``dichotomy serve`` counted per hub user instead of per client address (behind
    the hub's proxy every request comes from the proxy; hosts are not bounded per user, they may run
    several tables), and the hub user whose page started each kernel (``owners``: kernel id -> name)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.owners: dict[str, str] = {}

    def device(self, handler: web.RequestHandler) -> tuple[str, bool]:
        try:
            identity = verify_identity(handler.request.headers.get(IDENTITY_HEADER), hub_secret())
        except HubIdentityError:
            return super().device(handler)
        return f"hub user {identity.name}", identity.host

    async def start_kernel(self, *, kernel_id: str | None = None, path: str | None = None,
                           **kwargs: Any) -> str:
        env = kwargs.get("env") or {}
        try:
            owner: str | None = verify_identity(env.get(IDENTITY_ENV), hub_secret(env)).name
        except HubIdentityError:
            owner = None  # the page itself will refuse to run without a hub identity
        kernel_id = await super().start_kernel(kernel_id=kernel_id, path=path, **kwargs)
        if owner is not None:
            self.owners[kernel_id] = owner
        return kernel_id

    def remove_kernel(self, kernel_id: str):  # type: ignore[override]
        self.owners.pop(kernel_id, None)
        return super().remove_kernel(kernel_id)
