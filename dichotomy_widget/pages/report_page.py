"""The class report (``report.ipynb?class=CODE``): the debrief, resolved rounds only, live, with CSV
and JSON downloads, from :func:`..class_mode.views.report`. It holds no token and offers no action.
"""

from __future__ import annotations

import os
from typing import Mapping

import ipywidgets as W

from ..class_mode.classroom import Classroom
from ..class_mode.views import class_projector_view, report, report_csv, report_json
from ..stores import TableStore
from .class_html import download_html, report_html, style_html
from .page_base import ReadOnlyPage, esc, show_trouble, trouble_banner

__all__ = ["ReportPage", "report_page"]


class ReportPage(ReadOnlyPage, W.VBox):
    """The debrief: every resolved round of every table, live, with CSV and JSON downloads (their column
    names are machine names and stay English; the page's headings follow its language)."""

    def __init__(self, query: str | None = None, store: "TableStore | str | None" = None,
                 env: Mapping[str, str] | None = None) -> None:
        super().__init__(layout=W.Layout(width="100%"))
        self.add_class("dichotomy-report-page")
        self._read_only(query, store, env)
        self.room: Classroom | None = self._open_class(query)
        if self.room is None:
            return
        code = self.room.code
        self._opened(self.room.interface_lang, lambda tr: tr.gettext("Report · class {code}", code=code))
        _ = self.tr.gettext  # in the class's language from here on
        self.downloads = W.HTML()
        self.downloads.add_class("dichotomy-downloads")
        self.body = W.HTML()
        self.body.add_class("dichotomy-report-box")
        self.trouble = trouble_banner()
        self.children = [self.url, self.trouble,
                         W.HTML(style_html() + "<h2>" + esc(_('Report · {name}', name=class_projector_view(self.room)["name"])) + "</h2>"
                                "<p>" + esc(_('Resolved rounds only: a round appears here once it is over.')) + "</p>"),
                         self.downloads, self.body]
        self._update()
        self.room.subscribe(lambda _r: self._update())
        self.room.start_watching()

    def _update(self) -> None:
        assert self.room is not None
        tr = self.page_lang.tr
        show_trouble(self.trouble, self.room, self.page_lang.lang)
        data = report(self.room, self.page_lang.lang)  # its sentences in the page's language; columns stay
        name = f"dichotomy-class-{data['class']}"
        self.downloads.value = (download_html(tr.gettext("Download CSV (one row per clue)"), f"{name}.csv",
                                              "text/csv", report_csv(data), "dichotomy-csv")
                                + download_html(tr.gettext("Download JSON"), f"{name}.json", "application/json",
                                                report_json(data), "dichotomy-json"))
        self.body.value = report_html(data, tr)


def report_page(query: str | None = None, store: "TableStore | str | None" = None,
                env: Mapping[str, str] | None = None) -> ReportPage:
    """The class report page for ``query`` (default: ``$QUERY_STRING``)."""
    return ReportPage(os.environ.get("QUERY_STRING", "") if query is None else query, store=store, env=env)
