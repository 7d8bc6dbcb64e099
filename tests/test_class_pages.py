"""The class pages (teacher, student, class view, projector, report) without a browser."""

from __future__ import annotations

import base64
import csv
import io
import json
import re
from urllib.parse import parse_qs

import pytest

from dichotomy_widget.class_mode.classroom import Classroom
from dichotomy_widget.i18n import translator
from dichotomy_widget.stores import SqliteStore
from dichotomy_widget.pages.student_page import class_page
from dichotomy_widget.pages.class_projector_page import class_view_page
from dichotomy_widget.pages.page_base import page_link
from dichotomy_widget.pages.table_projector_page import projector_page
from dichotomy_widget.pages.report_page import report_page
from dichotomy_widget.pages.teacher_page import teacher_page
import dichotomy_widget.pages.teacher_page as teacher_module
from dichotomy_widget.widgets import game as widgets
from dichotomy_widget.decks import Card, Deck, Pair
from dichotomy_widget.options import TableOptions
from game_helpers import WORDS, unique_clues

# distinctive words that no page text uses ("teacher" is a page word: swapped out)
PAGE_WORDS = [("walrus", "otter") if t == "teacher" else (t, f) for t, f in WORDS]
DECK = Deck(name="page words", lang="en",
            cards=tuple(Card(tuple(Pair(t, f) for t, f in PAGE_WORDS[i:i + 5])) for i in range(0, len(PAGE_WORDS), 5)))

NAMES = [f"Kid{chr(65 + i)}" for i in range(12)]


def qs(page) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(page.url.query).items()}


def all_text(widget) -> str:
    """Every string a widget tree could send to its browser."""
    out, stack = [], [widget]
    while stack:
        w = stack.pop()
        for key in w.keys:
            if key in ("_esm", "_css"):  # the front-end code and style, the same for every page
                continue
            value = getattr(w, key)
            if isinstance(value, str):
                out.append(value)
            elif isinstance(value, (dict, list, tuple)):
                out.append(json.dumps(value, default=str))
        stack.extend(getattr(w, "children", ()))
    return "\n".join(out)


@pytest.fixture()
def store(tmp_path):
    return SqliteStore(tmp_path / "class.sqlite3")


@pytest.fixture()
def teacher(store):
    page = teacher_page("", store=store, env={})
    assert page.state == "create"
    assert not page.create(name="  ")  # a clear message, nothing created
    assert "class name" in page.message
    assert page.create(name="Year 9", deck=DECK, rounds=2, table_size=4)
    return page


def test_teacher_creates_a_class_and_the_link_is_a_secret(teacher, store):
    q = qs(teacher)
    assert set(q) == {"class", "teacher"} and teacher.room.is_teacher(q["teacher"])
    assert teacher.join_link == f"class.ipynb?class={q['class']}"
    text = all_text(teacher)
    assert "class.ipynb?class=" in text and "<svg" in text
    # the projector, class view and report links never carry the teacher token
    assert q["teacher"] not in teacher.view_link + teacher.report_link
    forged = teacher_page(f"class={q['class']}&teacher=forged", store=store, env={})
    assert forged.state == "refused" and "not valid" in all_text(forged)
    assert teacher_page("class=ZZZZZZ&teacher=x", store=store, env={}).state == "refused"


