"""Voila's side of the page bounds: a kernel manager that asks :class:`~.bounds.PageLedger` first.

``dichotomy serve`` runs voila with ``--VoilaConfiguration.multi_kernel_manager_class`` set to
:class:`BoundedKernelManager` (see :func:`dichotomy_widget.server.bounds.voila_args`). Voila 0.5 offers two hooks, used together:

* the kernel manager class (``multi_kernel_manager_class``): it sees kernels start, websockets
  connect and disconnect (``notify_connect``/``notify_disconnect``) and kernels shut down;
* ``VoilaConfiguration.prelaunch_hook``: called with the tornado request handler right before voila
  starts a page's kernel. The manager installs its :meth:`~BoundedKernelManager.admit` there (after
  any hook already configured, which still runs). A refused request is answered at once with the
  refusal page (HTTP 429 or 503) by raising :class:`tornado.web.Finish`: no kernel starts.

The admitted request's ticket reaches ``start_kernel`` through a context variable (the hook and
``start_kernel`` run in the same request task).

Voila's pre-heated kernel pool (``preheat_kernel``, ``dichotomy serve --expect N``) skips the prelaunch
hook, so voila runs with :class:`~.pooled_voila.DichotomyVoila`, whose page handler admits a request
that a pool will serve with :meth:`BoundedKernelManager.admit_pooled` and takes the kernel with
:meth:`BoundedKernelManager.take_pooled`. Pool kernels count as spares against ``max_kernels`` from the
moment they start (``start_kernel`` sees voila's ``VOILA_PREHEAT=True`` in their environment); a page
that takes one turns the spare into its own kernel; pools are refilled only while the cap has room.
"""

from __future__ import annotations

import asyncio
import contextvars
import ipaddress
import logging
import posixpath
import shutil
import socket
import subprocess
from typing import Any, NoReturn

import tornado.web
from jupyter_server.services.kernels.kernelmanager import AsyncMappingKernelManager
from tornado.ioloop import PeriodicCallback
from traitlets import Float, Int, List, Unicode

from ..config import DEFAULT_CONNECT_TIMEOUT, DEFAULT_HOST_RESERVE, DEFAULT_PAGES_PER_DEVICE
from ..errors import PageRefused
from .bounds import (Limits, PageLedger, PageRequest, Ticket, client_address, default_max_kernels, page_key,
                     refusal_page)
from ..pages.device import DEVICE_ENV, device_tag
from ..logs import log_failure
from ..pages.page_key import PAGE_KEY_ENV, new_page_key, same_key

__all__ = ["BoundedKernelManager", "own_addresses", "parse_pool", "refuse"]

log = logging.getLogger(__name__)

_TICKET: contextvars.ContextVar[Ticket | None] = contextvars.ContextVar("dichotomy_page_ticket", default=None)
_HANDLER: contextvars.ContextVar[tornado.web.RequestHandler | None] = contextvars.ContextVar(
    "dichotomy_page_handler", default=None)
#: The kernel start_kernel started for the page request being served (None before, or for a pool kernel).
_PAGE_KERNEL: contextvars.ContextVar[str | None] = contextvars.ContextVar("dichotomy_page_kernel", default=None)


def refuse(handler: tornado.web.RequestHandler, refusal: PageRefused) -> NoReturn:
    """Answer ``handler``'s request with the refusal page for ``refusal`` (raises ``tornado.web.Finish``,
    which tornado turns into that response)."""
    request = handler.request
    request.uri = request.path  # tornado's access log prints 4xx/5xx with the URI: no token in it
    handler.set_status(refusal.status)
    handler.set_header("Content-Type", "text/html; charset=UTF-8")
    handler.set_header("Cache-Control", "no-store")
    if refusal.code != "page_replaced":
        handler.set_header("Retry-After", "15" if refusal.code == "too_many_pages" else "30")
    raise tornado.web.Finish(refusal_page(refusal, request.headers.get("Accept-Language"))) from None


def own_addresses() -> set[str]:
    """This computer's addresses (loopback and its network interfaces): the teacher's own device."""
    out = {"127.0.0.1", "::1"}
    try:
        out |= {str(info[4][0]) for info in socket.getaddrinfo(socket.gethostname(), None)}
    except OSError:
        pass
    if shutil.which("hostname"):
        try:
            out |= set(subprocess.run(["hostname", "-I"], capture_output=True, text=True, timeout=5).stdout.split())
        except (OSError, subprocess.SubprocessError):
            pass
    normal = set()
    for addr in out:
        try:
            normal.add(str(ipaddress.ip_address(addr.split("%", 1)[0])))
        except ValueError:
            continue
    return normal


