"""The word tables built from text sources (``wordsdata/table_build.py``) and found or rebuilt on
use (``wordsdata/tables.py``): small sources in a temporary folder, real SQLite files, real
processes racing for the lock; and the committed sources' shape."""

from __future__ import annotations

import logging
import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from dichotomy_widget.errors import DependencyMissing
from dichotomy_widget.words.matcher import _Lexicon
from dichotomy_widget.wordsdata import table_build, tables

REPO = Path(__file__).resolve().parents[1]
FORMS = """# test forms
run\tsimplemma\tran running runs
runner\tsimplemma\trunners
runner\trule:participles\trunnin
swift\twordnet\t
swiftly\twordnet\t
"""
LINKS = """# test links
run\trunner\tweak\trule:affixes
swift\tswiftly\tstrong\twordnet
"""


def write_sources(folder: Path, forms: str = FORMS, links: str = LINKS, lang: str = "xx") -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{lang}.forms.tsv").write_text(forms, encoding="utf-8")
    (folder / f"{lang}.links.tsv").write_text(links, encoding="utf-8")


def lemma_words(path: Path, form: str) -> set[str]:
    lex = _Lexicon(path)
    return {lex.word(i) for i in lex.lemmas(form)}


def family_words(path: Path, word: str) -> set[str]:
    lex = _Lexicon(path)
    _spelling, family = lex.describe(lex.lemmas(word))
    return {lex.word(i) for i in family}


def test_sources_compile_into_the_table_the_matcher_reads(tmp_path):
    write_sources(tmp_path)
    path = table_build.build_table("xx", tmp_path / "xx.sqlite", tmp_path)
    assert lemma_words(path, "ran") == {"run"}
    assert lemma_words(path, "runnin") == {"runner"}  # a second source's line for the same lemma
    assert lemma_words(path, "swift") == {"swift"}  # a lemma with no other form is still a form of itself
    assert family_words(path, "run") == {"runner"} and family_words(path, "swiftly") == {"swift"}
    assert lemma_words(path, "walk") == set()


def test_a_table_is_built_once_and_again_only_when_its_sources_change(tmp_path, monkeypatch, caplog):
    monkeypatch.setenv("DICHOTOMY_WORDS_CACHE", str(tmp_path / "cache"))
    write_sources(tmp_path)
    with caplog.at_level(logging.INFO, logger="dichotomy_widget.wordsdata"):
        path = tables.table_path("xx", tmp_path)
        built = path.stat().st_mtime_ns
        assert tables.table_path("xx", tmp_path) == path and path.stat().st_mtime_ns == built
        os.utime(tmp_path / "xx.forms.tsv")  # rewritten with the same text (a checkout): no rebuild
        assert tables.table_path("xx", tmp_path) == path and path.stat().st_mtime_ns == built
        assert lemma_words(path, "walking") == set()
        write_sources(tmp_path, FORMS + "walk\tsimplemma\twalked walking\n")
        assert tables.table_path("xx", tmp_path) == path
    assert lemma_words(path, "walking") == {"walk"}
    assert [r.getMessage().split(" (")[0] for r in caplog.records if r.getMessage().startswith("built")] == [
        "built the xx word table"] * 2


def test_a_damaged_table_is_built_again(tmp_path, monkeypatch, caplog):
    monkeypatch.setenv("DICHOTOMY_WORDS_CACHE", str(tmp_path / "cache"))
    write_sources(tmp_path)
    (tmp_path / "xx.sqlite").write_bytes(b"not a database at all" * 100)
    with caplog.at_level(logging.WARNING, logger="dichotomy_widget.wordsdata"):
        path = tables.table_path("xx", tmp_path)
    assert lemma_words(path, "runs") == {"run"}
    assert "unreadable" in caplog.text


def test_missing_sources_and_table_is_a_clear_error(tmp_path):
    with pytest.raises(DependencyMissing) as err:
        tables.table_path("xx", tmp_path)
    assert err.value.code == "dependency_missing" and "xx.sqlite" in err.value.message


