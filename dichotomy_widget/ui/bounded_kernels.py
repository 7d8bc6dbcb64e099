"""Voila's side of the page bounds: a kernel manager that asks :class:`~.bounds.PageLedger` first.

``dichotomy serve`` runs voila with ``--VoilaConfiguration.multi_kernel_manager_class`` set to
:class:`BoundedKernelManager` (see :func:`dichotomy_widget.ui.bounds.voila_args`). Voila 0.5 offers two hooks, used together:

* the kernel manager class (``multi_kernel_manager_class``): it sees kernels start, websockets
  connect and disconnect (``notify_connect``/``notify_disconnect``) and kernels shut down;
* ``VoilaConfiguration.prelaunch_hook``: called with the tornado request handler right before voila
  starts a page's kernel. The manager installs its :meth:`~BoundedKernelManager.admit` there (after
  any hook already configured, which still runs). A refused request is answered at once with the
  refusal page (HTTP 429 or 503) by raising :class:`tornado.web.Finish`: no kernel starts.

The admitted request's ticket reaches ``start_kernel`` through a context variable (the hook and
``start_kernel`` run in the same request task). A kernel pool (not built) would start kernels without
a ticket, so they would not count, and call :meth:`BoundedKernelManager.claim` when it hands one to an
admitted page. Voila's own ``preheat_kernel`` pool skips the prelaunch hook, so it must stay off.
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
from typing import Any

import tornado.web
from jupyter_server.services.kernels.kernelmanager import AsyncMappingKernelManager
from tornado.ioloop import PeriodicCallback
from traitlets import Float, Int, List, Unicode

from ..config import DEFAULT_CONNECT_TIMEOUT, DEFAULT_HOST_RESERVE, DEFAULT_PAGES_PER_DEVICE
from ..errors import PageRefused
from .bounds import (Limits, PageLedger, PageRequest, Ticket, client_address, default_max_kernels, page_key,
                     refusal_page)

__all__ = ["BoundedKernelManager", "own_addresses"]

log = logging.getLogger(__name__)

_TICKET: contextvars.ContextVar[Ticket | None] = contextvars.ContextVar("dichotomy_page_ticket", default=None)


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

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        cap = self.max_kernels if self.max_kernels >= 0 else default_max_kernels()
        self.limits = Limits(per_device=self.max_pages_per_device, max_kernels=cap,
                             host_reserve=self.host_reserve, connect_timeout=self.connect_timeout)
        self.ledger = PageLedger(self.limits)
        self._exempt = set(self.exempt_addresses) or own_addresses()
        self._sweeper: PeriodicCallback | None = None
        self._previous_hook = None
        if not log.handlers and self.log.handlers:  # voila's own log output, not the silent root logger
            for handler in self.log.handlers:
                log.addHandler(handler)
            log.setLevel(logging.INFO)
        config = getattr(self.parent, "voila_configuration", None)
        if config is None:
            log.warning("page bounds are off: %s is not running inside the voila application", type(self).__name__)
        else:
            if config.preheat_kernel:
                log.warning("voila's preheat_kernel pool skips the prelaunch hook: pooled pages are not bounded")
            self._previous_hook = config.prelaunch_hook
            config.prelaunch_hook = self.admit
        log.info("page bounds: %s pages per device, %s kernels (%s kept for host pages), connect timeout %s s",
                 self.limits.per_device or "no bound on", cap or "no bound on", self.limits.host_reserve,
                 self.limits.connect_timeout or "no")

    # -- admission (voila's prelaunch hook) -----------------------------------------------------------
    def admit(self, handler: tornado.web.RequestHandler, notebook: Any = None, cwd: str | None = None) -> Any:
        """Admit this page request or answer it with the refusal page (raises ``tornado.web.Finish``)."""
        request = handler.request
        address, exempt = self.device(handler)
        page = posixpath.basename(request.path) or "page"
        page_request = PageRequest(address=address, page=page,
                                   key=page_key(page, request.query_arguments), exempt=exempt)
        try:
            admission = self.ledger.admit(page_request)
        except PageRefused as refusal:
            log.warning("refused a %s page for %s: %s (%d page kernels, %d on that device)", page, address,
                        refusal.code, self.ledger.live(), self.ledger.on_device(address))
            request.uri = request.path  # tornado's access log prints 4xx/5xx with the URI: no token in it
            handler.set_status(refusal.status)
            handler.set_header("Content-Type", "text/html; charset=UTF-8")
            handler.set_header("Cache-Control", "no-store")
            handler.set_header("Retry-After", "15" if refusal.code == "too_many_pages" else "30")
            raise tornado.web.Finish(refusal_page(refusal, request.headers.get("Accept-Language"))) from None
        for kernel_id in admission.shutdown:
            log.info("shutting down kernel %s: replaced or evicted by a new %s page from %s", kernel_id, page, address)
            self._shutdown_soon(kernel_id)
        ticket = admission.ticket
        _TICKET.set(ticket)
        # Voila's page shuts its kernel down on unload with a beacon that must carry the _xsrf cookie;
        # voila's page alone never sets that cookie, so without this every closed tab's kernel would
        # live until the idle cull (10 min). Reading the token sets the cookie on this response.
        _ = handler.xsrf_token
        finish = handler.on_finish

        def on_finish() -> None:
            self.ledger.page_sent(ticket)
            finish()

        handler.on_finish = on_finish  # type: ignore[method-assign]
        if self._previous_hook is not None:
            return self._previous_hook(handler, notebook=notebook, cwd=cwd)
        return None

    def device(self, handler: tornado.web.RequestHandler) -> tuple[str, bool]:
        """Whom a page request counts against (its client address), and whether that one is exempt
        from the per-device bound (this computer's own addresses). The hub service counts per hub user."""
        request = handler.request
        address = client_address(request.remote_ip or "", request.headers, self.trusted_proxies)
        return address, address in self._exempt

    def claim(self, kernel_id: str) -> None:
        """Count ``kernel_id`` for the page request being served (start_kernel does this; a pool would
        call it when it hands a pre-started kernel to an admitted page)."""
        ticket = _TICKET.get()
        _TICKET.set(None)
        if ticket is not None and not self.ledger.attach(ticket, kernel_id):
            log.info("shutting down kernel %s: its page was replaced while it started", kernel_id)
            self._shutdown_soon(kernel_id)

    # -- kernel life ----------------------------------------------------------------------------------
    async def start_kernel(self, *, kernel_id: str | None = None, path: Any = None, **kwargs: Any) -> str:
        ticket = _TICKET.get()
        try:
            started = await super().start_kernel(kernel_id=kernel_id, path=path, **kwargs)
        except BaseException:
            if ticket is not None:
                self.ledger.release(ticket)
            raise
        if ticket is not None:
            self.claim(started)
        self._start_sweeper()
        return started

    async def shutdown_kernel(self, kernel_id: str, now: bool = False, restart: bool = False) -> None:
        if not restart:
            self.ledger.forget(kernel_id)
        return await super().shutdown_kernel(kernel_id, now=now, restart=restart)

    def remove_kernel(self, kernel_id: str) -> Any:
        self.ledger.forget(kernel_id)
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
            except Exception:  # noqa: BLE001 - a kernel gone meanwhile is fine; anything else is logged
                log.exception("could not shut down kernel %s", kernel_id)

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
