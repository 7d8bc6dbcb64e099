"""One table's projector page (``projector.ipynb?table=CODE``, any table): ``TableWidget(host=False)``,
read-only. It holds no token and offers no action.
"""

from __future__ import annotations

import os
from typing import Mapping

import ipywidgets as W

from ..errors import DichotomyError
from ..stores import TableStore
from ..table import Table
from .page_base import ReadOnlyPage, class_query, game_widget
from .page_lang import error_text

__all__ = ["ProjectorPage", "projector_page"]


class ProjectorPage(ReadOnlyPage, W.VBox):
    """One table's projector view (``TableWidget(host=False)``): no token, no buttons."""

    def __init__(self, query: str | None = None, store: "TableStore | str | None" = None,
                 env: Mapping[str, str] | None = None) -> None:
        super().__init__(layout=W.Layout(width="100%"))
        self.add_class("dichotomy-projector-page")
        self._read_only(query, store, env)
        self.widget: W.Widget | None = None
        try:
            table = Table.open(class_query(query).get("table", ""), self.store)
        except DichotomyError as exc:
            self._refuse(self.tr.gettext("No such table"), error_text(exc, self.lang))
            return
        self._opened(table.interface_lang, lambda tr: tr.gettext("Projector · table {code}", code=table.code))
        self.widget = game_widget("TableWidget", table, host=False, lang=self.lang if self.page_lang.chosen else None)
        number = class_query(query).get("n", "")  # a class's table keeps the class's name (Table 2)
        if number.isdigit() and len(number) < 4:
            self.widget.name = number
        self.children = [self.url, self.widget]
        table.start_watching()


def projector_page(query: str | None = None, store: "TableStore | str | None" = None,
                   env: Mapping[str, str] | None = None) -> ProjectorPage:
    """A table's read-only projector page for ``query`` (default: ``$QUERY_STRING``)."""
    return ProjectorPage(os.environ.get("QUERY_STRING", "") if query is None else query, store=store, env=env)
