"""Widget tests without a browser: intents in, views and refusals out, per seat.

The widgets are driven exactly as the front end drives them: custom messages go through
``_handle_custom_msg`` and state updates from a browser through ``set_state``. What the kernel would
send to a browser is read with ``get_state()`` (synced traits) and by capturing ``send`` (messages).
"""

from __future__ import annotations

import importlib
import json
import re

import pytest

importlib.import_module("anywidget")

from dichotomy_widget import Table, parse_deck  # noqa: E402
from dichotomy_widget.errors import DichotomyError  # noqa: E402
from dichotomy_widget.widgets.game import JS_DIR, PassAndPlayWidget, SeatWidget, TableWidget  # noqa: E402

ROWS = [
    "apple,pear", "river,lake", "chair,sofa", "winter,summer", "doctor,nurse",
    "guitar,violin", "castle,palace", "tiger,lion", "bread,butter", "coffee,cocoa",
    "train,plane", "rose,tulip", "pencil,crayon", "ocean,desert", "hammer,spanner",
    "kettle,teapot", "planet,comet", "carrot,potato", "wallet,purse", "ladder,stairs",
]
CLUE_WORDS = ("zebra", "quartz", "fjord", "banjo", "glacier", "mosaic", "nectar", "orbit")


@pytest.fixture()
def deck():
    return parse_deck("\n".join(ROWS), fmt="csv", source="widgets-test.csv", lang="en")


def make_table(deck, rounds=3, seed=5, seats=("Ada", "Ben", "Cy")):
    table = Table.create(deck=deck, rounds=rounds, seed=seed, code="WDGT23")
    for name in seats:
        table.join(name)
    return table


class Outbox:
    """Captures the custom messages a widget sends to its browser."""

    def __init__(self, widget):
        self.messages: list[dict] = []
        widget.send = lambda content, buffers=None: self.messages.append(content)

    @property
    def last(self) -> dict:
        return self.messages[-1]


def intent(widget, **content):
    """Send an intent as the front end does, return the kernel's answer."""
    box = getattr(widget, "_test_outbox", None)
    if box is None:
        box = widget._test_outbox = Outbox(widget)
    intent.counter += 1
    widget._handle_custom_msg({"id": intent.counter, **content}, [])
    reply = box.last
    assert reply.get("ack", reply.get("refused")) == intent.counter
    return reply


intent.counter = 0


def synced(widget) -> dict:
    """What a browser receives as state: every synced trait except the module source."""
    state = widget.get_state()
    return {k: v for k, v in state.items() if k not in ("_esm", "_css")}


def strings(obj):
    if isinstance(obj, str):
        yield obj
    elif isinstance(obj, dict):
        for k, v in obj.items():
            yield from strings(k)
            yield from strings(v)
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            yield from strings(v)


def leaked(widget, words) -> set[str]:
    """Hidden words found anywhere in the widget's synced state (as whole words)."""
    found = set()
    text = json.dumps(synced(widget))
    blob = "\n".join(strings(synced(widget)))
    for word in words:
        if word and (re.search(rf"\b{re.escape(word)}\b", blob, re.I) or f'"{word}"' in text):
            found.add(word)
    return found


def card_words(table) -> set[str]:
    card = table.state.current or ()
    return {w for pair in card for w in pair}


def roles(table):
    v = table.view(None)
    if v["next"]:  # a recap: the roles of the next round
        return v["next"]["guesser"]["seat"], v["next"]["drawer"]["seat"]
    guesser = next(p["seat"] for p in v["players"] if p["guesser"])
    drawer = next(p["seat"] for p in v["players"] if p["drawer"])
    return guesser, drawer


# --- seat widgets -----------------------------------------------------------------------------------


def test_seat_widget_syncs_only_its_own_view(deck):
    table = make_table(deck)
    widgets = [SeatWidget(table, name) for name in ("Ada", "Ben", "Cy")]
    table.start()
    for seat, w in enumerate(widgets):
        assert isinstance(w, SeatWidget)
        assert w.seat == seat
        assert w.view == table.view(seat)
        assert "seat" not in w.keys  # identity is not a synced trait
        assert set(synced(w)) <= {"view", "kind", "layout", "tabbable", "tooltip", "_dom_classes",
                                  "_model_module", "_model_module_version", "_model_name",
                                  "_view_module", "_view_module_version", "_view_name", "_view_count",
                                  "_anywidget_id", "store_trouble", "lang", "i18n"}
        assert w.lang == "en" and w.i18n["lang"] == "en"  # the table's interface language (its deck's)
        assert w.store_trouble == ""  # a memory store is never full or read-only


