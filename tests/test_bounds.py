"""The page bounds' policy (dichotomy_widget/server/bounds.py) and its voila wiring's options.

The ledger runs on a fake clock here; tests/browser/test_flood.py floods a real ``dichotomy serve``.
"""

from __future__ import annotations

import html.parser

import pytest

from dichotomy_widget.config import KERNEL_MB, POOL_KERNEL_MB
from dichotomy_widget.errors import DichotomyError, PageRefused
from dichotomy_widget.server.bounds import (Limits, PageLedger, PageRequest, client_address,
                                        default_max_kernels, page_key, refusal_page, trusted_networks)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def ledger(**limits) -> tuple[PageLedger, Clock]:
    clock = Clock()
    base = dict(per_device=3, max_kernels=10, host_reserve=2, connect_timeout=45.0)
    base.update(limits)
    return PageLedger(Limits(**base), clock=clock), clock


_kernels = iter(range(1, 10**6))


def load(book: PageLedger, address: str, page: str = "seat.ipynb", key: str | None = None, exempt: bool = False,
         connect: bool = True):
    """Admit a page, start its 'kernel', send it, and (optionally) open its websocket."""
    admission = book.admit(PageRequest(address, page, key, exempt))
    kernel = f"k{next(_kernels)}"
    assert book.attach(admission.ticket, kernel)
    book.page_sent(admission.ticket)
    if connect:
        book.connected(kernel)
    return kernel, admission


# -- per device -------------------------------------------------------------------------------------


def test_a_device_holds_at_most_its_share_and_the_next_page_is_refused_without_a_kernel():
    book, _ = ledger()
    for _ in range(3):
        load(book, "10.0.0.7")
    with pytest.raises(PageRefused) as refused:
        book.admit(PageRequest("10.0.0.7", "seat.ipynb"))
    assert refused.value.code == "too_many_pages" and refused.value.status == 429
    assert isinstance(refused.value, DichotomyError)
    assert "close one" in refused.value.message
    assert book.live() == 3 and book.on_device("10.0.0.7") == 3
    load(book, "10.0.0.8")  # another device is not affected
    assert book.live() == 4


def test_reloading_the_same_seat_link_replaces_its_kernel_even_at_the_device_bound():
    book, _ = ledger(per_device=2)
    key = page_key("seat.ipynb", {"table": ["K7QX2M"], "seat": ["tok-123"]})
    first, _ = load(book, "10.0.0.7", key=key)
    load(book, "10.0.0.7")
    for _ in range(5):  # a reload loop on one's own seat link never locks the student out
        kernel, admission = load(book, "10.0.0.7", key=key)
        assert admission.shutdown == (first,)
        first = kernel
    assert book.live() == 2 and book.on_device("10.0.0.7") == 2


def test_the_same_link_from_another_device_adds_a_page_instead_of_killing_the_first():
    book, _ = ledger()
    key = page_key("seat.ipynb", {"table": ["K7QX2M"], "seat": ["tok-123"]})
    load(book, "10.0.0.7", key=key)
    _kernel, admission = load(book, "10.0.0.9", key=key)
    assert admission.shutdown == () and book.live() == 2


def test_a_device_s_closed_pages_make_room_before_it_is_refused():
    book, _ = ledger(per_device=2)
    a, _ = load(book, "10.0.0.7")
    b, _ = load(book, "10.0.0.7")
    book.disconnected(a)  # that tab was reloaded or closed without telling the server
    _c, admission = load(book, "10.0.0.7")
    assert admission.shutdown == (a,)
    with pytest.raises(PageRefused):  # b is still open
        book.admit(PageRequest("10.0.0.7", "seat.ipynb"))
    assert book.by_kernel(b) is not None


def test_pages_still_loading_do_not_make_room_and_the_teacher_s_computer_is_not_bound_per_device():
    book, _ = ledger(per_device=1)
    book.admit(PageRequest("10.0.0.7", "seat.ipynb"))  # admitted, kernel not started yet: it counts
    with pytest.raises(PageRefused):
        book.admit(PageRequest("10.0.0.7", "seat.ipynb"))
    for _ in range(4):
        load(book, "127.0.0.1", "host.ipynb", exempt=True)
    assert book.on_device("127.0.0.1") == 4


