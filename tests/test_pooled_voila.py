"""``server/pooled_voila.py``: the voila application ``dichotomy serve`` runs (its caching and logging;
the pool itself is exercised in tests/browser/test_pool.py)."""

from __future__ import annotations

import logging

import pytest

from dichotomy_widget.server.pooled_voila import CONTENT_HASHED, DichotomyVoila


@pytest.mark.parametrize("name, hashed", [
    ("remoteEntry.698dcaf7.js", True), ("2.3dbf81c0.js", True), ("84.09c61a35dce1705f.js", True),
    ("style.css.0a1b2c3d4e.css", True), ("package.json", False), ("index.js", False), ("style.js", False),
    ("7155.voila.js", False), ("remoteEntry.js", False), ("deadbeef.json", False),
])
def test_only_files_named_by_their_content_hash_count_as_immutable(name, hashed):
    assert bool(CONTENT_HASHED.search(name)) is hashed


@pytest.mark.parametrize("argv, debug", [([], False), (["--debug"], True)])
def test_the_server_builds_debug_records_only_when_asked_to(tmp_path, argv, debug):
    app = DichotomyVoila()
    app.initialize(["--no-browser", "--port=1", *argv, str(tmp_path)])
    assert app.log.isEnabledFor(logging.DEBUG) is debug
    assert app.log.isEnabledFor(logging.INFO)