def test_a_folder_with_only_a_table_uses_it_as_it_is(tmp_path):
    """A wheel: the tables come built and the text stays out."""
    write_sources(tmp_path / "src")
    table_build.build_table("xx", tmp_path / "xx.sqlite", tmp_path / "src")
    assert tables.table_path("xx", tmp_path) == tmp_path / "xx.sqlite"


RACER = """
import logging, sys
from pathlib import Path
from dichotomy_widget.wordsdata import tables
from dichotomy_widget.words.matcher import _Lexicon
records = []
handler = logging.Handler(); handler.emit = records.append
logging.getLogger("dichotomy_widget.wordsdata").addHandler(handler)
logging.getLogger("dichotomy_widget.wordsdata").setLevel(logging.INFO)
path = tables.table_path("xx", Path(sys.argv[1]))
lex = _Lexicon(path)
assert {lex.word(i) for i in lex.lemmas("running")} == {"run"}
print(sum(r.getMessage().startswith("built") for r in records))
"""


def test_kernels_starting_together_build_a_table_once(tmp_path):
    """Four processes ask for the same missing table at once: one builds it under the lock, the others
    wait and read it."""
    forms = FORMS + "".join(f"w{i:05d}\tsimplemma\t{' '.join(f'w{i:05d}x{j}' for j in range(8))}\n" for i in range(20000))
    write_sources(tmp_path, forms)
    env = dict(os.environ, DICHOTOMY_WORDS_CACHE=str(tmp_path / "cache"),
               PYTHONPATH=os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH", "")) if p))
    racers = [subprocess.Popen([sys.executable, "-c", RACER, str(tmp_path)], env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True) for _ in range(4)]
    results = [p.communicate(timeout=300) for p in racers]
    assert [p.returncode for p in racers] == [0] * 4, [err[-2000:] for _out, err in results]
    assert sorted(int(out.strip()) for out, _err in results) == [0, 0, 0, 1]


# --- the committed sources ----------------------------------------------------------------------

SOURCES = sorted(tables.SOURCES_DIR.glob("*.tsv"))
SOURCE_NAMES = re.compile(r"^(simplemma|lemminflect|wordnet|hunspell|rule:[a-z-]+)$")
WORD = re.compile(r"^[^\W\d_]+(?:['-][^\W\d_]+)*$")


def test_the_text_sources_are_in_the_package():
    langs = {p.name.split(".")[0] for p in SOURCES}
    assert {"en", "fr", "it", "pt"} <= langs, SOURCES
    assert all((tables.SOURCES_DIR / f"{lang}.links.tsv").is_file() for lang in langs)


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.name)
def test_each_source_file_is_sorted_one_fact_per_line_with_its_source(path: Path):
    lines = [line for line in path.read_text(encoding="utf-8").splitlines() if not line.startswith("#")]
    assert lines, path
    keys = []
    for line in lines:
        fields = line.split("\t")
        if path.name.endswith(".forms.tsv"):
            lemma, source, forms = fields
            assert WORD.match(lemma) and SOURCE_NAMES.match(source), line
            assert all(WORD.match(f) and f != lemma for f in forms.split(" ") if forms), line
            assert forms.split(" ") == sorted(forms.split(" ")), line
            keys.append((lemma, source))
        else:
            a, b, kind, source = fields
            assert a < b and kind in ("strong", "weak") and SOURCE_NAMES.match(source), line
            keys.append((a, b, kind))
    assert keys == sorted(keys) and len(set(keys)) == len(keys), f"{path.name} is not sorted or repeats a key"


def test_every_language_table_answers():
    for lang in tables.LANGUAGES:
        path = tables.table_path(lang)
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
            assert db.execute("SELECT count(*) FROM lex").fetchone()[0] > 100_000, lang


def test_stale_names_the_languages_still_to_build(tmp_path, monkeypatch):
    monkeypatch.setenv("DICHOTOMY_WORDS_CACHE", str(tmp_path / "cache"))
    write_sources(tmp_path)
    assert tables.stale(["xx", "yy"], tmp_path) == ["xx"]  # yy: no sources, nothing to build
    tables.table_path("xx", tmp_path)
    assert tables.stale(["xx"], tmp_path) == []
