"""What the page notebooks call: the seat or host page for this kernel, a JupyterHub service's
pages (:mod:`.hub_pages`) when the service runs behind a hub, else the plain ones (:mod:`.app`).

The page's query comes from :func:`page_query`. A kernel voila started for a page request has it in
``$QUERY_STRING``. A kernel of voila's pre-heated pool (``dichotomy serve --expect N``; voila sets
``VOILA_PREHEAT=True`` in its environment) runs the notebook before any student asks for it: it opens
the store and imports the widgets first, then waits in ``voila.utils.get_query_string()`` until voila
hands it a request, and reads that request's query (and address) only then.
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

__all__ = ["seat_page", "host_page", "packaged_pages", "page_query", "pooled", "warm_up", "lost_request"]

PREHEAT_ENV = "VOILA_PREHEAT"


def pooled(env: Mapping[str, str] | None = None) -> bool:
    """Whether this kernel was pre-started by voila's pool (its request is not known yet)."""
    return (os.environ if env is None else env).get(PREHEAT_ENV) == "True"


def warm_up(store: "TableStore | str | None" = None) -> None:
    """What every page needs before its request: the store connection and the widget module."""
    from . import widgets  # noqa: F401 - loads the front end files once
    from .app import page_store

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
    from voila.utils import get_query_string

    query = get_query_string()
    if query is None:
        log.error("a pre-started kernel could not read its page request from voila")
    return query


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
