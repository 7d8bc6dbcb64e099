"""The voila page logic (dichotomy_widget.pages: page_base, seat_page, host_page) and the serve command line, without a browser."""

from __future__ import annotations

import importlib
import html
import json
from urllib.parse import parse_qs

import ipywidgets as W
import pytest

from dichotomy_widget import Table
from dichotomy_widget.widgets import game as widgets
from dichotomy_widget.pages.entry import host_page, seat_page
from dichotomy_widget.pages.page_base import UrlQuery, join_link, parse_query
from dichotomy_widget.pages.page_style import qr_svg
from dichotomy_widget.pages.seat_page import SeatPage
from dichotomy_widget.server.serve import build_parser, host_url, main
from dichotomy_widget.server.voila_launch import voila_command
from dichotomy_widget.options import TableOptions
from support import child_pids, pid_alive


@pytest.fixture()
def store(tmp_path):
    return str(tmp_path / "tables.sqlite3")


@pytest.fixture()
def hosted(store):
    """A host page that created a table with the packaged English deck."""
    page = host_page("", store=store, env={})
    assert page.state == "create"
    assert page.create(deck="en", seed=3, options=TableOptions(rounds=2))
    return page


def qs(page) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(page.url.query).items()}


def seats(store, code) -> list[str]:
    return [s.name for s in Table.open(code, store).state.seats]


def all_text(widget) -> str:
    """Every string value in a widget tree (what the browser could be sent)."""
    out = []
    stack = [widget]
    while stack:
        w = stack.pop()
        for key in w.keys:
            value = getattr(w, key)
            if isinstance(value, str):
                out.append(value)
            elif isinstance(value, (dict, list)):
                out.append(json.dumps(value))
        stack.extend(getattr(w, "children", ()))
    return "\n".join(out)


def join(store, code, name) -> SeatPage:
    page = seat_page(f"table={code}", store=store)
    assert page.state == "form", page.message
    page.name_input.value = name
    page.join_button.click()
    return page


# --- host page ----------------------------------------------------------------------------------------
def test_host_creates_a_table_and_puts_the_host_token_in_the_url(hosted, store):
    q = qs(hosted)
    assert q["table"] == hosted.table.code
    assert hosted.table.is_host(q["host"])
    assert hosted.state == "host"
    assert isinstance(hosted.widget, widgets.TableWidget)
    assert hosted.table.state.rounds == 2
    assert hosted.table.state.lang == "en"
    assert isinstance(hosted.children[0], UrlQuery)
    assert hosted.table.code in hosted.join_info.value
    assert "<svg" in hosted.join_info.value


def test_host_form_defaults_follow_the_deck(store):
    page = host_page("", store=store, env={})
    assert page.deck_input.options, "packaged decks are offered"
    page.deck_input.value = "en"
    assert page.lang_label.value == "Language: English"
    page.rounds_input.value = 3
    page.limit_input.value = 30
    assert page.recap_input.value == 0  # the recap countdown is off by default
    page.recap_input.value = 15
    page.create_button.click()
    assert page.state == "host"
    assert page.table.state.rounds == 3
    assert page.table.state.time_limit == 30
    assert page.table.state.recap_time == 15


def test_host_form_refuses_a_bad_time_limit_and_creates_nothing(store):
    page = host_page("", store=store, env={})
    assert not page.create(deck="en", options=TableOptions(rounds=2, time_limit=2))
    assert page.state == "create"
    assert "between 5 and 3,600" in page.feedback.value


def test_host_link_resumes_hosting(hosted, store):
    again = host_page(hosted.url.query, store=store, env={})
    assert again.state == "host"
    assert again.table.code == hosted.table.code


@pytest.mark.parametrize("query", ["table={code}&host=forged", "table={code}", "table={code}&host=",
                                   "host={token}"])
def test_a_wrong_host_link_shows_a_clear_page(hosted, store, query):
    q = qs(hosted)
    page = host_page(query.format(code=q["table"], token=q["host"]), store=store, env={})
    assert page.state == "refused"
    assert page.widget is None
    assert "not valid" in all_text(page) or "No such table" in all_text(page)


