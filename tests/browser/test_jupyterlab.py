"""The teacher notebooks in real JupyterLab (and Jupyter Notebook 7), as a teacher meets them.

One token-less Jupyter server per module (loopback, free port, own process group) serves a temporary
copy of ``notebooks/``; both front ends run on it (``/lab/...`` and ``/notebooks/...``). Each test opens
a notebook in the real UI, runs all cells through the app's own command, and then plays with keyboard
and mouse. The notebook's cells are read from the document model (``jupyterapp``, exposed by
``expose_app_in_browser``), so a shortcut that edits the notebook cannot go unnoticed.
"""

from __future__ import annotations

import importlib
import shutil
import sys
from pathlib import Path

import pytest
from browser_support import conftest_helpers as _shared




REPO, ServerProcess, free_port, server_env = (_shared().REPO, _shared().ServerProcess, _shared().free_port,
                                              _shared().server_env)

pytestmark = pytest.mark.browser

playwright_api = importlib.import_module("playwright.sync_api")
expect = playwright_api.expect

LOAD_TIMEOUT = 120_000  # the first page builds JupyterLab's bundle cache and starts a kernel
RUN_TIMEOUT = 180_000  # a loaded machine: kernels import the engine, widgets load their module
SHORTCUT_KEYS = ["b", "a", "d", "d", "m", "x", "z"]  # insert below/above, delete, to Markdown, cut, undo


class Jupyter:
    """A running Jupyter server with JupyterLab (and Notebook 7 when installed)."""

    def __init__(self, server: ServerProcess, root: Path, has_notebook7: bool) -> None:
        self.server = server
        self.base = server.base
        self.root = root
        self.has_notebook7 = has_notebook7

    def lab(self, name: str) -> str:
        return f"{self.base}/lab/tree/{name}?reset"  # ?reset: no tabs restored from an earlier page

    def notebook7(self, name: str) -> str:
        return f"{self.base}/notebooks/{name}"


