"""The class projector (``classview.ipynb?class=CODE``): code, join link, QR code, tables and scores,
live, from :func:`..class_mode.views.class_projector_view`. It holds no token and offers no action.
"""

from __future__ import annotations

import os
from typing import Mapping

import ipywidgets as W

from ..class_mode.classroom import Classroom
from ..class_mode.views import class_projector_view
from ..config import CLASS_PAGE
from ..stores import TableStore
from .class_html import join_html, overview_html, style_html
from .page_base import ReadOnlyPage, esc, page_link, projector_link, show_trouble, trouble_banner

__all__ = ["ClassViewPage", "class_view_page"]


class ClassViewPage(ReadOnlyPage, W.VBox):
    """The class projector: code, join link, QR code and the overview, live. No token, no action."""

    def __init__(self, query: str | None = None, store: "TableStore | str | None" = None,
                 env: Mapping[str, str] | None = None) -> None:
        super().__init__(layout=W.Layout(width="100%"))
        self.add_class("dichotomy-classview-page")
        self._read_only(query, store, env)
        self.room: Classroom | None = self._open_class(query)
        if self.room is None:
            return
        room = self.room
        self._opened(room.interface_lang, lambda tr: tr.gettext("Class {code}", code=room.code))
        link = page_link(CLASS_PAGE, {"class": room.code}, self.env)
        view = class_projector_view(room)
        self.overview = W.HTML()
        self.overview.add_class("dichotomy-overview-box")
        self.trouble = trouble_banner()
        self.children = [self.url, self.trouble,
                         W.HTML(style_html() + f"<h2>{esc(view['name'])}</h2>" + join_html(view["class"], link, self.tr)),
                         self.overview]
        self._update()
        room.subscribe(lambda _r: self._update())
        room.start_watching()

    def _update(self) -> None:
        assert self.room is not None
        show_trouble(self.trouble, self.room, self.page_lang.lang)
        self.overview.value = overview_html(class_projector_view(self.room), self.page_lang.tr,
                                            projector_link(self.env))


def class_view_page(query: str | None = None, store: "TableStore | str | None" = None,
                    env: Mapping[str, str] | None = None) -> ClassViewPage:
    """The class projector page for ``query`` (default: ``$QUERY_STRING``)."""
    return ClassViewPage(os.environ.get("QUERY_STRING", "") if query is None else query, store=store, env=env)
