"""What the browser test modules share: conftest.py's helpers, loaded once by path.

A bare ``import conftest`` is ambiguous (pytest loads conftest files under their own names), so the
test modules call :func:`conftest_helpers` for ``ServerProcess``, ``free_port``, ``server_env`` and
the rest.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

_NAME = "dichotomy_browser_conftest"


def conftest_helpers() -> ModuleType:
    """tests/browser/conftest.py as a module (loaded on first use)."""
    if _NAME not in sys.modules:
        spec = importlib.util.spec_from_file_location(_NAME, Path(__file__).with_name("conftest.py"))
        module = importlib.util.module_from_spec(spec)
        sys.modules[_NAME] = module
        spec.loader.exec_module(module)
    return sys.modules[_NAME]
