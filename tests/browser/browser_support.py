"""What the browser test modules share: sibling modules (conftest.py's helpers, test_serve.py's page
helpers) loaded once by path.

A bare ``import conftest`` or ``import test_serve`` is ambiguous (pytest loads those under names of
its own), so the test modules call :func:`sibling` or :func:`conftest_helpers`.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType


def sibling(filename: str) -> ModuleType:
    """The module ``filename`` beside this one, loaded on first use under a name of its own."""
    name = "dichotomy_browser_" + Path(filename).stem
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name(filename))
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def wait_until_ready(page, timeout_ms: float, reload_once: bool = True) -> None:
    """Wait until the page's kernel answers (``html[data-dichotomy-ready]``, set by the app's UrlQuery
    widget); a page whose kernel never answered is reloaded once when ``reload_once``."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    marker = page.locator("html[data-dichotomy-ready]")
    try:
        marker.wait_for(state="attached", timeout=timeout_ms)
    except PlaywrightTimeout:
        if not reload_once:
            raise
        page.reload(wait_until="commit")
        marker.wait_for(state="attached", timeout=timeout_ms)


def show_or_reload(page, selector: str, timeout_ms: float) -> None:
    """Wait until ``selector`` shows on ``page``. On a loaded machine a page opened together with others
    can miss its kernel's first message; such a page is reloaded once (what a user would do), and the
    page's text before and after is kept in the error if it still fails."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.locator(selector).first.wait_for(timeout=timeout_ms)
        return
    except PlaywrightTimeout:
        before = page.locator("body").inner_text(timeout=10_000)[:500]
    page.reload(wait_until="commit", timeout=timeout_ms)
    try:
        page.locator(selector).first.wait_for(timeout=timeout_ms)
    except PlaywrightTimeout as exc:
        after = page.locator("body").inner_text(timeout=10_000)[:500]
        raise AssertionError(f"{selector} never showed on {page.url}; before the reload:\n{before}\n"
                             f"after it:\n{after}") from exc


def click_until(page, button: str, done: str, tries: int = 6, timeout_ms: float = 180_000) -> None:
    """Click ``button`` until ``done`` is on ``page``. A click made before the page's kernel connection
    is up is lost, so the button is clicked again while it is still offered; once it is gone (or stays
    hidden or disabled) a click was taken, and only ``done`` is waited for, up to ``timeout_ms``: a
    loaded kernel can take long to draw it. (Clicking on would wait for a button that never comes back:
    run A2, loaded, failed so after a seat had joined.)"""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    target = page.locator(done).first
    for _ in range(tries):
        offered = page.locator(button)
        if offered.count() == 0:
            break
        try:
            offered.first.click(timeout=10_000)
        except PlaywrightTimeout:
            break  # hidden, disabled or gone meanwhile: an earlier click was taken
        try:
            target.wait_for(state="attached", timeout=8_000)
            return
        except PlaywrightTimeout:
            continue
    try:
        target.wait_for(state="attached", timeout=timeout_ms)
    except PlaywrightTimeout:
        shown = page.locator("body").inner_text(timeout=10_000)[-1000:]
        raise AssertionError(f"{done} never appeared after clicking {button} on {page.url}; the page shows:\n"
                             f"{shown}") from None


def conftest_helpers() -> ModuleType:
    """tests/browser/conftest.py as a module (``ServerProcess``, ``free_port``, ``server_env``, ...)."""
    return sibling("conftest.py")


def _interface_words() -> frozenset[str]:
    """Every word of the interface's own text (the English messages of the catalogues and the widget's
    string literals), lower-cased: a dealt word may also be an interface word ("table", "drawer")."""
    import re

    root = Path(__file__).resolve().parents[2]
    texts = [p.read_text(encoding="utf-8") for p in (root / "dichotomy_widget" / "locale").glob("fr/LC_MESSAGES/*.po")]
    found = {w.lower() for text in texts for m in re.finditer(r'msgid(?:_plural)? "(.*)"', text)
             for w in re.findall(r"\w+", m.group(1))}
    js = (root / "js" / "widget.js").read_text(encoding="utf-8")
    found |= {w.lower() for w in re.findall(r"\w+", js)}
    return frozenset(found)


def hidden_from(page, word: str, also_shown: tuple[str, ...] = ()) -> bool:
    """True if ``page`` does not show ``word`` (a hidden Target or Foil).

    The page has no element that shows a card's words (``[data-testid=target]``, ``[data-testid=foil]``,
    ``.dw-pairs``); and unless the word is also an interface word or in ``also_shown`` (names, a class
    name), it is not in the page's text as a word either ("car" is inside "Discarded": whole words
    only). So a dealt word that happens to be "table" or a student's name cannot fail the check by
    colliding with what the page rightly says, seeded or not."""
    import re

    if page.locator("[data-testid=target], [data-testid=foil], .dw-pairs").count():
        return False
    low = word.strip().lower()
    shown = {w.lower() for text in also_shown for w in re.findall(r"\w+", text)}
    if low in _interface_words() or low in shown:
        return True
    return not re.search(rf"\b{re.escape(low)}\b", page.inner_text("body").lower())
