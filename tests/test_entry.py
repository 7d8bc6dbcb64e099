"""``pages/entry.py``: where a page's query comes from, in an ordinary kernel and in a pre-started one."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import ipywidgets as W
import pytest
import websockets

from dichotomy_widget import Table
from dichotomy_widget.pages import entry
from dichotomy_widget.pages.page_base import UrlQuery
from dichotomy_widget.pages.host_page import HostPage
from dichotomy_widget.pages.seat_page import SeatPage
from dichotomy_widget.pages.student_page import class_page
from dichotomy_widget.server.voila_launch import pool_env

from pg_server import _free_port as free_port  # tests/pg_server.py


def test_an_ordinary_kernel_reads_its_query_from_voila_s_environment(monkeypatch):
    monkeypatch.delenv("VOILA_PREHEAT", raising=False)
    monkeypatch.setenv("QUERY_STRING", "table=ABCDEF&seat=tok")
    assert not entry.pooled()
    assert entry.page_query() == "table=ABCDEF&seat=tok"


def _pool_kernel(monkeypatch, port: int) -> None:
    """This process as a pool kernel of a voila on ``port`` that served someone else before."""
    monkeypatch.setenv("VOILA_PREHEAT", "True")
    monkeypatch.setenv("VOILA_APP_IP", "127.0.0.1")
    monkeypatch.setenv("VOILA_APP_PORT", str(port))
    monkeypatch.setenv("VOILA_KERNEL_ID", "k1")
    monkeypatch.setenv("VOILA_REQUEST_URL", "http://x/voila/render/seat.ipynb?table=ABCDEF&seat=someone-else")
    monkeypatch.setenv("QUERY_STRING", "table=ABCDEF&seat=someone-else")


def test_a_pool_kernel_drops_an_earlier_page_s_address_and_says_so_when_voila_cannot_be_reached(monkeypatch, tmp_path):
    _pool_kernel(monkeypatch, free_port())  # nobody listens there
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
from dichotomy_widget.pages import entry

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


def test_a_pool_kernel_shows_its_page_at_once_and_builds_it_from_its_own_request(monkeypatch, tmp_path):
    store = str(tmp_path / "t.sqlite3")
    table = Table.create(store=store, rounds=2)
    mine, other = table.join("Ana"), table.join("Ben")
    port = free_port()
    _pool_kernel(monkeypatch, port)
    query = f"table={table.code}&seat={mine.token}"

    async def main() -> None:
        student_arrives = asyncio.Event()
        asked: list[str] = []

        async def voila_query_socket(socket) -> None:  # voila's /voila/query/<kernel> side
            asked.append(socket.request.path)
            await student_arrives.wait()
            await socket.send(json.dumps({"QUERY_STRING": query, "VOILA_REQUEST_URL": f"http://h/voila/render/seat.ipynb?{query}"}))

        async with websockets.serve(voila_query_socket, "127.0.0.1", port):
            page = entry.seat_page(store=store)
            assert isinstance(page, entry.PendingPage)
            # shown before any request: the page's whole HTML can be sent at once
            assert [c.value for c in page.children] == [entry.OPENING]
            opening = page.children[0]
            assert "QUERY_STRING" not in os.environ and "VOILA_REQUEST_URL" not in os.environ
            await asyncio.sleep(0.3)
            assert page.page is None and not page.task.done()  # still waiting for its student
            student_arrives.set()
            await asyncio.wait_for(page.task, 10)
        assert asked == ["/voila/query/k1"]
        assert isinstance(page.page, SeatPage) and list(page.children) == [page.page]
        assert opening.comm is None  # the spinner's model is closed
        assert page.page.state == "seat" and page.page.seat == mine.seat != other.seat
        assert os.environ["QUERY_STRING"] == query

    asyncio.run(main())


def test_a_pool_kernel_whose_request_never_comes_offers_a_reload(monkeypatch, tmp_path):
    _pool_kernel(monkeypatch, free_port())  # nobody listens: voila cannot be reached

    async def main() -> W.Widget:
        page = entry.seat_page(store=str(tmp_path / "t.sqlite3"))
        assert isinstance(page, entry.PendingPage)
        await asyncio.wait_for(page.task, 30)
        return page

    page = asyncio.run(main())
    assert isinstance(page.page, W.HTML) and "This page could not start" in page.page.value
    assert list(page.children) == [page.children[0], page.page]  # the message, with the pages' stylesheet
    assert isinstance(page.children[0], UrlQuery)


def test_a_page_that_fails_to_build_is_logged_and_offers_a_reload(monkeypatch, tmp_path, caplog):
    _pool_kernel(monkeypatch, free_port())

    def broken(query: str) -> W.Widget:
        raise RuntimeError(f"no page for {query}")

    async def main() -> entry.PendingPage:
        page = entry.PendingPage(broken, str(tmp_path / "t.sqlite3"))
        page.task.cancel()  # the request is handed over by hand below
        with caplog.at_level(logging.ERROR, logger="dichotomy_widget.pages.entry"):
            page.arrive({"QUERY_STRING": "table=ABCDEF"})
        return page

    page = asyncio.run(main())
    assert "This page could not start" in page.page.value and list(page.children)[1:] == [page.page]
    logged = [r.getMessage() for r in caplog.records if "could not build its page" in r.getMessage()]
    assert logged and "RuntimeError at test_entry.py" in logged[0]  # its class and frames, not its message
    assert "table=ABCDEF" not in logged[0]


@pytest.mark.parametrize("make, built", [
    (lambda store: entry.host_page(store=store, env={}), HostPage),
    (lambda store: class_page(store=store, env={}), W.VBox),
])
def test_host_and_class_pages_are_pending_in_a_pool_kernel_too(monkeypatch, tmp_path, make, built):
    _pool_kernel(monkeypatch, free_port())

    async def main() -> entry.PendingPage:
        page = make(str(tmp_path / "t.sqlite3"))
        assert isinstance(page, entry.PendingPage)
        page.task.cancel()
        page.arrive({"QUERY_STRING": ""})
        return page

    page = asyncio.run(main())
    assert isinstance(page.page, built) and not isinstance(page.page, W.HTML)


def test_outside_a_running_loop_a_pool_kernel_still_waits_in_the_cell(monkeypatch):
    monkeypatch.setenv("VOILA_PREHEAT", "True")
    assert entry.pending_page(lambda q: W.HTML(q)) is None  # no loop: page_query's blocking path
    monkeypatch.delenv("VOILA_PREHEAT")

    async def main() -> None:
        assert entry.pending_page(lambda q: W.HTML(q)) is None  # not a pool kernel

    asyncio.run(main())


LEFT_WAITING = """
import asyncio, sys
from dichotomy_widget.pages import entry

async def main():
    page = entry.seat_page(store=sys.argv[1])
    await asyncio.sleep(0.5)  # its request never comes
    print(type(page).__name__, page.page)

asyncio.run(main())
"""


def test_a_pool_kernel_whose_student_never_came_exits_without_waiting_for_its_request(tmp_path):
    import threading

    from websockets.sync.server import serve

    released = threading.Event()
    with serve(lambda socket: released.wait(60), "127.0.0.1", 0) as server:  # voila, never handing a request
        threading.Thread(target=server.serve_forever, daemon=True).start()
        root = str(Path(__file__).resolve().parents[1])
        env = {**os.environ, "PYTHONPATH": root, "VOILA_PREHEAT": "True", "VOILA_APP_IP": "127.0.0.1",
               "VOILA_APP_PORT": str(server.socket.getsockname()[1]), "VOILA_KERNEL_ID": "k1"}
        try:
            out = subprocess.run([sys.executable, "-c", LEFT_WAITING, str(tmp_path / "t.sqlite3")], cwd=root,
                                 capture_output=True, text=True, timeout=45, env=env)
        finally:
            released.set()
            server.shutdown()
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["PendingPage", "None"]