def test_whole_class_flow(teacher, store):
    code = qs(teacher)["class"]
    students = {}
    for name in NAMES:
        page = class_page(f"class={code}", store=store)
        assert page.state == "form"
        assert page.join(name)
        assert page.state == "lobby" and "seated soon" in all_text(page)
        students[name] = page
    dup = class_page(f"class={code}", store=store)
    assert not dup.join("kida") and "already called" in dup.message
    teacher.room.refresh()
    teacher.refresh_view()
    assert "<span class=\"dichotomy-roster-count\">12</span>" in teacher.roster.value
    assert teacher.make_tables()
    assert len(teacher.room.state.tables) == 3
    # move one student from table 1 to table 2
    mover = teacher.room.state.tables[0].members[0]
    assert teacher.move(mover, 2)
    assert [len(t.members) for t in teacher.room.state.tables] == [3, 5, 4]
    assert not teacher.move(mover, 2) and "already sits" in teacher.message
    for page in students.values():
        page.room.poll()
        assert "You will sit at table" in page.lobby.value
    assert teacher.start_all()
    assert not teacher.move(mover, 1)
    for name, page in students.items():
        page.room.poll()
        assert page.state == "seat" and isinstance(page.widget, widgets.SeatWidget)
        assert page.widget.view["you"]["name"] == name
        assert qs(page)["student"] == page.token  # no new link
    assert len(teacher.tables_box.children) == 3
    # a reload of a student link resumes their seat (a "restarted server": a new store object)
    again = class_page(students["KidC"].url.query, store=SqliteStore(store.path))
    assert again.state == "seat" and again.widget.view["you"]["name"] == "KidC"
    forged = class_page(f"class={code}&student=forged", store=store)
    assert forged.state == "refused" and "not valid" in forged.message
    # play into the clue phase at table 1: no hidden word on the dashboard, class view, projector, report
    table = teacher.room.table(1)
    table.act(table.state.drawer, {"type": "pick", "pair": 1})
    clues = unique_clues(table)
    table.act(table.state.current_writer, {"type": "clue", "text": clues[0]})
    teacher.room.poll()
    teacher.refresh_view()
    hidden = [table.state.target, table.state.foil, clues[0]] + [w for p in table.state.current for w in p]
    view = class_view_page(f"class={code}", store=store)
    projector = projector_page(f"table={table.code}", store=store)
    report = report_page(f"class={code}", store=store)
    assert isinstance(projector.widget, widgets.TableWidget) and projector.widget.host is False
    for page in (teacher, view, projector, report):
        text = all_text(page).lower()
        assert not [w for w in hidden if re.search(rf"\b{re.escape(w.lower())}\b", text)], type(page).__name__
    assert "data-phase=\"clues\"" in teacher.tables_box.children[0].children[0].value
    # finish the round; the report page shows it and its CSV download has one row per clue
    for text in clues[1:]:
        table.act(table.state.current_writer, {"type": "clue", "text": text})
    table.act(table.state.guesser, {"type": "guess", "text": table.state.target})
    report.room.poll()
    assert 'data-outcome="correct"' in report.body.value
    href = re.search(r'class="dichotomy-csv" download="[^"]+" href="data:text/csv;charset=utf-8;base64,([^"]+)"',
                     report.downloads.value).group(1)
    rows = list(csv.DictReader(io.StringIO(base64.b64decode(href).decode("utf-8"))))
    assert [r["clue"] for r in rows] == clues and {r["outcome"] for r in rows} == {"correct"}
    assert rows[0]["target"] == table.state.history[0].target


def test_read_only_pages_refuse_unknown_codes(store):
    assert "No such class" in all_text(class_view_page("class=ZZZZZZ", store=store))
    assert "No such table" in all_text(projector_page("table=<b>", store=store))
    assert "No such class" in all_text(report_page("", store=store))
    assert class_page("class=ZZZZZZ", store=store).state == "refused"


def test_late_joiner_sees_why_and_is_seated_at_a_new_table(store):
    room = Classroom.create("C", deck="en", rounds=2, table_size=4, store=store)
    for name in ("A1", "A2", "A3"):
        room.join(name)
    room.make_tables()
    room.start_all()
    late = [class_page(f"class={room.code}", store=store) for _ in range(3)]
    for i, page in enumerate(late):
        assert page.join(f"Late{i}")
    assert "Every table has already started" in late[0].lobby.value
    teacher = teacher_page(f"class={room.code}&teacher={room.teacher_token}", store=store, env={})
    assert teacher.add_table()
    for i in range(3):
        assert teacher.move(f"Late{i}", 2)
    assert teacher.start_one_table(2)
    for page in late:
        page.room.poll()
        assert page.state == "seat"


def test_page_link_follows_the_request_url():
    env = {"VOILA_REQUEST_URL": "http://10.0.0.5:8866/voila/render/teacher.ipynb?class=X&teacher=secret"}
    assert page_link("class.ipynb", {"class": "AB"}, env) == "http://10.0.0.5:8866/voila/render/class.ipynb?class=AB"