def test_intents_get_acks_and_every_seat_updates(deck):
    table = make_table(deck)
    widgets = [SeatWidget(table, i) for i in range(3)]
    table.start()
    guesser, drawer = roles(table)
    reply = intent(widgets[drawer], type="pick", pair=3)
    assert reply == {"ack": reply["ack"]}
    pair = table.view(drawer)["pair"]
    for seat, w in enumerate(widgets):  # every widget followed the change by itself
        assert w.view == table.view(seat)
        assert w.view["phase"] == "clues"
        assert (w.view["pair"] is None) == (seat == guesser)
    writer = table.view(None)["turn"]
    assert intent(widgets[writer], type="clue", text=CLUE_WORDS[0]).get("ack")
    marks = {p["seat"]: p["clue"] for p in widgets[guesser].view["players"]}
    assert marks[writer] == "submitted"
    assert pair["target"] not in json.dumps(synced(widgets[guesser]))


def test_refusals_carry_code_and_student_message_and_change_nothing(deck):
    table = make_table(deck)
    widgets = [SeatWidget(table, i) for i in range(3)]
    table.start()
    guesser, drawer = roles(table)
    writer_not_drawer = next(s for s in range(3) if s not in (guesser, drawer))
    version = table.state.version

    reply = intent(widgets[writer_not_drawer], type="pick", pair=1)
    assert reply["code"] == "not_your_turn" and "picks the pair" in reply["message"]
    intent(widgets[drawer], type="pick", pair=1)
    version = table.state.version

    target = widgets[drawer].view["pair"]["target"]
    reply = intent(widgets[drawer], type="clue", text=target.upper())
    assert reply["code"] == "clue_matches_target"
    assert "Target" in reply["message"]
    reply = intent(widgets[drawer], type="clue", text="two words")
    assert reply["code"] == "clue_not_one_word"
    reply = intent(widgets[guesser], type="clue", text=CLUE_WORDS[1])
    assert reply["code"] == "guesser_cannot_clue"
    reply = intent(widgets[writer_not_drawer], type="clue", text=CLUE_WORDS[1])
    assert reply["code"] == "not_your_turn"
    reply = intent(widgets[drawer], type="start")  # a host action from a seat
    assert reply["code"] == "not_allowed"
    assert table.state.version == version
    assert widgets[drawer].view == table.view(drawer)
    assert widgets[drawer].view["slate"] is None  # a refused clue is not stored


def test_refusal_never_echoes_the_refused_clue(deck):
    table = make_table(deck)
    widgets = [SeatWidget(table, i) for i in range(3)]
    table.start()
    _, drawer = roles(table)
    intent(widgets[drawer], type="pick", pair=2)
    target = table.view(drawer)["pair"]["target"]
    reply = intent(widgets[drawer], type="clue", text=target + "s")
    assert reply.get("refused") and target not in reply["message"]


def test_malformed_messages_are_refused_politely(deck):
    table = make_table(deck)
    w = SeatWidget(table, 0)
    box = Outbox(w)
    w._handle_custom_msg("not a dict", [])
    assert box.last["code"] == "invalid_action"
    w._handle_custom_msg({"id": 7}, [])
    assert box.last == {"refused": 7, "code": "invalid_action", "message": box.last["message"]}
    w._handle_custom_msg({"id": {"nested": 1}, "type": "continue"}, [])
    assert box.last["refused"] is None  # odd ids are not echoed
    w._handle_custom_msg({"id": 8, "type": "guess", "text": 12}, [])
    assert box.last["refused"] == 8


def test_internal_errors_are_not_leaked(deck, monkeypatch):
    table = make_table(deck)
    w = SeatWidget(table, 0)
    box = Outbox(w)

    def boom(*args, **kwargs):
        raise RuntimeError("secret internals: castle")

    monkeypatch.setattr(table, "act", boom)
    w._handle_custom_msg({"id": 1, "type": "continue"}, [])
    assert box.last["code"] == "internal_error"
    assert "castle" not in box.last["message"]


# --- forged front-end updates ----------------------------------------------------------------------


