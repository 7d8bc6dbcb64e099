"""The hub landing page (pages/hub_home.py) and the visit list behind it (pages/hub_history.py), without a hub."""

from __future__ import annotations

import pytest

from dichotomy_widget.stores import open_store
from dichotomy_widget.pages import hub_history
from dichotomy_widget.pages.hub_history import remember, stream_id, visits
from dichotomy_widget.pages.hub_home import HomePage, Navigator
from dichotomy_widget.pages.hub_identity import IDENTITY_ENV, HubIdentity, sign_identity
from dichotomy_widget.pages.host_page import HostPage
from dichotomy_widget.pages.seat_page import SeatPage
from dichotomy_widget.options import TableOptions

SECRET = "a-test-secret-of-enough-length"
ANA = HubIdentity("ana", "Ana <i>Lima</i>")
TEACHER = HubIdentity("teacher", "Ms Teacher", host=True)


def env_for(identity: HubIdentity | None, **extra: str) -> dict[str, str]:
    env = {"DICHOTOMY_HUB": "1", "DICHOTOMY_HUB_SECRET": SECRET, "JUPYTERHUB_SERVICE_PREFIX": "/services/dichotomy/",
           **extra}
    if identity is not None:
        env[IDENTITY_ENV] = sign_identity(identity, SECRET.encode())
    return env


def html_of(page: HomePage) -> str:
    return "".join(getattr(c, "value", "") for c in page.children if isinstance(getattr(c, "value", None), str))


@pytest.fixture()
def store(tmp_path):
    return str(tmp_path / "tables.sqlite3")


def test_a_teacher_sees_host_and_class_links_and_their_recent_tables_with_working_host_links(store):
    host = HostPage("", store=store, env=env_for(TEACHER))
    assert host.create(deck="en", seed=3, options=TableOptions(rounds=1))
    code, token = host.table.code, host.host_token
    page = HomePage("", store=store, env=env_for(TEACHER))
    text = html_of(page)
    assert "Welcome, Ms Teacher" in text
    assert 'href="host.ipynb"' in text and 'href="teacher.ipynb"' in text
    assert f'href="host.ipynb?table={code}&amp;host={token}"' in text
    # the host link found on the landing page really hosts the table
    again = HostPage(f"table={code}&host={token}", store=store, env=env_for(TEACHER))
    assert again.state == "host"
    # the store keeps the host token only sealed under the service's secret
    raw = open_store(store).load(stream_id(SECRET.encode(), "teacher"))
    assert token not in repr([r.payload for r in raw])
    sealed = raw[0].payload["token"]
    assert hub_history._open(SECRET.encode(), "teacher", code, sealed) == token
    assert hub_history._open(b"another-secret-entirely", "teacher", code, sealed) != token


def test_a_student_sees_only_their_seats_and_a_join_box_that_opens_the_table_or_the_class(store):
    host = HostPage("", store=store, env=env_for(TEACHER))
    assert host.create(deck="en", seed=3, options=TableOptions(rounds=1))
    code = host.table.code
    fresh = HomePage("", store=store, env=env_for(ANA))
    text = html_of(fresh)
    assert "host.ipynb" not in text and "teacher.ipynb" not in text
    assert "Ana &lt;i&gt;Lima&lt;/i&gt;" in text and "<i>Lima" not in text  # hub names are text
    assert "dichotomy-home-empty" in text
    seat = SeatPage(f"table={code}", store=store, env=env_for(ANA))
    assert seat.join()
    page = HomePage("", store=store, env=env_for(ANA))
    assert f'href="seat.ipynb?table={code}"' in html_of(page)
    assert page.join(code.lower()) and page.navigator.href == f"seat.ipynb?table={code}"
    assert not page.join("ZZZZZZ") and "ZZZZZZ" in page.feedback.value
    assert not page.join("") and page.navigator.href == f"seat.ipynb?table={code}"


def test_the_landing_page_refuses_a_page_without_a_hub_identity_and_outside_a_hub_offers_the_links(store):
    refused = HomePage("", store=store, env=env_for(None))
    assert refused.state == "refused" and "through the hub" in html_of(refused)
    plain = HomePage("", store=store, env={})
    assert plain.identity is None and 'href="host.ipynb"' in html_of(plain)


def test_a_visit_is_recorded_once_and_the_navigator_opens_only_sibling_pages(store):
    db = open_store(store)
    assert remember(db, SECRET.encode(), "ana", "table", "seat", "K7QX2M")
    assert not remember(db, SECRET.encode(), "ana", "table", "seat", "K7QX2M")
    assert [v.code for v in visits(db, SECRET.encode(), "ana")] == ["K7QX2M"]
    assert visits(db, SECRET.encode(), "ben") == []
    with pytest.raises(ValueError):
        Navigator().go("https://elsewhere.example/seat.ipynb")


def test_a_class_shows_on_the_teachers_start_page_with_its_views_and_on_the_students_with_their_link(store):
    from dichotomy_widget.pages.student_page import ClassPage
    from dichotomy_widget.pages.teacher_page import TeacherPage

    teacher = TeacherPage("", store=store, env=env_for(TEACHER))
    assert teacher.create(name="Period 3", deck="en", rounds=1), teacher.message
    code = teacher.room.code
    student = ClassPage(f"class={code}", store=store, env=env_for(ANA))
    assert student.join("Ana"), student.message
    text = html_of(HomePage("", store=store, env=env_for(TEACHER)))
    assert f'href="teacher.ipynb?class={code}&amp;teacher=' in text
    assert f'href="classview.ipynb?class={code}"' in text and f'href="report.ipynb?class={code}"' in text
    mine = html_of(HomePage("", store=store, env=env_for(ANA)))
    assert f'href="class.ipynb?class={code}&amp;student={student.token}"' in mine and "teacher.ipynb" not in mine
    page = HomePage("", store=store, env=env_for(ANA))
    assert page.join(code) and page.navigator.href == f"class.ipynb?class={code}"
