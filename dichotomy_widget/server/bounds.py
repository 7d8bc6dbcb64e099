"""How many page kernels ``dichotomy serve`` lets exist, and for whom: the admission policy.

Every voila page load starts a Python kernel (~75 MB; :data:`dichotomy_widget.config.KERNEL_MB`). Without bounds one
device that reloads in a loop, or a short script, starts kernels until the teacher's computer runs out
of memory and every student's game dies. The :class:`PageLedger` decides, before a kernel starts:

* **Per device**: a client address holds at most ``per_device`` live page kernels. Beyond it the
  request is refused (:class:`~dichotomy_widget.errors.PageRefused`, code ``too_many_pages``, HTTP 429)
  and no kernel starts. Pages of this device whose websocket has closed (a reloaded or closed tab)
  are shut down first to make room. Reloading a link that carries a seat or host token replaces that
  link's previous kernel instead of adding one. Requests from the server's own computer (the teacher's)
  are not bound per device.
* **Globally**: at most ``max_kernels`` page kernels in all; non-host pages stop ``host_reserve`` below
  that, so the teacher's host pages keep working when students fill the server (code ``server_full``,
  HTTP 503). Pages whose websocket has been closed for ``connect_timeout`` seconds are shut down first.
* **Short life for pages that never connect**: a kernel whose page has not opened its websocket within
  ``connect_timeout`` seconds after the page was sent (or the client went away) is reported by
  :meth:`PageLedger.expired`, to be shut down. A page that connected is never reported while its
  websocket is open.

A kernel counts from the moment a page request is admitted (before it starts) until it is shut down.
A kernel pre-started for voila's pool (``dichotomy serve --expect N``) counts as a *spare*
(:meth:`PageLedger.add_spare`) from the moment it has started; a page served from the pool turns a spare
into its own kernel (:meth:`PageLedger.attach`), so it is counted once, never twice, and
:meth:`PageLedger.room_for_spares` says how many spares may be started without passing the cap. The ledger keeps no tokens: a link's token is reduced to a hash
(:func:`page_key`). This module has no voila imports; ``bounded_kernels.py`` wires it into voila, and
:func:`add_arguments` / :func:`voila_args` give ``dichotomy serve`` its options.
"""

from __future__ import annotations

import argparse
import hashlib
import html
import ipaddress
import itertools
import os
import time
from dataclasses import dataclass, field
from typing import Callable, Iterable, Mapping, Sequence

from ..config import (CLASS_PAGE, HOST_PAGE, SEAT_PAGE, DEFAULT_CONNECT_TIMEOUT, DEFAULT_HOST_RESERVE, DEFAULT_PAGES_PER_DEVICE, FALLBACK_KERNELS,
                      KERNEL_MB, KERNEL_MEMORY_SHARE, MIN_DEFAULT_KERNELS, POOL_KERNEL_MB, TEACHER_PAGES)
from ..errors import PageRefused
from ..i18n import DEFAULT_LANGUAGE, N_, translator

__all__ = ["pool_sizes", "check_pool", "POOL_PAGES", "Limits", "PageRequest", "trusted_networks", "Ticket", "Admission", "PageLedger", "client_address", "page_key",
           "available_memory", "default_max_kernels", "refusal_page", "add_arguments", "voila_args",
           "MANAGER_CLASS"]



@dataclass(frozen=True)
class Limits:
    """The bounds; 0 turns a bound off."""

    per_device: int = DEFAULT_PAGES_PER_DEVICE
    max_kernels: int = FALLBACK_KERNELS
    host_reserve: int = DEFAULT_HOST_RESERVE
    connect_timeout: float = DEFAULT_CONNECT_TIMEOUT


@dataclass(frozen=True)
class PageRequest:
    """One page load: who asks (``address``), for which page (``"host.ipynb"``, ``"seat.ipynb"``...), with which
    replacement key (from the link's token, see :func:`page_key`; None for a link without one), and
    whether the device is exempt from the per-device bound (the server's own computer)."""

    address: str
    page: str
    key: str | None = None
    exempt: bool = False


@dataclass(eq=False)
class Ticket:
    """An admitted page: counts against the bounds until released."""

    id: int
    request: PageRequest
    admitted: float
    kernel_id: str | None = None
    sent: float | None = None           # when the page's HTTP response ended (or its client left)
    connections: int = 0                # open websockets
    ever_connected: bool = False
    disconnected: float | None = None   # when the last websocket closed
    released: bool = False


@dataclass(frozen=True)
class Admission:
    """An admitted request: its ticket, and kernels to shut down now (replaced or evicted pages)."""

    ticket: Ticket
    shutdown: tuple[str, ...] = ()