def test_forged_trait_updates_change_nothing(deck):
    table = make_table(deck)
    widgets = [SeatWidget(table, i) for i in range(3)]
    table.start()
    guesser, drawer = roles(table)
    g = widgets[guesser]
    version = table.state.version
    forged_view = dict(table.view(drawer))  # a browser claiming to be the Drawer
    g.set_state({"view": forged_view})
    g.set_state({"kind": "table", "_view_name": "Hack"})
    assert g.view == table.view(guesser)
    assert g.kind == "seat"
    assert g.seat == guesser
    assert table.state.version == version
    # the forged identity gains nothing: a pick from this widget is still the Guesser's
    reply = intent(g, type="pick", pair=1)
    assert reply["code"] in ("not_your_turn", "wrong_phase")
    # a Python-side write to view is overwritten with the real view as well
    g.view = {"phase": "over"}
    assert g.view == table.view(guesser)
    # the next change still arrives correctly
    intent(widgets[drawer], type="pick", pair=1)
    assert g.view == table.view(guesser) and g.view["phase"] == "clues"
    assert g.view["pair"] is None and g.view["card"] is None


def test_forged_update_is_answered_with_the_true_state(deck):
    table = make_table(deck)
    w = SeatWidget(table, 1)
    sent = []
    w.send_state = lambda key=None: sent.append(key)
    w.set_state({"view": {}})
    assert sent == [["view"]]
    assert w.view == table.view(1)


#: The traits every game widget's kernel owns, and each kind's own.
EVERY_TRAIT = {"view", "lang", "i18n", "store_trouble"}
OWN_TRAITS = {"seat": set(), "table": {"host"}, "pass": {"curtain"}}


def started_screen(deck, kind):
    """A started table, a widget of ``kind`` on it, and the list its ``send_state`` calls go to."""
    table = make_table(deck)
    widget = {"seat": lambda: SeatWidget(table, "Ben"), "table": lambda: TableWidget(table),
              "pass": lambda: PassAndPlayWidget(table)}[kind]()
    table.start()
    sent = []
    widget.send_state = lambda key=None: sent.append(key)
    return table, widget, sent


@pytest.mark.parametrize("kind", ["seat", "table", "pass"])
def test_a_screen_without_its_view_gets_every_kernel_trait_again(deck, kind):
    """A screen still on "Connecting to the table…" asks again (``send_view``): the kernel answers with
    every trait it owns, as it holds them now, and nothing else (a seat's view only)."""
    table, widget, sent = started_screen(deck, kind)
    assert intent(widget, type="send_view") == {"ack": intent.counter}
    assert len(sent) == 1 and set(sent[0]) == EVERY_TRAIT | OWN_TRAITS[kind]
    state = widget.get_state(sent[0])
    assert state == {key: getattr(widget, key) for key in sent[0]}  # the kernel's values as they are now
    if kind == "seat":
        assert state["view"] == table.view(1) and state["view"]["phase"] == "reveal"


@pytest.mark.parametrize("kind", ["seat", "table", "pass"])
def test_a_screen_behind_the_table_gets_every_kernel_trait_again_and_one_up_to_date_nothing(deck, kind):
    """A screen with a view tells its version every few seconds (``send_view`` with ``version``): one
    that missed an update (run V1, loaded: a projector stayed a phase behind) gets every trait again, one
    showing the kernel's version nothing; a forged version is answered like a missed one, never refused."""
    table, widget, sent = started_screen(deck, kind)
    shown = widget.view if widget.view else widget.curtain  # pass and play: the curtain is down
    assert isinstance(shown["version"], int) and shown["version"] == table.state.version
    assert intent(widget, type="send_view", version=shown["version"]) == {"ack": intent.counter}
    assert sent == []  # up to date: nothing sent again
    assert intent(widget, type="send_view", version=shown["version"] - 1) == {"ack": intent.counter}
    assert len(sent) == 1 and set(sent[0]) == EVERY_TRAIT | OWN_TRAITS[kind]
    for forged in (None, "7", [shown["version"]], {"v": 1}):
        assert intent(widget, type="send_view", version=forged) == {"ack": intent.counter}
    assert len(sent) == 5  # a version the kernel never had: every trait again, never an error


