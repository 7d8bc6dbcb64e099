"""The host page's deck form and teacher key (dichotomy_widget.pages.deck_form, pages.teacher, widgets.host_secrets),
driven in the kernel without a browser, on a real SQLite store."""

from __future__ import annotations

import html
import re
from datetime import datetime, timezone
import json
import logging

import pytest

from dichotomy_widget import Table
from dichotomy_widget.deck_library import DECKS_DIR_ENV, DeckLibrary
from dichotomy_widget.errors import TeacherKeyRequired
from dichotomy_widget.server.serve import _resolve_decks, _resolve_teacher_key, build_parser
from dichotomy_widget.stores import open_store
from dichotomy_widget.pages.entry import host_page
from dichotomy_widget.pages.teacher import TEACHER_KEY_ENV, is_teacher, read_key_file, require_teacher
from dichotomy_widget.options import TableOptions

from test_app import all_text

SECRET_A = "A" * 43
SECRET_B = "b" * 43
ROWS = ["sea,ocean", "coffee,tea", "cat,dog", "spring,autumn", "bread,rice",
        "violin,cello", "doctor,nurse", "train,bus", "lion,tiger", "castle,palace"]
CSV = ("# lang: en\n# name: Unit 4\ntarget,foil\n" + "\n".join(ROWS) + "\n").encode()


@pytest.fixture()
def store(tmp_path):
    return str(tmp_path / "tables.sqlite3")


def page_with_secret(store, secret=SECRET_A, env=None):
    page = host_page("", store=store, env=env or {})
    page.browser_secret._received(None, {"secret": secret}, None)  # what the browser sends on load
    assert page.deck_form.library is not None
    return page


def upload(page, name: str, data: bytes) -> None:
    page.deck_form.source.value = "upload"
    page.deck_form.upload.value = ({"name": name, "type": "text/csv", "size": len(data),
                                    "last_modified": datetime.now(timezone.utc), "content": memoryview(data)},)


def test_an_uploaded_csv_is_previewed_saved_and_played(store):
    page = page_with_secret(store)
    upload(page, "unit4.csv", CSV)
    form = page.deck_form
    assert form.deck is not None and form.problems == []
    assert "Unit 4: 2 cards, language English" in form.preview.value and "violin / cello" in form.preview.value
    assert page.rounds_input.max == 2 and not page.create_button.disabled
    page.create_button.click()
    assert page.state == "host", page.message
    assert page.table.state.deck_name == "Unit 4" and page.table.state.lang == "en"
    assert "Saved “Unit 4”" in page.saved_note
    # next time, on the same browser: listed; on another browser: not
    again = page_with_secret(store)
    labels = [label for label, _key in again.deck_input.options]
    assert any(label.startswith("Unit 4 (en, 2 cards) · saved") for label in labels)
    other = page_with_secret(store, SECRET_B)
    assert not any("saved" in label for label, _key in other.deck_input.options)
    # a saved deck creates a table too, then can be deleted
    key = next(k for _l, k in again.deck_input.options if k.startswith("saved:"))
    again.deck_input.value = key
    assert again.lang_label.value == "Language: English" and again.deck_form.delete_button.layout.display == ""
    assert again.deck_form.delete_selected()
    assert not any(k.startswith("saved:") for _l, k in again.deck_input.options)
    assert DeckLibrary.for_secret(open_store(store), SECRET_A).list() == []


def test_a_pasted_tab_separated_list_creates_a_table(store):
    page = page_with_secret(store)
    form = page.deck_form
    form.source.value = "paste"
    form.paste.value = "mar\tocéano\ncafé\tté\ngato\tperro\nsol\tluna\npan\tarroz\n"
    form.check_button.click()
    assert form.deck is None and form.problems == [form.headline]
    assert "does not say its language" in form.problems_box.value and "Which language" in form.problems_box.value
    assert not page.create(options=TableOptions(rounds=1))
    form.lang_input.value = "es"
    assert form.deck is not None and form.deck.lang == "es" and form.deck.name == "Pasted list"
    form.name_input.value = "Unidad 4"
    assert form.deck.name == "Unidad 4" and "Unidad 4: 1 card," in form.preview.value
    form.paste.value += "x"  # an edited list is checked again before it is used
    assert form.deck is None and page.create_button.disabled and "press “Check the list”" in form.preview.value
    form.paste.value = form.paste.value[:-1]
    form.check_button.click()
    assert page.create(seed=1, options=TableOptions(rounds=1))
    assert page.table.state.lang == "es" and page.table.state.deck_name == "Unidad 4"
    assert Table.open(page.table.code, store).state.lang == "es"


