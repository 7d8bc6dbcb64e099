"""A whole class on two ``dichotomy serve`` processes sharing one PostgreSQL store behind HAProxy.

Twelve students of one class sit at three tables of four; at every table two seats run on server ``a``
and two on server ``b`` (HAProxy's stickiness cookie picks the server, as after a first visit). The
teacher's dashboard runs on ``a``. Every table plays a round: the Drawers (on ``b``) pick and the
dashboard on ``a`` follows; the Drawers give the first clue; then server ``b`` is killed (SIGKILL of its
whole process group); HAProxy's health check marks it down; ``b``'s students reload their same class
link, land on ``a`` and continue where they were (their clues kept); every table finishes the round.
Students are wire clients (tests/browser/wire_student.py) from their own loopback addresses; the
servers trust HAProxy's X-Forwarded-For (``--trusted-proxy``). Connections to PostgreSQL stay within
2 servers x (pool + the relay's one), plus the test's own, throughout.
"""

from __future__ import annotations

import re
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
for _p in (str(TESTS), str(TESTS / "browser")):
    if _p not in sys.path:
        sys.path.insert(0, _p)

from pg_server import PostgresServer  # noqa: E402
from scale_out_support import COOKIE, HAProxy, Serve, client_connections, kill_group, wait_http  # noqa: E402
from wire_student import WireStudent  # noqa: E402

POOL = 3
OPEN = 240.0  # seconds for a page on a loaded 2-core machine
CLUES = ["zebra", "quartz", "nimbus", "tulip", "saffron", "kayak", "origami", "lantern", "mosaic", "glacier",
         "walrus", "bamboo", "cobalt", "fjord", "velvet", "canyon", "meadow", "pepper"]


@pytest.fixture(scope="module")
def school(tmp_path_factory):
    work = tmp_path_factory.mktemp("school")
    servers: list[Serve] = []
    proxy = None
    with PostgresServer() as pg:
        dsn = pg.create_database("school")
        try:
            servers = [Serve(name, dsn, work, pool=POOL, extra=["--trusted-proxy", "127.0.0.1",
                                                                              "--connect-timeout", str(OPEN)]) for name in "ab"]
            for server in servers:
                server.wait_ready(OPEN)
            proxy = HAProxy([(s.name, s.port) for s in servers], work)
            wait_http(f"{proxy.base}/voila/tree", 60, proxy.proc)
            yield {"pg": pg, "dsn": dsn, "servers": dict(zip("ab", servers)), "proxy": proxy, "work": work}
        finally:
            if proxy is not None:
                proxy.stop()
            for server in servers:
                server.stop()


def _phase(states: dict, table: int) -> str | None:
    """The phase the teacher's dashboard shows for ``table`` (from its widgets' HTML)."""
    for state in states.values():
        for value in state.values():
            if isinstance(value, str) and "dichotomy-summary" in value:
                found = re.search(rf'class="dichotomy-summary" data-table="{table}" data-phase="(\w+)"', value)
                if found:
                    return found.group(1)
    return None


def _clue(student: WireStudent, words) -> str:
    """Give a clue when it is this seat's turn (another word if the game refuses one); the word given."""
    student.wait(lambda v: "clue" in v.get("actions", []), 120)
    for word in words:
        student.act({"type": "clue", "text": word})
        try:
            student.wait(lambda v: "clue" not in v.get("actions", []), 30)
            return word
        except AssertionError:
            continue  # refused (too close to a word of the pair): another one
    raise AssertionError("every clue was refused")


