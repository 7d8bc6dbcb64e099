"""The pages' styles live in CSS (dichotomy_widget.pages.page_style.PAGE_CSS, carried by every page's
address-bar widget, and the widgets' own ``_css``): no page or widget module writes an inline
``style=`` attribute or sets an element's ``style.cssText``, and the HTML the pages produce holds none."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from dichotomy_widget.class_mode.classroom import Classroom
from dichotomy_widget.pages.class_projector_page import class_view_page
from dichotomy_widget.pages.host_page import HostPage
from dichotomy_widget.pages.page_base import UrlQuery
from dichotomy_widget.pages.page_style import PAGE_CSS
from dichotomy_widget.pages.report_page import report_page
from dichotomy_widget.pages.seat_page import SeatPage
from dichotomy_widget.pages.student_page import class_page
from dichotomy_widget.pages.table_projector_page import projector_page
from dichotomy_widget.pages.teacher_page import teacher_page
from dichotomy_widget.options import TableOptions
from dichotomy_widget.stores import SqliteStore

ROOT = Path(__file__).resolve().parent.parent / "dichotomy_widget"
MODULES = sorted([*ROOT.glob("pages/*.py"), *ROOT.glob("widgets/*.py")])
#: An inline style in HTML (``style="..."``, also as the start of an f-string's piece) or in a front
#: end's code (``el.style.cssText = ...``).
INLINE = re.compile(r"""\bstyle\s*=\s*["'\\]|\.style\.cssText\b""")


def strings(tree: ast.AST) -> list[tuple[int, str]]:
    """Every string literal of a module, the literal pieces of its f-strings too."""
    return [(node.lineno, node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)]


def test_the_check_sees_an_inline_style():
    breach = ast.parse('x = f\'<p style="color:{c}">\'\njs = """el.style.cssText = "x";"""\nw = W.Label(style={})')
    assert sorted(line for line, text in strings(breach) if INLINE.search(text)) == [1, 2]


@pytest.mark.parametrize("path", MODULES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_no_page_or_widget_module_writes_an_inline_style(path):
    found = [f"{path.name}:{line}" for line, text in strings(ast.parse(path.read_text(encoding="utf-8")))
             if INLINE.search(text)]
    assert not found, f"inline styles (use a class in page_style.PAGE_CSS or the widget's _css): {found}"


def page_html(widget) -> list[str]:
    """Every string the widget tree sends its browser, but the front-end code and style (``_esm``,
    ``_css``: the stylesheets themselves)."""
    out, stack = [], [widget]
    while stack:
        w = stack.pop()
        out += [getattr(w, k) for k in w.keys if k not in ("_esm", "_css") and isinstance(getattr(w, k), str)]
        stack.extend(getattr(w, "children", ()))
    return out


def test_every_screen_names_classes_and_carries_the_page_stylesheet(tmp_path):
    store = SqliteStore(tmp_path / "style.sqlite3")
    host = HostPage("", store=store, env={})
    host.deck_form.source.value = "paste"
    host.deck_form.paste.value = "one,\n"  # a problem box
    host.deck_form.check()
    refused = SeatPage("table=NOSUCH", store=store, env={})
    assert "dichotomy-message" in "".join(page_html(refused))
    screens = [host, refused]  # a create form, a refusal
    hosting = HostPage("", store=store, env={})
    assert hosting.create(deck="en", seed=3, options=TableOptions(rounds=2))
    screens += [hosting, SeatPage(f"table={hosting.table.code}", store=store, env={}),
                projector_page(f"table={hosting.table.code}", store=store)]
    teacher = teacher_page("", store=store, env={})
    screens.append(teacher)
    assert teacher.create(name="9B", deck="en", rounds=2, table_size=4)
    code = teacher.room.code
    student = class_page(f"class={code}", store=store, env={})
    screens.append(student)
    for name in ("Ana", "Ben", "Cy"):
        assert class_page(f"class={code}", store=store, env={}).join(name)
    assert student.join("Dee")  # the lobby
    room = Classroom.open(code, store)
    room.make_tables()
    room.start_all()
    teacher.room.refresh()
    teacher.refresh_view()
    screens += [teacher, student, class_view_page(f"class={code}", store=store, env={}),
                report_page(f"class={code}", store=store, env={}), report_page("class=NOSUCH", store=store, env={})]
    assert "dichotomy-deck-alert" in host.deck_form.problems_box.value
    assert "dichotomy-join-info" in "".join(page_html(hosting))
    for screen in screens:
        html = page_html(screen)
        assert not [h for h in html if re.search(r"<[^>]*\sstyle\s*=", h)], type(screen).__name__
        assert isinstance(screen.url, UrlQuery) and screen.url in screen.children  # the stylesheet comes along
    assert UrlQuery._css == PAGE_CSS
    for css in ("dichotomy-message", "dichotomy-link", "dichotomy-join-info", "dichotomy-table-code",
                "dichotomy-deck-alert", "dichotomy-hub-user", "dichotomy-button-link", "dichotomy-alert-text"):
        assert f".{css}" in PAGE_CSS