@dataclass
class PageLedger:
    """The live page tickets and the admission decisions (not thread-safe: voila runs one event loop)."""

    limits: Limits = field(default_factory=Limits)
    clock: Callable[[], float] = time.monotonic

    def __post_init__(self) -> None:
        self._tickets: dict[int, Ticket] = {}
        self._ids = itertools.count(1)
        self._spares: set[str] = set()

    # -- counting -----------------------------------------------------------------------------------
    def tickets(self) -> list[Ticket]:
        """The live tickets, oldest first."""
        return list(self._tickets.values())

    def live(self) -> int:
        """Kernels counted now: pages admitted and not yet released (started or not), and spares."""
        return len(self._tickets) + len(self._spares)

    def spares(self) -> int:
        """Pre-started pool kernels that no page has taken yet."""
        return len(self._spares)

    def add_spare(self, kernel_id: str) -> None:
        """``kernel_id`` was started for the pool: it counts against ``max_kernels`` until it is gone."""
        self._spares.add(kernel_id)

    def room_for_spares(self) -> int | None:
        """How many more pool kernels may start without passing the cap for student pages (None: no cap)."""
        lim = self.limits
        if lim.max_kernels <= 0:
            return None
        return max(lim.max_kernels - lim.host_reserve - self.live(), 0)

    def on_device(self, address: str) -> int:
        return sum(1 for t in self._tickets.values() if t.request.address == address)

    def by_kernel(self, kernel_id: str) -> Ticket | None:
        for ticket in self._tickets.values():
            if ticket.kernel_id == kernel_id:
                return ticket
        return None

    # -- admission ----------------------------------------------------------------------------------
    def admit(self, request: PageRequest, pooled: bool = False) -> Admission:
        """Admit ``request`` or raise :class:`PageRefused` (nothing changes then).

        ``pooled``: the page will take a spare pool kernel (it adds no kernel, so a spare does not count
        against it). Replaced and evicted tickets are released and their kernels listed in
        ``Admission.shutdown``.
        """
        lim, now = self.limits, self.clock()
        drop: list[Ticket] = []
        if request.key is not None:  # the same link again from the same device: replace, not add
            drop += [t for t in self._tickets.values()
                     if t.request.key == request.key and t.request.address == request.address]
        if lim.per_device > 0 and not request.exempt:
            mine = [t for t in self._tickets.values() if t.request.address == request.address and t not in drop]
            excess = len(mine) + 1 - lim.per_device
            if excess > 0:
                closed = sorted((t for t in mine if self._closed(t)), key=lambda t: t.disconnected or 0.0)
                if len(closed) < excess:
                    raise PageRefused("Too many Dichotomy pages are open on this device — close one.",
                                      code="too_many_pages")
                drop += closed[:excess]
        if lim.max_kernels > 0:
            cap = lim.max_kernels if request.page in TEACHER_PAGES else max(lim.max_kernels - lim.host_reserve, 0)
            others = [t for t in self._tickets.values() if t not in drop]
            spares = max(len(self._spares) - (1 if pooled else 0), 0)
            excess = len(others) + spares + 1 - cap
            if excess > 0:
                stale = sorted((t for t in others if self._closed(t)
                                and now - (t.disconnected or now) >= lim.connect_timeout),
                               key=lambda t: t.disconnected or 0.0)
                if len(stale) < excess:
                    raise PageRefused("The Dichotomy server is full.", code="server_full")
                drop += stale[:excess]
        for ticket in drop:
            self.release(ticket)
        ticket = Ticket(next(self._ids), request, admitted=now)
        self._tickets[ticket.id] = ticket
        return Admission(ticket, tuple(t.kernel_id for t in drop if t.kernel_id))

    @staticmethod
    def _closed(ticket: Ticket) -> bool:
        """The page connected once and its websocket is closed now (the tab is gone or was reloaded)."""
        return ticket.ever_connected and ticket.connections <= 0

    # -- a ticket's life ----------------------------------------------------------------------------
    def attach(self, ticket: Ticket, kernel_id: str) -> bool:
        """``kernel_id`` now serves ``ticket``'s page. False if the ticket was released meanwhile
        (replaced by a newer load of the same link): the caller shuts that kernel down."""
        self._spares.discard(kernel_id)
        if ticket.released:
            return False
        ticket.kernel_id = kernel_id
        return True

    def page_sent(self, ticket: Ticket) -> None:
        """The page's HTTP response ended: the connect timeout runs from now. A ticket that never got
        a kernel (the render failed before starting one) is released."""
        ticket.sent = self.clock()
        if ticket.kernel_id is None:
            self.release(ticket)

    def connected(self, kernel_id: str) -> None:
        ticket = self.by_kernel(kernel_id)
        if ticket is not None:
            ticket.connections += 1
            ticket.ever_connected = True
            ticket.disconnected = None

    def disconnected(self, kernel_id: str) -> None:
        ticket = self.by_kernel(kernel_id)
        if ticket is not None:
            ticket.connections = max(ticket.connections - 1, 0)
            if ticket.connections == 0:
                ticket.disconnected = self.clock()

    def release(self, ticket: Ticket) -> None:
        ticket.released = True
        self._tickets.pop(ticket.id, None)

    def forget(self, kernel_id: str) -> None:
        """The kernel is gone (shut down, culled, died): its page (or spare) no longer counts."""
        self._spares.discard(kernel_id)
        ticket = self.by_kernel(kernel_id)
        if ticket is not None:
            self.release(ticket)

    def retain(self, kernel_ids: Iterable[str]) -> None:
        """Release tickets whose kernel is no longer among ``kernel_ids`` (pending ones stay)."""
        alive = set(kernel_ids)
        self._spares &= alive
        for ticket in self.tickets():
            if ticket.kernel_id is not None and ticket.kernel_id not in alive:
                self.release(ticket)

    def expired(self) -> list[str]:
        """Kernels whose page was sent ``connect_timeout`` seconds ago and never opened its websocket.
        Their tickets are released; the caller shuts the kernels down."""
        if self.limits.connect_timeout <= 0:
            return []
        now, out = self.clock(), []
        for ticket in self.tickets():
            if (ticket.kernel_id is not None and not ticket.ever_connected and ticket.sent is not None
                    and now - ticket.sent >= self.limits.connect_timeout):
                self.release(ticket)
                out.append(ticket.kernel_id)
        return out


