"""BoundedKernelManager (dichotomy_widget/server/bounded_kernels.py) in a real tornado server with real kernels.

A two-line handler does what voila's page handler does around the hook: run the prelaunch hook, then
start a kernel. Voila itself, pages and browsers are in tests/browser/test_flood.py.
"""

from __future__ import annotations

import importlib
import asyncio
import logging
import socket

import tornado.httpclient
import tornado.web
from traitlets import Instance
from traitlets.config import Config, Configurable

voila_configuration = importlib.import_module("voila.configuration")

from dichotomy_widget.server.bounded_kernels import BoundedKernelManager  # noqa: E402
from dichotomy_widget.pages.page_key import new_page_key  # noqa: E402


class App(Configurable):
    """Stands in for the voila application: the manager's parent, holding the voila configuration."""

    voila_configuration = Instance(voila_configuration.VoilaConfiguration)


class Page(tornado.web.RequestHandler):
    def initialize(self, manager: BoundedKernelManager) -> None:
        self.manager = manager

    async def get(self) -> None:
        self.manager.parent.voila_configuration.prelaunch_hook(self, notebook=None, cwd=None)
        kernel_id = await self.manager.start_kernel(kernel_name="python3")
        self.write(kernel_id)


class PooledPage(tornado.web.RequestHandler):
    """What a kernel pool would do: admit the request, then hand it a kernel started earlier."""

    def initialize(self, manager: BoundedKernelManager, pool: list[str]) -> None:
        self.manager, self.pool = manager, pool

    def get(self) -> None:
        self.manager.parent.voila_configuration.prelaunch_hook(self, notebook=None, cwd=None)
        kernel_id = self.pool.pop()
        self.manager.claim(kernel_id)
        self.write(kernel_id)


def _port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


async def _get(url: str, source: str, headers: dict | None = None) -> tornado.httpclient.HTTPResponse:
    client = tornado.httpclient.AsyncHTTPClient(force_instance=True)
    try:
        return await client.fetch(url, network_interface=source, headers=headers, raise_error=False,
                                  request_timeout=120)
    finally:
        client.close()


def test_the_manager_refuses_without_starting_a_kernel_and_shuts_down_pages_that_never_connect(caplog, tmp_path):
    async def scenario() -> None:
        config = Config({"BoundedKernelManager": {"max_pages_per_device": 1, "max_kernels": 5, "host_reserve": 1,
                                                  "connect_timeout": 1.0, "trusted_proxies": ["127.0.0.1"],
                                                  "exempt_addresses": ["127.0.0.2"]}})
        app = App(voila_configuration=voila_configuration.VoilaConfiguration())
        manager = BoundedKernelManager(parent=app, config=config, connection_dir=str(tmp_path))
        assert app.voila_configuration.prelaunch_hook == manager.admit
        pool: list[str] = []
        port = _port()
        server = tornado.web.Application([
            (r"/voila/render/seat.ipynb", Page, {"manager": manager}),
            (r"/voila/render/pooled.ipynb", PooledPage, {"manager": manager, "pool": pool}),
        ]).listen(port, "127.0.0.1")
        url = f"http://127.0.0.1:{port}/voila/render/seat.ipynb"
        try:
            first = await _get(url + "?table=AB&seat=secret-token-1", "127.0.0.21")
            assert first.code == 200 and manager.list_kernel_ids() == [first.body.decode()]
            assert "_xsrf=" in first.headers.get("Set-Cookie", "")  # voila's unload beacon needs it
            second = await _get(url + "?table=AB&seat=secret-token-2", "127.0.0.21")
            assert second.code == 429 and b"Too many Dichotomy pages" in second.body
            assert second.headers["Retry-After"] and len(manager.list_kernel_ids()) == 1
            # the refusal speaks the browser's language (Accept-Language), else English
            german = await _get(url + "?table=AB&seat=secret-token-3", "127.0.0.21",
                                {"Accept-Language": "de-DE,de;q=0.9,en;q=0.5"})
            body = german.body.decode("utf-8")
            assert german.code == 429 and '<html lang="de">' in body and "Dichotomy-Seiten offen" in body
            assert len(manager.list_kernel_ids()) == 1
            # the same seat link again replaces its kernel instead of being refused
            again = await _get(url + "?table=AB&seat=secret-token-1", "127.0.0.21")
            assert again.code == 200 and again.body != first.body
            await asyncio.sleep(0.5)
            assert manager.list_kernel_ids() == [again.body.decode()]
            # a trusted proxy (127.0.0.1) forwarding for another device: that device has its own bound
            proxied = await _get(url, "127.0.0.1", {"X-Forwarded-For": "6.6.6.6, 127.0.0.21"})
            assert proxied.code == 429  # the right-most untrusted hop is 127.0.0.21, not the forged 6.6.6.6
            # the teacher's own address is not bound per device; the cap (5, 4 for seat pages) still is
            codes = [(await _get(url, "127.0.0.2")).code for _ in range(4)]
            assert codes == [200, 200, 200, 503]
            assert manager.ledger.live() == 4
            # none of those pages connects: after the connect timeout their kernels are shut down
            for _ in range(60):
                if not manager.list_kernel_ids():
                    break
                await asyncio.sleep(0.25)
            assert manager.list_kernel_ids() == [] and manager.ledger.live() == 0
            assert (await _get(url, "127.0.0.21")).code == 200
            # a pooled kernel (started with no page) does not count until it is handed to a page
            pool.append(await manager.start_kernel(kernel_name="python3"))
            assert manager.ledger.live() == 1
            handed = await _get(url.replace("seat.ipynb", "pooled.ipynb"), "127.0.0.22")
            assert handed.code == 200 and manager.ledger.live() == 2
            assert manager.ledger.by_kernel(handed.body.decode()).request.address == "127.0.0.22"
        finally:
            server.stop()
            await manager.shutdown_all(now=True)

    with caplog.at_level(logging.INFO, logger="dichotomy_widget.server.bounded_kernels"), \
            caplog.at_level(logging.INFO, logger="tornado.access"):
        asyncio.run(scenario())
    assert any(r.name == "tornado.access" and " 429 " in f" {r.getMessage()}" for r in caplog.records)
    refusals = [r.getMessage() for r in caplog.records if "refused" in r.getMessage()]
    assert any("127.0.0.21" in m and "too_many_pages" in m for m in refusals)
    assert any("for 127.0.0.2: server_full" in m for m in refusals)
    # no token in this module's lines, nor in the access log's refusal lines (voila shows 4xx/5xx ones)
    assert not any("secret-token" in r.getMessage() for r in caplog.records
                   if r.name != "tornado.access" or r.levelno >= logging.WARNING)
    assert any("did not connect" in r.getMessage() for r in caplog.records)