def test_zero_turns_the_bounds_off():
    book, _ = ledger(per_device=0, max_kernels=0)
    for _ in range(30):
        load(book, "10.0.0.7", connect=False)
    assert book.live() == 30


# -- global cap -------------------------------------------------------------------------------------


def test_the_cap_keeps_a_reserve_for_host_pages_and_then_refuses_everyone():
    book, _ = ledger(per_device=0, max_kernels=6, host_reserve=2)
    for i in range(4):
        load(book, f"10.0.1.{i}")
    with pytest.raises(PageRefused) as refused:
        book.admit(PageRequest("10.0.2.1", "seat.ipynb"))
    assert refused.value.code == "server_full" and refused.value.status == 503
    load(book, "127.0.0.1", "host.ipynb", exempt=True)
    load(book, "127.0.0.1", "host.ipynb", exempt=True)
    with pytest.raises(PageRefused):
        book.admit(PageRequest("127.0.0.1", "host.ipynb", exempt=True))
    assert book.live() == 6


def test_at_the_cap_a_seat_link_reload_still_works_because_it_replaces():
    book, _ = ledger(per_device=0, max_kernels=3, host_reserve=0)
    key = page_key("seat.ipynb", {"table": ["AB"], "seat": ["t"]})
    load(book, "10.0.0.7", key=key)
    load(book, "10.0.0.8")
    load(book, "10.0.0.9")
    _k, admission = load(book, "10.0.0.7", key=key)
    assert len(admission.shutdown) == 1 and book.live() == 3


def test_at_the_cap_pages_closed_for_a_while_make_room_but_open_ones_never_do():
    book, clock = ledger(per_device=0, max_kernels=3, host_reserve=0, connect_timeout=45)
    a, _ = load(book, "10.0.0.1")
    load(book, "10.0.0.2")
    load(book, "10.0.0.3")
    book.disconnected(a)
    with pytest.raises(PageRefused):  # closed only just now: a phone may be reconnecting
        book.admit(PageRequest("10.0.0.4", "seat.ipynb"))
    clock.now += 46
    _d, admission = load(book, "10.0.0.4")
    assert admission.shutdown == (a,)
    clock.now += 1000
    with pytest.raises(PageRefused):
        book.admit(PageRequest("10.0.0.5", "seat.ipynb"))


# -- pages that never connect ---------------------------------------------------------------------------


def test_a_page_that_never_connects_expires_after_the_timeout_and_a_connected_one_never():
    book, clock = ledger(connect_timeout=45)
    silent, _ = load(book, "10.0.0.7", connect=False)
    open_, _ = load(book, "10.0.0.8")
    admission = book.admit(PageRequest("10.0.0.9", "seat.ipynb"))
    assert book.attach(admission.ticket, "rendering")  # still rendering: the clock has not started
    clock.now += 44
    assert book.expired() == []
    clock.now += 2
    assert book.expired() == [silent]
    assert book.by_kernel(silent) is None and book.live() == 2
    clock.now += 10_000
    assert book.expired() == []  # open_ is connected; 'rendering' was never sent
    book.page_sent(admission.ticket)
    clock.now += 46
    assert book.expired() == ["rendering"]
    assert book.by_kernel(open_) is not None


def test_a_replaced_ticket_refuses_its_late_kernel_and_a_failed_render_frees_its_place():
    book, _ = ledger(per_device=1)
    key = page_key("seat.ipynb", {"table": ["AB"], "seat": ["t"]})
    slow = book.admit(PageRequest("10.0.0.7", "seat.ipynb", key)).ticket
    fresh = book.admit(PageRequest("10.0.0.7", "seat.ipynb", key)).ticket  # reloaded before the kernel started
    assert book.attach(slow, "late") is False
    assert book.attach(fresh, "k") and book.live() == 1
    book.forget("k")
    broken = book.admit(PageRequest("10.0.0.7", "seat.ipynb")).ticket
    book.page_sent(broken)  # the response ended without a kernel
    assert book.live() == 0


