"""Where a Dichotomy widget's front-end code comes from: inline, or by URL from ``dichotomy serve``.

anywidget sends a widget's ES module (``_esm``) and style (``_css``) inside the widget's state. In
JupyterLab and Notebook that is the only way, and it costs nothing that matters. Behind ``dichotomy
serve`` every page of a class would carry the same 73 KB of JavaScript and CSS through its kernel,
voila and the websocket, and every browser would compile it again from a blob URL, which it cannot
cache. So :class:`~dichotomy_widget.server.pooled_voila.DichotomyVoila` serves the two files at
content-hashed names (:data:`ROUTE`), kept by browsers for good, and sets :data:`SERVED_ENV` for its
kernels. A widget in such a kernel sends only :func:`loader`: a few lines that import the code and add
the style from the server that sent the page (its ``baseUrl``, so it works behind a hub's prefix).
A new release has new names, so no browser runs stale code.
"""

from __future__ import annotations

import hashlib
import json
import os
from functools import lru_cache
from pathlib import Path

__all__ = ["JS_DIR", "CODE", "STYLE", "ROUTE", "SERVED_ENV", "served", "served_name", "served_files",
           "esm", "css", "loader"]


def _js_dir() -> Path:
    """``js/`` inside the installed package (wheel), else the source checkout's ``js/``."""
    package = Path(__file__).resolve().parent.parent
    packaged = package / "js"
    return packaged if packaged.is_dir() else package.parent / "js"


JS_DIR = _js_dir()
CODE = "widget.js"
STYLE = "widget.css"
#: The server path (under voila's base URL) of the served files.
ROUTE = "dichotomy/static/"
#: Set to ``"served"`` by the server that serves :data:`ROUTE`, for the kernels it starts.
SERVED_ENV = "DICHOTOMY_WIDGET_CODE"


def served() -> bool:
    """Whether this kernel was started by a server that serves the widget's files."""
    return os.environ.get(SERVED_ENV) == "served"


@lru_cache(maxsize=8)
def _hashed(filename: str, mtime_ns: int, size: int) -> str:
    digest = hashlib.sha256((JS_DIR / filename).read_bytes()).hexdigest()[:16]
    stem, _, suffix = filename.rpartition(".")
    return f"{stem}.{digest}.{suffix}"


def served_name(filename: str) -> str:
    """``widget.js`` → ``widget.<first 16 hex digits of its SHA-256>.js`` (the file as it is now)."""
    info = (JS_DIR / filename).stat()
    return _hashed(filename, info.st_mtime_ns, info.st_size)


def served_files() -> dict[str, Path]:
    """The names the server answers, each with its file."""
    return {served_name(name): JS_DIR / name for name in (CODE, STYLE)}


def loader() -> str:
    """The ES module a served page's widget runs: it exports at once a widget whose ``render`` waits
    for the code and the style (the style at most 3 s, so the widget never shows unstyled), which it
    starts to fetch when it is evaluated.

    The module itself must not wait: anywidget gives a model 2 s to evaluate its module, and after that
    drops every message the kernel sends to it, for good and without a word (a class seat stayed on
    "Connecting to the table…" on a loaded machine while its kernel answered every ask)."""
    names = json.dumps({"code": served_name(CODE), "style": served_name(STYLE), "route": ROUTE})
    return f"""// Dichotomy: the widget's code and style, from the server that sent this page.
const files = {names};
function baseUrl() {{
  try {{
    const config = document.getElementById("jupyter-config-data");
    return (config && JSON.parse(config.textContent).baseUrl) || "/";
  }} catch (err) {{
    return "/";
  }}
}}
const at = (name) => new URL(baseUrl() + files.route + name, window.location.href).href;
function addStyle(href) {{
  let link = document.querySelector("link[data-dichotomy-style]");
  if (!link) {{
    link = document.createElement("link");
    link.rel = "stylesheet";
    link.href = href;
    link.dataset.dichotomyStyle = "1";
    document.head.appendChild(link);
  }} else if (link.sheet) {{
    return Promise.resolve();
  }}
  return new Promise((resolve) => {{
    link.addEventListener("load", resolve, {{ once: true }});
    link.addEventListener("error", resolve, {{ once: true }});
    setTimeout(resolve, 3000);
  }});
}}
const widget = Promise.all([import(at(files.code)), addStyle(at(files.style))]).then(([code]) => code.default);
widget.catch((err) => console.error("Dichotomy: the widget's code could not be loaded", err));
export default {{
  async render(context) {{
    return (await widget).render(context);
  }},
}};
"""


def esm() -> str | Path:
    """A widget's ``_esm``: the loader in a served kernel, else the code file (anywidget inlines it)."""
    return loader() if served() else JS_DIR / CODE


def css() -> str | Path:
    """A widget's ``_css``: nothing in a served kernel (the loader adds it), else the style file."""
    return "" if served() else JS_DIR / STYLE