@pytest.mark.parametrize("name,data,expected", [
    ("big.csv", b"# lang: en\n" + b"a,b\n" * 300_000, "at most 1,000,000 bytes"),
    ("latin.csv", "# lang: es\ncafé,té\n".encode("latin-1"), "not UTF-8"),
    ("vocab.xlsx", b"PK\x03\x04\x14\x00\x06\x00" + b"\x00" * 50, "spreadsheet"),
    ("html.csv", CSV.replace(b"coffee,tea", b"<b>coffee</b>,tea"), "line 5: target '<b>coffee</b>' has HTML"),
    ("long.csv", b"# lang: en\n" + b"".join(b"t%d,f%d\n" % (i, i) for i in range(10_001)), "more than 10,000 rows"),
], ids=["too-big", "not-utf8", "xlsx", "html", "too-many-rows"])
def test_each_bad_file_gets_its_message_and_nothing_is_stored(store, name, data, expected):
    page = page_with_secret(store)
    upload(page, name, data)
    form = page.deck_form
    assert form.deck is None
    assert html.escape(expected) in form.problems_box.value, form.problems_box.value
    assert "Nothing was created or saved" in form.problems_box.value
    assert page.create_button.disabled
    assert not page.create()
    assert page.state == "create"
    assert DeckLibrary.for_secret(open_store(store), SECRET_A).list() == []
    assert "<b>coffee" not in form.problems_box.value  # shown as text


def test_the_folder_decks_are_offered(store, tmp_path):
    folder = tmp_path / "decks"
    folder.mkdir()
    (folder / "unit4.csv").write_bytes(CSV)
    (folder / "broken.csv").write_text("# lang: en\nsea,ocean\n", encoding="utf-8")
    page = host_page("", store=store, env={DECKS_DIR_ENV: str(folder)})
    options = dict((k, label) for label, k in page.deck_input.options)
    assert options["dir:unit4.csv"] == "Unit 4 (en, 2 cards) · folder"
    assert "dir:broken.csv" not in options
    page.deck_input.value = "dir:unit4.csv"
    assert page.create(options=TableOptions(rounds=2))
    assert page.table.state.deck_name == "Unit 4"


def test_serve_lists_invalid_folder_decks_on_stderr(tmp_path, capsys):
    (tmp_path / "unit4.csv").write_bytes(CSV)
    (tmp_path / "broken.csv").write_text("# lang: en\nsea,ocean\n", encoding="utf-8")
    assert _resolve_decks(str(tmp_path)) == str(tmp_path.resolve())
    err = capsys.readouterr().err
    assert "deck file not offered: broken.csv, lines 2-2: the last card is incomplete (1 of 5 rows)" in err
    assert "1 offered (unit4.csv), 1 not offered" in err
    with pytest.raises(SystemExit):
        _resolve_decks(str(tmp_path / "missing"))


# --- the teacher key ----------------------------------------------------------------------------------
KEY = "correct horse battery"


def test_is_teacher_and_require_teacher():
    assert is_teacher(None, env={}) and is_teacher("anything", env={})
    env = {TEACHER_KEY_ENV: KEY}
    assert is_teacher(KEY, env) and not is_teacher(KEY + "x", env) and not is_teacher("", env)
    assert not is_teacher(None, env) and not is_teacher(123, env)
    with pytest.raises(TeacherKeyRequired) as err:
        require_teacher("wrong-key", env)
    assert KEY not in err.value.message and "wrong-key" not in err.value.message
    require_teacher(KEY, env)