def test_a_restarted_server_brings_class_dashboard_and_seats_back(tmp_path):
    path = tmp_path / "restart.sqlite3"
    first = SqliteStore(path)
    teacher = teacher_page("", store=first, env={})
    assert teacher.create(name="Restart", deck=DECK, rounds=2, table_size=4)
    code = teacher.room.code
    links = {}
    for name in ("Ana", "Ben", "Cy", "Dee"):
        page = class_page(f"class={code}", store=first)
        assert page.join(name)
        links[name] = page.url.query
    assert teacher.make_tables() and teacher.start_all()
    table = teacher.room.table(1)
    table.act(table.state.drawer, {"type": "pick", "pair": 3})
    teacher_link = teacher.url.query
    first.close()  # the server stops; a new one opens the same file
    second = SqliteStore(path)
    again = teacher_page(teacher_link, store=second, env={})
    assert again.state == "teacher" and len(again.tables_box.children) == 1
    assert 'data-phase="clues"' in again.tables_box.children[0].children[0].value
    for name, query in links.items():
        page = class_page(query, store=second)
        assert page.state == "seat" and page.widget.view["you"]["name"] == name
        assert page.widget.view["phase"] == "clues"
    assert 'data-phase="clues"' in class_view_page(f"class={code}", store=second).overview.value


def test_dashboard_reaches_each_tables_host_controls(store):
    room = Classroom.create("C", deck=DECK, rounds=2, table_size=4, store=store)
    for name in ("Ana", "Ben", "Cy", "Dee", "Eve", "Fox"):
        room.join(name)
    teacher = teacher_page(f"class={room.code}&teacher={room.teacher_token}", store=store, env={})
    assert teacher.make_tables() and teacher.start_all()
    rows = teacher.tables_box.children
    assert len(rows) == 2
    buttons = {b._dom_classes[0]: b for b in rows[1].children[1].children}
    # the row offers the host's actions, in the table's own words, one click away
    assert buttons["dichotomy-host-random-pick"].description.startswith("Pick a pair at random for ")
    buttons["dichotomy-host-random-pick"].click()  # an absent Drawer: the engine picks
    buttons = {b._dom_classes[0]: b for b in rows[1].children[1].children}
    assert "dichotomy-host-random-pick" not in buttons and teacher.message == ""
    buttons["dichotomy-host-timeout"].click()  # an absent writer
    table = teacher.room.table(2)
    assert table.state.phase == "clues" and table.state.clues[0].cause == "host"
    assert teacher.room.table(1).state.phase == "reveal"  # the other table is untouched
    # the table in full: its host widget, with every host control (End the game)
    buttons = {b._dom_classes[0]: b for b in rows[1].children[1].children}
    buttons["dichotomy-open-table"].click()
    control = teacher.full_box.children[1]
    assert isinstance(control, widgets.TableWidget) and control.host is True
    control._on_msg(control, {"id": 3, "type": "end"}, [])
    assert control.last_reply == {"ack": 3}
    teacher.room.poll()
    teacher.refresh_view()
    assert 'data-phase="over"' in rows[1].children[0].value


def test_the_single_table_host_page_links_a_read_only_projector(tmp_path):
    from dichotomy_widget.pages.entry import host_page

    store = str(tmp_path / "t.sqlite3")
    host = host_page("", store=store, env={})
    assert host.create(deck="en", seed=3, options=TableOptions(rounds=2))
    token = qs(host)["host"]
    assert host.projector_link == f"projector.ipynb?table={host.table.code}"
    assert 'class="dichotomy-projector-link"' in host.join_info.value and token not in host.projector_link
    page = projector_page(host.projector_link.split("?", 1)[1], store=store)
    assert page.widget.host is False and token not in all_text(page)