def test_a_screen_checking_its_version_brings_a_kernel_that_missed_the_store_up_to_date(deck, tmp_path):
    """The kernel behind a screen that tells its version first folds what other kernels appended (its
    watch may have missed the notice: it only rechecks every 30 s), then answers: the screen gets the
    new view."""
    from dichotomy_widget import SqliteStore

    path = tmp_path / "tables.sqlite3"
    table = Table.create(deck=deck, rounds=3, seed=5, code="WDGT23", store=SqliteStore(path))
    for name in ("Ada", "Ben", "Cy"):
        table.join(name)
    projector = TableWidget(Table.open("WDGT23", SqliteStore(path)))  # another kernel, not watching
    version = projector.view["version"]
    table.start()  # in the first kernel
    assert projector.view["phase"] == "lobby"  # missed
    sent = []
    projector.send_state = lambda key=None: sent.append(key)
    assert intent(projector, type="send_view", version=version) == {"ack": intent.counter}
    assert projector.view["phase"] == "reveal" and projector.view["version"] == table.state.version > version
    assert sent and "view" in sent[-1]  # the new view went out
    sent.clear()
    assert intent(projector, type="send_view", version=projector.view["version"]) == {"ack": intent.counter}
    assert sent == []  # up to date now: nothing sent again


# --- privacy: no hidden word in any synced state before the SPEC allows it ----------------------------


def test_seat_state_never_holds_hidden_words_too_early(deck):
    table = make_table(deck, rounds=3, seed=11, seats=("Ada", "Ben", "Cy", "Dee"))
    widgets = [SeatWidget(table, i) for i in range(4)]
    projector = TableWidget(table)
    table.start()
    for round_no in range(3):
        guesser, drawer = roles(table)
        words = card_words(table)
        for seat, w in enumerate(widgets):
            if seat != drawer:
                assert not leaked(w, words), (round_no, seat, "reveal")
        assert not leaked(projector, words)
        assert leaked(widgets[drawer], words) == words  # the Drawer sees all five pairs

        intent(widgets[drawer], type="pick", pair=1 + round_no)
        target, foil = table.state.target, table.state.foil
        others = words - {target, foil}
        for seat, w in enumerate(widgets):
            assert not leaked(w, others), (round_no, seat, "other pairs after the lock")
        assert not leaked(widgets[guesser], {target, foil})
        assert not leaked(projector, {target, foil})

        written = []
        while table.state.phase == "clues":
            writer = table.view(None)["turn"]
            clue = CLUE_WORDS[len(written)] if len(written) < 2 else CLUE_WORDS[0]  # one duplicate
            intent(widgets[writer], type="clue", text=clue)
            written.append((writer, clue))
            if table.state.phase == "clues":
                for seat, w in enumerate(widgets):
                    mine = {c for s, c in written if s == seat}
                    assert not leaked(w, {c for _, c in written} - mine), (round_no, seat, "clue words")
                assert not leaked(projector, {c for _, c in written})
        assert table.state.phase == "guess"
        eliminated = {CLUE_WORDS[0]}
        assert not leaked(widgets[guesser], {target, foil} | eliminated)
        assert not leaked(projector, {target, foil} | eliminated)
        surviving = set(widgets[guesser].view["clues"])
        assert CLUE_WORDS[0] not in surviving and CLUE_WORDS[1] in surviving
        guesser_state = json.dumps(synced(widgets[guesser]))
        for seat, _ in written:  # no authorship for the Guesser
            assert '"author"' not in guesser_state

        intent(widgets[guesser], type="guess", text=target if round_no != 1 else "")
        assert table.state.phase in ("recap", "over")
        for w in widgets:  # the recap shows everything of that round to everyone
            assert {target, foil} <= leaked(w, {target, foil})
        assert {target, foil} <= leaked(projector, {target, foil})
        next_words = card_words(table)
        if table.state.current is None:  # the last recap: no next card, no next Guesser or Drawer
            assert table.view(None)["next"] is None and not next_words
            assert not any(p["guesser"] or p["drawer"] for p in table.view(None)["players"])
            next_drawer = None
        else:
            _, next_drawer = roles(table)
        for seat, w in enumerate(widgets):
            if seat != next_drawer:
                assert not leaked(w, next_words), (round_no, seat, "next card during recap")
        assert not leaked(projector, next_words)
        for seat, w in enumerate(widgets):
            intent(w, type="continue")
    assert table.state.phase == "over"
    final = widgets[0].view["final"]
    assert final["score"] == 2 and final["rounds"] == 3 and final["band"]
    assert len(widgets[0].view["history"]) == 3


# --- projector and host ------------------------------------------------------------------------------