def test_retain_forgets_kernels_that_died():
    book, _ = ledger()
    a, _ = load(book, "10.0.0.7")
    b, _ = load(book, "10.0.0.7")
    pending = book.admit(PageRequest("10.0.0.7", "seat.ipynb")).ticket
    book.retain([b])
    assert book.by_kernel(a) is None and book.by_kernel(b) is not None
    assert pending in book.tickets()


# -- client address ---------------------------------------------------------------------------------------


def test_forwarded_headers_count_only_from_a_trusted_proxy():
    headers = {"X-Forwarded-For": "6.6.6.6, 10.0.0.7", "X-Real-IP": "10.0.0.8"}
    assert client_address("10.0.0.50", headers) == "10.0.0.50"
    assert client_address("10.0.0.50", headers, ["127.0.0.1"]) == "10.0.0.50"
    assert client_address("127.0.0.1", headers, ["127.0.0.1"]) == "10.0.0.7"  # right-most, not the forgeable left
    assert client_address("127.0.0.1", {"X-Real-IP": "10.0.0.8"}, ["127.0.0.0/8"]) == "10.0.0.8"
    chain = {"X-Forwarded-For": "10.0.0.7, 172.16.0.2"}
    assert client_address("127.0.0.1", chain, ["127.0.0.1", "172.16.0.0/12"]) == "10.0.0.7"
    assert client_address("127.0.0.1", {"X-Forwarded-For": "junk"}, ["127.0.0.1"]) == "127.0.0.1"
    assert client_address("::ffff:10.1.2.3", {}) == "10.1.2.3"
    with pytest.raises(ValueError, match="not-an-ip"):
        trusted_networks(["not-an-ip"])


def test_a_page_key_identifies_a_token_link_without_keeping_the_token():
    seat = page_key("seat.ipynb", {"table": ["AB"], "seat": ["secret-token-xyz"]})
    assert seat and "secret" not in seat
    assert seat == page_key("seat.ipynb", {"table": "AB", "seat": "secret-token-xyz"})
    assert seat != page_key("seat.ipynb", {"table": ["AB"], "seat": ["other"]})
    assert seat != page_key("host.ipynb", {"table": ["AB"], "seat": ["secret-token-xyz"]})
    assert page_key("host.ipynb", {"table": ["AB"], "host": [b"h"]}) is not None
    assert page_key("seat.ipynb", {"table": ["AB"]}) is None


# -- the default cap and the refusal page ----------------------------------------------------------------


