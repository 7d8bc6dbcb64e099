"""Every screen in every interface language, in a real Chromium against one ``dichotomy serve``.

For each language (en, es, fr, de) the test creates tables and a class in that interface language
through the engine (in this process, on the server's SQLite store), opens each page, brings it to the
screen under test, and checks on each screen:

* ``<html lang>`` is the interface language;
* axe-core (``axe-playwright-python``, which ships ``axe.min.js``: nothing downloads) finds no
  *serious* or *critical* violation, in the light colour scheme and again with
  ``prefers-color-scheme: dark`` (Playwright's media emulation, same page). The game widget's screens
  (writer, Guesser, recap, final, projector) are also checked in voila's dark theme (JupyterLab's dark
  variables, as in a dark JupyterLab): in English, while the other languages see them light;
* on a non-English screen, no English is left: no English message of the gettext catalogues
  (``tools/i18n.py``'s ``extract()``, both domains) appears in the visible text, the title or the
  ``aria-label`` / ``placeholder`` / ``title`` / ``alt`` attributes -- unless the language's catalogue
  translates it to the same text (or uses that text itself) -- and no line of the English screen's text
  with English words in it appears unchanged (that catches strings never marked for translation).

Screens: the seat page's join form, a taken name refused, the lobby, a forged seat link refused; a
clue writer and the Guesser mid-round, the Guesser's guess box, recap and final screens; the table
projector (mid-round and at the recap); the host page's create form and the hosted
lobby (code, QR, host bar); the teacher's create form and dashboard; a student's class join form and
class lobby; the class projector; the report. One server, one browser; a language's pages are opened
together so their kernels start in parallel, and each page is closed when its screens are checked.
Problems of every language are gathered and reported together at the end.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import importlib.util
import io
import os
import re
import sys
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from browser_support import conftest_helpers as _shared
from browser_support import show_or_reload, wait_until_ready

from dichotomy_widget import SqliteStore, Table
from dichotomy_widget.class_mode.classroom import Classroom
from dichotomy_widget.errors import DichotomyError
from dichotomy_widget.i18n import INTERFACE_LANGUAGES, LANGUAGE_NAMES

# DICHOTOMY_TEST_LANGS=en,de runs a subset while working on one language (CI runs them all).
LANGS = tuple(l for l in os.environ.get("DICHOTOMY_TEST_LANGS", ",".join(INTERFACE_LANGUAGES)).split(",") if l)

ServerProcess, free_port, server_env = _shared().ServerProcess, _shared().free_port, _shared().server_env
REPO = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.browser

playwright_api = importlib.import_module("playwright.sync_api")
axe_api = importlib.import_module("axe_playwright_python.sync_playwright")

RENDER = 120_000
BLOCKING = ("serious", "critical")
# A colour scheme changes colours only: in the dark scheme axe runs its colour rules.
DARK_OPTIONS = {"runOnly": {"type": "rule", "values": ["color-contrast", "link-in-text-block"]},
                "resultTypes": ["violations"]}
# The page's script has followed an emulated colour scheme (the change event comes a moment later).
FOLLOWED_JS = "light => document.body.getAttribute('data-jp-theme-light') === light"
# The page follows the device (no ?theme= chose one): its dark stylesheet waits on the media query.
FOLLOWS_JS = "() => !!document.querySelector('link[media=\"(prefers-color-scheme: dark)\"]')"
NAMES = ("Ana", "Ben", "Cy", "Dee")
CLASS_NAMES = ("Eli", "Fay", "Gus", "Hal", "Ivy", "Jo")
CLUES = ("zebra", "quartz", "nimbus", "tulip", "saffron", "kayak", "origami", "lantern", "mosaic", "glacier")

# The visible text, title and the attributes a screen reader or a tooltip shows, as lines.
TEXTS_JS = """() => {
  const out = [document.title, document.body.innerText];
  for (const el of document.querySelectorAll("[aria-label],[placeholder],[title],[alt]")) {
    if (!el.getClientRects().length) continue;  // not rendered (display:none): nobody reads it
    for (const a of ["aria-label", "placeholder", "title", "alt"]) {
      const v = el.getAttribute(a);
      if (v && v !== "null") out.push(v);  // ipywidgets writes title="null" on labels without a tooltip
    }
  }
  return out.join("\\n");
}"""


# --------------------------------------------------------------------------------------------------
# what counts as English left on a screen


def _tools_i18n():
    """tools/i18n.py, loaded by path under a name of its own (``i18n`` alone is ambiguous)."""
    name = "dichotomy_tools_i18n"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, REPO / "tools" / "i18n.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


PLACEHOLDER_OR_TAG = re.compile(r"\{[^{}]*\}|<[^<>]*>|&[a-z]+;|&#\d+;")
WORD = re.compile(r"[^\W\d_]{4,}")


def fragments(msgid: str) -> list[str]:
    """The literal pieces of a message (placeholders, HTML tags and entities cut out), each with a word
    of at least 4 letters: what would show on a screen where the message was left in English."""
    pieces = (" ".join(p.split()) for p in PLACEHOLDER_OR_TAG.split(msgid))
    return [p.strip(" .,:;·()") for p in pieces if WORD.search(p)]


def _contains(text: str, piece: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(piece)}(?!\w)", text, flags=re.IGNORECASE) is not None


@functools.lru_cache(maxsize=1)
def _templates():
    """The message templates of both domains, from the sources (tools/i18n.py's ``extract()``)."""
    with warnings.catch_warnings(), contextlib.redirect_stderr(io.StringIO()):
        warnings.simplefilter("ignore")  # extract() warns about f-strings it skips
        return _tools_i18n().extract()


@dataclass
class EnglishFinder:
    """The English fragments that must not show on a screen in ``lang``."""

    lang: str
    pieces: list[str] = field(default_factory=list)
    translated: str = ""  # every msgstr of the language, one per line
    words: set[str] = field(default_factory=set)  # every word of those, lower case

    @classmethod
    def build(cls, lang: str) -> EnglishFinder:
        tools = _tools_i18n()
        templates = _templates()
        finder = cls(lang)
        same: set[str] = set()
        strings: list[str] = []
        for domain, template in templates.items():
            path = tools.po_path(lang, domain)
            catalog = tools.read_catalog(path, lang) if path.exists() else None
            for message in template:
                if not message.id:
                    continue
                ids = tuple(message.id) if isinstance(message.id, (tuple, list)) else (message.id,)
                entry = catalog.get(message.id, context=message.context) if catalog is not None else None
                forms = ()
                if entry is not None and not entry.fuzzy:
                    forms = tuple(entry.string) if isinstance(entry.string, (tuple, list)) else (entry.string,)
                strings += [f for f in forms if f]
                if forms and all(forms) and set(forms) <= set(ids):
                    same.update(" ".join(i.split()) for i in ids)  # kept as in English on purpose
                    continue
                finder.pieces += [p for i in ids for p in fragments(i)]
        finder.translated = "\n".join(" ".join(s.split()) for s in strings)
        finder.words = {w.lower() for w in WORD.findall(finder.translated)}
        # a piece the translations themselves use (a name, "Dichotomy", a loan word) is no evidence
        finder.pieces = sorted({p for p in finder.pieces if p not in same and not _contains(finder.translated, p)},
                               key=len, reverse=True)
        return finder

    def english_in(self, text: str) -> list[str]:
        """The English fragments found in ``text`` (longest first, none inside a longer one found).
        Addresses are left out: ``seat.ipynb?table=…`` is a link, not the English word "seat"."""
        flat = " ".join(ADDRESS.sub(" ", text).split())
        found: list[str] = []
        for piece in self.pieces:
            if _contains(flat, piece) and not any(_contains(f, piece) for f in found):
                found.append(piece)
        return found


CODE = re.compile(r"\b[A-Z0-9]{6}\b")
ADDRESS = re.compile(r"\b(?:https?://|data:)\S+|\b[\w-]+\.ipynb\b\S*")


def _lines(text: str) -> set[str]:
    """The lines of a screen's text, addresses taken out, codes and numbers masked."""
    out = set()
    for line in ADDRESS.sub(" ", text).splitlines():
        line = re.sub(r"\d+", "0", CODE.sub("CODE", " ".join(line.split())))
        if WORD.search(line):
            out.add(line)
    return out


# --------------------------------------------------------------------------------------------------
# fixtures


@pytest.fixture(scope="module")
def serve(tmp_path_factory):
    """``dichotomy serve`` on a free port with a fresh SQLite store."""
    store = tmp_path_factory.mktemp("languages") / "tables.sqlite3"
    port = free_port()
    cmd = [sys.executable, "-m", "dichotomy_widget.server.serve", "serve", "--store", str(store), "--port", str(port),
           "--ip", "127.0.0.1", "--voila-arg=--VoilaConfiguration.allow_theme_override=YES",  # ?theme=dark
           "--connect-timeout", "300"]  # a loaded machine: a language's 19 pages open at once connect slowly
    server = ServerProcess(cmd, port, env=server_env(), log_name="serve-languages")
    try:
        server.wait_ready("/voila/tree", timeout=120)
        server.store = store  # type: ignore[attr-defined]
        server.page = lambda name, query="": f"{server.base}/voila/render/{name}" + (  # type: ignore[attr-defined]
            f"?{query}" if query else "")
        yield server
    finally:
        server.stop()


# --------------------------------------------------------------------------------------------------
# driving the games through the engine


def _give_clues(table: Table, words) -> None:
    """Every Clue-Giver gives a clue (the first two the same word: the recap explains a duplicate)."""
    table.refresh()
    while table.state.phase == "clues":
        given = [c.text for c in table.state.clues]
        choices = [w for w in words if w not in given]
        if len(given) == 1:
            choices.insert(0, given[0])
        for word in choices:
            try:
                table.act(table.state.current_writer, {"type": "clue", "text": word})
                break
            except DichotomyError:
                continue  # a variant of the pair: another word
        table.refresh()


def _continue_all(table: Table) -> None:
    table.refresh()
    for seat in table.state.order:
        table.act(seat, {"type": "continue"})


@dataclass
class Setup:
    """One language's tables and class, made through the engine."""

    lang: str
    lobby: Table
    game: Table
    tokens: dict[int, str]
    room: Classroom
    urls: dict[str, str] = field(default_factory=dict)


def make_setup(serve, lang: str) -> Setup:
    store = SqliteStore(serve.store)
    lobby = Table.create(deck=lang, rounds=1, store=store, interface_lang=lang)
    lobby.join(NAMES[0])
    lobby.join(NAMES[1])
    game = Table.create(deck=lang, rounds=1, store=store, interface_lang=lang, seed=7)
    tickets = [game.join(n) for n in NAMES]
    game.start()
    game.refresh()
    game.act(game.state.drawer, {"type": "pick", "pair": 1})
    game.refresh()
    room = Classroom.create("9B", deck=lang, rounds=1, table_size=4, store=store, interface_lang=lang)
    for name in CLASS_NAMES:
        room.join(name)
    room.make_tables()
    tables = room.start_all()
    first = tables[0]  # table 1 plays a round to its recap (the report has a row); table 2 is mid-round
    first.refresh()
    first.act(first.state.drawer, {"type": "pick", "pair": 1})
    _give_clues(first, CLUES)
    first.refresh()
    first.act(first.state.guesser, {"type": "guess", "text": "xylophone"})
    for other in tables[1:]:
        other.refresh()
        other.act(other.state.drawer, {"type": "pick", "pair": 2})
    room.join("Kim")  # a late student: "not seated yet" on the dashboard
    s = game.state
    tokens = {t.seat: t.token for t in tickets}
    page = serve.page
    # The game widget also lives in JupyterLab's dark theme: in English its screens are seen in voila's
    # dark theme (the same CSS is seen in the light theme in the other languages).
    dark = "&theme=dark" if lang == "en" else ""
    urls = {
        "seat": page("seat.ipynb", f"table={lobby.code}"),
        "forged": page("seat.ipynb", f"table={lobby.code}&seat=forged-seat-token-123"),
        "host-create": page("host.ipynb", f"lang={lang}"),
        "host": page("host.ipynb", f"table={lobby.code}&host={lobby.host_token}"),
        "projector": page("projector.ipynb", f"table={game.code}{dark}"),
        "writer": page("seat.ipynb", f"table={game.code}&seat={tokens[s.current_writer]}{dark}"),
        "guesser": page("seat.ipynb", f"table={game.code}&seat={tokens[s.guesser]}{dark}"),
        "teacher-create": page("teacher.ipynb", f"lang={lang}"),
        "teacher": page("teacher.ipynb", f"class={room.code}&teacher={room.teacher_token}"),
        "class": page("class.ipynb", f"class={room.code}"),
        "classview": page("classview.ipynb", f"class={room.code}"),
        "report": page("report.ipynb", f"class={room.code}"),
    }
    return Setup(lang, lobby, game, tokens, room, urls)


# --------------------------------------------------------------------------------------------------
# the checks


@dataclass
class Checker:
    """Runs the checks on screens and gathers the problems (the test reports them all at once)."""

    axe: object
    problems: list[str] = field(default_factory=list)
    texts: dict[tuple[str, str], str] = field(default_factory=dict)
    finders: dict[str, EnglishFinder] = field(default_factory=dict)
    screens: int = 0

    def check(self, lang: str, screen: str, page) -> None:
        self.screens += 1
        where = f"[{lang}] {screen}"
        page.wait_for_timeout(300)  # let a re-render that was under way finish
        got = page.evaluate("document.documentElement.lang")
        if got != lang:
            self.problems.append(f"{where}: <html lang={got!r}>, expected {lang!r}")
        for scheme, options in (("light", None), ("dark", DARK_OPTIONS)):
            page.emulate_media(color_scheme=scheme)
            if page.evaluate(FOLLOWS_JS):  # the page follows the device: wait until it has followed
                light = "false" if scheme == "dark" else "true"
                try:
                    page.wait_for_function(FOLLOWED_JS, arg=light, timeout=30_000)
                except playwright_api.TimeoutError:
                    got = page.evaluate("document.body.getAttribute('data-jp-theme-light')")
                    self.problems.append(f"{where} ({scheme}): the page did not follow the device's colour scheme "
                                         f"(data-jp-theme-light={got!r}, expected {light!r})")
            results = self.axe.run(page, options=options)  # type: ignore[attr-defined]
            for v in results.response["violations"]:
                if v["impact"] in BLOCKING:
                    nodes = "; ".join(" ".join(n["target"]) + " " + n["failureSummary"].splitlines()[-1].strip()
                                      for n in v["nodes"][:3])
                    self.problems.append(f"{where} ({scheme}): axe {v['id']} ({v['impact']}): {v['help']} -- {nodes}")
        page.emulate_media(color_scheme="light")
        text = page.evaluate(TEXTS_JS)
        self.texts[(lang, screen)] = text
        if lang == "en":
            return
        if lang not in self.finders:
            self.finders[lang] = EnglishFinder.build(lang)
        finder = self.finders[lang]
        for piece in finder.english_in(text):
            self.problems.append(f"{where}: English left: {piece!r}")
        english = self.texts.get(("en", screen))
        if english is not None:
            # a line the same in English and here, with a word that is neither data (names, clues,
            # codes) nor any word of this language's catalogues, was never translated
            known = finder.words | {w.lower() for w in (*NAMES, *CLASS_NAMES, *CLUES, "Kim", "CODE",
                                                        *LANGUAGE_NAMES.values())}
            for line in sorted(_lines(english) & _lines(text)):
                # names drawn side by side ("JoIvyFay": a roster's inline names) are names, one by one
                foreign = [w for w in WORD.findall(line)
                           if any(part.lower() not in known for part in re.split(r"(?<=[a-z])(?=[A-Z])", w))]
                if foreign and not finder.english_in(line):
                    self.problems.append(f"{where}: line unchanged from English: {line!r} ({', '.join(foreign)})")


def _ready(page) -> None:
    """Wait until the page's kernel answers; reload once if it never does."""
    wait_until_ready(page, RENDER)


def _show(page, selector: str) -> None:
    """Wait until ``selector`` shows on a page opened earlier (reloaded once if it never does) and its
    kernel answers."""
    show_or_reload(page, selector, RENDER)
    _ready(page)


def _submit(page, box: str, value: str, done: str, tries: int = 4) -> None:
    """Type ``value`` in ``box`` and press Enter until ``done`` shows (a key pressed too early is lost)."""
    for _ in range(tries):
        try:
            page.locator(box).fill(value)
        except playwright_api.TimeoutError as exc:
            try:  # the last press was taken after all: the page moved on and is still drawing (run R1, loaded)
                page.locator(done).first.wait_for(state="visible", timeout=RENDER)
                return
            except playwright_api.TimeoutError:
                pass
            text = page.locator("body").inner_text(timeout=10_000)[:800]
            raise AssertionError(f"{box} is not on {page.url} any more; the page shows:\n{text}") from exc
        page.locator(box).press("Enter")
        try:
            page.locator(done).first.wait_for(state="visible", timeout=10_000)
            return
        except playwright_api.TimeoutError:
            continue
    raise AssertionError(f"{done} never showed after typing in {box}")


@dataclass
class Opened:
    """One language's pages, opened at once (``wait_until="commit"``) so their kernels start in parallel."""

    setup: Setup
    context: object
    pages: dict


def open_pages(browser, setup: Setup) -> Opened:
    context = browser.new_context(viewport={"width": 1000, "height": 800})
    context.set_default_timeout(60_000)
    pages = {}
    for name, url in setup.urls.items():
        pages[name] = context.new_page()
        pages[name].goto(url, wait_until="commit", timeout=RENDER)
    return Opened(setup, context, pages)


def check_language(checker: Checker, opened: Opened, when_first_ready=lambda: None) -> None:
    """Every screen of one language; ``when_first_ready`` runs once its first page is up (the next
    language's pages are opened then, so their kernels start while this language is checked)."""
    setup, pages, lang = opened.setup, opened.pages, opened.setup.lang
    try:
        def screen(name: str, selector: str, label: str | None = None):
            page = pages[name]
            _show(page, selector)
            if "theme=dark" in setup.urls[name]:  # the dark theme is really on, and a reload keeps it
                assert page.locator("body").get_attribute("data-jp-theme-light") == "false", name
                assert "theme=dark" in page.url, f"{name}: the address lost ?theme=dark: {page.url}"
            checker.check(lang, label or name, page)
            return page

        page = screen("seat", ".dichotomy-name input", "seat-join")
        when_first_ready()
        _submit(page, ".dichotomy-name input", NAMES[0].lower(), ".dichotomy-feedback:not(:empty)")
        assert NAMES[0].lower() in page.locator(".dichotomy-feedback").inner_text()  # "... called ana."
        checker.check(lang, "seat-name-taken", page)  # the engine's refusal, in the page's language
        _submit(page, ".dichotomy-name input", "Zoe", ".dw-root[data-you='Zoe']")
        checker.check(lang, "seat-lobby", page)
        page.close()
        screen("forged", ".dichotomy-message", "seat-link-refused").close()
        screen("host-create", "button.dichotomy-create").close()
        screen("host", ".dw-kind-table").close()
        screen("writer", "[data-testid=clue-input]").close()
        projector = screen("projector", ".dw-kind-table")
        guesser = screen("guesser", ".dw-guesser-wait")
        _give_clues(setup.game, CLUES)
        _show(guesser, "[data-testid=guess-input]")  # a change missed under load: reloaded once
        checker.check(lang, "guesser-guess", guesser)
        setup.game.refresh()
        setup.game.act(setup.game.state.guesser, {"type": "guess", "text": "xylophone"})
        _show(guesser, "[data-testid=recap]")  # a change missed under load: reloaded once
        checker.check(lang, "recap", guesser)
        _show(projector, "[data-testid=recap]")  # a change missed under load: reloaded once
        checker.check(lang, "projector-recap", projector)
        _continue_all(setup.game)
        _show(guesser, "[data-testid=final]")  # a change missed under load: reloaded once
        checker.check(lang, "final", guesser)
        guesser.close()
        projector.close()
        screen("teacher-create", "button.dichotomy-create-class").close()
        screen("teacher", ".dichotomy-dashboard").close()
        page = screen("class", ".dichotomy-name input", "class-join")
        _submit(page, ".dichotomy-name input", "Zoe", ".dichotomy-lobby-box")
        checker.check(lang, "class-lobby", page)
        page.close()
        screen("classview", ".dichotomy-overview").close()
        screen("report", ".dichotomy-report-round").close()
    finally:
        opened.context.close()


def test_every_screen_in_every_language_is_translated_labelled_and_accessible(browser, serve):
    t0 = time.monotonic()
    checker = Checker(axe_api.Axe())
    setups = [make_setup(serve, lang) for lang in LANGS]  # English first: the reference text
    opened: list[Opened] = [open_pages(browser, setups[0])]

    def open_next() -> None:
        if len(opened) < len(setups):
            opened.append(open_pages(browser, setups[len(opened)]))

    for i, lang in enumerate(LANGS):
        t1 = time.monotonic()
        check_language(checker, opened[i], open_next)
        print(f"{lang}: {time.monotonic() - t1:.0f} s")
    print(f"{checker.screens} screens in {time.monotonic() - t0:.0f} s")
    assert checker.screens == 19 * len(LANGS)
    assert not checker.problems, f"{len(checker.problems)} problems:\n" + "\n".join(checker.problems)
