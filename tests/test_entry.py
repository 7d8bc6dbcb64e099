"""``ui/entry.py``: where a page's query comes from, in an ordinary kernel and in a pre-started one."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

from dichotomy_widget.ui import entry
from dichotomy_widget.voila_launch import pool_env


def test_an_ordinary_kernel_reads_its_query_from_voila_s_environment(monkeypatch):
    monkeypatch.delenv("VOILA_PREHEAT", raising=False)
    monkeypatch.setenv("QUERY_STRING", "table=ABCDEF&seat=tok")
    assert not entry.pooled()
    assert entry.page_query() == "table=ABCDEF&seat=tok"


def test_a_pool_kernel_drops_an_earlier_page_s_address_and_says_so_when_voila_cannot_be_reached(monkeypatch, tmp_path):
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    monkeypatch.setenv("VOILA_PREHEAT", "True")
    monkeypatch.setenv("VOILA_APP_IP", "127.0.0.1")
    monkeypatch.setenv("VOILA_APP_PORT", str(port))
    monkeypatch.setenv("VOILA_KERNEL_ID", "k1")
    monkeypatch.setenv("VOILA_REQUEST_URL", "http://x/voila/render/seat.ipynb?table=ABCDEF&seat=someone-else")
    monkeypatch.setenv("QUERY_STRING", "table=ABCDEF&seat=someone-else")
    store = str(tmp_path / "t.sqlite3")
    assert entry.page_query(store) is None
    assert "VOILA_REQUEST_URL" not in os.environ and "QUERY_STRING" not in os.environ
    page = entry.seat_page(store=store)
    assert "This page could not start" in page.value and "Reload" in page.value


def test_pool_kernels_reach_voila_on_the_address_it_listens_on():
    assert pool_env("0.0.0.0") == {"VOILA_APP_IP": "127.0.0.1"}
    assert pool_env("10.0.0.5") == {"VOILA_APP_IP": "10.0.0.5"}
    assert pool_env("::") == {"VOILA_APP_IP": "[::1]"}


WARM_CHECK = """
import sys
import babel.localedata
from dichotomy_widget import i18n
from dichotomy_widget.ui import entry

entry.warm_up(sys.argv[1])
loads = []
real_load = babel.localedata.load
babel.localedata.load = lambda name, merge_inherited=True: loads.append(name) or real_load(name, merge_inherited)
parsed = i18n._translations.cache_info().misses
for domain in i18n.DOMAINS:  # what an English page needs after its request
    i18n.translator("en", domain).catalog()
i18n.translator("en").number(1234)
print(loads, i18n._translations.cache_info().misses - parsed)
"""


def test_warming_up_loads_the_default_language_and_the_locale_data_before_the_request(tmp_path):
    root = str(Path(__file__).resolve().parents[1])
    out = subprocess.run([sys.executable, "-c", WARM_CHECK, str(tmp_path / "t.sqlite3")], cwd=root,
                         capture_output=True, text=True, timeout=120, env={**os.environ, "PYTHONPATH": root})
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["[]", "0"]  # no locale data loaded and no catalogue parsed after warm_up
