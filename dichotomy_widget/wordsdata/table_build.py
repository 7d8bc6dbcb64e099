"""Compile a language's text sources (``<lang>.forms.tsv``, ``<lang>.links.tsv``, see ``README.md``)
into the SQLite table the variant matcher reads.

Standard library only and no import from the package, so the wheel's build hook
(``hatch_build.py``) can load this file on its own; ``tables`` decides where a table lives and when
it is built.
"""

from __future__ import annotations

import hashlib
import logging
import os
import sqlite3
import time
from collections import defaultdict
from collections.abc import Iterable, Iterator
from pathlib import Path

__all__ = ["FORMAT", "LANGUAGES", "Lexicon", "build_table", "digest", "family_sets", "read_sources", "source_files", "stamp",
           "write_forms", "write_links", "write_table"]

log = logging.getLogger(__name__)

#: The languages with a lexicon table.
LANGUAGES = ("en", "es", "fr", "de", "it", "pt")
#: The table layout and build; a table built by another version is built again.
FORMAT = "1"
#: Weak (derivation) links followed when a family is gathered; strong ones up to three times.
DEPTH = 1
STRONG_DEPTH = 3


class Lexicon:
    """Form -> lemmas and lemma <-> lemma family links, keyed by folded strings."""

    def __init__(self) -> None:
        self.forms: dict[str, set[str]] = defaultdict(set)
        self.strong: dict[str, set[str]] = defaultdict(set)  # transparent: -ly, -ness, un-/in-
        self.weak: dict[str, set[str]] = defaultdict(set)  # any other derivation link

    @property
    def lemmas(self) -> set[str]:
        return {lemma for lemmas in self.forms.values() for lemma in lemmas}


# --- text sources -------------------------------------------------------------------------------

def _forms_path(lang: str, folder: Path) -> Path:
    return folder / f"{lang}.forms.tsv"


def _links_path(lang: str, folder: Path) -> Path:
    return folder / f"{lang}.links.tsv"


def _data_lines(path: Path) -> Iterator[list[str]]:
    with open(path, encoding="utf-8") as text:
        for line in text:
            if line.strip() and not line.startswith("#"):
                yield line.rstrip("\n").split("\t")


def read_sources(lang: str, folder: Path) -> Lexicon:
    """The lexicon a language's text sources describe (the sources' names are not needed here)."""
    lex = Lexicon()
    for fields in _data_lines(_forms_path(lang, folder)):
        lemma, forms = fields[0], fields[2].split(" ") if len(fields) > 2 and fields[2] else []
        lex.forms[lemma].add(lemma)  # a lemma is a form of itself
        for form in forms:
            lex.forms[form].add(lemma)
    links = _links_path(lang, folder)
    if links.is_file():
        for a, b, kind, *_source in _data_lines(links):
            table = lex.strong if kind == "strong" else lex.weak
            table[a].add(b)
            table[b].add(a)
    return lex


def _write_header(out, header: Iterable[str]) -> None:
    for line in header:
        out.write(f"# {line}\n" if line else "#\n")


def write_forms(path: Path, pairs: dict[tuple[str, str], str], header: Iterable[str] = ()) -> None:
    """``pairs``: (form, lemma) -> the source that gave it. One line per lemma and source, sorted:
    ``lemma<TAB>source<TAB>forms`` (space-separated; the lemma itself is implied, and a lemma with
    no other form gets one line with none)."""
    grouped: dict[tuple[str, str], set[str]] = defaultdict(set)
    self_source: dict[str, str] = {}
    for (form, lemma), source in pairs.items():
        if form == lemma:
            self_source[lemma] = source
        else:
            grouped[(lemma, source)].add(form)
    listed = {lemma for lemma, _source in grouped}
    for lemma, source in self_source.items():
        if lemma not in listed:
            grouped[(lemma, source)] = set()
    with open(path, "w", encoding="utf-8", newline="\n") as out:
        _write_header(out, header)
        for (lemma, source), forms in sorted(grouped.items()):
            out.write(f"{lemma}\t{source}\t{' '.join(sorted(forms))}\n")


def write_links(path: Path, links: dict[tuple[str, str, str], str], header: Iterable[str] = ()) -> None:
    """``links``: (a, b, "strong" | "weak") with a < b -> source. One sorted line per link."""
    with open(path, "w", encoding="utf-8", newline="\n") as out:
        _write_header(out, header)
        for (a, b, kind), source in sorted(links.items()):
            out.write(f"{a}\t{b}\t{kind}\t{source}\n")