class EnvPage(tornado.web.RequestHandler):
    """Like voila's page handler: start the page's kernel with an environment; answer what it got."""

    def initialize(self, manager: BoundedKernelManager) -> None:
        self.manager = manager

    async def get(self) -> None:
        import os

        self.manager.parent.voila_configuration.prelaunch_hook(self, notebook=None, cwd=None)
        env = dict(os.environ)
        env.pop("DICHOTOMY_DEVICE", None)
        kernel_id = await self.manager.start_kernel(kernel_name="python3", env=env)
        self.write(" ".join((env.get("DICHOTOMY_DEVICE", "-") or "-", env.get("DICHOTOMY_PAGE_KEY", "-"), kernel_id)))


def test_each_page_kernel_is_told_its_device_as_a_tag_and_the_teachers_computer_none(tmp_path):
    from dichotomy_widget.pages.device import device_tag

    async def scenario() -> tuple[str, str, str]:
        config = Config({"BoundedKernelManager": {"max_pages_per_device": 3, "max_kernels": 5, "host_reserve": 1,
                                                  "exempt_addresses": ["127.0.0.2"]}})
        nonlocal manager
        app = App(voila_configuration=voila_configuration.VoilaConfiguration())
        manager = BoundedKernelManager(parent=app, config=config, connection_dir=str(tmp_path))
        port = _port()
        server = tornado.web.Application([(r"/voila/render/seat.ipynb", EnvPage, {"manager": manager})]).listen(
            port, "127.0.0.1")
        url = f"http://127.0.0.1:{port}/voila/render/seat.ipynb"
        try:
            student = (await _get(url, "127.0.0.21")).body.decode().split()
            other = (await _get(url + "?table=AB", "127.0.0.22")).body.decode().split()
            teacher = (await _get(url, "127.0.0.2")).body.decode().split()
            for _device, key, kernel_id in (student, other, teacher):  # each page's own key opens its kernel only
                assert manager.may_shut_down(kernel_id, key)
                assert not any(manager.may_shut_down(kernel_id, k) for _d, k, i in (student, other, teacher) if i != kernel_id)
            return student, other, teacher
        finally:
            server.stop()
            await manager.shutdown_all(now=True)

    manager = None
    student, other, teacher = asyncio.run(scenario())
    assert student[0] == device_tag("127.0.0.21") and other[0] == device_tag("127.0.0.22") and teacher[0] == "-"
    assert "127.0.0" not in student[0]
    keys = {student[1], other[1], teacher[1]}
    assert len(keys) == 3 and all(len(k) >= 32 for k in keys)  # a fresh key for every page kernel
    assert not manager._page_keys  # forgotten with their kernels


