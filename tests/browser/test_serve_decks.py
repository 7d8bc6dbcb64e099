"""The class's own vocabulary through ``dichotomy serve`` in a real Chromium: upload a CSV, see the preview,
create a table and play a round with those words (three seat browsers); paste a tab-separated list; every
bad file gets its message; the saved deck is listed again after a server restart on the same SQLite file;
``--decks DIR`` offers the folder's valid decks; ``--teacher-key-file`` makes the key necessary; a pasted
one-column word list shows each Target's Foil shortlist and becomes a deck of the chosen Foils.

The host keeps one browser context for the whole module: its ``localStorage`` holds the browser secret
that owns its saved decks (no teacher key). Screenshots go to ``artifacts/screenshots/decks-*.png``.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest
from browser_support import hidden_from, sibling

pytestmark = pytest.mark.browser
playwright_api = importlib.import_module("playwright.sync_api")
expect = playwright_api.expect

shared = sibling("conftest.py")
serve_helpers = sibling("test_serve.py")
ready, click_until, join_seat, find = (serve_helpers.ready, serve_helpers.click_until, serve_helpers.join_seat,
                                       serve_helpers.find)
RENDER_TIMEOUT = serve_helpers.RENDER_TIMEOUT

ROWS = [("harbour", "lighthouse"), ("kettle", "teapot"), ("meadow", "orchard"), ("pebble", "boulder"),
        ("saddle", "bridle"), ("violin", "cello"), ("doctor", "nurse"), ("train", "bus"),
        ("lion", "tiger"), ("castle", "palace")]
CSV = "# lang: en\n# name: Unit 4\ntarget,foil\n" + "".join(f"{t},{f}\n" for t, f in ROWS)
DECK_WORDS = {w for pair in ROWS for w in pair}  # the game deals one of its two cards at random
TSV = "".join(f"{t}\t{f}\n" for t, f in [("mar", "océano"), ("café", "té"), ("gato", "perro"), ("sol", "luna"),
                                         ("pan", "arroz")])
CLUES = ["zebra", "quartz", "nimbus", "tulip", "saffron", "kayak", "origami", "lantern"]


class Serve:
    """``dichotomy serve`` on a fixed store, port and options; ``restart()`` keeps all three."""

    def __init__(self, store: Path, port: int, *extra: str) -> None:
        self.store, self.port, self.extra = store, port, list(extra)
        self.base = f"http://127.0.0.1:{port}"
        self.host_url = f"{self.base}/voila/render/host.ipynb"
        self.server = None
        self.start()

    def start(self) -> None:
        cmd = [sys.executable, "-m", "dichotomy_widget.server.serve", "serve", "--store", str(self.store),
               "--port", str(self.port), "--ip", "127.0.0.1", "--connect-timeout", "300",  # a loaded machine
               *self.extra]
        self.server = shared.ServerProcess(cmd, self.port, env=shared.server_env(), log_name="serve-decks")
        self.server.wait_ready("/voila/tree", timeout=90)

    def restart(self) -> None:
        self.server.stop()
        self.start()

    def log(self) -> str:
        return self.server.log_path.read_text(errors="replace")

    def stop(self) -> None:
        self.server.stop()


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> Path:
    """The deck files the tests upload, and a --decks folder with one valid and one broken deck."""
    root = tmp_path_factory.mktemp("decks")
    (root / "unit4.csv").write_text(CSV, encoding="utf-8")
    (root / "big.csv").write_bytes(b"# lang: en\n" + b"a,b\n" * 300_000)
    (root / "latin1.csv").write_bytes("# lang: es\ncafé,té\n".encode("latin-1"))
    (root / "vocab.xlsx").write_bytes(b"PK\x03\x04\x14\x00\x06\x00" + b"\x00" * 64)
    (root / "html.csv").write_text(CSV.replace("kettle,teapot", "<b>kettle</b>,teapot"), encoding="utf-8")
    (root / "huge.csv").write_bytes(b"# lang: en \n" + b"a,b\n" * 2_999_997)  # 12,000,000 bytes
    (root / "deep.json").write_text('{"lang": "en", "cards": [' + "[" * 100_000 + "]" * 100_000 + "]}")
    (root / "long.csv").write_text("# lang: en\n" + "".join(f"t{i},f{i}\n" for i in range(10_001)), encoding="utf-8")
    folder = root / "folder"
    folder.mkdir()
    (folder / "animals.csv").write_text("# lang: en\n# name: Folder animals\n" +
                                        "".join(f"{t},{f}\n" for t, f in ROWS[5:]), encoding="utf-8")
    (folder / "broken.csv").write_text("# lang: en\nsea,ocean\n", encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def serve(tmp_path_factory, files):
    server = Serve(tmp_path_factory.mktemp("store") / "tables.sqlite3", shared.free_port(),
                   "--decks", str(files / "folder"))
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def host_context(browser):
    """The teacher's browser for the whole module (its localStorage owns the saved decks)."""
    ctx = browser.new_context(viewport={"width": 800, "height": 900})
    ctx.set_default_timeout(RENDER_TIMEOUT)  # a loaded two-core machine renders slowly
    try:
        yield ctx
    finally:
        ctx.close()


