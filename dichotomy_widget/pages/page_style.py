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
LINK = "var(--dichotomy-link, #1a5fb4)"
COLOURS = {"error": ERROR, "info": INFO, "ok": OK}

#: The stylesheet every page carries (its address-bar widget brings it, see ``page_base.UrlQuery``):
#: the pages' HTML names classes, never an inline ``style=`` (``tests/test_page_style.py``).
PAGE_CSS = """
.dichotomy-message { border-left: 6px solid currentColor; padding: 0.6em 1em; margin: 0.5em 0; font-size: 1.1em; }
.dichotomy-message h2 { margin: 0 0 0.3em 0; }
.dichotomy-message-body { margin: 0; }
""" + "".join(f"""
.dichotomy-message.dichotomy-{kind} {{ border-left-color: {colour}; }}
.dichotomy-message.dichotomy-{kind} h2 {{ color: {colour}; }}""" for kind, colour in COLOURS.items()) + f"""
.dichotomy-alert-text, .dichotomy-warning {{ color: {ERROR}; }}
.dichotomy-bold {{ font-weight: bold; }}
body a.dichotomy-link, body a.dichotomy-link:link, body a.dichotomy-link:visited {{ color: {LINK};
  text-decoration: underline; }}
.dichotomy-hub-user {{ margin: 0 0 0.5em 0; font-size: 0.95em; }}
.dichotomy-join-info {{ display: flex; gap: 2em; align-items: center; flex-wrap: wrap; }}
.dichotomy-qr {{ flex: 0 0 auto; }}
.dichotomy-join-text {{ flex: 1 1 20em; min-width: 0; }}
.dichotomy-join-text > p:first-child {{ margin: 0; }}
.dichotomy-class-code, .dichotomy-table-code {{ font-size: 3em; font-weight: bold; letter-spacing: 0.15em;
  margin: 0; font-family: monospace; }}
.dichotomy-deck-alert {{ border-left: 6px solid {ERROR}; padding: 0.4em 1em; margin: 0.5em 0; }}
.dichotomy-deck-alert > p:first-child, .dichotomy-deck-alert > p:last-child {{ margin: 0; }}
.dichotomy-deck-alert > p.dichotomy-deck-headline {{ color: {ERROR}; font-weight: bold; }}
.dichotomy-preview-cards {{ columns: 16em; list-style: none; padding: 0; }}
.dichotomy-preview-card {{ break-inside: avoid; }}
body a.dichotomy-button-link, body a.dichotomy-button-link:link, body a.dichotomy-button-link:visited {{
  display: inline-block; padding: 0.5em 1.1em; margin: 0 0.8em 0.6em 0; border-radius: 4px;
  background: #1565c0; color: #fff; text-decoration: none; font-weight: 600; }}
"""


def feedback_label() -> W.Label:
    """The bold line under a form that says why an action was refused (text only)."""
    label = W.Label("", style={"text_color": ERROR, "font_weight": "bold"})
    label.add_class("dichotomy-feedback")
    return label


def alert_html(text: str, css: str = "", bold: bool = False) -> str:
    """A paragraph read out by screen readers at once, in the error colour; ``text`` is escaped."""
    classes = " ".join(c for c in (css, "dichotomy-alert-text", "dichotomy-bold" if bold else "") if c)
    return f'<p role="alert" class="{classes}">{html.escape(text)}</p>'


def warning_html(markup: str) -> str:
    """A warning paragraph around ``markup``, which the caller has already escaped."""
    return f'<p class="dichotomy-warning">{markup}</p>'


def link_html(href: str, text: str, css: str, new_tab: bool = True) -> str:
    """An underlined link (reads as a link in every theme); ``href`` and ``text`` are escaped."""
    target = ' target="_blank" rel="noopener"' if new_tab else ""
    return (f'<a class="{css} dichotomy-link" href="{html.escape(href, quote=True)}"{target}>'
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