def test_key_file_and_command_line(tmp_path, monkeypatch):
    monkeypatch.delenv(TEACHER_KEY_ENV, raising=False)
    (tmp_path / "key").write_text(KEY + "\n", encoding="utf-8")
    args = build_parser().parse_args(["serve", "--teacher-key-file", str(tmp_path / "key")])
    assert _resolve_teacher_key(args) == KEY
    assert _resolve_teacher_key(build_parser().parse_args(["serve", "--teacher-key", KEY])) == KEY
    assert _resolve_teacher_key(build_parser().parse_args(["serve"])) is None
    monkeypatch.setenv(TEACHER_KEY_ENV, KEY)  # e.g. a hub's spawner environment
    assert _resolve_teacher_key(build_parser().parse_args(["serve"])) == KEY
    monkeypatch.delenv(TEACHER_KEY_ENV)
    with pytest.raises(SystemExit):
        _resolve_teacher_key(build_parser().parse_args(["serve", "--teacher-key", "abc"]))  # too short
    (tmp_path / "empty").write_text("", encoding="utf-8")
    with pytest.raises(Exception):
        read_key_file(tmp_path / "empty")
    with pytest.raises(SystemExit):
        build_parser().parse_args(["serve", "--teacher-key", KEY, "--teacher-key-file", "x"])


def test_with_a_key_the_host_page_needs_it_to_create(store, caplog):
    caplog.set_level(logging.DEBUG)
    env = {TEACHER_KEY_ENV: KEY}
    page = host_page("", store=store, env=env)
    assert page.key_box is not None and page.form.layout.display == "none"
    assert not hasattr(page, "browser_secret")
    assert not page.create(deck="en", options=TableOptions(rounds=1))
    assert "needs the teacher key" in page.feedback.value
    page.key_box._received(None, {"key": "not the key"}, None)  # what the browser sends
    assert not page.key_box.unlocked and "not the teacher key" in page.key_box.status
    assert not page.create(deck="en", options=TableOptions(rounds=1)) and page.state == "create"
    page.key_box._received(None, {"key": KEY}, None)
    assert page.key_box.unlocked and page.form.layout.display == ""
    upload(page, "unit4.csv", CSV)
    assert page.create(options=TableOptions(rounds=2))
    # the key's library holds the upload; the key is in no synced trait and no log line
    assert [s.name for s in DeckLibrary.for_secret(open_store(store), KEY).list()] == ["Unit 4"]
    assert KEY not in all_text(page) and KEY not in page.url.query
    assert KEY not in caplog.text
    with open(store, "rb") as fh:
        assert KEY.encode() not in fh.read()
    # another page with the key sees the saved deck
    other = host_page("", store=store, env=env)
    assert other.unlock(KEY)
    assert any("· saved" in label for label, _k in other.deck_input.options)


def test_without_a_key_the_page_says_anyone_can_create(store):
    page = host_page("", store=store, env={})
    assert page.key_box is None
    assert "anyone who can open this page can create a table" in all_text(page)
    assert page.create(deck="en", options=TableOptions(rounds=1))


def test_a_forged_browser_secret_is_ignored(store):
    page = host_page("", store=store, env={})
    page.browser_secret._received(None, {"secret": "short"}, None)
    page.browser_secret._received(None, {"secret": "<script>" * 8}, None)
    assert page.deck_form.library is None
    page.browser_secret._received(None, {"secret": SECRET_A}, None)
    page.browser_secret._received(None, {"secret": SECRET_B}, None)  # the first secret wins
    assert page.deck_form.library.stream == DeckLibrary.for_secret(open_store(store), SECRET_A).stream


def test_uploaded_words_reach_a_seat_only_through_its_view(store):
    """Seat pages (each its own kernel in voila) hold only their seat's view: never the undealt card,
    never the preview, never the Target on the Guesser's page."""
    from dichotomy_widget.pages.entry import seat_page

    page = page_with_secret(store)
    upload(page, "unit4.csv", CSV)
    assert page.create(seed=5, options=TableOptions(rounds=1))
    code = page.table.code
    seats = []
    for name in ("Ada", "Ben", "Cy"):
        seat = seat_page(f"table={code}", store=store)
        seat.name_input.value = name
        seat.join_button.click()
        assert seat.state == "seat", seat.message
        seats.append(seat)
    table = Table.open(code, store)
    table.start()
    dealt = {w for pair in table.state.current for w in pair}
    undealt = {w for row in ROWS for w in row.split(",")} - dealt
    assert len(dealt) == 10 and len(undealt) == 10
    for seat in seats:
        seat.table.refresh()
        text = all_text(seat)
        leaked = [w for w in undealt if re.search(rf"\b{w}\b", text)]
        assert leaked == [], f"an undealt card reached a seat: {leaked}"
        assert "Unit 4: 2 cards" not in text