# --------------------------------------------------------------------------------------------------
# Who is asking


def _ip(text: str | None) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    if not text:
        return None
    text = text.strip().strip("[]")
    if text.count(":") == 1 and "." in text:  # "1.2.3.4:5678"
        text = text.split(":", 1)[0]
    try:
        addr = ipaddress.ip_address(text.split("%", 1)[0])
    except ValueError:
        return None
    if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None:
        return addr.ipv4_mapped
    return addr


def trusted_networks(trusted: Iterable[str]) -> list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
    """Parse ``--trusted-proxy`` values (addresses or networks); ValueError names a bad one."""
    nets = []
    for item in trusted:
        try:
            nets.append(ipaddress.ip_network(item.strip(), strict=False))
        except ValueError as exc:
            raise ValueError(f"--trusted-proxy {item!r} is not an IP address or network") from exc
    return nets


def client_address(remote: str, headers: Mapping[str, str], trusted_proxies: Sequence[str] = ()) -> str:
    """The client's address: the connection's, unless it comes from a trusted proxy.

    From a trusted proxy, the right-most ``X-Forwarded-For`` entry that is not itself a trusted proxy
    wins (the left part of that header is whatever the client wrote), then ``X-Real-IP``. Headers from
    anyone else are ignored: a client cannot choose its own address.
    """
    peer = _ip(remote)
    if peer is None:
        return remote or "unknown"
    nets = trusted_networks(trusted_proxies)
    if not nets or not any(peer in net for net in nets):
        return str(peer)
    forwarded = headers.get("X-Forwarded-For", "") or ""
    for hop in reversed([h for h in forwarded.split(",") if h.strip()]):
        addr = _ip(hop)
        if addr is None:
            break
        if not any(addr in net for net in nets):
            return str(addr)
    real = _ip(headers.get("X-Real-IP"))
    return str(real) if real is not None else str(peer)


def page_key(page: str, query: Mapping[str, Sequence[str] | str]) -> str | None:
    """The replacement key of a link that carries a seat, host, student or teacher token (a hash: no
    token is kept)."""
    def first(name: str) -> str:
        value = query.get(name) or ""
        if not isinstance(value, str):
            value = value[0] if value else ""
        if isinstance(value, bytes):
            value = value.decode("utf-8", "replace")
        return value.strip()

    token = first("seat") or first("host") or first("student") or first("teacher")
    if not token:
        return None
    return hashlib.sha256(f"{page}\0{first('table') or first('class')}\0{token}".encode()).hexdigest()[:20]


# --------------------------------------------------------------------------------------------------
# The default cap


def available_memory() -> int | None:
    """Bytes of memory available for new processes (Linux ``MemAvailable``), or None if unknown."""
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return None


