"""``dichotomy serve`` refuses bad input with a sentence, never a traceback: a garbage ``--store`` file,
a ``--decks`` folder holding a deeply nested JSON deck and links that lead out of the folder."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

from dichotomy_widget.deck_library import folder_decks
from dichotomy_widget.server.serve import _resolve_decks

ROOT = Path(__file__).resolve().parents[1]
GOOD = "# lang: en\n" + "".join(f"{t},{f}\n" for t, f in [("harbour", "lighthouse"), ("kettle", "teapot"),
                                                           ("meadow", "orchard"), ("pebble", "boulder"),
                                                           ("saddle", "bridle")])


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _run_serve(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    return subprocess.run([sys.executable, "-m", "dichotomy_widget.server.serve", "serve", "--ip", "127.0.0.1",
                           "--port", str(_free_port()), *args], capture_output=True, text=True, env=env,
                          timeout=120)


def test_a_garbage_store_file_is_refused_with_a_sentence(tmp_path):
    garbage = tmp_path / "tables.sqlite3"
    garbage.write_bytes(bytes(range(256)) * 20)
    done = _run_serve("--store", str(garbage))
    out = done.stdout + done.stderr
    assert done.returncode != 0
    assert "not a dichotomy table store" in out and "Traceback" not in out, out


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "decks"
    folder.mkdir()
    (folder / "good.csv").write_text(GOOD, encoding="utf-8")
    (folder / "deep.json").write_text('{"lang": "en", "cards": [' + "[" * 100_000 + "]" * 100_000 + "]}")
    outside = tmp_path / "secret.csv"
    outside.write_text("# lang: en\nSECRET_VALUE=hunter2,x\n", encoding="utf-8")
    (folder / "env.csv").symlink_to("/proc/self/environ")
    (folder / "outside.csv").symlink_to(outside)
    (folder / "inside.csv").symlink_to(folder / "good.csv")  # a link within the folder is fine
    return folder


def test_the_decks_folder_reports_deep_json_and_refuses_links_out_of_it(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("DICHOTOMY_PROBE_SECRET", "hunter3")
    folder = _folder(tmp_path)
    valid, invalid = folder_decks(folder)
    assert sorted(valid) == ["good.csv", "inside.csv"]
    problems = dict(invalid)
    assert sorted(problems) == ["deep.json", "env.csv", "outside.csv"]
    assert "nested more than" in problems["deep.json"]
    assert all("outside the decks folder" in problems[n] for n in ("env.csv", "outside.csv"))
    _resolve_decks(str(folder))
    printed = capsys.readouterr()
    text = printed.out + printed.err
    assert "Traceback" not in text and "hunter2" not in text and "hunter3" not in text
    assert "2 offered (good.csv, inside.csv), 3 not offered" in text
    assert text.count("deck file not offered:") == 3
