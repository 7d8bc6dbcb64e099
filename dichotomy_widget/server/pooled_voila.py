"""Voila, with its pre-heated kernel pool kept inside the page bounds: ``python -m dichotomy_widget.server.pooled_voila``.

Voila 0.5 serves a page from its pool (``preheat_kernel``) without calling the prelaunch hook that
admits page requests (:mod:`.bounded_kernels`), and a pool kernel learns its page's query only when the
request arrives (the protocol of ``voila.utils.get_query_string()``; the page kernel shows a pending page
meanwhile, so its whole HTML is ready in the pool: :class:`.entry.PendingPage`).
:class:`DichotomyVoila` is voila's application with two handlers replaced:

* :class:`PooledPageHandler` (the page handler): a request that a pool will serve is admitted first
  (:meth:`~.bounded_kernels.BoundedKernelManager.admit_pooled`: per-device bound, refusal page), then
  takes its pool kernel (:meth:`~.bounded_kernels.BoundedKernelManager.take_pooled`) and sends that kernel
  its own request: query, server name, forwarded identity header, and its full URL
  (``VOILA_REQUEST_URL``, which voila itself gives only to the *next* pool kernel). Every other request
  goes through voila's own code (ordinary kernel, prelaunch hook).
* :class:`LocalRequestInfoHandler` (``/voila/query/<kernel>``, where a pool kernel waits for its
  request): only this computer may connect, and a request is delivered once and then forgotten.

Its pages are signed when it starts (:func:`sign_pages`): jupyter_server checks a notebook's signature
each time voila loads it, and an unsigned page logged "Notebook class.ipynb is not trusted" for every
page opened. The signatures are kept in this process only (a random secret, a store in memory): nothing
is written to the teacher's Jupyter data folder, and a page changed on disk after the start is not trusted.

It also serves the widget's code and style by URL (:class:`WidgetCodeHandler`, :mod:`.widget_code`)
and sends voila's content-hashed front-end files as immutable (:class:`CachedLabextensionHandler`).
"""

from __future__ import annotations

import logging
import os
import re
from pathlib import Path
from typing import Any, AsyncIterator

import nbformat
from jupyter_server.base.handlers import FileFindHandler
from nbformat.sign import MemorySignatureStore, NotebookNotary
from jupyter_server.utils import url_path_join
from tornado.httputil import split_host_and_port
from tornado.ioloop import PeriodicCallback
import tornado.web
from tornado.web import HTTPError, StaticFileHandler
from voila.app import Voila
from voila.request_info_handler import RequestInfoSocketHandler
from voila.shutdown_kernel_handler import VoilaShutdownKernelHandler
from voila.tornado.handler import TornadoVoilaHandler
from voila.utils import ENV_VARIABLE

from ..widgets import widget_code
from ..pages.device import DEVICE_ENV, device_tag
from ..pages.page_key import PAGE_KEY_ENV, PAGE_KEY_FIELD, new_page_key
from .trouble_watch import CHECK_EVERY, TroubleWatch

__all__ = ["DichotomyVoila", "PooledPageHandler", "OwnerShutdownHandler", "LocalRequestInfoHandler", "CachedLabextensionHandler",
           "WidgetCodeHandler", "request_info", "sign_pages", "main"]

log = logging.getLogger(__name__)


def request_info(handler: TornadoVoilaHandler) -> dict[str, str]:
    """What a pool kernel gets as its environment when its page is requested (voila's own set, plus
    ``VOILA_REQUEST_URL``)."""
    request = handler.request
    info = {
        ENV_VARIABLE.SCRIPT_NAME: request.path,
        ENV_VARIABLE.PATH_INFO: "",
        ENV_VARIABLE.QUERY_STRING: str(request.query),
        ENV_VARIABLE.SERVER_SOFTWARE: f"voila/{handler.voila_version}",
        ENV_VARIABLE.SERVER_PROTOCOL: str(request.version),
        ENV_VARIABLE.VOILA_REQUEST_URL: request.full_url(),
    }
    host, port = split_host_and_port(request.host.lower())
    info[ENV_VARIABLE.SERVER_PORT] = str(port) if port else ""
    info[ENV_VARIABLE.SERVER_NAME] = host
    device = getattr(getattr(handler, "kernel_manager", None), "device", None)
    if callable(device):  # the page's device, as a tag ("" for the teacher's own computer)
        address, exempt = device(handler)
        info[DEVICE_ENV] = "" if exempt else device_tag(address)
    info[PAGE_KEY_ENV] = new_page_key()  # the page's own key for shutting its kernel down (page_key.py)
    wanted = {name.lower() for name in handler.voila_configuration.http_header_envs}
    for name in request.headers:
        if name.lower() in wanted:
            info[f"HTTP_{name.upper().replace('-', '_')}"] = request.headers.get(name)
    return {str(k): v for k, v in info.items()}


