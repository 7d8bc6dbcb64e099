"""One LISTEN per server (stores/pg_relay.py) and its connection budget (stores/pg_slots.py), on a real
PostgreSQL server (tests/pg_server.py) and, for the PgBouncer case, Debian's pgbouncer in transaction
mode in front of it."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path

import pytest

from pg_server import PostgresServer
from scale_out_support import PgBouncer, client_connections

from dichotomy_widget.errors import StoreError
from dichotomy_widget.stores.pg_relay import APPLICATION_NAME, CHANGES_FILE, ChangeRelay, is_postgres, start_server_relay
from dichotomy_widget.stores.pg_slots import ConnectionSlots, make_slots
from dichotomy_widget.stores.postgres import PostgresStore


@pytest.fixture(scope="module")
def pg():
    with PostgresServer() as server:
        yield server


def _db(dsn: str) -> str:
    return dsn.rsplit("/", 1)[1].split("?")[0]


def test_slots_cap_holders_across_descriptors(tmp_path: Path) -> None:
    make_slots(tmp_path, 2)
    a, b, c = (ConnectionSlots(tmp_path) for _ in range(3))
    a.acquire(1)
    b.acquire(1)
    assert a.held and b.held and c.size == 2
    assert not c.contended()
    with pytest.raises(StoreError, match="--pg-pool"):
        c.acquire(0.05)
    assert a.contended()  # the waiter asked holders to give back
    a.release()
    c.acquire(1)
    assert c.held
    make_slots(tmp_path, 1)  # a smaller pool removes the extra slot files
    assert ConnectionSlots(tmp_path).size == 1


def test_is_postgres() -> None:
    assert is_postgres("postgresql://u@h/db") and is_postgres("postgres+psycopg://h/db")
    assert not is_postgres("/srv/tables.sqlite3") and not is_postgres("sqlite:///x")
    assert start_server_relay("/srv/tables.sqlite3", 4)[0] == {}


def test_a_server_of_many_seats_holds_its_pool_and_one_listener(pg: PostgresServer, tmp_path: Path) -> None:
    dsn = pg.create_database()
    env, stop = start_server_relay(dsn, 2)
    folder = next(iter(env.values()))
    seats = [PostgresStore(dsn, relay_dir=folder) for _ in range(5)]
    try:
        assert all(s.relayed for s in seats)
        seats[0].create_table("T1", {})
        for s in seats:
            s.last_seq("T1")
        peak = [client_connections(pg.dsn(), _db(dsn))]
        errors: list[BaseException] = []

        def play(store: PostgresStore) -> None:
            try:
                for _ in range(3):
                    for _attempt in range(50):
                        try:
                            store.append("T1", store.last_seq("T1"), [("tick", {})])
                            break
                        except StoreError as exc:
                            if exc.code != "version_conflict":
                                raise
                    peak.append(client_connections(pg.dsn(), _db(dsn)))
            except BaseException as exc:  # noqa: BLE001 - reported below
                errors.append(exc)

        threads = [threading.Thread(target=play, args=(s,)) for s in seats]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        assert not errors, errors
        assert seats[3].last_seq("T1") == 15  # every write landed
        # the pool and the relay, never one per seat (that would be 5 + 1). PostgreSQL may still list,
        # for a moment, the backends of connections a seat has just given back (their exit is asynchronous:
        # run B2, loaded, saw 5 once), so the play may show two of those, and soon after it, with all five
        # stores still open, only the pool and the relay are left.
        assert max(peak) <= 2 + 1 + 2, peak
        deadline = time.monotonic() + 10
        while (settled := client_connections(pg.dsn(), _db(dsn))) > 2 + 1 and time.monotonic() < deadline:
            time.sleep(0.2)
        assert settled <= 2 + 1, settled
    finally:
        for s in seats:
            s.close()
        stop()
    assert not Path(folder).exists()
    with pytest.raises(StoreError, match="closed"):
        seats[0].change_marker()  # relayed: no round trip, still refused once closed


def test_followers_read_each_change_from_the_relay_without_a_connection(pg: PostgresServer) -> None:
    """More seats than slots on one server: the relay passes each change's events on with its wake, so
    a follower's read after the wake opens no PostgreSQL connection (no slot to wait for), and the
    server stays within its pool and its one listener."""
    dsn = pg.create_database()
    env, stop = start_server_relay(dsn, 2)
    folder = next(iter(env.values()))
    seats = [PostgresStore(dsn, relay_dir=folder) for _ in range(6)]
    writer, followers = seats[0], seats[1:]
    try:
        writer.create_table("T1", {})
        for s in followers:
            assert s.load("T1") == []  # from PostgreSQL: nothing relayed yet
        opened = [s.connects for s in followers]
        text = "line\u2028separators\nand a lone \udc80 surrogate"
        for i in range(4):
            markers = [s.change_marker() for s in followers]
            writer.append("T1", i, [("tick", {"i": i, "text": text})])
            for s, marker in zip(followers, markers):
                assert asyncio.run(s.wait_for_change(marker, 30)) != marker
                assert [(r.seq, r.payload) for r in s.load("T1", after_seq=i)] == [(i + 1, {"i": i, "text": text})]
        assert [s.connects for s in followers] == opened  # no follower connected again
        assert [s._relay.hits for s in followers] == [4] * len(followers)
        assert client_connections(pg.dsn(), _db(dsn)) <= 2 + 1 + 1  # the pool and the relay (+ one closing)
        # a second read without a new wake, a stale seat's conflict and its own write go to PostgreSQL
        assert [r.seq for r in followers[0].load("T1")] == [1, 2, 3, 4]
        assert followers[0]._relay.hits == 4
        with pytest.raises(StoreError) as conflict:
            followers[1].append("T1", 2, [("tick", {})])
        assert conflict.value.code == "version_conflict"
        assert [r.seq for r in followers[1].load("T1", after_seq=2)] == [3, 4]
        followers[2].append("T1", 4, [("tick", {"i": 4})])
        assert [r.payload for r in followers[2].load("T1", after_seq=4)] == [{"i": 4}]
        # the relay could not read a table's events: its "= [table]" line sends the kernels to PostgreSQL
        seat = followers[3]
        marker = seat.change_marker()
        with open(Path(folder) / CHANGES_FILE, "a") as fh:
            fh.write('= ["T1"]\n0 T1\n')
        assert asyncio.run(seat.wait_for_change(marker, 30)) != marker
        assert [r.seq for r in seat.load("T1", after_seq=3)] == [4, 5]
        assert seat._relay.hits == 4
    finally:
        for s in seats:
            s.close()
        stop()


def test_the_relay_wakes_followers_and_survives_a_lost_connection(pg: PostgresServer, tmp_path: Path) -> None:
    dsn = pg.create_database()
    make_slots(tmp_path, 2)
    relay = ChangeRelay(dsn, tmp_path).start()
    writer = PostgresStore(dsn)
    follower = PostgresStore(dsn, relay_dir=tmp_path)
    other = PostgresStore(dsn, relay_dir=tmp_path)
    try:
        writer.create_table("T1", {})
        writer.create_table("T2", {})
        follower.load("T1")  # follows T1 only

        async def wait(store: PostgresStore, marker: object, seconds: float) -> object:
            return await store.wait_for_change(marker, seconds)

        def relayed(count: int) -> None:  # the relay has passed on ``count`` notifications
            deadline = time.monotonic() + 10
            while relay.notices < count and time.monotonic() < deadline:
                time.sleep(0.01)
            assert relay.notices >= count

        relayed(2)  # the two new tables
        marker = follower.change_marker()
        threading.Timer(0.1, lambda: writer.append("T1", 0, [("tick", {})])).start()
        assert asyncio.run(wait(follower, marker, 30)) != marker
        relayed(3)
        # a change to a table this kernel does not follow wakes nobody here
        marker = follower.change_marker()
        writer.append("T2", 0, [("tick", {})])
        relayed(4)
        assert follower.change_marker() == marker
        # the relay's backend is terminated: it reconnects and says "reload everything"
        pg.admin(f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = '{APPLICATION_NAME}' "
                 f"AND datname = '{_db(dsn)}'")
        marker = other.change_marker()
        assert asyncio.run(wait(other, marker, 30)) != marker
        assert "0 *" in (tmp_path / CHANGES_FILE).read_text()
        marker = follower.change_marker()
        threading.Timer(0.1, lambda: writer.append("T1", 1, [("tick", {})])).start()
        assert asyncio.run(wait(follower, marker, 30)) != marker  # listening again
        assert [r.seq for r in follower.load("T1")] == [1, 2]
    finally:
        for s in (writer, follower, other):
            s.close()
        relay.stop()


def test_the_relay_refuses_an_unreachable_server_clearly(pg: PostgresServer, tmp_path: Path) -> None:
    bad = pg.dsn().replace(pg.password, "wrong-password-123")
    with pytest.raises(StoreError) as caught:
        ChangeRelay(bad, tmp_path, connect_timeout=5).start()
    assert "wrong-password-123" not in caught.value.message and "listen" in caught.value.message


def test_relayed_stores_work_through_pgbouncer_in_transaction_mode(pg: PostgresServer, tmp_path: Path) -> None:
    dsn = pg.create_database("bouncy")
    PostgresStore(dsn).close()  # the schema
    bouncer = PgBouncer(pg.host, pg.port, pg.user, pg.password, "bouncy")
    env, stop = start_server_relay(bouncer.dsn, 2, listen_url=dsn)  # the relay reaches PostgreSQL itself
    folder = next(iter(env.values()))
    a = PostgresStore(bouncer.dsn, relay_dir=folder)
    b = PostgresStore(bouncer.dsn, relay_dir=folder)
    try:
        a.create_table("T1", {"m": 1})
        b.last_seq("T1")
        for i in range(12):  # more than psycopg's auto-prepare threshold: no named prepared statements
            marker = b.change_marker()
            a.append("T1", i, [("tick", {"i": i})])
            assert asyncio.run(b.wait_for_change(marker, 30)) != marker
            assert [r.payload["i"] for r in b.load("T1", after_seq=i)] == [i]
        with pytest.raises(StoreError) as conflict:
            b.append("T1", 3, [("tick", {})])
        assert conflict.value.code == "version_conflict"
        assert b.table_meta("T1") == {"m": 1} and b.last_seq("T1") == 12
    finally:
        a.close()
        b.close()
        stop()
        bouncer.stop()