def test_projector_host_buttons_work_without_hidden_words(deck):
    table = make_table(deck)
    pj = TableWidget(table)
    assert isinstance(pj, TableWidget) and pj.host is True and pj.kind == "table"
    assert "start" in pj.view["actions"]
    assert intent(pj, type="start").get("ack")
    assert not leaked(pj, card_words(table))
    assert intent(pj, type="random_pick").get("ack")
    assert table.state.phase == "clues"
    assert not leaked(pj, {table.state.target, table.state.foil})
    while table.state.phase == "clues":
        assert intent(pj, type="timeout").get("ack")
    assert intent(pj, type="timeout").get("ack")  # the Guesser: counts as a pass
    assert pj.view["recap"]["outcome"] == "pass"
    assert intent(pj, type="confirm_absent").get("ack")
    assert table.state.phase == "reveal"
    reply = intent(pj, type="clue", text="zebra")
    assert reply["code"] == "not_allowed"
    assert intent(pj, type="end").get("ack")
    assert pj.view["phase"] == "over" and pj.view["final"]["ended_by_host"] is True


def test_projector_without_host_refuses_host_actions(deck):
    table = make_table(deck)
    screen = TableWidget(table, host=False)
    assert intent(screen, type="start")["code"] == "host_only"
    screen.set_state({"host": True})
    assert screen.host is False
    assert intent(screen, type="start")["code"] == "host_only"
    assert table.state.phase == "lobby"


# --- pass and play -----------------------------------------------------------------------------------


def test_pass_and_play_curtain_holds_nothing_private(deck):
    table = make_table(deck, rounds=2, seed=3)
    pp = PassAndPlayWidget(table)
    assert isinstance(pp, PassAndPlayWidget) and pp.kind == "pass"
    assert pp.view["phase"] == "lobby" and pp.curtain == {}
    assert intent(pp, type="start").get("ack")
    rounds_played = 0
    while table.state.phase != "over":
        public = table.view(None)
        phase = public["phase"]
        if phase == "recap":
            assert pp.curtain == {} and pp.view == public
            assert intent(pp, type="continue_all").get("ack")
            continue
        # a private screen is next: curtain down, nothing private synced
        curtain = pp.curtain
        assert curtain["name"] and curtain["seat"] == PassAndPlayWidget._owner(public)
        assert pp.view == {}
        hidden = card_words(table) | {c.text for c in table.state.clues if c.text}
        assert not leaked(pp, hidden)
        assert intent(pp, type="pick", pair=1)["code"] == "curtain_down"
        wrong = (curtain["seat"] + 1) % 3
        assert intent(pp, type="lift", seat=wrong)["code"] == "stale_curtain"
        assert intent(pp, type="lift", seat=curtain["seat"]).get("ack")
        assert pp.curtain == {} and pp.lifted == curtain["seat"]
        assert pp.view == table.view(curtain["seat"])
        if phase == "reveal":
            assert pp.view["card"] is not None
            intent(pp, type="pick", pair=2)
            # the Drawer writes first: the screen stays with them
            assert pp.lifted == curtain["seat"] and pp.view["phase"] == "clues"
            intent(pp, type="clue", text=CLUE_WORDS[rounds_played])
        elif phase == "clues":
            assert intent(pp, type="clue", text="")["ack"]  # an empty clue is a timeout
        else:
            assert pp.view["you"]["role"] == "guesser"
            intent(pp, type="pass" if rounds_played else "guess", text=table.state.target)
            rounds_played += 1
        # whoever is next, the previous screen is gone
        if table.state.phase in ("reveal", "clues", "guess"):
            if pp.curtain:
                assert pp.view == {}
    assert pp.view["phase"] == "over" and pp.view["final"]["score"] == 1
    assert rounds_played == 2


def test_pass_and_play_hide_drops_the_curtain(deck):
    table = make_table(deck)
    pp = PassAndPlayWidget(table)
    intent(pp, type="start")
    seat = pp.curtain["seat"]
    intent(pp, type="lift", seat=seat)
    assert pp.view["card"]
    intent(pp, type="hide")
    assert pp.view == {} and pp.curtain["seat"] == seat
    pp.set_state({"view": table.view(seat), "curtain": {}})
    assert pp.view == {} and pp.curtain["seat"] == seat


# --- lifecycle and repr --------------------------------------------------------------------------------


def test_close_unsubscribes(deck):
    table = make_table(deck)
    before = len(table._listeners)
    w = SeatWidget(table, "Ben")
    assert len(table._listeners) == before + 1
    w.close()
    assert len(table._listeners) == before
    table.start()  # no error from a closed widget