def test_with_a_teacher_key_creating_a_class_needs_it(store):
    from dichotomy_widget.config import TEACHER_KEY_ENV

    env = {TEACHER_KEY_ENV: "owl-lantern-42"}
    page = teacher_page("", store=store, env=env)
    assert page.key_box is not None and page.form.layout.display == "none"
    assert not page.create(name="Year 9", deck=DECK, rounds=2) and "teacher key" in page.message
    assert not page.unlock("wrong-key") and page.state == "create"
    assert "owl-lantern-42" not in all_text(page)
    assert page.unlock("owl-lantern-42")
    assert page.create(name="Year 9", deck=DECK, rounds=2, table_size=4) and page.state == "teacher"
    assert "owl-lantern-42" not in all_text(page) + page.url.query
    # the classes a teacher created are run with the class's own link, not the key
    again = teacher_page(page.url.query, store=store, env=env)
    assert again.state == "teacher"


def test_behind_the_hub_only_hosts_may_run_a_class(store):
    from dichotomy_widget.config import HUB_ENV, HUB_IDENTITY_ENV, HUB_SECRET_ENV
    from dichotomy_widget.deck_library import DeckLibrary
    from dichotomy_widget.pages.hub_identity import HubIdentity, hub_library_secret, sign_identity

    secret = "s" * 32
    base = {HUB_ENV: "1", HUB_SECRET_ENV: secret}
    student = {**base, HUB_IDENTITY_ENV: sign_identity(HubIdentity("kid", "Kid", host=False), secret.encode())}
    teacher = {**base, HUB_IDENTITY_ENV: sign_identity(HubIdentity("mrs", "Mrs T", host=True), secret.encode())}
    assert teacher_page("", store=store, env=base).state == "refused"  # no signed identity
    refused = teacher_page("", store=store, env=student)
    assert refused.state == "refused" and "for teachers" in all_text(refused)
    running = teacher_page("", store=store, env=teacher)
    assert running.state == "create" and not hasattr(running, "browser_secret")  # decks follow the hub account
    assert running.deck_form.library.stream == DeckLibrary.for_secret(
        store, hub_library_secret(secret.encode(), "mrs")).stream


def test_behind_the_hub_a_student_joins_as_their_hub_user_and_a_classmates_link_is_refused(store):
    """Issue 25: the class page takes the hub user (no name box); a class or seat link works only for its
    own hub user, and a classmate opening it sees nothing of that student's seat."""
    from dichotomy_widget.config import HUB_ENV, HUB_IDENTITY_ENV, HUB_SECRET_ENV
    from dichotomy_widget.pages.hub_identity import HubIdentity, hub_student_token, sign_identity
    from dichotomy_widget.pages.seat_page import SeatPage

    secret = "s" * 32
    base = {HUB_ENV: "1", HUB_SECRET_ENV: secret}

    def env(user: str, display: str) -> dict[str, str]:
        return {**base, HUB_IDENTITY_ENV: sign_identity(HubIdentity(user, display), secret.encode())}

    room = Classroom.create("9B", deck=DECK, rounds=1, table_size=4, store=store)
    assert class_page(f"class={room.code}", store=store, env=base).state == "refused"  # unsigned
    ana = class_page(f"class={room.code}", store=store, env=env("ana", "Ana Lima"))
    assert ana.state == "form" and ana.name_input not in ana.children  # no name box: the hub says who
    assert ana.join_button.description == "Join as Ana Lima"
    assert "Signed in to the hub as <b>Ana Lima</b>" in all_text(ana)
    assert ana.join("Mallory") and ana.state == "lobby"  # a typed name is ignored behind the hub
    assert qs(ana)["student"] == hub_student_token(secret.encode(), room.code, "ana")
    again = class_page(f"class={room.code}", store=store, env=env("ana", "Ana Lima"))  # another device
    assert again.state == "lobby" and again.student == ana.student
    twin = class_page(f"class={room.code}", store=store, env=env("ana2", "Ana Lima"))  # the name is taken
    assert twin.join() and twin.state == "lobby"
    ben = class_page(f"class={room.code}", store=store, env=env("ben", "Ben"))
    assert ben.join()
    room.refresh()
    assert [s.name for s in room.state.students] == ["Ana Lima", "ana2", "Ben"]
    stolen = class_page(ana.url.query, store=store, env=env("ben", "Ben"))
    assert stolen.state == "refused" and "another student" in stolen.message
    assert "Ana" not in all_text(stolen) and stolen.widget is None
    assert f'href="?class={room.code}"' in all_text(stolen)  # the way to the class as himself
    room.make_tables()
    table = room.start_all()[0]
    table.act(table.state.drawer, {"type": "pick", "pair": 1})
    ana.room.refresh()
    assert ana.state == "seat" and ana.widget is not None
    hidden = [table.state.target, table.state.foil] + [w for p in table.state.current for w in p]

    def shows(page) -> list[str]:
        text = all_text(page).lower()
        return [w for w in hidden if re.search(rf"\b{re.escape(w.lower())}\b", text)]

    users = {"Ana Lima": ("ana", "Ana Lima"), "ana2": ("ana2", "Ana Lima"), "Ben": ("ben", "Ben")}
    writer = next(n for n in users if n != table.state.name(table.state.guesser))
    link = f"class={room.code}&student={hub_student_token(secret.encode(), room.code, users[writer][0])}"
    own = class_page(link, store=store, env=env(*users[writer]))
    assert own.state == "seat" and shows(own)  # the writer's own page holds the Target: the check can fail
    for query, page in ((link, class_page), (f"table={table.code}&seat={parse_qs(link)['student'][0]}", SeatPage)):
        for other in (u for n, u in users.items() if n != writer):  # the class link, and as a seat link
            refused = page(query, store=store, env=env(*other))
            assert refused.state == "refused" and refused.widget is None
            assert shows(refused) == [], query
    back = class_page(ana.url.query, store=store, env=env("ana", "Ana Lima"))
    assert back.state == "seat" and back.widget is not None