def test_a_class_on_two_servers_survives_losing_one(school):
    from dichotomy_widget import Classroom
    from dichotomy_widget.rules import writer_order

    t0 = time.monotonic()
    proxy, servers = school["proxy"], school["servers"]
    room = Classroom.create("Scale-out", rounds=1, table_size=4, store=school["dsn"], seed=33)
    tickets = {name: room.join(name) for name in ("Ana", "Ben", "Cleo", "Dev", "Eli", "Fay", "Gus", "Hana",
                                                   "Ivo", "Jun", "Kai", "Lea")}
    room.make_tables()
    room.start_all()
    # each table: Drawer and the next Clue-Giver on b; the last Clue-Giver and the Guesser on a
    plan: dict[str, tuple[int, str, str]] = {}  # name -> (table, role, server)
    for number in (1, 2, 3):
        state = room.table(number).state
        writers = writer_order(state.order, state.guesser)
        roles = {writers[0]: ("drawer", "b"), writers[1]: ("writer2", "b"), writers[2]: ("writer3", "a"),
                 state.guesser: ("guesser", "a")}
        for name, ticket in tickets.items():
            seat = room.seat_of(ticket)
            if seat is not None and seat[0].code == room.table(number).code:
                role, server = roles[seat[1]]
                plan[name] = (number, role, server)
    assert len(plan) == 12
    link = f"{proxy.base}/voila/render/class.ipynb?class={room.code}"
    addresses = {name: f"127.0.0.{20 + i}" for i, name in enumerate(tickets)}

    def open_student(name: str, pin: str | None) -> WireStudent:
        return WireStudent(f"{link}&student={tickets[name].token}", addresses[name], timeout=OPEN,
                           cookie=f"{COOKIE}={pin}" if pin else "")

    pool = ThreadPoolExecutor(13)
    teacher_f = pool.submit(WireStudent, f"{proxy.base}/voila/render/teacher.ipynb?class={room.code}"
                            f"&teacher={room.teacher_token}", "127.0.0.2", OPEN, f"{COOKIE}=a")
    futures = {name: pool.submit(open_student, name, plan[name][2]) for name in tickets}
    students = {name: f.result(timeout=OPEN + 60) for name, f in futures.items()}
    teacher = teacher_f.result(timeout=OPEN + 60)
    try:
        # stickiness: every page (HTTP and websocket) on the server its cookie names
        assert teacher.cookies[COOKIE] == "a"
        assert {name: s.cookies[COOKIE] for name, s in students.items()} == {n: p[2] for n, p in plan.items()}
        for name, student in students.items():
            view = student.wait(lambda v: v.get("phase") == "reveal", OPEN)
            assert view["you"]["name"] == name
        at = lambda number, role: next(n for n, p in plan.items() if p[:2] == (number, role))  # noqa: E731
        peak = client_connections(school["pg"].dsn(), "school")

        # the Drawers (on b) pick; every seat and the dashboard on a follow
        for number in (1, 2, 3):
            students[at(number, "drawer")].act({"type": "pick", "pair": 1})
        for student in students.values():
            student.wait(lambda v: v.get("phase") == "clues", 120)
        assert teacher.wait_for(lambda st: all(_phase(st, n) == "clues" for n in (1, 2, 3)), 120)
        words = iter(CLUES)
        for number in (1, 2, 3):
            _clue(students[at(number, "drawer")], words)
        for number in (1, 2, 3):  # the next Clue-Giver (on b) saw the Drawer's clue: now it is their turn
            students[at(number, "writer2")].wait(lambda v: "clue" in v.get("actions", []), 120)
        peak = max(peak, client_connections(school["pg"].dsn(), "school"))

        # server b is lost mid-round
        kill_group(servers["b"].proc)
        lost = [name for name, p in plan.items() if p[2] == "b"]
        for name in lost:
            students[name].close()
        deadline = time.monotonic() + 60
        while proxy.status("b").startswith("UP") and time.monotonic() < deadline:  # the health check notices
            time.sleep(0.2)
        assert proxy.status("b").startswith("DOWN")
        reopened = {name: pool.submit(open_student, name, "b") for name in lost}  # the old cookie: redispatched
        for name, future in reopened.items():
            students[name] = future.result(timeout=OPEN + 60)
            assert students[name].cookies[COOKIE] == "a", "a page for the dead server must land on a live one"
        for name in lost:  # nothing lost: the same seat, still in the clue phase, a Drawer's clue kept
            view = students[name].wait(lambda v: v.get("phase") == "clues", 120)
            assert view["you"]["name"] == name
        for number in (1, 2, 3):
            drawer_view = students[at(number, "drawer")].view
            assert "clue" not in drawer_view["actions"]
            _clue(students[at(number, "writer2")], words)  # b's student continues on a
            _clue(students[at(number, "writer3")], words)
            guesser = students[at(number, "guesser")]
            guesser.wait(lambda v: "pass" in v.get("actions", []), 120)
            guesser.act({"type": "pass"})
        for student in students.values():
            student.wait(lambda v: v.get("phase") == "recap", 120)
        assert teacher.wait_for(lambda st: all(_phase(st, n) == "recap" for n in (1, 2, 3)), 120)
        for name in lost:  # the reloaded pages act too
            students[name].act({"type": "continue"})
        for name in lost:
            students[name].wait(lambda v: "continue" not in v.get("actions", []), 120)
        # the store holds the whole round: every clue of every table
        for number in (1, 2, 3):
            table = room.table(number)
            table.refresh()
            assert table.state.phase == "recap"
            assert len(table.state.history) == 1
        peak = max(peak, client_connections(school["pg"].dsn(), "school"))
        assert peak <= 2 * (POOL + 1) + 1, peak  # + 1: this test's own store (it made the class)
        # the survivor was busy (six pages moved to it at once), never down: with a check timeout of
        # only `inter` HAProxy marked it down on a loaded machine and answered 503 (CI, stop 40)
        log = proxy.log.read_text(errors="replace")
        assert "pages/a is DOWN" not in log and "no server available" not in log, log[-3000:]
        print(f"scale-out round: {time.monotonic() - t0:.1f} s, peak PostgreSQL connections {peak}")
    finally:
        for student in students.values():
            student.close()
        teacher.close()
        pool.shutdown(wait=False, cancel_futures=True)