def _has_module(name: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(name) is not None


@pytest.fixture(scope="module")
def jupyter(tmp_path_factory):
    """``jupyter lab`` on 127.0.0.1 (no token, no password, settings and workspaces in a temp dir)."""
    if not _has_module("jupyterlab"):
        pytest.fail("jupyterlab is not installed (the [test] extra has it)")
    root = tmp_path_factory.mktemp("jupyter")
    work = root / "notebooks"
    shutil.copytree(REPO / "notebooks", work)
    port = free_port()
    cmd = [
        sys.executable, "-m", "jupyterlab", "--no-browser", "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.port={port}", "--ServerApp.port_retries=0", "--IdentityProvider.token=",
        "--ServerApp.password=", "--allow-root", "--LabApp.extension_manager=readonly", f"--ServerApp.root_dir={work}",
        f"--LabApp.user_settings_dir={root / 'settings'}", f"--LabApp.workspaces_dir={root / 'workspaces'}",
        "--LabApp.expose_app_in_browser=True", "--JupyterNotebookApp.expose_app_in_browser=True",
        "--LabApp.news_url=None",
        "--LabApp.check_for_updates_class=jupyterlab.handlers.announcements.NeverCheckForUpdate",
    ]
    env = server_env(JUPYTER_RUNTIME_DIR=str(root / "runtime"), JUPYTER_CONFIG_DIR=str(root / "config"))
    server = ServerProcess(cmd, port, cwd=work, env=env, log_name="jupyterlab")
    try:
        server.wait_ready("/api/status", timeout=90)
        yield Jupyter(server, work, _has_module("notebook"))
    finally:
        server.stop()


@pytest.fixture()
def context(browser):
    ctx = browser.new_context(viewport={"width": 1200, "height": 900})
    ctx.set_default_timeout(60_000)
    try:
        yield ctx
    finally:
        ctx.close()


def _top_frame(stack: str) -> str:
    return next((line.strip() for line in stack.splitlines() if line.strip().startswith("at ")), "")


def our_errors(page) -> list[str]:
    """Script errors that did not arise in the front end's own bundles (``/static/``): the widget's
    module is not one of them (anywidget loads it from the kernel). Notebook 7 served by the JupyterLab
    server raises two of its own on load ("reading 'schema'", "'filebrowser:open-path' not registered")."""
    return [f"{message} @ {top}" for message, top in page.console_errors if "/static/" not in top]


def new_page(context):
    page = context.new_page()
    page.console_errors = []  # type: ignore[attr-defined]
    page.on("pageerror", lambda exc: page.console_errors.append((str(exc), _top_frame(exc.stack or ""))))
    return page


# --- driving the front end ------------------------------------------------------------------------


def open_notebook(page, url: str) -> None:
    """Open a notebook, keep its panel as ``window.dwPanel`` and wait until its kernel is idle."""
    name = url.split("?")[0].rsplit("/", 1)[-1]
    page.goto(url, wait_until="domcontentloaded", timeout=LOAD_TIMEOUT)
    page.wait_for_function(
        """(name) => {
            const app = window.jupyterapp;
            if (!app || !app.shell) return false;
            const main = app.shell.widgets ? Array.from(app.shell.widgets('main')) : [];
            const panel = main.find((w) => w.context && w.context.path === name) || null;
            if (!panel || !panel.content || !panel.content.model) return false;
            const session = panel.sessionContext.session;
            if (!(session && session.kernel && session.kernel.status === 'idle')) return false;
            window.dwPanel = panel;
            return true;
        }""", arg=name, timeout=LOAD_TIMEOUT, polling=250)


def run_all(page) -> None:
    """Clear the outputs, run every cell with the app's own command (Run > Run All Cells) and wait
    until each code cell has run (an execution count again) and the kernel is idle."""
    page.evaluate("""async () => {
        const app = window.jupyterapp;
        app.shell.activateById(window.dwPanel.id);  // the commands act on the current notebook
        await app.commands.execute('notebook:clear-all-cell-outputs');
        app.commands.execute('notebook:run-all-cells');
    }""")
    page.wait_for_function(
        """() => {
            const nb = window.dwPanel;
            const kernel = nb.sessionContext.session && nb.sessionContext.session.kernel;
            const code = nb.content.widgets.filter((c) => c.model.type === 'code');
            return !!kernel && kernel.status === 'idle' && code.every((c) => c.model.executionCount !== null);
        }""", timeout=RUN_TIMEOUT, polling=250)


def cells(page) -> list[tuple[str, str]]:
    """The notebook's cells as (type, source), from the document model."""
    return page.evaluate("""() => {
        const model = window.dwPanel.content.model;
        return model.sharedModel.cells.map((c) => [c.cell_type, c.getSource()]);
    }""")


def focus_in_widget(page) -> str | None:
    """The data-testid / data-action / tag of the focused element when it is inside a widget."""
    return page.evaluate("""() => {
        const el = document.activeElement;
        if (!el || !el.closest('.dw-root')) return null;
        return el.getAttribute('data-testid') || el.getAttribute('data-action') || el.className || el.tagName;
    }""")


def press_shortcuts(page, before: list[tuple[str, str]]) -> None:
    """Press b, a, d d, m, x, z (JupyterLab command-mode shortcuts) on the focused widget control: after
    each key the notebook is unchanged and focus has not left the control (z could undo what b did)."""
    focused = page.evaluate_handle("() => document.activeElement")
    assert focused.evaluate("el => !!el.closest('.dw-root')"), "press shortcuts with a widget control focused"
    for key in SHORTCUT_KEYS:
        page.keyboard.press(key)
        page.wait_for_timeout(150)  # give a (wrong) command time to run before reading the model
        assert cells(page) == before, f"{key!r} changed the notebook"
        assert focused.evaluate("el => el === document.activeElement"), f"{key!r} moved focus"


# --- 1. pass and play in JupyterLab: Enter submits, no shortcut edits the notebook ---------------------


def play_pass_and_play_round(page, root, original, guess: str, shortcuts: bool) -> dict[str, int]:
    """One round of notebook 01's pass-and-play table by keyboard up to its recap; with ``shortcuts``,
    notebook shortcuts are pressed at every kind of widget control. ``guess``: "wrong" or "foil"."""
    focused_kinds = {"curtain": 0, "pair": 0}
    foil = ""
    for _step in range(30):
        if root.get_by_test_id("recap").is_visible():
            break
        phase = root.get_attribute("data-phase")
        if phase == "curtain":
            curtain = root.get_by_test_id("curtain")
            expect(curtain).to_be_focused()
            if shortcuts:
                press_shortcuts(page, original)
                focused_kinds["curtain"] += 1
            page.keyboard.press("Enter")  # the widget's own key still works
            expect(root).not_to_have_attribute("data-phase", "curtain")
            continue
        if root.locator(".dw-pairs").is_visible():
            expect(root.locator(".dw-pair").first).to_be_focused()
            if shortcuts:
                press_shortcuts(page, original)
                focused_kinds["pair"] += 1
            # a digit picks also when focus is elsewhere in the widget (here: on its status line)
            root.locator(".dw-status").click()
            assert focus_in_widget(page) is not None
            page.keyboard.press("2")
            expect(root.locator(".dw-pairs")).to_have_count(0)
            continue
        clue = root.get_by_test_id("clue-input")
        if clue.is_visible():
            foil = root.get_by_test_id("foil").inner_text()
            expect(clue).to_be_focused()
            if shortcuts:
                page.keyboard.type("badmxz")  # typed into the box: text, not notebook commands
                expect(clue).to_have_value("badmxz")
                assert cells(page) == original
                clue.fill("")
                page.keyboard.press("Enter")  # nothing typed: asks to confirm a skip...
                error = root.locator(".dw-entry .dw-error")
                expect(error).to_contain_text("Nothing typed")
                page.keyboard.press("Escape")  # ...and Escape takes that back, in the widget
                expect(error).to_have_text("")
                expect(clue).to_be_focused()
                assert cells(page) == original
            word = "zebra" if not root.locator("[data-mark=submitted]").count() else "glacier"
            page.keyboard.type(word)
            page.keyboard.press("Enter")  # Enter submits exactly the text in the box
            expect(root.get_by_test_id("clue-input")).to_have_count(0)
            continue
        box = root.get_by_test_id("guess-input")
        if box.is_visible():
            expect(box).to_be_focused()
            expect(root.locator(".dw-clue")).to_have_text(["glacier", "zebra"])
            page.keyboard.type("saxophone" if guess == "wrong" else foil)
            page.keyboard.press("Enter")
            expect(root.get_by_test_id("recap")).to_be_visible()
            continue
        page.wait_for_timeout(150)
    recap = root.get_by_test_id("recap")
    expect(recap).to_be_visible()
    expect(recap.locator(f"[data-outcome={guess}]")).to_be_visible()
    expect(recap).to_have_attribute("data-step", "done", timeout=20_000)  # the staged reveal has finished
    expect(recap.locator(".dw-recap-clue strong")).to_have_text(["zebra", "glacier"])  # as typed
    return focused_kinds


def test_quick_start_in_jupyterlab(context, jupyter):
    page = new_page(context)
    open_notebook(page, jupyter.lab("01-quick-start.ipynb"))
    original = cells(page)
    assert [t for t, _ in original].count("code") == 5  # pass and play, then the 'Play alone' section
    # a saved text repr of a widget would show before the run: the file holds no stale output
    saved = page.locator(".jp-OutputArea-output").all_inner_texts()  # only the bots game's printed recap
    assert len(saved) <= 1 and not any("Widget" in text for text in saved), saved
    run_all(page)
    root = page.locator(".dw-root.dw-kind-pass")  # notebook 01 also has a bots table
    expect(root).to_have_attribute("data-phase", "lobby", timeout=RUN_TIMEOUT)
    assert root.get_attribute("data-lm-suppress-shortcuts") is not None
    assert focus_in_widget(page) is None  # Run All leaves focus in the notebook
    start = root.get_by_role("button", name="Start the game")
    start.focus()
    press_shortcuts(page, original)
    page.keyboard.press("Enter")  # Enter presses the focused Start
    expect(root).to_have_attribute("data-phase", "curtain")

    # round 1: a wrong guess; its recap says the penalty once
    kinds = play_pass_and_play_round(page, root, original, guess="wrong", shortcuts=True)
    assert all(kinds.values()), kinds
    recap = root.get_by_test_id("recap")
    expect(recap.locator(".dw-outcome strong")).to_have_text("Not it. The card is discarded.")
    assert recap.inner_text().count("penalty") == 1, recap.inner_text()
    cont = root.locator("button[data-action=continue]")
    expect(cont).to_be_focused()
    press_shortcuts(page, original)
    page.keyboard.press(" ")  # Space presses the focused Continue
    expect(root.get_by_test_id("recap")).to_have_count(0)
    # the next round's curtain is down; Escape stays in the widget (no command mode, no edit)
    expect(root.get_by_test_id("curtain")).to_be_focused()
    page.keyboard.press("Escape")
    press_shortcuts(page, original)

    # round 2 is the last (the penalty took the third card): the Foil, said once
    play_pass_and_play_round(page, root, original, guess="foil", shortcuts=False)
    recap = root.get_by_test_id("recap")
    expect(recap.locator(".dw-outcome strong")).to_have_text("That was the Foil! The card is discarded.")
    assert "penalty" not in recap.inner_text() and "lost" not in recap.inner_text()  # nothing left to lose
    final = root.locator("button[data-action=continue]")
    expect(final).to_have_text("See the final score")
    page.keyboard.press("Enter")
    expect(root.get_by_test_id("final")).to_be_visible()
    round_stat = root.locator("[data-stat=round]")
    expect(round_stat).to_have_text("Rounds played 2")  # not "Round 2 of 3" after a penalty
    # the game-over screen: every focusable part keeps the keys, "Last round in detail" included
    summary = root.locator("details.dw-last-recap summary")
    summary.focus()
    press_shortcuts(page, original)
    page.keyboard.press("Enter")  # opens the details, in the widget
    expect(root.locator("details.dw-last-recap")).to_have_attribute("open", "")
    press_shortcuts(page, original)
    assert not our_errors(page), page.console_errors


# --- 2. the shared-kernel notebook with two browser clients ---------------------------------------------


def seat_root(page, name: str):
    return page.locator(".dw-root.dw-kind-seat", has=page.locator(f".dw-you:text-is(' · {name}')"))


def focus_owner(page) -> str | None:
    """Where this client's focus is: "cell" (a cell editor), a seat's name (its widget), or None."""
    return page.evaluate("""() => {
        const el = document.activeElement;
        if (!el || el === document.body) return null;
        if (el.closest('.cm-content')) return 'cell';
        const root = el.closest('.dw-root');
        const you = root && root.querySelector('.dw-you');
        return you ? you.textContent.replace(' · ', '') : root ? 'widget' : el.className || el.tagName;
    }""")


def test_shared_kernel_two_clients_keep_their_focus(browser, jupyter):
    """Two browsers on notebook 02's one kernel: neither client's action moves the other's focus."""
    ctx_a = browser.new_context(viewport={"width": 1200, "height": 900})
    ctx_b = browser.new_context(viewport={"width": 1200, "height": 900})
    try:
        a, b = new_page(ctx_a), new_page(ctx_b)
        open_notebook(a, jupyter.lab("02-shared-kernel-table.ipynb"))
        original = cells(a)
        run_all(a)
        names = ["Ada", "Ben", "Cy", "Dee"]
        for name in names:
            expect(seat_root(a, name)).to_have_attribute("data-phase", "reveal", timeout=RUN_TIMEOUT)
        # Run All started the game: the Drawer's pairs are on screen, but focus stays in the notebook
        expect(a.locator(".dw-pairs")).to_have_count(1)
        assert focus_in_widget(a) is None
        # the projector says its status once (the live region is its headline)
        projector = a.locator(".dw-root.dw-kind-table")
        status = projector.locator(".dw-status").text_content()
        assert status.endswith("is picking a pair…")
        assert projector.get_by_text(status, exact=True).count() == 1
        a.evaluate("() => window.dwPanel.context.save()")
        a.wait_for_function("() => !window.dwPanel.context.model.dirty")

        # client B opens the same notebook: the server gives it the same session, so the same kernel
        open_notebook(b, jupyter.lab("02-shared-kernel-table.ipynb"))
        kernel = "() => window.dwPanel.sessionContext.session.kernel.id"
        assert a.evaluate(kernel) == b.evaluate(kernel)
        for name in names:
            expect(seat_root(b, name)).to_have_attribute("data-phase", "reveal", timeout=RUN_TIMEOUT)

        # A plays the Drawer's seat; B plays every other writer, and starts out typing in a code cell
        drawer = next(n for n in names if seat_root(a, n).locator(".dw-pairs").count())
        b.locator(".jp-CodeCell .cm-content").first.click()
        b.keyboard.type("# B is typing here")
        assert focus_owner(b) == "cell"
        seat_root(a, drawer).locator(".dw-pair").first.focus()
        press_shortcuts(a, original)
        a.keyboard.press("Enter")
        expect(b.locator(".dw-pairs")).to_have_count(0)  # B saw the pick (the clue phase began)
        expect(b.locator("[data-testid=clue-input]")).to_have_count(1)
        assert focus_owner(b) == "cell"  # B's focus was not moved into the writer's clue box
        assert focus_owner(a) == drawer
        b.keyboard.press("Escape")  # leave the cell's edit mode; undo the typing
        b.keyboard.press("z")

        clues = iter(["glacier", "mosaic", "nectar"])
        for _turn in range(3):
            # the next writer's box, or the Guesser's once all clues are in: each seat's widget is updated
            # by a message of its own, so the last writer's box may be gone a moment before the next one's
            # is drawn (run Y1, loaded: the loop saw no box there and ended a clue early)
            expect(a.locator("[data-testid=clue-input], .dw-guess").first).to_be_visible()
            if seat_root(a, drawer).locator(".dw-guess").count():
                break
            writers = [n for n in names if seat_root(a, n).get_by_test_id("clue-input").count()]
            if not writers:
                break
            writer = writers[0]
            actor, other = (a, b) if writer == drawer else (b, a)
            before = focus_owner(other)
            box = seat_root(actor, writer).get_by_test_id("clue-input")
            box.click()
            actor.keyboard.type(next(clues))
            actor.keyboard.press("Enter")  # Enter submits in JupyterLab
            expect(seat_root(other, writer).get_by_test_id("clue-input")).to_have_count(0)
            expect(seat_root(actor, writer).get_by_test_id("clue-input")).to_have_count(0)
            assert focus_owner(other) == before, (writer, before, focus_owner(other))
            assert focus_owner(actor) == writer  # the writer's own widget keeps the actor's focus
        expect(a.locator(".dw-guess")).to_have_count(1)  # all clues in: the Guesser's box is up
        assert focus_owner(a) in (drawer, None) and focus_owner(b) != "Guesser"
        assert cells(a) == original
        assert not our_errors(a) and not our_errors(b), (a.console_errors, b.console_errors)
    finally:
        ctx_a.close()
        ctx_b.close()


# --- 3. making a deck: the error is its message; Run All reaches the game ----------------------------------


def test_make_a_deck_in_jupyterlab(context, jupyter):
    page = new_page(context)
    open_notebook(page, jupyter.lab("03-make-a-deck.ipynb"))
    original = cells(page)
    run_all(page)
    root = page.locator(".dw-root")
    expect(root).to_have_attribute("data-phase", "lobby", timeout=RUN_TIMEOUT)  # past the error cell
    errors = page.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']")
    shown = page.locator(".jp-RenderedText[data-mime-type='application/vnd.jupyter.stderr']")
    error_texts = [t for t in shown.all_inner_texts() if "DeckError" in t]
    assert len(error_texts) == 1, (errors.count(), shown.all_inner_texts())
    assert error_texts[0].startswith("DeckError: kitchen.csv")
    assert "Traceback" not in error_texts[0] and "File " not in error_texts[0]
    warning = [t for t in shown.all_inner_texts() if "DeckWarning" in t]
    assert warning and "look English" in warning[0]
    start = root.get_by_role("button", name="Start the game")
    start.focus()
    press_shortcuts(page, original)
    assert focus_in_widget(page) == "start"
    assert not our_errors(page), page.console_errors


# --- 4. the dark theme -------------------------------------------------------------------------------------


def test_dark_theme_screenshot(context, jupyter, screenshots):
    page = new_page(context)
    page.set_viewport_size({"width": 800, "height": 700})
    open_notebook(page, jupyter.lab("01-quick-start.ipynb"))
    run_all(page)
    root = page.locator(".dw-root.dw-kind-pass")
    expect(root).to_have_attribute("data-phase", "lobby", timeout=RUN_TIMEOUT)
    page.evaluate("() => window.jupyterapp.commands.execute('apputils:change-theme', {theme: 'JupyterLab Dark'})")
    expect(page.locator("body")).to_have_attribute("data-jp-theme-light", "false", timeout=60_000)
    root.get_by_role("button", name="Start the game").click()
    root.get_by_test_id("curtain").click()
    expect(root.locator(".dw-pairs")).to_be_visible()
    colors = root.evaluate("r => { const s = getComputedStyle(r); return [s.color, s.backgroundColor]; }")
    assert colors[0] != colors[1]
    page.evaluate("() => window.jupyterapp.commands.execute('application:toggle-left-area')")
    page.add_style_tag(content=".Toastify { display: none !important; }")  # the news prompt's toast
    root.scroll_into_view_if_needed()
    path = screenshots("jupyterlab-dark", page)  # docs/images/jupyterlab-dark.png is a reviewed copy
    assert path.stat().st_size < 150_000
    assert not our_errors(page), page.console_errors


# --- 5. Jupyter Notebook 7: the same shortcut system -------------------------------------------------------


def test_notebook7_shortcuts_and_enter(context, jupyter):
    if not jupyter.has_notebook7:
        pytest.fail("Jupyter Notebook 7 is not installed (pip install notebook)")
    page = new_page(context)
    open_notebook(page, jupyter.notebook7("01-quick-start.ipynb"))
    original = cells(page)
    run_all(page)
    root = page.locator(".dw-root.dw-kind-pass")
    expect(root).to_have_attribute("data-phase", "lobby", timeout=RUN_TIMEOUT)
    assert focus_in_widget(page) is None
    start = root.get_by_role("button", name="Start the game")
    start.focus()
    press_shortcuts(page, original)
    page.keyboard.press("Enter")
    curtain = root.get_by_test_id("curtain")
    expect(curtain).to_be_focused()
    press_shortcuts(page, original)
    page.keyboard.press("Enter")
    expect(root.locator(".dw-pair").first).to_be_focused()
    press_shortcuts(page, original)
    page.keyboard.press("1")
    expect(root.locator(".dw-pairs")).to_have_count(0)
    clue = root.get_by_test_id("clue-input")
    if not clue.is_visible():  # another player writes first: through the curtain
        expect(root.get_by_test_id("curtain")).to_be_focused()
        page.keyboard.press("Enter")
    expect(clue).to_be_focused()
    page.keyboard.type("zebra")
    page.keyboard.press("Enter")
    expect(root.get_by_test_id("clue-input")).to_have_count(0)
    expect(root.get_by_test_id("curtain")).to_be_focused()
    assert not our_errors(page), page.console_errors