def test_host_page_for_an_unknown_code(store):
    page = host_page("table=ZZZZZZ&host=x", store=store, env={})
    assert page.state == "refused"
    assert "ZZZZZZ" in page.message


def test_join_link_from_the_request_url_or_the_configured_seat_url():
    env = {"VOILA_REQUEST_URL": "http://10.1.2.3:8866/base/voila/render/host.ipynb?table=A&host=secret"}
    assert join_link("K7QX2M", env) == "http://10.1.2.3:8866/base/voila/render/seat.ipynb?table=K7QX2M"
    env["DICHOTOMY_SEAT_URL"] = "https://hub.example.org/hub/user-redirect/voila/render/dichotomy/seat.ipynb"
    assert join_link("K7QX2M", env) == env["DICHOTOMY_SEAT_URL"] + "?table=K7QX2M"
    assert join_link("K7QX2M", {}) == "seat.ipynb?table=K7QX2M"


def test_the_join_link_never_carries_the_host_token(store):
    env = {"VOILA_REQUEST_URL": "http://127.0.0.1:8866/voila/render/host.ipynb"}
    page = host_page("", store=store, env=env)
    page.create(deck="en", options=TableOptions(rounds=2))
    assert page.link == f"http://127.0.0.1:8866/voila/render/seat.ipynb?table={page.table.code}"
    assert qs(page)["host"] not in page.join_info.value
    assert "localhost" in page.join_info.value  # the warning about a link only this computer can open


def test_qr_code_is_inline_svg():
    svg = qr_svg("http://10.0.0.5:8866/voila/render/seat.ipynb?table=K7QX2M")
    assert svg.lstrip().startswith("<svg") and svg.rstrip().endswith("</svg>")


# --- seat page ----------------------------------------------------------------------------------------
def test_join_claims_a_seat_and_puts_the_token_in_the_url(hosted, store):
    code = hosted.table.code
    page = join(store, code, "Ada")
    assert page.state == "seat"
    q = qs(page)
    assert q["table"] == code
    assert Table.open(code, store).seat_for_token(q["seat"]) == page.seat
    assert isinstance(page.widget, widgets.SeatWidget)
    assert page.widget.seat == page.seat
    assert len(page.children) == 2
    assert isinstance(page.children[0], UrlQuery) and page.children[1] is page.widget
    # the host's table (another kernel in voila) sees the new seat after a refresh
    hosted.table.refresh()
    assert [s.name for s in hosted.table.state.seats] == ["Ada"]


def test_enter_in_the_name_box_joins(hosted, store):
    page = seat_page(f"table={hosted.table.code}", store=store)
    page.name_input.value = "Dari"  # the last letters' value update has not arrived yet...
    page.name_input._handle_custom_msg({"submit": "Dariusz"}, [])  # ...but Enter sends the box's text
    assert page.state == "seat" and seats(store, hosted.table.code) == ["Dariusz"]
    assert page.name_input.maxlength == 24


def test_a_reload_resumes_the_same_seat(hosted, store):
    first = join(store, hosted.table.code, "Ada")
    again = seat_page(first.url.query, store=store)
    assert again.state == "seat"
    assert again.seat == first.seat
    assert again.url.query == first.url.query
    assert seats(store, hosted.table.code) == ["Ada"]


def test_a_forged_token_is_refused_and_creates_nothing(hosted, store):
    code = hosted.table.code
    join(store, code, "Ada")
    page = seat_page(f"table={code}&seat=forged-token", store=store)
    assert page.state == "refused"
    assert page.widget is None
    assert "not valid" in all_text(page)
    assert seats(store, code) == ["Ada"]


