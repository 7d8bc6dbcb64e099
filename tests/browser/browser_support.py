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


def conftest_helpers() -> ModuleType:
    """tests/browser/conftest.py as a module (``ServerProcess``, ``free_port``, ``server_env``, ...)."""
    return sibling("conftest.py")