def test_the_class_name_boxes_send_exactly_what_was_typed(store):
    """Enter on the class join box and the create-class box sends the box's text with it (NameBox)."""
    teacher = teacher_page("", store=store, env={})
    teacher.name_input.value = "Y"  # an earlier, shorter value the kernel heard
    teacher.name_input._on_box_msg(None, {"submit": "Yearninefrenchgroupb"}, None)
    assert teacher.state == "teacher" and teacher.room.state.name == "Yearninefrenchgroupb"
    kid = class_page(f"class={teacher.room.code}", store=store, env={})
    kid.name_input.value = "M"
    kid.name_input._on_box_msg(None, {"submit": "Maximilianoandresss"}, None)
    assert kid.state == "lobby"
    assert [s.name for s in Classroom.open(teacher.room.code, store).state.students] == ["Maximilianoandresss"]


# --- interface language (issue 14) --------------------------------------------------------------------
def test_a_class_speaks_the_language_the_teacher_picked(store):
    page = teacher_page("", store=store, env={})
    assert page.interface_input.description == "Interface language"
    page.interface_input.value = "fr"
    assert page.create(name="Année 9", deck=DECK, rounds=2, table_size=4)
    assert page.room.interface_lang == "fr" and page.url.lang == "fr"
    assert page.make_button.description == "Former les tables" and page.start_all_button.description == "Lancer toutes les tables"
    assert "Code de la classe" in all_text(page) and "Class code" not in all_text(page)
    code = qs(page)["class"]
    kids = []
    for name in NAMES[:4]:
        kid = class_page(f"class={code}", store=store, env={})
        assert kid.url.lang == "fr" and kid.join_button.description == "Rejoindre la classe"
        assert kid.join(name)
        kids.append(kid)
    assert "Tu auras bientôt une place" in kids[0].lobby.value
    assert "4 élèves inscrits" in kids[-1].lobby.value
    # a student switches their own screen; the class and the other students keep French
    kids[0].lang_menu.value = "de"
    assert "Du bekommst gleich einen Platz" in kids[0].lobby.value and kids[0].url.lang == "de"
    assert qs(kids[0])["lang"] == "de" and qs(kids[0])["student"] == kids[0].token
    reloaded = class_page(kids[0].url.query, store=store, env={})
    assert reloaded.state == "lobby" and reloaded.lang == "de" and "Hallo" in reloaded.lobby.value
    assert Classroom.open(code, store).interface_lang == "fr"
    page.room.refresh()
    page.refresh_view()
    assert "Liste\u00a0: " in page.roster.value and "</span> élèves</h3>" in page.roster.value
    assert page.make_tables() and page.start_all()
    for kid in kids:
        kid.room.poll()
        assert kid.state == "seat"
    assert kids[0].widget.lang == "de" and kids[1].widget.lang == "fr"  # each screen keeps its language
    kids[1].widget._on_msg(kids[1].widget, {"type": "set_language", "lang": "es"}, [])
    assert qs(kids[1])["lang"] == "es" and kids[1].url.lang == "es"
    # play one round at the table; the report's headings follow the page, its CSV columns stay machine names
    table = page.room.table(1)
    table.act(table.state.drawer, {"type": "pick", "pair": 1})
    clues = unique_clues(table)
    clues[1] = clues[0]  # two writers give the same clue: both are eliminated ("the same word")
    for text in clues:
        table.act(table.state.current_writer, {"type": "clue", "text": text})
    table.act(table.state.guesser, {"type": "guess", "text": table.state.target})
    report = report_page(f"class={code}", store=store, env={})
    assert "(le même mot)" in report.body.value
    assert report.url.lang == "fr" and "<th>Manche</th>" in report.body.value and "<th>Round</th>" not in report.body.value
    # the read-only pages speak the class's language from their first line (tab title, headings) on
    assert "Compte rendu" in report.url.title and "Report" not in all_text(report)
    assert "Classe" in class_view_page(f"class={code}", store=store, env={}).url.title
    assert "Projecteur" in projector_page(f"table={table.code}", store=store).url.title
    spanish = report_page(f"class={code}&lang=es", store=store, env={})
    assert "<th>Ronda</th>" in spanish.body.value and "Descargar CSV" in spanish.downloads.value
    assert "(la misma palabra)" in spanish.body.value and "le même mot" not in spanish.body.value
    href = re.search(r'class="dichotomy-csv" download="[^"]+" href="data:text/csv;charset=utf-8;base64,([^"]+)"',
                     spanish.downloads.value).group(1)
    rows = list(csv.DictReader(io.StringIO(base64.b64decode(href).decode("utf-8"))))
    assert {"clue", "outcome", "target"} <= set(rows[0]) and {r["outcome"] for r in rows} == {"correct"}
    view = class_view_page(f"class={code}", store=store, env={})
    assert view.url.lang == "fr" and "<caption>Tables</caption>" in view.overview.value
    assert "Joueurs" in view.overview.value and "Players" not in view.overview.value
    projector = projector_page(f"table={table.code}&lang=de", store=store, env={})
    assert projector.url.lang == "de" and projector.url.title.startswith(f"Beamer · Tisch {table.code}")