class PooledPageHandler(TornadoVoilaHandler):
    """Voila's page handler; a page a pool serves is admitted by the page bounds first."""

    @property
    def voila_version(self) -> str:
        from voila._version import __version__

        return __version__

    async def get_generator(self, path: str | None = None) -> AsyncIterator[str]:
        manager: Any = self.kernel_manager
        notebook = self.notebook_path or path
        pooled = (hasattr(manager, "take_pooled") and not (self.notebook_path and path) and notebook
                  and self.get_argument("template", None) is None and self.get_argument("theme", None) is None
                  and manager.pool_ready(notebook))
        taken = None
        if pooled:
            ticket = manager.admit_pooled(self)  # tornado.web.Finish with the refusal page when refused
            info = request_info(self)
            taken = await manager.take_pooled(notebook, ticket)
        if taken is None:  # no pool for this page (or its kernel failed): voila's own path
            async for snippet in self._while_the_kernel_lives(super().get_generator(path)):
                yield snippet
            return
        render_task, rendered_cache, kernel_id = taken
        manager.keep_page_key(kernel_id, info[PAGE_KEY_ENV])
        self.set_header("Content-Type", "text/html")
        self.set_header("Cache-Control", "no-cache, no-store, must-revalidate")
        self.set_header("Pragma", "no-cache")
        self.set_header("Expires", "0")
        RequestInfoSocketHandler.send_updates({"kernel_id": kernel_id, "payload": info})
        if rendered_cache:
            yield "".join(rendered_cache)
        rendered, rendering = await render_task
        if len(rendered) > len(rendered_cache):
            yield "".join(rendered[len(rendered_cache):])
        async for snippet, _ in rendering:
            yield snippet


    async def _while_the_kernel_lives(self, page: AsyncIterator[str]) -> AsyncIterator[str]:
        """Voila's page, ended early if the page's kernel is shut down before the page is sent (replaced
        by a newer load of its link, or evicted). Voila's renderer then fails in a task of its own and
        its page would send keep-alive lines forever; this notices at the next one (voila sends one
        every ``http_keep_alive_timeout`` seconds) and ends the response. The browser shows its page's
        "taking longer than it should" notice with a Reload button (the voila template)."""
        gone = getattr(self.kernel_manager, "page_kernel_gone", None)
        try:
            async for snippet in page:
                yield snippet
                if callable(gone) and gone():
                    return
        finally:
            await page.aclose()  # type: ignore[attr-defined]


class LocalRequestInfoHandler(RequestInfoSocketHandler):
    """Voila's ``/voila/query/<kernel>`` socket, for this computer's kernels only; a request is
    delivered once (voila keeps every undelivered one for any later caller)."""

    def open(self, kernel_id: str) -> None:  # type: ignore[override]
        if (self.request.remote_ip or "") not in _own():
            log.warning("refused a request-info socket from %s", self.request.remote_ip)
            self.close(code=1008)
            return
        super().open(kernel_id)
        RequestInfoSocketHandler._cache.pop(kernel_id, None)


_OWN: set[str] = set()


def _own() -> set[str]:
    from .bounded_kernels import own_addresses

    if not _OWN:
        _OWN.update(own_addresses())
    return _OWN


#: A front-end file whose name carries a hash of its content (``remoteEntry.698dcaf7.js``,
#: ``84.09c61a35dce1705f.js``): a new build has a new name, so a browser may keep it for good.
CONTENT_HASHED = re.compile(r"(^|[./-])[0-9a-f]{8,}\.(js|css|wasm|woff2?)$")
IMMUTABLE = "public, max-age=31536000, immutable"


class CachedLabextensionHandler(FileFindHandler):
    """Voila's ``/voila/labextensions/`` files. Voila sends them all with ``no-cache``; this serves the
    content-hashed ones (the widget manager's and anywidget's chunks) as immutable, so a browser that
    loaded one Dichotomy page (the join page) asks for none of them again."""

    def set_headers(self) -> None:
        super().set_headers()
        if CONTENT_HASHED.search(self.request.path.rsplit("/", 1)[-1]):
            self.set_header("Cache-Control", IMMUTABLE)


class WidgetCodeHandler(StaticFileHandler):
    """The widget's code and style at their content-hashed names (:mod:`.widget_code`), immutable.
    Any other name is a 404: this serves two files, not a folder."""

    def initialize(self) -> None:  # type: ignore[override]
        super().initialize(path=str(widget_code.JS_DIR))

    @classmethod
    def get_absolute_path(cls, root: str, path: str) -> str:
        found = widget_code.served_files().get(path)
        if found is None:
            raise HTTPError(404)
        return str(found)

    def set_extra_headers(self, path: str) -> None:
        self.set_header("Cache-Control", IMMUTABLE)