def open_host(ctx, serve: Serve):
    page = ctx.new_page()
    page.goto(serve.host_url, wait_until="commit", timeout=RENDER_TIMEOUT)
    page.locator(".dichotomy-deck-form").wait_for(timeout=RENDER_TIMEOUT)
    ready(page)
    return page


def choose_source(page, label: str) -> None:
    page.get_by_label(label).check()


def upload(page, path: Path) -> None:
    """Choose ``path`` in the upload button's file dialog (ipywidgets makes its file input on click)."""
    with page.expect_file_chooser() as chooser:
        page.locator("button.dichotomy-deck-upload").click()
    chooser.value.set_files(str(path))


def set_rounds(page, rounds: int) -> None:
    box = page.locator(".dichotomy-rounds input")
    box.fill(str(rounds))
    box.press("Tab")
    page.wait_for_timeout(300)


def test_upload_a_csv_see_the_preview_and_play_a_round_with_its_words(serve, files, host_context, browser,
                                                                       screenshots):
    host = open_host(host_context, serve)
    expect(host.locator(".dichotomy-no-key")).to_contain_text("anyone who can open this page can create a table")
    choose_source(host, "Upload a deck file")
    upload(host, files / "unit4.csv")
    preview = host.locator(".dichotomy-deck-preview")
    expect(preview).to_contain_text("Unit 4: 2 cards, language English", timeout=RENDER_TIMEOUT)
    expect(preview).to_contain_text("harbour / lighthouse")
    screenshots("decks-upload-preview", host, full_page=True)
    set_rounds(host, 1)
    click_until(host, "button.dichotomy-create", ".dichotomy-table-code")
    expect(host.locator(".dichotomy-saved-note")).to_contain_text("Saved “Unit 4”")
    link = host.locator(".dichotomy-join-link").get_attribute("href")
    # three students, each in their own browser
    contexts = [browser.new_context(viewport={"width": 800, "height": 800}) for _ in range(3)]
    try:
        pages = {name: join_seat(ctx, link, name) for name, ctx in zip(("Ada", "Ben", "Cy"), contexts)}
        click_until(host, ".dw-kind-table button[data-action=start]", ".dw-root.dw-kind-table[data-phase=reveal]")
        _drawer, dpage = find(pages, ".dw-pairs")
        shown = {w.strip() for w in dpage.locator(".dw-pairs").inner_text().split()}
        assert len(DECK_WORDS & shown) == 10, "the Drawer sees five pairs of the uploaded deck"
        dpage.locator(".dw-pair[data-pair='1']").click()
        guesser, gpage = find(pages, ".dw-guesser-wait")
        writers = [n for n in pages if n != guesser]
        target = pages[writers[0]].locator("[data-testid=target]").first.inner_text().strip()
        assert target in DECK_WORDS
        # as a word: a target such as "car" is inside the header's "Discarded" / "Cards left"
        assert hidden_from(gpage, target, tuple(pages))
        words = iter(CLUES)
        for _ in writers:
            _writer, wpage = find(pages, "[data-testid=clue-input]")
            box = wpage.locator("[data-testid=clue-input]")
            for _attempt in range(4):
                box.fill(next(words))
                box.press("Enter")
                try:
                    expect(wpage.locator("[data-testid=clue-input]")).to_have_count(0, timeout=8_000)
                    break
                except AssertionError:
                    continue
        gpage.locator("[data-testid=guess-input]").fill(target)
        gpage.locator("[data-testid=guess-input]").press("Enter")
        expect(host.locator("[data-outcome=correct]")).to_be_visible(timeout=30_000)
    finally:
        for ctx in contexts:
            ctx.close()
        host.close()