def default_max_kernels(available: int | None = None, kernel_mb: int = KERNEL_MB) -> int:
    """The default kernel cap: ``KERNEL_MEMORY_SHARE`` of the available memory over ``KERNEL_MB`` per kernel,
    at least ``MIN_DEFAULT_KERNELS`` (``FALLBACK_KERNELS`` when the memory is unknown; all in config.py)."""
    if available is None:
        available = available_memory()
    if not available:
        return FALLBACK_KERNELS
    return max(MIN_DEFAULT_KERNELS, int(available * KERNEL_MEMORY_SHARE // (kernel_mb * 1024 * 1024)))


# --------------------------------------------------------------------------------------------------
# What a refused client sees

_STYLE = """
:root{color-scheme:light dark}
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;padding:1.2em;
background:#fff;color:#1a1a1a;line-height:1.45}
main{max-width:34em;margin:3em auto;border-left:6px solid #a40000;padding:0.4em 1.1em}
h1{font-size:1.35em;margin:0 0 0.5em 0;color:#a40000}
a{color:#1a4d8f;font-weight:bold}
@media (prefers-color-scheme:dark){body{background:#161616;color:#eee}main{border-color:#ff7b7b}
h1{color:#ff9b9b}a{color:#8ab4ff}}
"""

_TEXT = {
    "too_many_pages": (
        N_("Too many Dichotomy pages are open on this device — close one"),
        N_("This device already has as many Dichotomy pages open as the server allows. Close a Dichotomy "
           "tab or window you no longer use, then try again."),
    ),
    "server_full": (
        N_("The Dichotomy server is full"),
        N_("The teacher's computer is running as many game pages as it can. Please wait a minute and "
           "try again, or tell your teacher."),
    ),
    "page_replaced": (
        N_("This page was opened again on this device"),
        N_("The same Dichotomy link was opened again on this device, so this copy of the page was closed. "
           "Use the newest tab, or reload this one to play here."),
    ),
}


def refusal_page(refusal: PageRefused, accept_language: str | None = None) -> str:
    """A small self-contained HTML page (no script, no request to any other resource) for a refusal, in
    the best interface language for the request's ``Accept-Language`` header (else English)."""
    from ..pages.page_lang import accept_language as best_language

    lang = best_language(accept_language) or DEFAULT_LANGUAGE
    _ = translator(lang, "pages").gettext
    title, body = (_(text) for text in _TEXT.get(refusal.code, _TEXT["server_full"]))
    return (
        f'<!DOCTYPE html>\n<html lang="{lang}"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{html.escape(title)} · Dichotomy</title><style>{_STYLE}</style></head>"
        f'<body><main role="alert" class="dichotomy-refused" data-code="{html.escape(refusal.code)}">'
        f"<h1>{html.escape(title)}</h1><p>{html.escape(body)}</p>"
        f'<p><a href="">' + html.escape(_("Try again")) + '</a></p></main></body></html>\n'
    )


# --------------------------------------------------------------------------------------------------
# dichotomy serve's options

#: The kernel manager voila runs with (imported by voila, in its own process).
MANAGER_CLASS = "dichotomy_widget.server.bounded_kernels.BoundedKernelManager"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``dichotomy serve``'s page bound options (0 turns a bound off)."""
    group = parser.add_argument_group(f"page bounds (every open page is a kernel of ~{KERNEL_MB} MB; "
                                      "0 turns a bound off)")
    group.add_argument("--max-pages-per-device", type=int, default=DEFAULT_PAGES_PER_DEVICE, metavar="N",
                       help=f"live pages one device (client address) may hold (default {DEFAULT_PAGES_PER_DEVICE})")
    group.add_argument("--max-kernels", type=int, default=None, metavar="N",
                       help="page kernels in all (default: from the memory available at start-up)")
    group.add_argument("--host-reserve", type=int, default=DEFAULT_HOST_RESERVE, metavar="N",
                       help=f"kernels kept for host pages when the server is full (default {DEFAULT_HOST_RESERVE})")
    group.add_argument("--connect-timeout", type=float, default=DEFAULT_CONNECT_TIMEOUT, metavar="S",
                       help=f"seconds a page has to connect before its kernel is shut down "
                            f"(default {DEFAULT_CONNECT_TIMEOUT:g})")
    group.add_argument("--expect", type=int, default=0, metavar="N",
                       help="students who may open their page at the same moment: N kernels are started "
                            f"before they arrive (~{POOL_KERNEL_MB} MB each) so their pages open at once, plus one "
                            "for the host page (default 0: no pre-started kernels)")
    group.add_argument("--expect-page", choices=sorted(POOL_PAGES), default="seat",
                       help="which student page the pre-started kernels are for: 'seat' (seat links of "
                            "tables, the default) or 'class' (class links)")
    group.add_argument("--trusted-proxy", action="append", default=[], metavar="ADDR",
                       help="a reverse proxy (address or network) whose X-Forwarded-For header gives the "
                            "client address (repeatable; default: none, the connection's address is used)")


#: ``--expect-page`` choices: the student page notebooks a pool can pre-start.
POOL_PAGES = {"seat": SEAT_PAGE, "class": CLASS_PAGE}
#: Seconds voila waits after a page took a pool kernel before starting its replacement: a burst of
#: students is served first, the refill (CPU-heavy kernel starts) comes after.
POOL_REFILL_DELAY = 30.0


def pool_sizes(expect: int, page: str = "seat") -> dict[str, int]:
    """Pre-started kernels per page notebook for ``--expect``: ``expect`` for the student page, one for
    the host page (the teacher's) when there is a pool at all."""
    if expect <= 0:
        return {}
    return {POOL_PAGES[page]: expect, HOST_PAGE: 1}


def check_pool(sizes: Mapping[str, int], cap: int, host_reserve: int, available: int | None,
               kernel_mb: int = POOL_KERNEL_MB) -> str:
    """A line saying what the pool costs, or SystemExit (a clear message) when it does not fit: in the
    kernel cap (pool kernels count against ``--max-kernels``, below the host reserve) or in
    ``KERNEL_MEMORY_SHARE`` of the ``available`` memory (bytes; None: unknown, not checked)."""
    total = sum(sizes.values())
    if total <= 0:
        return "no pre-started kernels (--expect 0)"
    need_mb = total * kernel_mb
    if cap > 0 and total > cap - host_reserve:
        raise SystemExit(f"dichotomy serve: --expect asks for {total} pre-started kernels, but --max-kernels "
                         f"{cap} keeps only {max(cap - host_reserve, 0)} for student pages (after "
                         f"--host-reserve {host_reserve}). Lower --expect or raise --max-kernels.")
    if available is not None:
        usable_mb = int(available * KERNEL_MEMORY_SHARE) // (1024 * 1024)
        if need_mb > usable_mb:
            raise SystemExit(f"dichotomy serve: --expect asks for {total} pre-started kernels, about "
                             f"{need_mb} MB, but this computer has {available // (1024 * 1024)} MB available "
                             f"({usable_mb} MB for page kernels). Lower --expect to at most "
                             f"{max(usable_mb // kernel_mb - 1, 0)}.")
    pages = ", ".join(f"{n} for {page}" for page, n in sizes.items())
    return f"{total} pre-started kernels ({pages}), about {need_mb} MB"


def voila_args(args: argparse.Namespace) -> tuple[list[str], str]:
    """The voila options that turn the bounds of parsed ``args`` on, and a line saying what they are.
    SystemExit for a bad ``--trusted-proxy`` or a pool (``--expect``) that does not fit."""
    try:
        trusted_networks(args.trusted_proxy)
    except ValueError as exc:
        raise SystemExit(str(exc)) from None
    cap = default_max_kernels() if args.max_kernels is None else args.max_kernels
    name = MANAGER_CLASS.rsplit(".", 1)[1]
    expect = getattr(args, "expect", 0) or 0
    if expect < 0:
        raise SystemExit("dichotomy serve: --expect must be 0 or more.")
    sizes = pool_sizes(expect, getattr(args, "expect_page", "seat"))
    pool_line = check_pool(sizes, cap, args.host_reserve, available_memory())
    pool_options = []
    if sizes:
        pool_options = ["--VoilaConfiguration.preheat_kernel=True", "--VoilaConfiguration.default_pool_size=0",
                        f"--{name}.pool={','.join(f'{page}:{n}' for page, n in sizes.items())}",
                        f"--{name}.pool_refill_delay={POOL_REFILL_DELAY}"]
    options = [
        f"--VoilaConfiguration.multi_kernel_manager_class={MANAGER_CLASS}",
        f"--{name}.max_pages_per_device={args.max_pages_per_device}",
        f"--{name}.max_kernels={cap}",
        f"--{name}.host_reserve={args.host_reserve}",
        f"--{name}.connect_timeout={args.connect_timeout}",
        *(f"--{name}.trusted_proxies={proxy}" for proxy in args.trusted_proxy),
        *pool_options,
    ]
    line = (f"at most {args.max_pages_per_device or 'any number of'} pages per device, "
            f"{cap or 'no cap on'} kernels ({args.host_reserve} kept for host pages); {pool_line}")
    return options, line