def test_only_the_page_given_the_kernels_key_may_shut_it_down(tmp_path):
    """Not the same device (a second tab, a classmate behind the school's router), not this computer,
    not anyone who learnt the kernel id: only the page its kernel told the key."""
    config = Config({"BoundedKernelManager": {"max_pages_per_device": 3, "max_kernels": 5,
                                              "exempt_addresses": ["127.0.0.2"]}})
    app = App(voila_configuration=voila_configuration.VoilaConfiguration())
    manager = BoundedKernelManager(parent=app, config=config, connection_dir=str(tmp_path))
    ana, tab = new_page_key(), new_page_key()
    manager.keep_page_key("kernel-of-ana", ana)
    manager.keep_page_key("kernel-of-her-second-tab", tab)
    assert manager.may_shut_down("kernel-of-ana", ana)  # her own page's unload
    assert not manager.may_shut_down("kernel-of-ana", tab)  # her other tab, same device
    assert not manager.may_shut_down("kernel-of-ana", "")  # no key: voila's bare beacon, a script
    assert not manager.may_shut_down("kernel-of-ana", ana[:-1] + ("x" if ana[-1] != "x" else "y"))
    assert not manager.may_shut_down("a-pool-spare", ana) and not manager.may_shut_down("a-pool-spare", "")


def test_voila_serves_the_owner_only_shutdown_handler():
    from dichotomy_widget.server import pooled_voila

    voila_handler = importlib.import_module("voila.shutdown_kernel_handler").VoilaShutdownKernelHandler
    assert issubclass(pooled_voila.OwnerShutdownHandler, voila_handler)
    source = importlib.import_module("inspect").getsource(pooled_voila.DichotomyVoila.init_handlers)
    assert "VoilaShutdownKernelHandler: OwnerShutdownHandler" in source


class GatedPage(tornado.web.RequestHandler):
    """Like voila's page handler, with a pause between the prelaunch hook and the kernel's start: the
    moment a newer load of the same link can replace the page while its kernel starts."""

    def initialize(self, manager: BoundedKernelManager, gate: asyncio.Event, admitted: asyncio.Event) -> None:
        self.manager, self.gate, self.admitted = manager, gate, admitted

    async def get(self) -> None:
        self.manager.parent.voila_configuration.prelaunch_hook(self, notebook=None, cwd=None)
        self.admitted.set()
        await self.gate.wait()
        self.write(await self.manager.start_kernel(kernel_name="python3"))


def test_a_page_replaced_while_its_kernel_starts_is_answered_at_once_and_loses_that_kernel(caplog, tmp_path):
    """Stop 40's flood run: the same link loaded again from one device while the first load's kernel
    started shut that kernel down, and voila then waited for it forever (its keep-alive lines kept the
    first response open). The replaced page is now answered at once with a page that says so."""

    async def scenario() -> None:
        config = Config({"BoundedKernelManager": {"max_pages_per_device": 2, "max_kernels": 5}})
        app = App(voila_configuration=voila_configuration.VoilaConfiguration())
        manager = BoundedKernelManager(parent=app, config=config, connection_dir=str(tmp_path))
        gate, admitted = asyncio.Event(), asyncio.Event()
        port = _port()
        server = tornado.web.Application([
            (r"/voila/render/gated/seat.ipynb", GatedPage, {"manager": manager, "gate": gate, "admitted": admitted}),
            (r"/voila/render/seat.ipynb", Page, {"manager": manager}),
        ]).listen(port, "127.0.0.1")
        link = "seat.ipynb?table=AB&seat=secret-token-1"
        try:
            first = asyncio.ensure_future(_get(f"http://127.0.0.1:{port}/voila/render/gated/{link}", "127.0.0.21"))
            await asyncio.wait_for(admitted.wait(), 60)
            second = await _get(f"http://127.0.0.1:{port}/voila/render/{link}", "127.0.0.21")
            assert second.code == 200
            gate.set()
            replaced = await asyncio.wait_for(first, 120)
            assert replaced.code == 409, replaced.code
            body = replaced.body.decode("utf-8")
            assert "This page was opened again on this device" in body and 'data-code="page_replaced"' in body
            assert "Retry-After" not in replaced.headers and "secret-token" not in body
            for _ in range(120):  # the replaced page's kernel is shut down; the newer page's stays
                if manager.list_kernel_ids() == [second.body.decode()]:
                    break
                await asyncio.sleep(0.25)
            assert manager.list_kernel_ids() == [second.body.decode()]
            assert manager.ledger.live() == 1
        finally:
            server.stop()
            await manager.shutdown_all(now=True)

    with caplog.at_level(logging.INFO, logger="dichotomy_widget.server.bounded_kernels"):
        asyncio.run(scenario())
    assert any("its page was replaced while it started" in r.getMessage() for r in caplog.records)
    assert not any(r.exc_info for r in caplog.records)