def test_a_mistyped_seat_link_mid_game_says_what_the_student_can_do(hosted, store):
    code = hosted.table.code
    ada = join(store, code, "Ada")
    for name in ("Ben", "Cy"):
        join(store, code, name)
    hosted.table.start()
    cut = qs(ada)["seat"][:-3]  # the end of the link was lost when copying
    page = seat_page(f"table={code}&seat={cut}", store=store)
    assert page.state == "refused" and page.widget is None
    assert "join link" not in page.message  # the join link is refused once the game has started
    assert "your own seat link" in page.message and "history" in page.message
    again = seat_page(ada.url.query, store=store)  # the whole link still works
    assert again.state == "seat" and again.seat == ada.seat


def test_another_tables_token_is_refused(store, hosted):
    other = host_page("", store=store, env={})
    other.create(deck="en", options=TableOptions(rounds=2))
    ada = join(store, hosted.table.code, "Ada")
    page = seat_page(f"table={other.table.code}&seat={qs(ada)['seat']}", store=store)
    assert page.state == "refused"


@pytest.mark.parametrize("code", ["ZZZZZZ", "<script>alert(1)</script>", "x" * 10_000, ""])
def test_unknown_or_junk_codes_get_a_clear_message(store, code):
    page = seat_page(f"table={code}&seat=abc" if code else "seat=abc", store=store)
    if code:
        assert page.state == "refused"
        assert page.message
        assert "<script>" not in all_text(page)
    else:  # no code: the page asks for one
        assert page.state == "form"
        assert page.code_input is not None


def test_the_code_form_joins_the_typed_table(hosted, store):
    page = seat_page("", store=store)
    page.code_input.value = "nope"
    page.name_input.value = "Ada"
    page.join_button.click()
    assert page.state == "form" and "table code" in page.feedback.value
    page.code_input.value = hosted.table.code.lower()
    page.join_button.click()
    assert page.state == "seat"
    assert qs(page)["table"] == hosted.table.code


def test_a_duplicate_name_is_refused_and_the_student_can_retry(hosted, store):
    code = hosted.table.code
    join(store, code, "Ada")
    page = join(store, code, " ada ")
    assert page.state == "form"
    assert "already called" in page.feedback.value
    assert page.url.query == ""
    page.name_input.value = "Ben"
    page.join_button.click()
    assert page.state == "seat"
    assert seats(store, code) == ["Ada", "Ben"]


@pytest.mark.parametrize("name,expected", [("x" * 10_000, "at most"), ("", "type a name"), ("   ", "type a name"),
                                           ("a\x00b", "control characters")])
def test_bad_names_get_a_clear_message(hosted, store, name, expected):
    page = join(store, hosted.table.code, name)
    assert page.state == "form"
    assert expected in page.feedback.value.lower()
    assert seats(store, hosted.table.code) == []


def test_html_in_a_name_is_text(hosted, store):
    name = "<img src=x onerror=f()>"
    page = join(store, hosted.table.code, name)
    assert page.state == "seat"
    hosted.table.refresh()
    assert hosted.table.view(None)["players"][0]["name"] == name  # data, rendered as text by the widgets
    for w in (page, hosted):
        for child in w.children:
            if isinstance(child, W.HTML):
                assert name not in child.value  # never inside our own HTML
    assert html.escape(name) not in hosted.join_info.value


def test_a_full_table_refuses_new_seats(hosted, store):
    code = hosted.table.code
    for i in range(7):
        join(store, code, f"P{i}")
    page = seat_page(f"table={code}", store=store)
    assert page.state == "refused"
    assert "full" in page.message
    assert len(seats(store, code)) == 7


def test_a_table_that_fills_while_typing_refuses_the_join(hosted, store):
    code = hosted.table.code
    late = seat_page(f"table={code}", store=store)
    for i in range(7):
        join(store, code, f"P{i}")
    late.name_input.value = "Late"
    late.join_button.click()
    assert late.state == "form"
    assert "full" in late.feedback.value
    assert len(seats(store, code)) == 7