def test_class_pages_before_the_class_is_known(store):
    german = teacher_page("", store=store, env={"HTTP_ACCEPT_LANGUAGE": "de-AT,de;q=0.8"})
    assert german.url.lang == "de" and german.create_button.description == "Klasse erstellen"
    assert german.name_input.label == "Name der Klasse"
    assert "Diese Klasse gibt es nicht" in all_text(class_page("class=ZZZZZZ", store=store,
                                                                   env={"HTTP_ACCEPT_LANGUAGE": "de"}))
    assert "Esta clase no existe" in all_text(report_page("class=ZZZZZZ&lang=es", store=store, env={}))
    assert "No such class" in all_text(class_view_page("class=ZZZZZZ&lang=zz", store=store, env={}))


def test_the_store_trouble_banner_speaks_the_page_language(store, monkeypatch):
    page = teacher_page("", store=store, env={})
    assert page.create(name="Klasse 9", deck=DECK, rounds=2, table_size=4, interface_lang="de")
    code = qs(page)["class"]
    kid = class_page(f"class={code}", store=store, env={})
    assert kid.join("Ana")
    full = store._full_error()
    monkeypatch.setattr(store, "write_trouble", lambda: full)  # what a full disk makes the store say
    assert kid.room.check_store()
    german = translator("de").error(full)
    assert german != full.message and german in kid.trouble.value and full.message not in kid.trouble.value
    kid.lang_menu.value = "es"
    assert translator("es").error(full) in kid.trouble.value


