"""What the page notebooks call: the seat or host page for this kernel (:mod:`.seat_page`,
:mod:`.host_page`). Each page takes its identity strategy from the environment itself
(:func:`.identity.page_identity`: the link's token, or the hub user when ``dichotomy hub-service`` runs
behind JupyterHub); this module only finds the query.

The page's query comes from :func:`page_query`. A kernel voila started for a page request has it in
``$QUERY_STRING``. A kernel of voila's pre-heated pool (``dichotomy serve --expect N``; voila sets
``VOILA_PREHEAT=True`` in its environment) runs the notebook before any student asks for it: it opens
the store and imports the widgets first, then waits until voila hands it a request (the protocol of
``voila.utils.get_query_string()``, see :func:`wait_for_request`), and reads that request's query (and
address) only then.

In a pool kernel the cell does not wait for the request: it shows a :class:`PendingPage` at once, so
voila has the page's whole HTML ready before the student arrives and sends it in one piece; the
browser loads voila's front end while the kernel reads its request and builds the page into it.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Mapping

import ipywidgets as W

from ..config import QUERY_ENV, REQUEST_URL_ENV
from .device import DEVICE_ENV
from .page_key import PAGE_KEY_ENV
from .host_page import HostPage
from .seat_page import SeatPage
from ..logs import log_failure

if TYPE_CHECKING:  # pragma: no cover
    from ..stores import TableStore

log = logging.getLogger(__name__)

__all__ = ["seat_page", "host_page", "packaged_pages", "page_query", "pooled", "warm_up", "lost_request",
           "wait_for_request", "request_socket_url", "PendingPage", "pending_page",
           "page_for"]

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
    from ..widgets import game  # noqa: F401 - loads the front end files once
    from .page_base import page_store

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
    _before_request(store)
    return _take_request(wait_for_request())


def _before_request(store: "TableStore | str | None") -> None:
    warm_up(store)
    # A pool kernel's environment may hold the address of an earlier page (voila passes each request's
    # URL to the kernel started after it): never another student's link; the request brings its own.
    os.environ.pop(REQUEST_URL_ENV, None)
    os.environ.pop(QUERY_ENV, None)
    os.environ.pop(DEVICE_ENV, None)  # the request says which device this page is for
    os.environ.pop(PAGE_KEY_ENV, None)  # and brings the page's own key


def _take_request(request: dict[str, str] | None) -> str | None:
    """Put the request's variables into this kernel's environment; its query (None: no request)."""
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
    from .page_base import message_box

    return message_box("This page could not start", "Reload the page to try again.")


def _stylesheet() -> W.Widget:
    """The pages' stylesheet for a message shown without a page (:data:`.page_style.PAGE_CSS`)."""
    from .page_base import UrlQuery

    return UrlQuery()


#: What a pending page shows until its content comes (the template's CSS draws it; no words: the
#: page's language is known only with the request).
OPENING = '<div class="dichotomy-opening" aria-hidden="true"></div>'


class PendingPage(W.VBox):
    """A pool kernel's page before its request: displayed at once, then filled with the page that
    ``build(query)`` makes when voila hands the request over (:meth:`arrive`), or with
    :func:`lost_request` when no request comes or the page cannot be built. ``page``: that content."""

    def __init__(self, build: Callable[[str], W.Widget], store: "TableStore | str | None" = None) -> None:
        super().__init__(children=[W.HTML(OPENING)], layout=W.Layout(width="100%"))
        self.add_class("dichotomy-pending-page")
        self.page: W.Widget | None = None
        self._build = build
        _before_request(store)
        self.task: asyncio.Task = asyncio.get_running_loop().create_task(self._wait())

    async def _wait(self) -> None:
        # A daemon thread, not the loop's executor: a kernel shut down before any student came must
        # not wait at exit for a thread still blocked on voila's socket.
        loop = asyncio.get_running_loop()
        came: asyncio.Future = loop.create_future()

        def wait() -> None:
            request = wait_for_request()
            try:
                loop.call_soon_threadsafe(lambda: came.done() or came.set_result(request))
            except RuntimeError:  # the kernel's loop is gone: it is shutting down
                pass

        threading.Thread(target=wait, name="dichotomy-page-request", daemon=True).start()
        self.arrive(await came)

    def arrive(self, request: dict[str, str] | None) -> W.Widget:
        """Build this page for ``request`` (voila's variables; None: none came) and show it."""
        query = _take_request(request)
        page: W.Widget
        if query is None:
            page = lost_request()
        else:
            try:
                page = self._build(query)
            except Exception as err:  # noqa: BLE001 - logged with its frames; the student gets a clear retry
                log_failure(log, "a pre-started kernel could not build its page", err)
                page = lost_request()
        self.page = page
        # a lost request's message takes the pages' stylesheet along (a page brings its own, in its UrlQuery)
        shown = [page] if page is not None and hasattr(page, "url") else [_stylesheet(), page]
        opening, self.children = self.children, shown
        for widget in opening:
            widget.close()  # the spinner's model, no longer shown
        return page


def pending_page(build: Callable[[str], W.Widget], store: "TableStore | str | None" = None) -> PendingPage | None:
    """A :class:`PendingPage` in a pool kernel whose event loop runs (voila's kernels); else None (the
    caller reads its query the ordinary way)."""
    if not pooled():
        return None
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return None
    return PendingPage(build, store)


def page_for(query: str | None, build: Callable[[str], W.Widget],
             store: "TableStore | str | None" = None) -> W.Widget:
    """``build(query)``; without a query, built from this page's own request: in a pool kernel a
    :class:`PendingPage` that becomes it when the request comes, else :func:`page_query`'s answer (and
    :func:`lost_request` when it never came). Every page notebook's entry function goes through here."""
    if query is not None:
        return build(query)
    pending = pending_page(build, store)
    if pending is not None:
        return pending
    query = page_query(store)
    return lost_request() if query is None else build(query)


def seat_page(query: str | None = None, store: "TableStore | str | None" = None) -> "SeatPage | W.HTML":
    """The seat page for ``query`` (default: this page's request, see :func:`page_for`)."""
    return page_for(query, lambda q: SeatPage(q, store=store), store)  # type: ignore[return-value]


def host_page(query: str | None = None, store: "TableStore | str | None" = None,
              env: Mapping[str, str] | None = None) -> "HostPage | W.HTML":
    """The host page for ``query`` (default: this page's request, see :func:`page_for`)."""
    return page_for(query, lambda q: HostPage(q, store=store, env=env), store)  # type: ignore[return-value]


def packaged_pages() -> Path:
    """The folder with the packaged ``host.ipynb`` and ``seat.ipynb``."""
    return Path(__file__).with_name("notebooks")
