"""``widgets/widget_code.py``: inline code in JupyterLab, a small loader behind ``dichotomy serve``.

The server side (the route, its caching, a page rendering through the loader, behind a hub's prefix
too) runs against real servers in tests/browser/test_serve.py and tests/browser/test_hub.py."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from dichotomy_widget.widgets import widget_code
from dichotomy_widget.widgets.widget_code import CODE, JS_DIR, SERVED_ENV, STYLE

REPO = Path(__file__).resolve().parents[1]


def test_without_the_server_the_code_and_style_are_the_files(monkeypatch):
    monkeypatch.delenv(SERVED_ENV, raising=False)
    assert widget_code.esm() == JS_DIR / CODE
    assert widget_code.css() == JS_DIR / STYLE


def test_behind_the_server_the_widget_gets_a_loader_naming_the_hashed_files(monkeypatch):
    monkeypatch.setenv(SERVED_ENV, "served")
    loader = widget_code.esm()
    assert isinstance(loader, str) and widget_code.css() == ""
    code, style = widget_code.served_name(CODE), widget_code.served_name(STYLE)
    assert code != CODE and style != STYLE and code in loader and style in loader
    assert widget_code.ROUTE in loader and "export default" in loader
    assert len(loader) < 2_000 < len((JS_DIR / CODE).read_text(encoding="utf-8"))
    assert "http://" not in loader and "https://" not in loader  # the page's own server, never a CDN
    assert "innerHTML" not in loader


@pytest.mark.parametrize("value", ["", "1", "yes", "inline"])
def test_only_the_servers_own_value_switches_to_the_loader(monkeypatch, value):
    monkeypatch.setenv(SERVED_ENV, value)
    assert widget_code.esm() == JS_DIR / CODE


def test_a_new_content_gets_a_new_name(tmp_path, monkeypatch):
    monkeypatch.setattr(widget_code, "JS_DIR", tmp_path)
    (tmp_path / CODE).write_text("export default {};\n", encoding="utf-8")
    (tmp_path / STYLE).write_text(".dw-root {}\n", encoding="utf-8")
    first = widget_code.served_name(CODE)
    assert first.startswith("widget.") and first.endswith(".js") and len(first) == len("widget..js") + 16
    (tmp_path / CODE).write_text("export default { render() {} };\n", encoding="utf-8")
    second = widget_code.served_name(CODE)
    assert second != first
    assert widget_code.served_files() == {second: tmp_path / CODE,
                                          widget_code.served_name(STYLE): tmp_path / STYLE}


def test_a_seat_widget_in_a_served_kernel_syncs_the_loader_not_the_code():
    """A fresh kernel-like process with the server's variable: the state a page receives."""
    script = (
        "import json\n"
        "from dichotomy_widget import Table\n"
        "from dichotomy_widget.widgets.game import SeatWidget\n"
        "t = Table.create(deck='en', rounds=1)\n"
        "t.join('Ana')\n"
        "w = SeatWidget(t, 'Ana')\n"
        "s = w.get_state()\n"
        "print(json.dumps({'esm': s['_esm'], 'css': s['_css']}))\n"
    )
    env = {**os.environ, SERVED_ENV: "served", "PYTHONPATH": str(REPO)}
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120,
                         check=True).stdout
    state = json.loads(out.strip().splitlines()[-1])
    assert state["css"] == ""
    assert widget_code.served_name(CODE) in state["esm"] and len(state["esm"]) < 2_000