def test_a_page_stops_checking_keys_after_five_wrong_ones(store):
    page = host_page("", store=store, env={TEACHER_KEY_ENV: KEY})
    for i in range(5):
        assert not page.unlock(f"guess-{i}")
    assert not page.unlock(KEY)  # even the right key: this page is done guessing
    assert "Too many wrong keys" in page.key_box.status and page.form.layout.display == "none"
    assert host_page("", store=store, env={TEACHER_KEY_ENV: KEY}).unlock(KEY)  # a reloaded page may try again


def test_a_json_deck_upload_without_a_language_asks_for_it(store):
    page = page_with_secret(store)
    cards = [[r.split(",") for r in ROWS[:5]], [r.split(",") for r in ROWS[5:]]]
    upload(page, "unit.json", json.dumps({"name": "JSON unit", "cards": cards}).encode())
    form = page.deck_form
    assert form.deck is None and "does not say its language" in form.problems_box.value
    form.lang_input.value = "en"
    assert form.deck is not None and form.deck.name == "JSON unit" and len(form.deck) == 2
    assert page.create(options=TableOptions(rounds=2))


def test_the_deck_form_speaks_the_page_language(store):
    page = page_with_secret(store, env={"HTTP_ACCEPT_LANGUAGE": "de"})
    form = page.deck_form
    assert form.lang == "de" and [label for label, _v in form.source.options][0] == "Ein Kartenset aus der Liste"
    assert form.lang_label.value == "Sprache: Englisch"  # the default English deck, named in German
    upload(page, "unit4.csv", CSV)
    assert form.deck is not None and "Unit 4: 2 Karten, Sprache Englisch" in form.preview.value
    bad = b"# lang: en\ntarget,foil\nsea\n"
    upload(page, "bad.csv", bad)
    assert form.deck is None and "Es wurde nichts erstellt oder gespeichert." in form.problems_box.value
    assert "Nothing was created" not in form.problems_box.value
    nolang = b"target,foil\n" + "\n".join(ROWS).encode()
    upload(page, "nolang.csv", nolang)
    assert "In welcher Sprache ist dieses Kartenset?" in form.problems_box.value


def test_a_file_too_big_for_the_connection_is_refused_in_the_browser_and_the_next_file_is_checked(store):
    """The upload button sends only a file's name and size when it is over the limit (the browser
    checks it, never sending 12 MB through the websocket); the next file is checked as usual."""
    page = page_with_secret(store)
    form = page.deck_form
    form.source.value = "upload"
    assert form.upload.max_bytes == 1_000_000 and "file.size > model.get(\"max_bytes\")" in form.upload._esm
    assert "dichotomy-library-ready" in form._dom_classes  # the browser secret arrived: saved decks listed
    form.upload._on_file_msg(form.upload, {"too_big": {"name": "huge.csv", "size": 12_000_000}}, [])
    assert form.deck is None and "at most 1,000,000 bytes" in html.unescape(form.problems_box.value)
    assert "12000000" in form.problems_box.value.replace(",", "")
    form.upload._on_file_msg(form.upload, {"file": {"name": "unit4.csv", "size": len(CSV)}}, [CSV])
    assert form.deck is not None and form.problems_box.value == ""
    form.upload._on_file_msg(form.upload, {"file": {"name": "unit4.csv", "size": 1}}, [b"x" * 1_000_001])
    assert form.deck is None and "at most 1,000,000 bytes" in html.unescape(form.problems_box.value)


def test_a_deck_that_breaks_the_checker_still_gets_a_message(store, monkeypatch, caplog):
    from dichotomy_widget.pages import deck_form

    def broken(*_a, **_k):
        raise RecursionError("deep")

    page = page_with_secret(store)
    monkeypatch.setattr(deck_form, "deck_from_bytes", broken)
    upload(page, "deep.json", b'{"cards": []}')
    form = page.deck_form
    assert form.deck is None and "could not be read" in form.problems_box.value
    assert "Checking the deck" not in form.preview.value and "Nothing was created or saved" in form.problems_box.value
    assert "checking a deck failed" in caplog.text