def test_a_started_table_refuses_new_seats_but_resumes_old_ones(hosted, store):
    code = hosted.table.code
    pages = [join(store, code, n) for n in ("Ada", "Ben", "Cy")]
    hosted.table.start()
    late = seat_page(f"table={code}", store=store)
    assert late.state == "refused"
    assert "started" in all_text(late)
    again = seat_page(pages[1].url.query, store=store)
    assert again.state == "seat" and again.seat == pages[1].seat
    assert seats(store, code) == ["Ada", "Ben", "Cy"]


def test_a_seat_page_never_builds_the_projector_or_other_seats(hosted, store, monkeypatch):
    code = hosted.table.code
    join(store, code, "Ada")
    join(store, code, "Ben")

    def forbidden(*_a, **_k):
        raise AssertionError("a seat kernel built a TableWidget")

    monkeypatch.setattr(widgets, "TableWidget", forbidden)
    built = []
    real = widgets.SeatWidget

    class Spy(real):
        def __init__(self, table, seat, lang=None):
            built.append(seat)
            super().__init__(table, seat, lang=lang)

    monkeypatch.setattr(widgets, "SeatWidget", Spy)
    page = join(store, code, "Cy")
    assert built == [page.seat]
    page2 = seat_page(page.url.query, store=store)
    assert built == [page.seat, page2.seat]


def test_a_seat_page_syncs_no_hidden_words_to_the_guesser(hosted, store):
    code = hosted.table.code
    pages = [join(store, code, n) for n in ("Ada", "Ben", "Cy")]
    hosted.table.start()
    t = hosted.table
    t.act(t.state.drawer, {"type": "pick", "pair": 2})
    guesser = [p for p in pages if p.seat == t.state.guesser][0]
    page = seat_page(guesser.url.query, store=store)  # a fresh kernel (a reload) of the Guesser
    text = all_text(page)
    assert t.state.target not in text and t.state.foil not in text


def test_parse_query_keeps_only_known_short_values():
    assert parse_query("?table=AB&seat=x&other=1") == {"table": "AB", "seat": "x"}
    assert parse_query("table=A&table=B") == {"table": "A"}
    assert parse_query("seat=" + "y" * 5000)["seat"] != "y" * 5000
    assert parse_query(None) == {}


def test_pages_are_two_line_notebooks():
    from dichotomy_widget.pages.entry import packaged_pages

    for name, fn in (("host", "host_page"), ("seat", "seat_page")):
        nb = json.loads((packaged_pages() / f"{name}.ipynb").read_text())
        source = "".join(nb["cells"][0]["source"])
        assert len(nb["cells"]) == 1 and fn in source and len(source.splitlines()) == 2


# --- serve command line ---------------------------------------------------------------------------------
def test_voila_command_hides_tracebacks_and_culls_kernels(tmp_path):
    cmd = voila_command(tmp_path, 8866, "0.0.0.0", "/dichotomy")
    assert "--show_tracebacks=False" in cmd
    assert "--no-browser" in cmd
    assert any(a.startswith("--MappingKernelManager.cull_idle_timeout=") for a in cmd)
    assert "--Voila.base_url=/dichotomy/" in cmd
    assert "--Voila.ip=0.0.0.0" in cmd
    assert cmd[1:3] == ["-m", "dichotomy_widget.server.pooled_voila"]  # voila, with pooled pages kept in bounds
    assert "--KernelManager.transport=ipc" in cmd  # no TCP port race when a class starts 30 kernels at once
    # page kernels see the browser's languages ($HTTP_ACCEPT_LANGUAGE) for pages that know no table yet
    assert "--VoilaConfiguration.http_header_envs=Accept-Language" in cmd
    # a quiet terminal: no list literal (traitlets 5 warns at each), voila's own chatter off
    assert not [a for a in cmd if "=[" in a] and "--Voila.log_level=WARN" in cmd
    louder = voila_command(tmp_path, 8866, "0.0.0.0", extra=["--Voila.log_level=INFO"])
    assert [a for a in louder if "log_level" in a] == ["--Voila.log_level=INFO"]  # traitlets takes one value
    from dichotomy_widget.config import PAGE_EXTENSIONS
    assert [a.split("=", 1)[1] for a in cmd if a.startswith("--VoilaConfiguration.extension_allowlist=")] == \
        list(PAGE_EXTENSIONS)