def test_the_report_says_why_a_clue_was_eliminated_in_the_page_language(store):
    """Two alike clues cancel; the German report explains it in German, the CSV keeps the machine words."""
    room = Classroom.create("9B", deck=DECK, rounds=1, table_size=4, store=store, interface_lang="de")
    for name in ("Ana", "Ben", "Cy"):
        room.join(name)
    room.make_tables()
    table = room.start_all()[0]
    table.act(table.state.drawer, {"type": "pick", "pair": 1})
    table.act(table.state.current_writer, {"type": "clue", "text": "zebra"})
    table.act(table.state.current_writer, {"type": "clue", "text": "zebra"})
    table.act(table.state.guesser, {"type": "pass"})
    report = report_page(f"class={room.code}", store=store, env={})
    assert report.url.lang == "de"
    assert "(dasselbe Wort)" in report.body.value and "the same word" not in report.body.value


def test_the_teacher_removes_a_student_and_their_page_says_so(teacher, store):
    code = qs(teacher)["class"]
    student = class_page(f"class={code}", store=store)
    assert student.join("Trolly") and student.state == "lobby"
    class_page(f"class={code}", store=store).join("Ada")
    teacher.room.refresh()
    teacher.refresh_view()
    teacher.move_student.value = next(v for label, v in teacher.move_student.options if label.startswith("Trolly"))
    teacher.remove_button.click()
    assert [s.name for s in teacher.room.state.students] == ["Ada"] and teacher.message == ""
    assert 'data-student="Trolly"' not in teacher.roster.value
    student.room.refresh()  # its watch would do this; the page hears of it
    assert student.state == "refused" and "removed you" in all_text(student)
    again = class_page(f"class={code}&student={qs(student)['student']}", store=store)
    assert again.state == "refused"  # the link no longer opens


def test_the_dashboard_redraws_on_a_clock_and_shows_a_stuck_tables_alert(store, monkeypatch):
    """Issue 28: an alert grows with time, not with events: the page redraws every few seconds; a table
    stuck on one player says who and for how long, in the page's language."""
    import asyncio

    from dichotomy_widget.class_mode.views import STUCK_AFTER, dashboard_view
    from dichotomy_widget.i18n import translator
    from dichotomy_widget.pages import class_html

    room = Classroom.create("C", deck=DECK, rounds=2, table_size=4, store=store)
    for name in ("Ana", "Ben", "Cy", "Dee"):
        room.join(name)
    room.make_tables()
    table = room.start_all()[0]
    monkeypatch.setattr(teacher_module, "CLOCK_EVERY", 0.05)

    async def run() -> int:
        teacher = teacher_page(f"class={room.code}&teacher={room.teacher_token}", store=store, env={})
        redraws = []
        teacher.refresh_view = lambda: redraws.append(1)
        await asyncio.sleep(0.5)
        teacher.room.stop_watching()
        teacher.room = None  # the clock stops with the page
        return len(redraws)

    assert asyncio.run(run()) >= 3
    view = dashboard_view(room, "fr", table.last_event_at + STUCK_AFTER + 30)
    html = class_html.dashboard_row_html(view["tables"][0], translator("fr", "pages"), lambda c, n: "p")
    drawer = table.state.name(table.state.drawer)
    assert f'role="alert">{drawer} choisit une paire depuis 90 s<' in html
    assert "choisit une paire…" in html  # the table's own words, in the page's language


def test_a_students_page_follows_its_table_into_the_next_game(store):
    """Issue 28: "play again" at a finished table: the same link becomes the seat of the next game."""
    room = Classroom.create("C", deck=DECK, rounds=1, table_size=4, store=store)
    for name in ("Ana", "Ben", "Cy"):
        room.join(name)
    page = class_page(f"class={room.code}", store=store)
    assert page.join("Dee")
    room.make_tables()
    first = room.start_all()[0]
    page.room.poll()
    assert page.state == "seat" and page.widget.view["table"] == first.code
    first.act(None, {"type": "end"})
    again = Classroom.open(room.code, store).play_again(1)
    page.room.poll()  # its watch would do this once the game is over
    assert page.state == "seat" and page.widget.view["table"] == again.code
    assert page.widget.view["you"]["name"] == "Dee" and page.widget.view["phase"] == "reveal"
