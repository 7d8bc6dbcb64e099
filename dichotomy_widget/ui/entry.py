"""What the page notebooks call: the seat or host page for this kernel, a JupyterHub service's
pages (:mod:`.hub_pages`) when the service runs behind a hub, else the plain ones (:mod:`.app`)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Mapping

from ..config import QUERY_ENV
from .app import HostPage, SeatPage
from .hub_identity import hub_mode

if TYPE_CHECKING:  # pragma: no cover
    from ..stores import TableStore

__all__ = ["seat_page", "host_page", "packaged_pages"]


def seat_page(query: str | None = None, store: "TableStore | str | None" = None) -> SeatPage:
    """The seat page for ``query`` (default: ``$QUERY_STRING``, set by voila)."""
    if query is None:
        query = os.environ.get(QUERY_ENV, "")
    if hub_mode():  # a JupyterHub service: the hub says who this is (hub_pages.py)
        from .hub_pages import HubSeatPage

        return HubSeatPage(query, store=store)
    return SeatPage(query, store=store)


def host_page(query: str | None = None, store: "TableStore | str | None" = None,
              env: Mapping[str, str] | None = None) -> HostPage:
    """The host page for ``query`` (default: ``$QUERY_STRING``, set by voila)."""
    if query is None:
        query = os.environ.get(QUERY_ENV, "")
    if hub_mode(env):
        from .hub_pages import HubHostPage

        return HubHostPage(query, store=store, env=env)
    return HostPage(query, store=store, env=env)


def packaged_pages() -> Path:
    """The folder with the packaged ``host.ipynb`` and ``seat.ipynb``."""
    return Path(__file__).with_name("pages")