def test_serve_defaults_and_host_url():
    args = build_parser().parse_args(["serve"])
    assert (args.ip, args.port, args.base_url, args.store) == ("0.0.0.0", 8866, "/", None)
    assert host_url("127.0.0.1", 8900, "/x") == "http://127.0.0.1:8900/x/voila/render/host.ipynb"
    assert host_url("0.0.0.0", 8866, public_url="http://10.0.0.5:8866/") == \
        "http://10.0.0.5:8866/voila/render/host.ipynb"


def test_pages_command_copies_the_notebooks(tmp_path, capsys):
    assert main(["pages", str(tmp_path / "pages")]) == 0
    assert sorted(p.name for p in (tmp_path / "pages").iterdir()) == [
        "class.ipynb", "classview.ipynb", "home.ipynb", "host.ipynb", "practice.ipynb", "projector.ipynb",
        "report.ipynb", "seat.ipynb", "teacher.ipynb"]


@pytest.mark.skipif(not __import__("sys").platform.startswith("linux"), reason="reads /proc")
def test_serve_prints_the_host_url_and_stops_cleanly_on_ctrl_c(tmp_path):
    """``dichotomy serve`` end to end without a browser: a page GET starts a kernel; SIGINT stops it all."""
    import os
    import signal
    import socket
    import subprocess
    import sys
    import time
    import urllib.request
    from pathlib import Path

    importlib.import_module("voila")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    root = Path(__file__).resolve().parent.parent
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")]))
    store = tmp_path / "t.sqlite3"
    proc = subprocess.Popen([sys.executable, "-m", "dichotomy_widget.server.serve", "serve", "--store", str(store),
                             "--port", str(port), "--ip", "127.0.0.1"], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, env=env, start_new_session=True)
    try:
        lines = []
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            line = proc.stdout.readline()
            lines.append(line)
            if "Host page" in line or not line:
                break
        url = f"http://127.0.0.1:{port}/voila/render/host.ipynb"
        assert url in "".join(lines)
        assert store.exists()
        body = urllib.request.urlopen(url, timeout=120).read().decode()
        assert "widget-view+json" in body and "Traceback" not in body
        (voila,) = child_pids(proc.pid)
        kernels = child_pids(voila)
        assert kernels, "the page started a kernel"
        proc.send_signal(signal.SIGINT)
        assert proc.wait(30) == 0
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and any(pid_alive(p) for p in kernels | {voila}):
            time.sleep(0.2)
        assert not any(pid_alive(p) for p in kernels | {voila})
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def test_serve_refuses_a_memory_store_and_masks_passwords():
    from dichotomy_widget.server.serve import _shown
    from dichotomy_widget.server.voila_launch import resolve_store

    with pytest.raises(SystemExit):
        resolve_store("memory")
    assert _shown("postgresql://u:secret@db/x") == "postgresql://u:***@db/x"


def test_a_removed_seat_gets_the_join_form_again(hosted, store):
    code = hosted.table.code
    page = join(store, code, "Ada")
    seat, token = page.seat, qs(page)["seat"]
    hosted.table.act(None, {"type": "remove", "seat": seat})
    page.table.refresh()  # the watch loop does this in a kernel
    assert page.state == "form"
    assert "removed" in page.feedback.value
    assert qs(page) == {"table": code}
    page.name_input.value = "Ada"
    page.join_button.click()
    assert page.state == "seat" and qs(page)["seat"] != token
    assert seat_page(f"table={code}&seat={token}", store=store).state == "refused"  # the old link is dead


def test_serve_refuses_a_busy_port(tmp_path):
    import socket

    from dichotomy_widget.server.serve import main as serve_main

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        port = sock.getsockname()[1]
        with pytest.raises(SystemExit, match="already in use"):
            serve_main(["serve", "--ip", "127.0.0.1", "--port", str(port), "--store", str(tmp_path / "t.db")])