def test_paste_a_tab_separated_list_and_choose_its_language(serve, host_context, screenshots):
    host = open_host(host_context, serve)
    choose_source(host, "Paste a list")
    host.locator(".dichotomy-deck-paste textarea").fill(TSV)
    host.locator("button.dichotomy-deck-check").click()
    problems = host.locator(".dichotomy-deck-problems")
    expect(problems).to_contain_text("does not say its language", timeout=RENDER_TIMEOUT)
    expect(problems).to_contain_text("Which language is this deck in?")
    expect(host.locator("button.dichotomy-create")).to_be_disabled()
    host.locator(".dichotomy-deck-lang-choice select").select_option(label="Spanish (es)")
    expect(host.locator(".dichotomy-deck-preview")).to_contain_text("Pasted list: 1 card, language Spanish")
    expect(host.locator(".dichotomy-deck-preview")).to_contain_text("mar / océano")
    host.locator(".dichotomy-deck-name input").fill("Unidad 4")
    host.locator(".dichotomy-deck-name input").press("Tab")
    expect(host.locator(".dichotomy-deck-preview")).to_contain_text("Unidad 4: 1 card,")
    screenshots("decks-paste", host, full_page=True)
    set_rounds(host, 1)
    click_until(host, "button.dichotomy-create", ".dichotomy-table-code")
    host.close()


BAD_FILES = [("big.csv", "at most 1,000,000 bytes"), ("latin1.csv", "not UTF-8 text"),
             ("vocab.xlsx", "this is a spreadsheet file"), ("html.csv", "'<b>kettle</b>' has HTML"),
             ("long.csv", "more than 10,000 rows"),
             ("huge.csv", "12,000,000 bytes"),  # refused in the browser: never sent through the websocket
             ("deep.json", "nested more than 20 levels deep")]


def test_each_bad_file_shows_its_message_and_nothing_is_created(serve, files, host_context, screenshots):
    host = open_host(host_context, serve)
    choose_source(host, "Upload a deck file")
    problems = host.locator(".dichotomy-deck-problems")
    for name, message in BAD_FILES:
        upload(host, files / name)
        expect(problems).to_contain_text(message, timeout=RENDER_TIMEOUT)
        expect(problems).to_contain_text("Nothing was created or saved")
        expect(host.locator(".dichotomy-deck-preview")).to_have_text("")
        expect(host.locator("button.dichotomy-create")).to_be_disabled()
        if name == "html.csv":
            assert host.locator(".dichotomy-deck-problems b").count() == 0  # shown as text, not HTML
            screenshots("decks-bad-html", host, full_page=True)
    assert host.locator(".dichotomy-table-code").count() == 0
    upload(host, files / "unit4.csv")  # the connection survived the 12 MB file: the next one is checked
    expect(host.locator(".dichotomy-deck-preview")).to_contain_text("Unit 4: 2 cards", timeout=RENDER_TIMEOUT)
    host.close()


def test_the_folder_decks_are_offered_and_the_broken_one_is_reported(serve):
    log = serve.log()
    assert "deck file not offered: broken.csv, lines 2-2" in log
    assert "1 offered (animals.csv)" in log


def test_after_a_restart_the_saved_deck_is_listed_for_its_browser_only(serve, host_context, browser):
    serve.restart()
    host = open_host(host_context, serve)
    options = host.locator(".dichotomy-deck select option")
    expect(options.filter(has_text="Unit 4 (en, 2 cards) · saved")).to_have_count(1, timeout=RENDER_TIMEOUT)
    expect(options.filter(has_text="Unidad 4 (es, 1 card) · saved")).to_have_count(1)
    expect(options.filter(has_text="Folder animals (en, 1 card) · folder")).to_have_count(1)
    assert options.filter(has_text="broken").count() == 0
    # the saved deck creates a table; then it is deleted
    host.locator(".dichotomy-deck select").select_option(label="Unidad 4 (es, 1 card) · saved")
    expect(host.locator(".dichotomy-deck-lang")).to_have_text("Language: Spanish")
    host.locator("button.dichotomy-deck-delete").click()
    expect(host.locator(".dichotomy-library-note")).to_contain_text("deleted")
    expect(options.filter(has_text="Unidad 4")).to_have_count(0)
    host.close()
    # another browser (a student who opens the host page) sees no saved deck
    other = browser.new_context()
    try:
        page = open_host(other, serve)
        expect(page.locator(".dichotomy-deck select option").filter(has_text="Folder animals")).to_have_count(1)
        # the browser secret has arrived and the list was rebuilt with this browser's (no) saved decks
        page.locator(".dichotomy-deck-form.dichotomy-library-ready").wait_for(state="attached", timeout=RENDER_TIMEOUT)
        assert page.locator(".dichotomy-deck select option").filter(has_text="· saved").count() == 0
    finally:
        other.close()


