"""The colours and small styled pieces every page shares, readable in light and dark themes.

The colours are CSS variables that the voila template sets (``pages/voila/templates/dichotomy``: light
values, and lighter ones under a dark theme, each at least 4.5:1 on its background); the fallbacks
are the light values, for a page shown in a notebook outside that template.
"""

from __future__ import annotations

import html

import ipywidgets as W

ERROR = "var(--dichotomy-error, #a40000)"
INFO = "var(--dichotomy-info, #1a4d8f)"
OK = "var(--dichotomy-ok, #1d6b2a)"
#: Table lines, the zebra stripe of every other row and the head row's background (report, class projector).
TB_BORDER = "var(--dichotomy-tb-border, #9aa3ad)"
TB_ALT = "var(--dichotomy-tb-alt, #eef1f5)"
TB_TH = "var(--dichotomy-tb-th, #dde3ea)"
LINK_STYLE = "color:var(--dichotomy-link, #1a5fb4);text-decoration:underline"
COLOURS = {"error": ERROR, "info": INFO, "ok": OK}


def feedback_label() -> W.Label:
    """The bold line under a form that says why an action was refused (text only)."""
    label = W.Label("", style={"text_color": ERROR, "font_weight": "bold"})
    label.add_class("dichotomy-feedback")
    return label


def alert_html(text: str, css: str = "", bold: bool = False) -> str:
    """A paragraph read out by screen readers at once, in the error colour; ``text`` is escaped."""
    weight = ";font-weight:bold" if bold else ""
    cls = f' class="{css}"' if css else ""
    return f'<p role="alert"{cls} style="color:{ERROR}{weight}">{html.escape(text)}</p>'


def warning_html(markup: str) -> str:
    """A warning paragraph around ``markup``, which the caller has already escaped."""
    return f'<p class="dichotomy-warning" style="color:{ERROR}">{markup}</p>'


def link_html(href: str, text: str, css: str, new_tab: bool = True) -> str:
    """An underlined link (reads as a link in every theme); ``href`` and ``text`` are escaped."""
    target = ' target="_blank" rel="noopener"' if new_tab else ""
    return (f'<a class="{css}" href="{html.escape(href, quote=True)}"{target} style="{LINK_STYLE}">'
            f"{html.escape(text)}</a>")


def qr_svg(data: str, scale: int = 6, title: str = "Join link QR code") -> str:
    """An inline ``<svg>`` QR code of ``data`` (segno), with a white quiet zone and a ``title``."""
    import io

    import segno

    qr = segno.make(data, error="m")
    buf = io.BytesIO()
    qr.save(buf, kind="svg", scale=scale, border=2, xmldecl=False, svgns=True, light="#fff", dark="#000",
            title=title)
    return buf.getvalue().decode("utf-8")