def test_every_page_names_its_browser_tab(hosted, store):
    assert host_page("", store=store, env={}).url.title == "Create a table · Dichotomy"
    code = hosted.table.code
    assert hosted.url.title == f"Host · table {code} · Dichotomy"
    assert seat_page("", store=store).url.title == "Join a table · Dichotomy"
    assert seat_page(f"table={code}", store=store).url.title == f"Join table {code} · Dichotomy"
    page = join(store, code, "Ada <b>")
    assert page.url.title == f"Ada <b> · table {code} · Dichotomy"  # set as text by the browser
    assert seat_page("table=NOSUCH", store=store).url.title == "No such table · Dichotomy"


# --- interface language (issue 14) --------------------------------------------------------------------
def _table(store, lang: str | None = None) -> Table:
    return Table.create(deck="en", rounds=2, store=store, seed=3, interface_lang=lang)


def test_a_seat_page_speaks_the_tables_interface_language(store):
    table = _table(store, "de")
    page = SeatPage(f"table={table.code}", store=store, env={})
    assert page.state == "form" and page.lang == "de" and page.url.lang == "de"
    assert page.join_button.description == "Am Tisch mitspielen"
    assert page.name_input.placeholder == "Dein Name"
    assert f"Tisch {table.code} beitreten" in all_text(page)
    assert page.url.query == "" and page.page_lang.chosen is None  # nothing chosen: nothing pinned in the URL
    english = SeatPage(f"table={_table(store).code}", store=store, env={})
    assert english.join_button.description == "Join the table" and english.url.lang == "en"


def test_a_student_switches_their_own_screen_and_a_reload_keeps_it(store):
    table = _table(store, "de")
    page = SeatPage(f"table={table.code}&lang=fr", store=store, env={})
    assert page.join_button.description == "Rejoindre la table"  # ?lang= beats the table's language
    assert page.lang_menu.description == "Langue" and page.lang_menu.value == "fr"
    page.lang_menu.value = "es"  # the menu on the name form
    assert page.join_button.description == "Unirme a la mesa" and page.url.lang == "es"
    assert qs(page) == {"table": table.code, "lang": "es"}
    page.name_input.value = "Ana"
    page.join_button.click()
    assert page.state == "seat"
    q = qs(page)
    assert q["lang"] == "es" and q["table"] == table.code and "seat" in q
    again = SeatPage(page.url.query, store=store, env={})
    assert again.state == "seat" and again.seat == page.seat and again.lang == "es"
    assert Table.open(table.code, store).interface_lang == "de"  # the table itself did not change


@pytest.mark.parametrize("junk", ["xx", "<script>alert(1)</script>", "en\x00de", "e" * 300])
def test_an_unknown_lang_is_english_and_never_echoed(store, junk):
    table = _table(store)
    from urllib.parse import urlencode
    page = SeatPage(urlencode({"table": table.code, "lang": junk}), store=store, env={})
    assert page.lang == "en" and page.join_button.description == "Join the table"
    text = all_text(page)
    assert junk not in text and "<script>" not in text and html.escape(junk) not in text


def test_the_code_form_follows_the_browsers_accept_language(store):
    page = SeatPage("", store=store, env={"HTTP_ACCEPT_LANGUAGE": "pt-BR,fr-CA;q=0.9,en;q=0.5"})
    assert page.lang == "fr" and page.url.lang == "fr"
    assert "Rejoins une table de Dichotomy" in all_text(page)
    assert page.code_input.label == "Table" and page.code_input.placeholder.startswith("Code de la table")
    # once the typed table is known the page keeps the browser's choice until the table is opened
    german = _table(store, "de")
    page.code_input.value = german.code
    page.name_input.value = "Léa"
    assert page.join(page.name_input.value) and page.lang == "de"  # now the table's language
    assert SeatPage("", store=store, env={"HTTP_ACCEPT_LANGUAGE": "ja"}).lang == "en"