class BoundedKernelManager(AsyncMappingKernelManager):
    """Jupyter's kernel manager, with page kernels bounded per device and in total (0 = no bound)."""

    max_pages_per_device = Int(DEFAULT_PAGES_PER_DEVICE, config=True,
                               help="Live page kernels one client address may hold (0: no bound).")
    max_kernels = Int(-1, config=True,
                      help="Page kernels in all (0: no bound; -1: from the available memory).")
    host_reserve = Int(DEFAULT_HOST_RESERVE, config=True,
                       help="Kernels of max_kernels only host pages may use.")
    connect_timeout = Float(DEFAULT_CONNECT_TIMEOUT, config=True,
                            help="Seconds a sent page has to open its websocket before its kernel is shut down (0: off).")
    trusted_proxies = List(Unicode(), config=True,
                           help="Proxy addresses or networks whose X-Forwarded-For / X-Real-IP header is believed.")
    exempt_addresses = List(Unicode(), config=True,
                            help="Addresses not bound per device (default: this computer's own addresses).")
    pool = Unicode("", config=True,
                   help="Pre-started kernels per page with voila's preheat_kernel: 'seat.ipynb:30,host.ipynb:1'.")
    pool_refill_delay = Float(30.0, config=True,
                              help="Seconds after a page took a pool kernel before its replacement starts.")

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        cap = self.max_kernels if self.max_kernels >= 0 else default_max_kernels()
        self.limits = Limits(per_device=self.max_pages_per_device, max_kernels=cap,
                             host_reserve=self.host_reserve, connect_timeout=self.connect_timeout)
        self.ledger = PageLedger(self.limits)
        self._page_keys: dict[str, str] = {}  # kernel id -> the key its page must show to shut it down
        self._exempt = set(self.exempt_addresses) or own_addresses()
        self._sweeper: PeriodicCallback | None = None
        self._previous_hook = None
        if not log.handlers and self.log.handlers:  # voila's output and format, at INFO whatever voila's level
            handler = logging.StreamHandler(getattr(self.log.handlers[0], "stream", None))
            handler.setFormatter(self.log.handlers[0].formatter)
            log.addHandler(handler)
            log.setLevel(logging.INFO)
        config = getattr(self.parent, "voila_configuration", None)
        if config is None:
            log.warning("page bounds are off: %s is not running inside the voila application", type(self).__name__)
        else:
            self._previous_hook = config.prelaunch_hook
            config.prelaunch_hook = self.admit
        self.pool_sizes = parse_pool(self.pool)
        if hasattr(self, "kernel_pools_config"):  # voila's preheat_kernel pool class wraps this one
            self.kernel_pools_config = {"default": {"pool_size": 0},
                                        **{page: {"pool_size": n} for page, n in self.pool_sizes.items()}}
            self.fill_delay = self.pool_refill_delay
            log.debug("kernel pools: %s", ", ".join(f"{n} for {page}" for page, n in self.pool_sizes.items())
                     or "none")
        elif self.pool_sizes:
            log.warning("kernel pools are off: voila runs without preheat_kernel")
        log.debug("page bounds: %s pages per device, %s kernels (%s kept for host pages), connect timeout %s s",
                 self.limits.per_device or "no bound on", cap or "no bound on", self.limits.host_reserve,
                 self.limits.connect_timeout or "no")

    # -- admission (voila's prelaunch hook) -----------------------------------------------------------
    def admit(self, handler: tornado.web.RequestHandler, notebook: Any = None, cwd: str | None = None) -> Any:
        """Admit this page request or answer it with the refusal page (raises ``tornado.web.Finish``).

        Voila's pool renders its notebooks with no request (``handler`` None): nothing to admit then."""
        if handler is None:
            return None
        _TICKET.set(self._admit(handler, pooled=False))
        _HANDLER.set(handler)
        if self._previous_hook is not None:
            return self._previous_hook(handler, notebook=notebook, cwd=cwd)
        return None

    def admit_pooled(self, handler: tornado.web.RequestHandler) -> Ticket:
        """Admit a page request that a pool kernel will serve (it adds no kernel), or raise
        ``tornado.web.Finish`` with the refusal page. Give the ticket to :meth:`take_pooled`."""
        _HANDLER.set(handler)
        return self._admit(handler, pooled=True)

    def _admit(self, handler: tornado.web.RequestHandler, pooled: bool) -> Ticket:
        request = handler.request
        address, exempt = self.device(handler)
        page = posixpath.basename(request.path) or "page"
        page_request = PageRequest(address=address, page=page,
                                   key=page_key(page, request.query_arguments), exempt=exempt)
        try:
            admission = self.ledger.admit(page_request, pooled=pooled)
        except PageRefused as refusal:
            log.info("refused a %s page for %s: %s (%d page kernels, %d on that device)", page, address,
                     refusal.code, self.ledger.live(), self.ledger.on_device(address))
            refuse(handler, refusal)
        for kernel_id in admission.shutdown:
            log.info("shutting down kernel %s: replaced or evicted by a new %s page from %s", kernel_id, page, address)
            self._shutdown_soon(kernel_id)
        ticket = admission.ticket
        # Voila's page shuts its kernel down on unload with a beacon that must carry the _xsrf cookie;
        # voila's page alone never sets that cookie, so without this every closed tab's kernel would
        # live until the idle cull (10 min). Reading the token sets the cookie on this response.
        _ = handler.xsrf_token
        finish = handler.on_finish

        def on_finish() -> None:
            self.ledger.page_sent(ticket)
            finish()

        handler.on_finish = on_finish  # type: ignore[method-assign]
        return ticket

    def device(self, handler: tornado.web.RequestHandler) -> tuple[str, bool]:
        """Whom a page request counts against (its client address), and whether that one is exempt
        from the per-device bound (this computer's own addresses). The hub service counts per hub user."""
        request = handler.request
        address = client_address(request.remote_ip or "", request.headers, self.trusted_proxies)
        return address, address in self._exempt

    def may_shut_down(self, kernel_id: str, key: str) -> bool:
        """Whether a request carrying ``key`` may shut ``kernel_id`` down (voila's page does on unload):
        only the page the kernel serves knows its key (:mod:`.page_key`), not another tab or device. A
        pool's spare kernel, or one this manager does not know, is never shut down by a request."""
        return same_key(self._page_keys.get(kernel_id), key)

    def page_kernel_gone(self) -> bool:
        """Whether the kernel started for the page request being served is shut down already (its page
        replaced by a newer load of its link, or evicted, before it was sent); logs that page's end."""
        kernel_id = _PAGE_KERNEL.get()
        if kernel_id is None or kernel_id in self:
            return False
        log.info("ended the page of kernel %s: the kernel was shut down before the page was sent", kernel_id)
        return True

    def keep_page_key(self, kernel_id: str, key: str) -> None:
        """Remember the key given to the page kernel ``kernel_id`` (see :meth:`may_shut_down`)."""
        if key:
            self._page_keys[kernel_id] = key

    def claim(self, kernel_id: str) -> None:
        """Count ``kernel_id`` for the page request being served (start_kernel does this). A page replaced
        by a newer load of its link while its kernel started loses that kernel and is answered at once
        with the refusal page (``tornado.web.Finish``): voila would otherwise wait for the shut-down kernel
        and send keep-alive lines forever."""
        ticket, handler = _TICKET.get(), _HANDLER.get()
        _TICKET.set(None)
        _HANDLER.set(None)
        if ticket is not None and not self.ledger.attach(ticket, kernel_id):
            log.info("shutting down kernel %s: its page was replaced while it started", kernel_id)
            self._shutdown_soon(kernel_id)
            if handler is not None:  # the page ends now, not after voila fails to reach the kernel
                refuse(handler, PageRefused("This page was opened again on this device.", code="page_replaced"))

    # -- the pool -------------------------------------------------------------------------------------
    async def take_pooled(self, notebook: str, ticket: Ticket) -> tuple[asyncio.Task, list[str], str] | None:
        """Hand a pool kernel of ``notebook`` to the admitted page of ``ticket``: voila's render task, the
        HTML rendered so far and the kernel id, as voila's ``get_rendered_notebook`` gives them; then
        refill the pool as far as the cap allows. None (ticket released) when the pool is empty or its
        kernel failed: the caller starts an ordinary kernel instead. A page replaced by a newer load of
        its link meanwhile is answered with the refusal page (``tornado.web.Finish``, see :func:`refuse`)."""
        pool = getattr(self, "_pools", {}).get(notebook)
        content = None
        while pool and content is None:
            item = pool.pop(0)
            try:
                content = await item
            except Exception as err:  # noqa: BLE001 - a kernel that failed to start: try the next one
                log_failure(log, "a pre-started kernel for %s failed to start", err, notebook)
                continue
            if content["kernel_id"] not in self:
                content = None  # shut down (culled or died) while it waited
        self._top_up(notebook)
        if content is None:
            self.ledger.release(ticket)
            return None
        kernel_id = content["kernel_id"]
        content["renderer"].stop_generator = True
        if not self.ledger.attach(ticket, kernel_id):
            log.info("shutting down kernel %s: its page was replaced while it was handed over", kernel_id)
            self._shutdown_soon(kernel_id)
            handler = _HANDLER.get()
            if handler is not None:
                refuse(handler, PageRefused("This page was opened again on this device.", code="page_replaced"))
            return None
        log.info("pre-started kernel %s serves a %s page", kernel_id, notebook)
        return content["task"], content["renderer"].rendered_cache, kernel_id

    def pool_ready(self, notebook: str) -> bool:
        """Whether a page of ``notebook`` would be served from the pool now (voila's own test)."""
        return bool(getattr(self, "_pools", {}).get(notebook)) and bool(self.notebook_data.get(notebook))

    def _top_up(self, notebook: str | None = None, delay: float | None = None) -> None:
        """Start pool kernels up to each pool's size, as far as ``max_kernels`` has room for them."""
        pools = getattr(self, "_pools", None)
        if pools is None:
            return
        pending = sum(1 for items in pools.values() for item in items if not item.done())
        room = self.ledger.room_for_spares()
        for page, size in self.pool_sizes.items():
            if notebook is not None and page != notebook:
                continue
            have = len(pools.get(page, ()))
            want = size - have if room is None else min(size - have, room - pending)
            if want <= 0:
                continue
            pending += want
            config = self.kernel_pools_config
            self.kernel_pools_config = {**config, page: {**config.get(page, {}), "pool_size": have + want}}
            try:
                self.fill_if_needed(delay=delay, notebook_name=page)
            finally:
                self.kernel_pools_config = config

    # -- kernel life ----------------------------------------------------------------------------------
    async def start_kernel(self, *, kernel_id: str | None = None, path: Any = None, **kwargs: Any) -> str:
        if (kwargs.get("env") or {}).get("VOILA_PREHEAT") == "True":  # a pool kernel: no page yet
            started = await super().start_kernel(kernel_id=kernel_id, path=path, **kwargs)
            self.ledger.add_spare(started)
            log.info("pool kernel %s started: %d spare kernels", started, self.ledger.spares())
            self._start_sweeper()
            return started
        ticket = _TICKET.get()
        key = new_page_key()
        if isinstance(kwargs.get("env"), dict):
            kwargs["env"][PAGE_KEY_ENV] = key  # the page's own key for shutting its kernel down
            if ticket is not None:  # the page's device, as a tag
                kwargs["env"][DEVICE_ENV] = "" if ticket.request.exempt else device_tag(ticket.request.address)
        else:
            key = ""
        try:
            started = await super().start_kernel(kernel_id=kernel_id, path=path, **kwargs)
        except BaseException:
            if ticket is not None:
                self.ledger.release(ticket)
            raise
        self.keep_page_key(started, key)
        _PAGE_KERNEL.set(started)
        if ticket is not None:
            self.claim(started)
        self._start_sweeper()
        return started

    async def shutdown_kernel(self, kernel_id: str, now: bool = False, restart: bool = False) -> None:
        if not restart:
            self.ledger.forget(kernel_id)
            self._page_keys.pop(kernel_id, None)
        return await super().shutdown_kernel(kernel_id, now=now, restart=restart)

    def remove_kernel(self, kernel_id: str) -> Any:
        self.ledger.forget(kernel_id)
        self._page_keys.pop(kernel_id, None)
        return super().remove_kernel(kernel_id)

    def notify_connect(self, kernel_id: str) -> None:
        super().notify_connect(kernel_id)
        self.ledger.connected(kernel_id)

    def notify_disconnect(self, kernel_id: str) -> None:
        super().notify_disconnect(kernel_id)
        self.ledger.disconnected(kernel_id)

    def _shutdown_soon(self, kernel_id: str) -> None:
        async def stop() -> None:
            try:
                if kernel_id in self:
                    await self.shutdown_kernel(kernel_id, now=True)
            except Exception as err:  # noqa: BLE001 - a kernel gone meanwhile is fine; anything else is logged
                log_failure(log, "could not shut down kernel %s", err, kernel_id)

        asyncio.ensure_future(stop())

    def _start_sweeper(self) -> None:
        if self._sweeper is None and self.limits.connect_timeout > 0:
            every = max(1.0, min(5.0, self.limits.connect_timeout / 4))
            self._sweeper = PeriodicCallback(self._sweep, every * 1000)
            self._sweeper.start()

    def _sweep(self) -> None:
        """Shut down kernels whose page never connected in time; forget kernels that are gone."""
        self.ledger.retain(self.list_kernel_ids())
        for kernel_id in self.ledger.expired():
            log.info("shutting down kernel %s: its page did not connect within %s s", kernel_id,
                     self.limits.connect_timeout)
            self._shutdown_soon(kernel_id)
        self._top_up()


def parse_pool(text: str) -> dict[str, int]:
    """``"seat.ipynb:30,host.ipynb:1"`` -> ``{"seat.ipynb": 30, "host.ipynb": 1}`` (sizes below 1 dropped)."""
    out: dict[str, int] = {}
    for item in text.split(","):
        page, _, size = item.strip().rpartition(":")
        if page and size.strip().isdigit() and int(size) > 0:
            out[page.strip()] = int(size)
    return out
