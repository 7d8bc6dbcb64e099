"""Hatch build hook: the wheel carries every word table ready-built.

Each language whose text sources (``dichotomy_widget/wordsdata/<lang>.forms.tsv`` and
``.links.tsv``) are in the tree is compiled into ``<lang>.sqlite`` by
``dichotomy_widget/wordsdata/table_build.py`` (standard library only: it is loaded as a file, so the
build needs nothing but hatchling); the text itself stays out of the wheel. Editable installs skip
this: there the tables are built on first use (``dichotomy_widget/wordsdata/tables.py``).
"""

from __future__ import annotations

import importlib.util
import sys
import tempfile
from pathlib import Path

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

WORDSDATA = Path("dichotomy_widget") / "wordsdata"

def _table_build(root: Path):
    path = root / WORDSDATA / "table_build.py"
    spec = importlib.util.spec_from_file_location("_dichotomy_table_build", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclass-free, but keep the usual import invariant
    spec.loader.exec_module(module)
    return module


class WordTablesHook(BuildHookInterface):
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict) -> None:
        if self.target_name != "wheel" or version == "editable":
            return
        root = Path(self.root)
        folder = root / WORDSDATA
        build = _table_build(root)
        self._tmp = tempfile.TemporaryDirectory(prefix="dichotomy-wordsdata-")
        for lang in build.LANGUAGES:
            target = WORDSDATA / f"{lang}.sqlite"
            if not build.source_files(lang, folder):
                raise RuntimeError(f"no word data for {lang}: no text sources in {folder}")
            built = build.build_table(lang, Path(self._tmp.name) / f"{lang}.sqlite", folder)
            build_data["force_include"][str(built)] = str(target)

    def finalize(self, version: str, build_data: dict, artifact_path: str) -> None:
        tmp = getattr(self, "_tmp", None)
        if tmp is not None:
            tmp.cleanup()