def test_seat_page_refusals_speak_the_tables_language(store):
    table = _table(store, "es")
    table.join("Ana")
    table.join("Ben")
    table.join("Cy")
    table.start()
    late = SeatPage(f"table={table.code}", store=store, env={})
    assert late.state == "refused" and "Esta partida ya ha empezado" in all_text(late)
    forged = SeatPage(f"table={table.code}&seat=forged", store=store, env={})
    assert forged.state == "refused" and "Este enlace de puesto no es válido" in all_text(forged)
    assert SeatPage("table=ZZZZZZ&lang=de", store=store, env={}).url.title.startswith("Diesen Tisch gibt es nicht")


def test_the_host_picks_the_interface_language(store):
    page = host_page("", store=store, env={})
    menu = page.interface_input
    assert menu.description == "Interface language" and menu.value == ""
    assert dict((v, label) for label, v in menu.options)[""] == "Same as the deck (English)"
    assert [label for label, v in menu.options][1:] == ["English", "Español", "Français", "Deutsch"]
    page.deck_form.choice.value = "es"
    assert dict((v, label) for label, v in menu.options)[""] == "Same as the deck (Español)"
    page.deck_form.choice.value = "it"  # the interface has no Italian: the deck's default is English
    assert dict((v, label) for label, v in menu.options)[""] == "Same as the deck (English)"
    page.deck_form.choice.value = "en"
    menu.value = "de"
    page.create_button.click()
    assert page.state == "host", page.message
    assert page.table.interface_lang == "de" and page.table.state.lang == "en"
    assert page.url.lang == "de" and "Tischcode" in page.join_info.value and "Beitrittslink:" in page.join_info.value
    assert "Table code" not in page.join_info.value
    again = host_page(page.url.query, store=store, env={})
    assert again.state == "host" and again.lang == "de"


def test_the_host_form_default_is_the_decks_language(store):
    page = host_page("", store=store, env={})
    assert page.create(deck="fr", seed=1, options=TableOptions(rounds=2))
    assert page.table.interface_lang == "fr" and page.url.lang == "fr"
    assert "Code de la table" in page.join_info.value
    explicit = host_page("", store=store, env={})
    assert explicit.create(deck="fr", seed=1, options=TableOptions(rounds=2, interface_lang="en"))
    assert explicit.table.interface_lang == "en" and "Table code" in explicit.join_info.value


def test_the_host_create_form_speaks_the_browsers_language(store):
    page = host_page("", store=store, env={"HTTP_ACCEPT_LANGUAGE": "es-ES,es;q=0.9"})
    assert page.url.lang == "es" and page.create_button.description == "Crear la mesa"
    assert page.interface_input.description == "Idioma de la interfaz"
    assert "Crear una mesa de Dichotomy" in all_text(page)
    assert page.deck_form.source.description == "Mazo"


def test_a_language_picked_in_the_game_widget_is_kept_in_the_seat_address(hosted, store):
    page = join(store, hosted.table.code, "Ana")
    token = qs(page)["seat"]
    assert page.widget.lang == "en"
    page.widget._on_msg(page.widget, {"type": "set_language", "lang": "de"}, [])  # the widget's own menu
    assert qs(page) == {"table": hosted.table.code, "seat": token, "lang": "de"} and page.url.lang == "de"
    page.widget.lang = "fr"  # a browser overwriting the synced trait: the widget restores it, the page follows
    assert page.widget.lang == "de" and qs(page)["lang"] == "de"
    again = SeatPage(page.url.query, store=store, env={})
    assert again.state == "seat" and again.widget.lang == "de"  # a reload speaks the student's choice


def test_a_seat_page_hands_its_language_to_the_game_widget(store):
    table = _table(store, "es")
    page = SeatPage(f"table={table.code}&lang=fr", store=store, env={})
    assert page.join("Ana") and page.widget.lang == "fr"
    plain = SeatPage(f"table={table.code}", store=store, env={})
    assert plain.join("Ben") and plain.widget.lang == "es"
