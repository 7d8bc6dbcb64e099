"""What the page notebooks call: the seat or host page for this kernel, a JupyterHub service's
pages (:mod:`.hub_pages`) when the service runs behind a hub, else the plain ones (:mod:`.app`).

The page's query comes from :func:`page_query`. A kernel voila started for a page request has it in
``$QUERY_STRING``. A kernel of voila's pre-heated pool (``dichotomy serve --expect N``; voila sets
``VOILA_PREHEAT=True`` in its environment) runs the notebook before any student asks for it: it opens
the store and imports the widgets first, then waits until voila hands it a request (the protocol of
``voila.utils.get_query_string()``, see :func:`wait_for_request`), and reads that request's query (and
address) only then.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING, Mapping

from ..config import QUERY_ENV, REQUEST_URL_ENV
from .app import HostPage, SeatPage
from .hub_identity import hub_mode

if TYPE_CHECKING:  # pragma: no cover
    import ipywidgets as W

    from ..stores import TableStore

log = logging.getLogger(__name__)

__all__ = ["seat_page", "host_page", "packaged_pages", "page_query", "pooled", "warm_up", "lost_request",
           "wait_for_request", "request_socket_url"]

PREHEAT_ENV = "VOILA_PREHEAT"


def pooled(env: Mapping[str, str] | None = None) -> bool:
    """Whether this kernel was pre-started by voila's pool (its request is not known yet)."""
    return (os.environ if env is None else env).get(PREHEAT_ENV) == "True"


def warm_up(store: "TableStore | str | None" = None) -> None:
    """What every page needs before its request: the store connection, the widget module, and the
    default language's catalogues with the locale data every language builds on (loading them took
    13 ms of each page's time; the other languages' catalogues, 13 ms more, load when a page needs
    them: warming all four would cost every waiting kernel 4 MB more)."""
    from ..i18n import DEFAULT_LANGUAGE, DOMAINS, translator
    from . import widgets  # noqa: F401 - loads the front end files once
    from .app import page_store

    for domain in DOMAINS:
        translator(DEFAULT_LANGUAGE, domain).catalog()
    translator(DEFAULT_LANGUAGE).number(0)
    try:
        page_store(store)
    except Exception:  # noqa: BLE001 - the page itself shows the store's clear message
        pass


def page_query(store: "TableStore | str | None" = None) -> str | None:
    """This page's URL query. In a pool kernel: warm up, then wait for the request voila hands over
    (None if voila could not be reached: the page then says so, see :func:`lost_request`)."""
    if not pooled():
        return os.environ.get(QUERY_ENV, "")
    warm_up(store)
    # A pool kernel's environment may hold the address of an earlier page (voila passes each request's
    # URL to the kernel started after it): never another student's link; the request brings its own.
    os.environ.pop(REQUEST_URL_ENV, None)
    os.environ.pop(QUERY_ENV, None)
    request = wait_for_request()
    if request is None:
        log.error("a pre-started kernel could not read its page request from voila")
        return None
    os.environ.update(request)
    return os.environ.get(QUERY_ENV, "")


def request_socket_url(env: Mapping[str, str] | None = None) -> str:
    """Where voila hands a pool kernel its request: ``voila.utils.wait_for_request``'s own address."""
    env = os.environ if env is None else env
    base = env.get("VOILA_WS_BASE_URL", env.get("VOILA_SERVER_URL", "/"))
    return (f"{env.get('VOILA_WS_PROTOCOL', 'ws')}://{env.get('VOILA_APP_IP', '127.0.0.1')}:"
            f"{env.get('VOILA_APP_PORT', '8866')}{base}voila/query/{env.get('VOILA_KERNEL_ID', '')}")


def wait_for_request(env: Mapping[str, str] | None = None) -> dict[str, str] | None:
    """Block until voila hands this pool kernel its page request; the request's environment variables
    (``QUERY_STRING``, ``VOILA_REQUEST_URL``, ...), or None if voila cannot be reached.

    The protocol of ``voila.utils.wait_for_request()`` / ``get_query_string()`` (voila 0.5), spoken with
    ``websockets``' small synchronous client: importing ``voila.utils`` would load jupyter_server and
    jupyterlab_server into every waiting kernel (+44 MB each, measured).
    """
    import json

    from websockets.sync.client import connect

    try:
        with connect(request_socket_url(env), open_timeout=10, max_size=2 ** 20) as socket:
            payload = json.loads(socket.recv())
    except Exception as exc:  # noqa: BLE001 - OSError, TimeoutError, bad JSON, websockets' own errors
        log.error("voila's request socket failed: %s", type(exc).__name__)
        return None
    if not isinstance(payload, dict):
        return None
    return {str(k): str(v) for k, v in payload.items()}


def lost_request() -> "W.HTML":
    """What a pool kernel shows when its request never reached it: a clear retry."""
    from .app import message_box

    return message_box("This page could not start", "Reload the page to try again.")


def seat_page(query: str | None = None, store: "TableStore | str | None" = None) -> "SeatPage | W.HTML":
    """The seat page for ``query`` (default: :func:`page_query`)."""
    if query is None:
        query = page_query(store)
        if query is None:
            return lost_request()
    if hub_mode():  # a JupyterHub service: the hub says who this is (hub_pages.py)
        from .hub_pages import HubSeatPage

        return HubSeatPage(query, store=store)
    return SeatPage(query, store=store)


def host_page(query: str | None = None, store: "TableStore | str | None" = None,
              env: Mapping[str, str] | None = None) -> "HostPage | W.HTML":
    """The host page for ``query`` (default: :func:`page_query`)."""
    if query is None:
        query = page_query(store)
        if query is None:
            return lost_request()
    if hub_mode(env):
        from .hub_pages import HubHostPage

        return HubHostPage(query, store=store, env=env)
    return HostPage(query, store=store, env=env)


def packaged_pages() -> Path:
    """The folder with the packaged ``host.ipynb`` and ``seat.ipynb``."""
    return Path(__file__).with_name("pages")