def test_reprs_are_deterministic(deck):
    table = make_table(deck)
    for w, expected in (
        (SeatWidget(table, "Ada"), "SeatWidget(table='WDGT23', seat=0, name='Ada', phase='lobby')"),
        (TableWidget(table), "TableWidget(table='WDGT23', players=['Ada', 'Ben', 'Cy'], phase='lobby', host=True)"),
        (PassAndPlayWidget(table), "PassAndPlayWidget(table='WDGT23', players=['Ada', 'Ben', 'Cy'], phase='lobby')"),
    ):
        assert repr(w) == expected
        bundle = w._repr_mimebundle_()
        data = bundle[0] if isinstance(bundle, tuple) else bundle
        assert data["text/plain"] == expected and "0x" not in data["text/plain"]


def test_front_end_files_ship_and_never_use_html_injection():
    js = (JS_DIR / "widget.js").read_text(encoding="utf-8")
    css = (JS_DIR / "widget.css").read_text(encoding="utf-8")
    assert js.startswith("// @ts-check") and "export default" in js
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval("):
        assert sink not in js
    assert "http://" not in js and "https://" not in js  # no CDN
    assert "--jp-" in css and 'aria-live' in js
    w_esm = SeatWidget._esm
    assert "export default" in str(w_esm)


def test_the_front_end_takes_limits_and_actions_from_the_view(deck):
    """The JS reads its text-box lengths and seat counts from ``view.limits`` (config.py), not literals,
    and keeps no list of action types of its own."""
    import re

    from dichotomy_widget import config

    view = SeatWidget(make_table(deck), "Ada").view
    assert view["limits"]["clue"] == config.MAX_CLUE_LENGTH and view["limits"]["max_seats"] == config.MAX_SEATS
    js = (JS_DIR / "widget.js").read_text(encoding="utf-8")
    assert "maxlength: view.limits.clue" in js and "maxlength: view.limits.guess" in js
    assert not re.search(r"maxlength:\s*\d", js)
    assert "3 to 7" not in js
    assert not re.search(r"\[\s*\"pick\",\s*\"clue\"", js)  # no copy of the seat actions


def test_unknown_seat_is_refused_before_any_widget(deck):
    from dichotomy_widget import SeatNotFound

    table = make_table(deck)
    with pytest.raises(SeatNotFound):
        SeatWidget(table, "Zed")
    with pytest.raises(SeatNotFound):
        SeatWidget(table, 9)


def test_front_end_module_parses(tmp_path):
    """``node --check`` on the module when Node is around (the browser tests run it for real)."""
    import shutil
    import subprocess

    node = shutil.which("node")
    assert node is not None, "node is not installed (.ci/run installs it)"
    module = tmp_path / "widget.mjs"
    module.write_text((JS_DIR / "widget.js").read_text(encoding="utf-8"), encoding="utf-8")
    result = subprocess.run([node, "--check", str(module)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr


def test_writer_widget_reports_an_expired_time_limit(deck, monkeypatch):
    import time as real_time
    import types

    table = Table.create(deck=deck, rounds=2, seed=5, code="TMLT23", time_limit=30)
    for name in ("Ada", "Ben", "Cy"):
        table.join(name)
    widgets = [SeatWidget(table, i) for i in range(3)]
    table.start()
    _, drawer = roles(table)
    intent(widgets[drawer], type="pick", pair=1)
    deadline = widgets[drawer].view["deadline"]
    assert deadline and widgets[drawer].view["phase"] == "clues"
    assert intent(widgets[drawer], type="expire")["code"] == "time_left"
    clock = types.SimpleNamespace(time=lambda: deadline + 1, monotonic=real_time.monotonic)
    monkeypatch.setattr("dichotomy_widget.table.time", clock)
    assert intent(widgets[drawer], type="expire").get("ack")
    slate = widgets[drawer].view["slate"]
    assert slate["timeout"] is True
    assert widgets[drawer].view["players"][drawer]["clue"] == "timeout"


def test_a_removed_seat_says_so(deck):
    table = make_table(deck, seats=("Ada", "Ben", "Cy", "Dee"))
    dee = SeatWidget(table, "Dee")
    table.act(None, {"type": "remove", "seat": dee.seat})
    assert dee.view["phase"] == "gone" and "no longer" in dee.view["status"]
    assert repr(dee) == "SeatWidget(table='WDGT23', seat=3, name=None, phase='gone')"
    assert intent(dee, type="continue")["refused"]


def test_pass_and_play_can_end_the_game(deck):
    table = make_table(deck)
    pp = PassAndPlayWidget(table)
    intent(pp, type="start")
    assert pp.curtain  # ending is allowed from the curtain: it reveals nothing
    assert intent(pp, type="end").get("ack")
    assert pp.curtain == {} and pp.view["phase"] == "over" and pp.view["final"]["ended_by_host"]
    assert intent(pp, type="end")["code"] == "wrong_phase"


def test_stale_clicks_are_refused_not_applied_to_the_next_step(deck):
    table = make_table(deck)
    pj = TableWidget(table)
    widgets = [SeatWidget(table, i) for i in range(3)]
    intent(pj, type="start", stage=pj.view["stage"])
    guesser, drawer = roles(table)
    intent(widgets[drawer], type="pick", pair=1, stage=widgets[drawer].view["stage"])
    # the host double-clicks "Skip writer": both clicks were made on the same screen
    made_on = pj.view["stage"]
    first_writer = table.state.current_writer
    assert intent(pj, type="timeout", stage=made_on).get("ack")
    second = intent(pj, type="timeout", stage=made_on)
    assert second["code"] == "stale_action" and "moved on" in second["message"]
    assert [c.seat for c in table.state.clues] == [first_writer]  # the next writer was not skipped
    assert pj.view["stage"] != made_on  # and the host's screen shows the new step
    while table.state.phase == "clues":
        w = widgets[table.state.current_writer]
        intent(w, type="clue", text=CLUE_WORDS[len(table.state.clues)], stage=w.view["stage"])
    # a double-clicked Guess: the second click is refused politely, not judged again
    g = widgets[guesser]
    made_on = g.view["stage"]
    assert intent(g, type="guess", text="saxophone", stage=made_on).get("ack")
    again = intent(g, type="guess", text="saxophone", stage=made_on)
    assert again["code"] == "stale_action"
    assert len(table.state.history) == 1
    # Continue: others pressing it does not make mine stale; pressing it twice is refused
    recap = widgets[drawer].view["stage"]
    others = [s for s in range(3) if s != drawer]
    assert intent(widgets[others[0]], type="continue", stage=recap).get("ack")
    assert intent(widgets[others[1]], type="continue", stage=recap).get("ack")
    assert intent(widgets[drawer], type="continue", stage=recap).get("ack")
    twice = intent(widgets[drawer], type="continue", stage=recap)
    assert twice["code"] == "stale_action"
    assert table.state.phase == "reveal"


def test_pass_and_play_continue_twice_is_stale(deck):
    table = make_table(deck)
    pp = PassAndPlayWidget(table)
    intent(pp, type="start")
    table.act(None, {"type": "random_pick"})
    while table.state.phase == "clues":
        table.act(None, {"type": "timeout"})
    table.act(None, {"type": "timeout"})
    made_on = pp.view["stage"]
    assert intent(pp, type="continue_all", stage=made_on).get("ack")
    assert intent(pp, type="continue_all", stage=made_on)["code"] == "stale_action"
    assert table.state.round == 2


# --- languages: each widget (each student's screen) speaks its own ------------------------------------

def test_a_widget_speaks_the_tables_language_unless_told_otherwise(deck):
    table = Table.create(deck=deck, rounds=3, seed=5, code="LANG23", interface_lang="fr")
    table.join("Ada")
    ada = SeatWidget(table, "Ada")
    projector = TableWidget(table)
    german = SeatWidget(table, "Ada", lang="de")
    assert ada.lang == projector.lang == "fr" and german.lang == "de"
    assert ada.i18n["lang"] == "fr" and ada.i18n["messages"]["Start the game"] == "Commencer la partie"
    assert [code for code, _ in ada.i18n["languages"]] == ["en", "es", "fr", "de"]
    assert ada.view["status"].startswith("En attente de joueurs")
    assert german.view["status"].startswith("Warten auf Mitspielende")


def test_language_switch_changes_only_that_widget(deck):
    table = make_table(deck)
    ada, ben = SeatWidget(table, "Ada"), SeatWidget(table, "Ben")
    seen = []
    ada.observe(lambda change: seen.append(change["new"]), "lang")  # a page can follow the choice
    assert intent(ada, type="set_language", lang="es") == {"ack": intent.counter}
    assert ada.lang == "es" and ada.i18n["lang"] == "es" and seen == ["es"]
    assert ada.i18n["plural_categories"] == ["one", "many", "other"]
    assert ada.view["status"].startswith("Esperando jugadores")
    assert ben.lang == "en" and ben.i18n["messages"] == {} and ben.view["status"].startswith("Waiting for players")
    assert table.interface_lang == "en"  # the table itself keeps its language
    table.start()  # both screens follow the game, each in its own language
    assert ada.view["phase"] == ben.view["phase"] == "reveal"
    assert ada.view["status"] != ben.view["status"]
    assert intent(ada, type="set_language", lang="en-GB")["ack"] and ada.lang == "en"


@pytest.mark.parametrize("bad", ["xx", "it", "", None, 5, {"lang": "fr"}, "fr" * 200])
def test_unknown_language_is_refused_and_nothing_changes(deck, bad):
    table = make_table(deck)
    ada = SeatWidget(table, "Ada", lang="de")
    before = synced(ada)
    reply = intent(ada, type="set_language", lang=bad)
    assert reply["code"] == "unknown_language"
    assert reply["message"].startswith("Dieser Bildschirm spricht") and "Deutsch" in reply["message"]  # said in the screen's language
    assert len(reply["message"]) < 200  # a long code is not echoed whole
    assert synced(ada) == before
    with pytest.raises(DichotomyError):
        SeatWidget(table, "Ada", lang="xx")


def test_the_catalogue_and_language_traits_are_restored_if_a_browser_overwrites_them(deck):
    table = make_table(deck)
    ada = SeatWidget(table, "Ada", lang="fr")
    true_catalogue = dict(ada.i18n)
    ada.set_state({"i18n": {"lang": "fr", "plural_categories": ["other"], "messages": {"Start the game": "<b>x</b>"}},
                  "lang": "de"})
    assert ada.i18n == true_catalogue and ada.lang == "fr"
    ada.i18n = {"lang": "xx", "messages": {}}  # even a write that got through is put back
    assert ada.i18n == true_catalogue
    ada.lang = "es"
    assert ada.lang == "fr" and ada.view["status"].startswith("En attente")


def test_refusals_are_worded_in_the_widgets_language_with_the_same_code(deck):
    table = make_table(deck)
    english = SeatWidget(table, "Ada")
    german = SeatWidget(table, "Ada", lang="de")
    table.start()
    english_reply = intent(english, type="guess", text="pear")
    german_reply = intent(german, type="guess", text="pear")
    assert german_reply["code"] == english_reply["code"]
    drawer = next(p["name"] for p in table.view(None)["players"] if p["drawer"])
    assert english_reply == {**english_reply, "code": "wrong_phase", "message": f"Waiting for {drawer} to pick a pair."}
    assert german_reply["message"] == f"Warten, bis {drawer} ein Paar wählt."
    malformed = intent(german, type=5)
    assert malformed["code"] == "invalid_action" and "Schaltfläche" in malformed["message"]


def test_a_view_computed_on_another_thread_never_lands_after_a_newer_one(deck):
    """JupyterLab sends widget messages on a kernel subshell (a thread of its own) while bots and the
    store watch act on the main loop: a screen must end on the newest view, never on one a slower
    thread computed before the newest change and set after it."""
    import threading

    table = make_table(deck)
    table.start()
    widget = SeatWidget(table, "Ada")
    computed, go = threading.Event(), threading.Event()
    state_now = widget._state
    slow_thread: list[threading.Thread] = []

    def slow_state():  # the slow thread computes its view, then is held up before setting it
        state = state_now()
        if threading.current_thread() in slow_thread:
            computed.set()
            go.wait(5)
        return state

    widget._state = slow_state
    slow = threading.Thread(target=widget._sync, daemon=True)
    slow_thread.append(slow)
    slow.start()
    assert computed.wait(5)
    # meanwhile the Drawer picks (another thread: the act and its sync wait while the slow sync holds on)
    drawer = table.state.drawer
    act = threading.Thread(target=lambda: table.act(drawer, {"type": "pick", "pair": 1}), daemon=True)
    act.start()
    act.join(1.0)
    go.set()
    slow.join(5)
    act.join(5)
    assert not slow.is_alive() and not act.is_alive()
    assert table.state.phase == "clues"
    assert widget.get_state()["view"]["phase"] == "clues" == widget.view["phase"]