# --- the SQLite table ---------------------------------------------------------------------------

def _closure(links: dict[str, set[str]], lemma: str, depth: int) -> set[str]:
    """Lemmas reachable from ``lemma`` through at most ``depth`` links (itself included)."""
    seen, frontier = {lemma}, {lemma}
    for _ in range(depth):
        frontier = {n for f in frontier for n in links.get(f, ())} - seen
        seen |= frontier
    return seen


def family_sets(lex: Lexicon, depth: int = DEPTH) -> dict[str, set[str]]:
    """A lemma's family: strong links (up to three), then ``depth`` weak links, then strong again."""
    strong = {lemma: _closure(lex.strong, lemma, STRONG_DEPTH) for lemma in set(lex.strong) | set(lex.weak)}
    out = {}
    for lemma in strong:
        family = set(strong[lemma])
        frontier = set(family)
        for _ in range(depth):
            step = {n for f in frontier for n in lex.weak.get(f, ())}
            frontier = {m for n in step for m in strong.get(n, {n})} - family
            family |= frontier
        out[lemma] = family - {lemma}
    return out


def write_table(lex: Lexicon, lang: str, path: Path, meta: dict[str, str] | None = None,
                depth: int = DEPTH) -> Path:
    """Write ``lex`` as the read-only table the matcher opens (atomically: a temporary file, then a
    rename, so a reader never sees half a table)."""
    ids = {lemma: i for i, lemma in enumerate(sorted(lex.lemmas))}
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.unlink(missing_ok=True)
    db = sqlite3.connect(tmp)
    try:
        db.execute("PRAGMA page_size=4096")
        db.execute("PRAGMA journal_mode=OFF")
        db.execute("PRAGMA synchronous=OFF")
        db.execute("CREATE TABLE lex(form TEXT PRIMARY KEY, lems TEXT NOT NULL) WITHOUT ROWID")
        db.execute("CREATE TABLE fam(lem INTEGER PRIMARY KEY, rel TEXT NOT NULL)")
        db.execute("CREATE TABLE lem(id INTEGER PRIMARY KEY, word TEXT NOT NULL)")
        db.execute("CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT) WITHOUT ROWID")
        db.executemany("INSERT INTO lem VALUES (?, ?)", ((i, lemma) for lemma, i in ids.items()))
        db.executemany(
            "INSERT INTO lex VALUES (?, ?)",
            ((form, " ".join(str(ids[l]) for l in sorted(lemmas))) for form, lemmas in sorted(lex.forms.items())),
        )
        db.executemany(
            "INSERT INTO fam VALUES (?, ?)",
            sorted((ids[l], " ".join(str(i) for i in sorted(ids[r] for r in rel)))
                   for l, rel in family_sets(lex, depth).items() if rel and l in ids),
        )
        db.executemany("INSERT INTO meta VALUES (?, ?)",
                       sorted({"lang": lang, "depth": str(depth), **(meta or {})}.items()))
        db.commit()
        db.execute("VACUUM")
    finally:
        db.close()
    os.replace(tmp, path)
    return path


def source_files(lang: str, folder: Path) -> list[Path]:
    """The text sources of ``lang`` in ``folder`` (none when the language comes as a built table)."""
    return [p for p in (_forms_path(lang, folder), _links_path(lang, folder)) if p.is_file()]


def stamp(files: list[Path]) -> str:
    """Cheap identity of the sources: name, size and modification time of each (one stat each)."""
    return ";".join(f"{p.name}:{p.stat().st_size}:{p.stat().st_mtime_ns}" for p in files) + f";format:{FORMAT}"


def digest(files: list[Path]) -> str:
    sha = hashlib.sha256(FORMAT.encode())
    for p in files:
        sha.update(p.name.encode() + b"\0" + p.read_bytes())
    return sha.hexdigest()


def build_table(lang: str, path: Path, folder: Path) -> Path:
    """Compile a language's text sources into the table at ``path``."""
    files = source_files(lang, folder)
    started = time.monotonic()
    lex = read_sources(lang, folder)
    write_table(lex, lang, path, {"stamp": stamp(files), "sha256": digest(files), "format": FORMAT})
    log.info("built the %s word table (%d forms) in %.1f s: %s", lang, len(lex.forms),
             time.monotonic() - started, path)
    return path