def test_with_a_teacher_key_the_key_is_needed(tmp_path, browser, screenshots):
    key = "blue-heron-42"
    (tmp_path / "key").write_text(key + "\n", encoding="utf-8")
    server = Serve(tmp_path / "tables.sqlite3", shared.free_port(), "--teacher-key-file", str(tmp_path / "key"))
    ctx = browser.new_context(viewport={"width": 1000, "height": 900})
    try:
        assert key not in server.log()
        page = ctx.new_page()
        page.goto(server.host_url, wait_until="commit", timeout=RENDER_TIMEOUT)
        box = page.locator(".dichotomy-teacher-key-input")
        box.wait_for(timeout=RENDER_TIMEOUT)
        ready(page)
        expect(page.locator(".dichotomy-create-form")).to_be_hidden()
        box.fill("wrong-key")
        box.press("Enter")
        expect(page.locator(".dichotomy-teacher-key-status")).to_contain_text("not the teacher key")
        expect(page.locator(".dichotomy-create-form")).to_be_hidden()
        box.fill(key)
        page.locator("button.dichotomy-teacher-key-unlock").click()
        expect(page.locator(".dichotomy-create-form")).to_be_visible()
        screenshots("decks-teacher-key-unlocked", page, full_page=True)
        assert key not in page.content() and key not in page.url
        set_rounds(page, 1)
        click_until(page, "button.dichotomy-create", ".dichotomy-table-code")
        assert key not in page.url and key not in server.log()
    finally:
        ctx.close()
        server.stop()


# -- a plain word list: Foils chosen from suggestions (issue 31) ---------------------------------------------
WORD_LIST = ["cat", "coffee", "knife", "rain", "king", "apple", "horse", "bread", "teacher", "river"]


def menu(page, target: str):
    """The Foil menu (a <select>) of ``target``'s row."""
    return page.locator(".dichotomy-foil-row", has=page.locator("label", has_text=target)).locator("select")


def test_paste_a_word_list_choose_foils_and_create_a_table(serve, browser, screenshots):
    """One column of Targets: each with its Foil shortlist; keep, pick, type; the preview follows; a table.
    The screenshot (artifacts/screenshots/foils-paste.png) is docs/images/foils-paste.png."""
    ctx = browser.new_context(viewport={"width": 900, "height": 1800})
    ctx.set_default_timeout(60_000)
    ctx.set_default_navigation_timeout(120_000)  # a cold voila kernel on a loaded machine
    try:
        host = open_host(ctx, serve)
        choose_source(host, "Paste a list")
        expect(host.locator(".dichotomy-foil-hint")).to_contain_text("one per line")
        host.locator(".dichotomy-deck-paste textarea").fill("\n".join(WORD_LIST))
        host.locator(".dichotomy-deck-lang-choice select").select_option(label="English (en)")
        host.locator("button.dichotomy-deck-check").click()
        preview = host.locator(".dichotomy-deck-preview")
        expect(preview).to_contain_text("Pasted list: 2 cards, language English", timeout=RENDER_TIMEOUT)
        expect(host.locator(".dichotomy-foil-row")).to_have_count(len(WORD_LIST))
        # each row: the Target, its shortlist (reasons as text), the first suggestion chosen
        cat = menu(host, "cat")
        options = [o.replace("\xa0", " ") for o in cat.locator("option").all_inner_texts()]  # ipywidgets: nbsp
        assert len(options) >= 6 and "same category as" in options[0] and options[-1] == "type another Foil"
        first = options[0].split(" — ")[0]
        expect(preview).to_contain_text(f"cat / {first}")
        # pick another suggestion
        coffee = menu(host, "coffee")
        second = coffee.locator("option").nth(1).inner_text().replace("\xa0", " ").split(" — ")[0]
        coffee.select_option(index=1)
        expect(preview).to_contain_text(f"coffee / {second}")
        # type one (Enter submits it)
        typed = host.locator(".dichotomy-foil-row", has=host.locator("label", has_text="king")).locator("input")
        typed.fill("queen")
        typed.press("Enter")
        expect(preview).to_contain_text("king / queen")
        # "type another" with nothing typed: asked for, as text, and no table can be made
        menu(host, "rain").select_option(index=menu(host, "rain").locator("option").count() - 1)
        problems = host.locator(".dichotomy-deck-problems [role=alert]")
        expect(problems).to_contain_text("“rain”")
        expect(host.locator("button.dichotomy-create")).to_be_disabled()
        menu(host, "rain").select_option(index=0)
        expect(problems).to_have_count(0)
        screenshots("foils-paste", host.locator(".dichotomy-deck-form"))
        set_rounds(host, 1)
        click_until(host, "button.dichotomy-create", ".dichotomy-table-code")
        assert "Traceback" not in serve.log()
        host.close()
    finally:
        ctx.close()