def test_the_default_cap_follows_the_available_memory():
    gib = 1024 ** 3
    assert default_max_kernels(4 * gib) == int(4 * gib * 0.75 // (KERNEL_MB * 1024 ** 2))
    assert default_max_kernels(16 * gib) > default_max_kernels(4 * gib)
    assert default_max_kernels(100 * 1024 ** 2) == 8  # never below a small class
    assert default_max_kernels() >= 8  # this machine's /proc/meminfo


class _Collect(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []
        self.tags: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.urls += [v for k, v in attrs if k in ("src", "href") and v]

    def handle_data(self, data):
        self.text.append(data)


@pytest.mark.parametrize("code,title", [("too_many_pages", "Too many Dichotomy pages are open on this device"),
                                        ("server_full", "The Dichotomy server is full")])
def test_the_refusal_page_is_small_clear_and_self_contained(code, title):
    page = refusal_page(PageRefused("x", code=code))
    parsed = _Collect()
    parsed.feed(page)
    assert title in "".join(parsed.text)
    assert "script" not in parsed.tags and "link" not in parsed.tags and "img" not in parsed.tags
    assert parsed.urls == []  # "Try again" is href="" (this page again): nothing from anywhere else
    assert 'role="alert"' in page and "width=device-width" in page and "prefers-color-scheme:dark" in page
    assert len(page.encode()) < 3000


@pytest.mark.parametrize("header,lang,title", [
    ("de-CH,de;q=0.9,en;q=0.5", "de", "Der Dichotomy-Server ist voll"),
    ("en;q=0.2, es-MX;q=0.8", "es", "El servidor de Dichotomy está lleno"),
    ("fr", "fr", "Le serveur Dichotomy est plein"),
    ("ja,zh;q=0.9", "en", "The Dichotomy server is full"),
    ("*", "en", "The Dichotomy server is full"),
    ("<script>;q=1", "en", "The Dichotomy server is full"),
    (None, "en", "The Dichotomy server is full"),
])
def test_the_refusal_page_speaks_the_browsers_language(header, lang, title):
    page = refusal_page(PageRefused("x", code="server_full"), header)
    parsed = _Collect()
    parsed.feed(page)
    assert f'<html lang="{lang}">' in page and title in "".join(parsed.text)
    assert "<script>" not in page


# -- wiring ----------------------------------------------------------------------------------------------


def test_serve_turns_its_options_into_voila_configuration_of_the_bounded_kernel_manager():
    from traitlets.config.loader import KVArgParseConfigLoader

    from dichotomy_widget.server.serve import build_parser
    from dichotomy_widget.server.bounded_kernels import BoundedKernelManager
    from dichotomy_widget.server.bounds import voila_args as _bound_args

    args = build_parser().parse_args(["serve", "--max-pages-per-device", "3", "--max-kernels", "12",
                                      "--host-reserve", "1", "--connect-timeout", "20",
                                      "--trusted-proxy", "127.0.0.1", "--trusted-proxy", "10.0.0.0/8"])
    voila_args, line = _bound_args(args)
    assert "3 pages per device" in line and "12 kernels" in line
    config = KVArgParseConfigLoader(voila_args).load_config()
    manager = BoundedKernelManager(config=config)
    assert config.VoilaConfiguration.multi_kernel_manager_class.endswith("bounded_kernels.BoundedKernelManager")
    assert manager.limits == Limits(per_device=3, max_kernels=12, host_reserve=1, connect_timeout=20.0)
    assert manager.trusted_proxies == ["127.0.0.1", "10.0.0.0/8"]
    assert "127.0.0.1" in manager._exempt  # the teacher's own computer
    defaults, _ = _bound_args(build_parser().parse_args(["serve"]))
    assert BoundedKernelManager(config=KVArgParseConfigLoader(defaults).load_config()).limits.max_kernels >= 8
    with pytest.raises(SystemExit, match="not-an-ip"):
        _bound_args(build_parser().parse_args(["serve", "--trusted-proxy", "not-an-ip"]))


def test_class_links_are_token_links_and_the_teacher_page_uses_the_host_reserve():
    student = page_key("class.ipynb", {"class": ["C1"], "student": ["secret-student"]})
    assert student and "secret" not in student
    assert student != page_key("class.ipynb", {"class": ["C2"], "student": ["secret-student"]})
    assert page_key("teacher.ipynb", {"class": ["C1"], "teacher": ["t"]}) is not None
    assert page_key("class.ipynb", {"class": ["C1"]}) is None  # the join link: no token
    book, _ = ledger(per_device=0, max_kernels=4, host_reserve=1)
    for i in range(3):
        load(book, f"10.0.1.{i}", page="class.ipynb")
    with pytest.raises(PageRefused):
        book.admit(PageRequest("10.0.2.1", "class.ipynb"))
    load(book, "127.0.0.1", "teacher.ipynb", exempt=True)  # the reserve is the teacher's
    assert book.live() == 4


# -- the pre-started kernel pool (dichotomy serve --expect) ------------------------------------------


def test_pool_kernels_count_once_against_the_cap_as_spares_then_as_pages():
    book, _ = ledger(per_device=0, max_kernels=6, host_reserve=1)
    for kernel in ("p1", "p2", "p3"):
        book.add_spare(kernel)
    assert (book.live(), book.spares(), book.room_for_spares()) == (3, 3, 2)
    # A page served from the pool takes a spare: still 3 kernels, not 4.
    admission = book.admit(PageRequest("10.0.0.1", "seat.ipynb"), pooled=True)
    assert book.attach(admission.ticket, "p1")
    assert (book.live(), book.spares()) == (3, 2)
    # Ordinary pages (a new kernel each) fill the rest of the student cap (6 - 1 reserved)...
    load(book, "10.0.0.2")
    load(book, "10.0.0.3")
    assert book.live() == 5 and book.room_for_spares() == 0
    with pytest.raises(PageRefused) as refused:
        book.admit(PageRequest("10.0.0.4", "seat.ipynb"))
    assert refused.value.code == "server_full"
    # ...while a page that takes a spare is still admitted at the cap, and the host keeps its reserve.
    taken = book.admit(PageRequest("10.0.0.4", "seat.ipynb"), pooled=True)
    assert book.attach(taken.ticket, "p2") and book.live() == 5
    load(book, "127.0.0.1", page="host.ipynb", exempt=True)
    assert book.live() == 6
    # Spares that are shut down or died stop counting.
    book.forget("p3")
    book.retain(["p1", "p2"] + [t.kernel_id for t in book.tickets()])
    assert book.spares() == 0


def test_a_pooled_page_still_obeys_the_per_device_bound():
    book, _ = ledger(per_device=2, max_kernels=0)
    for kernel in ("p1", "p2", "p3"):
        book.add_spare(kernel)
    for kernel in ("p1", "p2"):
        assert book.attach(book.admit(PageRequest("10.0.0.9", "seat.ipynb"), pooled=True).ticket, kernel)
    with pytest.raises(PageRefused) as refused:
        book.admit(PageRequest("10.0.0.9", "seat.ipynb"), pooled=True)
    assert refused.value.code == "too_many_pages" and book.spares() == 1


def test_serve_sizes_the_pool_from_expect_and_refuses_one_that_does_not_fit():
    from traitlets.config.loader import KVArgParseConfigLoader

    from dichotomy_widget.server.serve import build_parser
    from dichotomy_widget.server.bounded_kernels import BoundedKernelManager, parse_pool
    from dichotomy_widget.server.bounds import check_pool, pool_sizes, voila_args

    assert pool_sizes(0) == {}
    assert pool_sizes(30) == {"seat.ipynb": 30, "host.ipynb": 1}
    assert pool_sizes(12, "class") == {"class.ipynb": 12, "host.ipynb": 1}
    gb = 1024 ** 3
    assert f"about {31 * POOL_KERNEL_MB} MB" in check_pool(pool_sizes(30), cap=100, host_reserve=2, available=8 * gb)
    with pytest.raises(SystemExit, match=rf"about {31 * POOL_KERNEL_MB} MB.*1024 MB available"):
        check_pool(pool_sizes(30), cap=100, host_reserve=2, available=1 * gb)
    with pytest.raises(SystemExit, match="--max-kernels 20 keeps only 18"):
        check_pool(pool_sizes(30), cap=20, host_reserve=2, available=None)
    args = build_parser().parse_args(["serve", "--expect", "4", "--max-kernels", "40"])
    options, line = voila_args(args)
    assert "5 pre-started kernels" in line and f"about {5 * POOL_KERNEL_MB} MB" in line
    assert "--VoilaConfiguration.preheat_kernel=True" in options
    manager = BoundedKernelManager(config=KVArgParseConfigLoader(options).load_config())
    assert manager.pool_sizes == parse_pool("seat.ipynb:4,host.ipynb:1") == {"seat.ipynb": 4, "host.ipynb": 1}
    assert "--VoilaConfiguration.preheat_kernel=True" not in voila_args(build_parser().parse_args(["serve"]))[0]


def test_dichotomy_serve_refuses_an_oversized_pool_before_starting_anything(tmp_path):
    import subprocess
    import sys

    from dichotomy_widget.server.bounds import available_memory

    too_many = (available_memory() or 64 * 1024 ** 3) // (KERNEL_MB * 1024 * 1024) + 10
    done = subprocess.run([sys.executable, "-m", "dichotomy_widget.server.serve", "serve", "--store",
                           str(tmp_path / "t.sqlite3"), "--ip", "127.0.0.1", "--port", "1", "--expect",
                           str(too_many), "--max-kernels", "0"], capture_output=True, text=True, timeout=120)
    assert done.returncode != 0
    assert f"--expect asks for {too_many + 1} pre-started kernels" in done.stderr
    assert "MB available" in done.stderr and "Lower --expect" in done.stderr
    assert "Dichotomy is running" not in done.stdout
