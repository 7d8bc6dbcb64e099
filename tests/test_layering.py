"""The package's import layering, read from the source with ``ast`` (nothing is imported).

- Every module is listed either as pure (:data:`PURE`: the rules, views, seating, class views, i18n,
  message formatting, word matching...) or as impure (:data:`IMPURE`: stores, pages, tables, the
  server...); a new module must be put in one list.
- A pure module imports only pure modules of the package, and none of the libraries that reach a
  store, a widget, a kernel or the network (:data:`IMPURE_LIBRARIES`): it runs without a store or a
  widget.
- The engine imports nothing from ``stores/``, ``widgets/``, ``pages/``, ``server/`` or ``table``.
- ``table`` and ``stores/`` import nothing from ``widgets/``, ``pages/`` or ``server/``: a table does not build widgets (the widget
  side takes a table).
- No module imports a private (``_name``) name from another module.
- The module graph has no cycle, counting imports inside functions (lazy imports) too.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

PACKAGE = "dichotomy_widget"
ROOT = Path(__file__).resolve().parent.parent / PACKAGE
ENGINE = ("errors", "events", "config", "decks", "rules", "views", "words")
UI = ("widgets", "pages", "server")
OUTER = ("stores", *UI, "table")
#: Modules (or packages) that compute without a store, a widget, a kernel or a clock of their own.
PURE = ("errors", "events", "config", "decks", "rules", "views", "words", "wordrel", "wordsdata",
        "class_mode.views", "class_mode.cards", "class_mode.moves", "class_mode.decide", "class_mode.seating", "class_mode.state",
        "i18n", "message_format", "logs", "deck_targets",
        "bots.bot", "bots.knowledge", "bots.relations", "bots.simulate", "options")
#: Everything else: the package's front door, stores, pages, tables, classes, the server, bot drivers.
IMPURE = ("", "stores", "widgets", "pages", "server", "aggregate", "table", "class_mode", "deck_library",
          "bots", "bots.driver", "bots.practice")
#: Libraries a pure module must not import (widgets, kernels, servers, databases, processes, sockets).
IMPURE_LIBRARIES = {"ipywidgets", "anywidget", "traitlets", "IPython", "ipykernel", "tornado", "voila",
                    "jupyter_server", "jupyterhub", "psycopg", "psycopg_pool", "asyncio", "subprocess", "socket",
                    "signal", "inotify_simple"}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {module_name(p): p for p in sorted(ROOT.rglob("*.py"))}


def resolve(module: str, node: ast.ImportFrom) -> str:
    """The absolute module an ``ImportFrom`` names (``from ..x import y`` inside ``module``)."""
    if not node.level:
        return node.module or ""
    is_package = MODULES[module].name == "__init__.py"
    base = module.split(".")
    base = base if is_package else base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


@functools.lru_cache(maxsize=None)  # each module is read and parsed once per run
def imports(module: str) -> list[tuple[str, str | None, int]]:
    """``(target module, imported name or None, line)`` for every import in ``module``, lazy ones too."""
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    found: list[tuple[str, str | None, int]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, None, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            target = resolve(module, node)
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                # ``from . import rules`` imports a module; ``from .rules import decide`` a name
                found.append((sub, None, node.lineno) if sub in MODULES else (target, alias.name, node.lineno))
    return found


def internal(target: str) -> str | None:
    """The package module ``target`` is, or lives in (``dichotomy_widget.rules.decide`` -> rules)."""
    while target and target not in MODULES:
        target = target.rpartition(".")[0]
    return target or None


def graph() -> dict[str, set[str]]:
    edges: dict[str, set[str]] = {m: set() for m in MODULES}
    for module in MODULES:
        for target, _name, _line in imports(module):
            dep = internal(target) if target.startswith(PACKAGE) else None
            if dep and dep != module:
                edges[module].add(dep)
    return edges


def layer(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def kind(module: str) -> str | None:
    """``"pure"`` or ``"impure"``: the longest entry of :data:`PURE` / :data:`IMPURE` that ``module``
    (``dichotomy_widget.bots.bot``) is or lives in; None if it is in neither list."""
    rel = module.partition(".")[2]
    best: tuple[int, str | None] = (-1, None)
    for label, names in (("pure", PURE), ("impure", IMPURE)):
        for name in names:
            if rel == name or (name and rel.startswith(name + ".")):
                best = max(best, (len(name), label))
            elif name == "" and rel == "":
                best = max(best, (0, label))
    return best[1]


def test_every_module_is_listed_as_pure_or_impure():
    unlisted = [m for m in MODULES if kind(m) is None]
    assert not unlisted, f"put these in PURE or IMPURE: {unlisted}"


def impure_imports(found: list[tuple[str, str | None, int]]) -> list[tuple[str, int]]:
    """The imports of ``found`` (as :func:`imports` lists them) that a pure module may not make."""
    bad = []
    for target, _name, line in found:
        if target == PACKAGE or target.startswith(PACKAGE + "."):
            dep = internal(target)
            if dep and kind(dep) != "pure":
                bad.append((dep, line))
        elif target.split(".")[0] in IMPURE_LIBRARIES:
            bad.append((target, line))
    return bad


@pytest.mark.parametrize("module", [m for m in MODULES if kind(m) == "pure"])
def test_a_pure_module_imports_nothing_impure(module):
    bad = impure_imports(imports(module))
    assert not bad, f"{module} is pure but imports {bad}"


def test_the_purity_check_sees_an_impure_import():
    """Guards the check above: the lists classify real modules, and impure imports are seen."""
    assert kind(f"{PACKAGE}.class_mode.views") == "pure" and kind(f"{PACKAGE}.class_mode.seating") == "pure"
    assert kind(f"{PACKAGE}.bots.driver") == "impure" and kind(f"{PACKAGE}.bots.bot") == "pure"
    assert kind(f"{PACKAGE}.pages.teacher_page") == "impure" and kind(PACKAGE) == "impure"
    found = [(f"{PACKAGE}.rules", "decide", 1), (f"{PACKAGE}.class_mode.classroom", "Classroom", 2), ("ipywidgets", None, 3),
             (f"{PACKAGE}.stores.sqlite", None, 4), ("json", None, 5), ("asyncio.tasks", None, 6)]
    assert impure_imports(found) == [(f"{PACKAGE}.class_mode.classroom", 2), ("ipywidgets", 3),
                                     (f"{PACKAGE}.stores.sqlite", 4), ("asyncio.tasks", 6)]


def test_the_parser_sees_the_package():
    """Guards the test itself: it reads real modules and real edges, so the checks below can fail."""
    assert {f"{PACKAGE}.rules", f"{PACKAGE}.views", f"{PACKAGE}.stores.sqlite", f"{PACKAGE}.widgets.game",
            f"{PACKAGE}.words.matcher"} <= set(MODULES)
    edges = graph()
    assert f"{PACKAGE}.rules" in edges[f"{PACKAGE}.views"]
    assert f"{PACKAGE}.stores" in edges[f"{PACKAGE}.table"]
    assert f"{PACKAGE}.widgets.game" in edges[PACKAGE]  # the lazy widget import in __init__ is counted


@pytest.mark.parametrize("module", [m for m in MODULES if layer(m) in ENGINE])
def test_engine_imports_no_store_or_ui(module):
    bad = [(target, line) for target, _name, line in imports(module)
           if target.startswith(PACKAGE) and layer(internal(target) or "") in OUTER]
    assert not bad, f"{module} is engine code but imports {bad}"


@pytest.mark.parametrize("module", [m for m in MODULES if layer(m) in ("table", "stores")])
def test_tables_and_stores_build_no_widgets(module):
    bad = [(target, line) for target, _name, line in imports(module) if layer(internal(target) or "") in UI]
    assert not bad, f"{module} imports the UI: {bad}"


def test_no_module_imports_a_private_name():
    bad = [(module, target, name, line) for module in MODULES for target, name, line in imports(module)
           if name and name.startswith("_") and not name.startswith("__")]
    assert not bad, bad


def find_cycle(edges: dict[str, set[str]]) -> list[str] | None:
    """One import cycle as a list of modules (first == last), or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state:
                cycle = visit(nxt)
                if cycle:
                    return cycle
        path.pop()
        state[node] = 2
        return None

    for start in sorted(edges):
        if start not in state:
            cycle = visit(start)
            if cycle:
                return cycle
    return None


def test_find_cycle_finds_one():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set(), "c": {"a", "b"}}) is None


def test_no_import_cycle_in_the_package():
    cycle = find_cycle(graph())
    assert cycle is None, " -> ".join(cycle or [])