class OwnerShutdownHandler(VoilaShutdownKernelHandler):
    """Voila's ``/voila/api/shutdown/<kernel>`` (a page's unload beacon), for the kernel's own page only:
    the request must carry the key the server gave that page's kernel (:mod:`.page_key`,
    :meth:`~.bounded_kernels.BoundedKernelManager.may_shut_down`). Knowing a kernel's id, or sharing
    its device, is not enough to end another page."""

    @tornado.web.authenticated
    async def post(self, kernel_id: str) -> None:
        allowed = getattr(self.kernel_manager, "may_shut_down", None)
        if callable(allowed) and not allowed(kernel_id, self.get_body_argument(PAGE_KEY_FIELD, "")):
            # a page closed before its kernel told it the key, or a forged request: the kernel stays (culled
            # when idle); not the teacher's concern, so no warning on the server's terminal
            log.info("refused to shut down kernel %s for a request without its page's key", kernel_id)
            self.set_status(403)
            await self.finish()
            return
        await super().post(kernel_id)


#: The signatures of the pages this server signed at its start, shared by every notary of this process.
PAGE_SIGNATURES = MemorySignatureStore()


def sign_pages(root: Path, notary: NotebookNotary) -> int:
    """Sign every notebook under ``root`` with ``notary`` (whose store is :data:`PAGE_SIGNATURES`);
    returns how many."""
    count = 0
    for path in sorted(root.rglob("*.ipynb")):
        if ".ipynb_checkpoints" in path.parts:
            continue
        notary.sign(nbformat.read(path, as_version=4))
        count += 1
    return count


def _not_the_ping_notice(record: logging.LogRecord) -> bool:
    """False for tornado's notice that jupyter_server's websocket ping timeout (given in milliseconds,
    which tornado reads as seconds) is longer than its ping interval: it comes from those two
    libraries' defaults, once per server, and nothing a teacher can or needs to act on (pages keep
    their connection either way; setting the timeout closes every page's websocket each 30 s)."""
    return not str(record.msg).startswith("The websocket_ping_timeout (")


def _one_line_for_a_page_whose_kernel_stopped(record: logging.LogRecord) -> bool:
    """asyncio's "Task exception was never retrieved" for voila's page renderer (``put_html``) whose
    kernel stopped before the page was sent (see :meth:`PooledPageHandler._while_the_kernel_lives`):
    one line with the error instead of a traceback on the teacher's terminal. Any other task's
    exception keeps its traceback."""
    message = str(record.msg)
    if message.startswith("Task exception was never retrieved") and "put_html()" in message and record.exc_info:
        record.msg, record.args, record.exc_info, record.exc_text = (
            "a page stopped before it was sent, its kernel gone (shut down or died): %s",
            (type(record.exc_info[1]).__name__,), None, None)
        record.levelno, record.levelname = logging.WARNING, "WARNING"
    return True


class DichotomyVoila(Voila):
    """Voila with :class:`PooledPageHandler`, :class:`LocalRequestInfoHandler`,
    :class:`CachedLabextensionHandler` and the widget's code by URL (:class:`WidgetCodeHandler`), no
    debug records built only to be dropped, and one write-trouble check for all its kernels
    (:mod:`.trouble_watch`)."""

    def initialize(self, argv: Any = None) -> None:
        super().initialize(argv)
        # traitlets leaves the application's logger at DEBUG and filters in its handler, so every debug
        # call still builds a record to throw away: jupyter_server's kernel manager makes one for each
        # message a kernel sends (10 % of the server's time while a class opens its pages, measured).
        self.log.setLevel(self.log_level)
        logging.getLogger("tornado.general").addFilter(_not_the_ping_notice)
        logging.getLogger("asyncio").addFilter(_one_line_for_a_page_whose_kernel_stopped)
        # the pages are ours and signed below: the notaries share one in-memory store and secret
        self.config.NotebookNotary.secret = os.urandom(32)
        self.config.NotebookNotary.store_factory = lambda: PAGE_SIGNATURES
        self.trouble_watch = TroubleWatch.for_server()
        if self.trouble_watch is not None:
            PeriodicCallback(self.trouble_watch.check, CHECK_EVERY * 1000).start()

    def start(self) -> None:
        # before the kernel manager exists: every kernel this server starts (pool or not) inherits it
        os.environ[widget_code.SERVED_ENV] = "served"
        if self.root_dir and Path(self.root_dir).is_dir():
            sign_pages(Path(self.root_dir), NotebookNotary(parent=self))
        super().start()

    def init_handlers(self) -> list:
        swap = {TornadoVoilaHandler: PooledPageHandler, RequestInfoSocketHandler: LocalRequestInfoHandler,
                FileFindHandler: CachedLabextensionHandler, VoilaShutdownKernelHandler: OwnerShutdownHandler}
        code = (url_path_join(self.server_url, widget_code.ROUTE, "(.*)"), WidgetCodeHandler)
        return [code] + [(route[0], swap.get(route[1], route[1]), *route[2:]) for route in super().init_handlers()]


main = DichotomyVoila.launch_instance

if __name__ == "__main__":  # pragma: no cover
    main()
