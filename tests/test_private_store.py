"""The store's folder and files are private (stores/private.py): ``dichotomy serve``, the hub service
and ``dichotomy hub-config --output``. Another Unix user reading them: tests/browser/test_hub_browser.py."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from dichotomy_widget.server.serve import main
from dichotomy_widget.stores import open_store
from dichotomy_widget.stores.private import OpenStoreFolder, prepare_private_store
from dichotomy_widget.server.voila_launch import resolve_store


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_new_store_gets_0700_folders_and_0600_files_including_the_wal_and_shm(tmp_path):
    db = tmp_path / "srv" / "dichotomy" / "tables.sqlite3"
    assert resolve_store(str(db)) == str(db)
    assert mode(tmp_path / "srv") == mode(db.parent) == 0o700
    store = open_store(str(db))  # a page's connection: WAL mode, so -wal and -shm exist while it is open
    try:
        store.create_table("ABCDEF", {"kind": "test"})
        store.append("ABCDEF", 0, [("Note", {"text": "hidden target"})])
        files = [db, Path(f"{db}-wal"), Path(f"{db}-shm")]
        assert all(p.exists() for p in files)
        assert {mode(p) for p in files} == {0o600}
    finally:
        store.close()


def test_an_old_open_store_file_is_narrowed_and_an_open_folder_is_refused_with_the_fix(tmp_path, capsys):
    private = tmp_path / "private"
    private.mkdir(mode=0o700)
    old = private / "tables.sqlite3"
    open_store(str(old)).close()
    old.chmod(0o644)
    prepare_private_store(old)
    assert mode(old) == 0o600
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o755)
    with pytest.raises(OpenStoreFolder, match=r"chmod 700 .*shared"):
        prepare_private_store(shared / "tables.sqlite3")
    assert not (shared / "tables.sqlite3").exists()  # refused before anything was written
    with pytest.raises(SystemExit, match=r"other users.*\n\s+chmod 700 "):
        main(["serve", "--store", str(shared / "tables.sqlite3"), "--port", "0"])
    shared.chmod(0o750)  # group may read: refused too
    with pytest.raises(SystemExit, match="chmod 700"):
        resolve_store(str(shared / "tables.sqlite3"))
    shared.chmod(0o711)  # others may pass through but not list: accepted (the files are 0600)
    resolve_store(str(shared / "tables.sqlite3"))
    assert mode(shared / "tables.sqlite3") == 0o600


def test_hub_config_output_is_written_0600_even_over_an_existing_file_and_printing_warns(tmp_path, capsys):
    target = tmp_path / "dichotomy_config.py"
    target.write_text("old")
    target.chmod(0o644)
    assert main(["hub-config", "--output", str(target)]) == 0
    assert mode(target) == 0o600 and "DICHOTOMY_HUB_SECRET" in target.read_text()
    assert main(["hub-config"]) == 0
    out, err = capsys.readouterr()
    assert "c.JupyterHub.services.append" in out and "chmod 600" in err and "chmod" not in out


def test_the_hub_service_refuses_a_secret_file_others_can_read(tmp_path):
    from dichotomy_widget.server.hub_service import service_command
    from dichotomy_widget.server.serve import build_parser

    secret = tmp_path / "hub-secret"
    secret.write_text("s" * 40)
    secret.chmod(0o644)
    env = {"JUPYTERHUB_SERVICE_URL": "http://127.0.0.1:10101", "JUPYTERHUB_SERVICE_PREFIX": "/services/dichotomy/",
           "DICHOTOMY_HUB_SECRET_FILE": str(secret)}
    args = build_parser().parse_args(["hub-service", "--store", str(tmp_path / "t.sqlite3")])
    with pytest.raises(SystemExit, match="chmod 600"):
        service_command(args, env)
    secret.chmod(0o600)
    _cmd, out = service_command(args, env)
    assert out["DICHOTOMY_HUB_SECRET"] == "s" * 40
