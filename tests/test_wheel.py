"""The wheel: built from this tree by the real build backend (hatchling, through pip), it carries
every word table ready-built from the text sources and none of the text; installed on its own
into a fresh virtual environment, it compares clues and plays a round with no build step."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from dichotomy_widget.wordsdata import table_build, tables

REPO = Path(__file__).resolve().parents[1]

PLAY = """
import dichotomy_widget
from dichotomy_widget import Table, words
from dichotomy_widget.decks import Card, Deck, Pair
assert "site-packages" in dichotomy_widget.__file__, dichotomy_widget.__file__
pairs = [("river", "lake"), ("violin", "cello"), ("coffee", "tea"), ("winter", "summer"), ("doctor", "nurse")]
deck = Deck(name="wheel", lang="en", cards=(Card(tuple(Pair(t, f) for t, f in pairs)),))
table = Table.create(deck=deck, seed=3, rounds=1)
for name in ("Ann", "Ben", "Cy", "Dee"):
    table.join(name)
table.start()
table.act(table.state.drawer, {"type": "pick", "pair": 1})
for text in ("streams", "stream", "boat"):
    table.act(table.state.current_writer, {"type": "clue", "text": text})
table.act(table.state.guesser, {"type": "guess", "text": "river"})
record = table.state.history[-1]
print(record.outcome, sorted(c.text for c in record.clues if c.eliminated))
for lang, a, b in [("en", "mice", "mouse"), ("es", "casas", "casa"), ("fr", "chevaux", "cheval"),
                   ("de", "Häuser", "Haus"), ("it", "libri", "libro"), ("pt", "cidades", "cidade")]:
    print(lang, words.variant_reason(a, b, lang))
"""


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", str(out),
                    str(REPO)], check=True, capture_output=True, text=True, timeout=600)
    (built,) = out.glob("dichotomy_widget-*.whl")
    return built


def test_the_wheel_carries_every_table_built_from_the_sources_and_no_text(wheel, tmp_path):
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
        assert {f"dichotomy_widget/wordsdata/{lang}.sqlite" for lang in tables.LANGUAGES} <= names
        assert not [n for n in names if n.startswith("dichotomy_widget/wordsdata/") and n.endswith(".tsv")]
        assert "dichotomy_widget/js/widget.js" in names
        for lang in tables.LANGUAGES:
            files = table_build.source_files(lang, tables.SOURCES_DIR)
            assert files, f"{lang}: no text sources in the checkout"
            path = tmp_path / f"{lang}.sqlite"
            path.write_bytes(zf.read(f"dichotomy_widget/wordsdata/{lang}.sqlite"))
            with sqlite3.connect(path) as db:
                meta = dict(db.execute("SELECT key, value FROM meta"))
            assert meta["sha256"] == table_build.digest(files), f"{lang}: the wheel's table is not built from these sources"


def test_the_installed_wheel_plays_with_no_build_step(wheel, tmp_path):
    venv = tmp_path / "venv"
    # the dependencies come from this machine's site-packages; the package itself only from the wheel
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True, timeout=300)
    python = venv / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(wheel)],
                   check=True, capture_output=True, text=True, timeout=600)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["DICHOTOMY_WORDS_CACHE"] = str(tmp_path / "cache")  # must stay empty: nothing is built
    run = subprocess.run([str(python), "-c", PLAY], cwd=tmp_path, env=env, capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    lines = run.stdout.splitlines()
    assert lines[0] == "correct ['stream', 'streams']", run.stdout
    assert lines[1:] == [f"{lang} inflection" for lang in tables.LANGUAGES], run.stdout
    assert not (tmp_path / "cache").exists()
    site = subprocess.run([str(python), "-c", "import dichotomy_widget.wordsdata as w; print(w.__file__)"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, check=True).stdout
    assert not list(Path(site.strip()).parent.glob("*.tsv"))
