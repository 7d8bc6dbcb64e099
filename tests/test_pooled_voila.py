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


def test_the_pages_are_signed_at_start_so_opening_one_logs_no_trust_warning(tmp_path):
    """Issue 28: jupyter_server checks a notebook's signature each time voila loads it ("Notebook
    class.ipynb is not trusted" for every page opened). The server signs its pages when it starts, in
    memory with a secret of its own; a page changed afterwards is not trusted."""
    import shutil
    from pathlib import Path

    from jupyter_server.services.contents.largefilemanager import LargeFileManager
    from nbformat.sign import NotebookNotary

    import dichotomy_widget.server.pooled_voila as pooled

    pages = Path(pooled.__file__).resolve().parents[1] / "pages" / "notebooks"
    for name in ("class.ipynb", "seat.ipynb"):
        shutil.copy(pages / name, tmp_path / name)
    app = DichotomyVoila()
    app.initialize(["--no-browser", "--port=1", str(tmp_path)])
    assert pooled.sign_pages(Path(app.root_dir), NotebookNotary(parent=app)) == 2
    (tmp_path / "seat.ipynb").write_text((tmp_path / "seat.ipynb").read_text().replace("seat_page", "seat_page "))
    manager = LargeFileManager(parent=app, root_dir=str(tmp_path))
    warned = []
    manager.log = logging.getLogger("test-contents")
    manager.log.warning = lambda msg, *args: warned.append(msg % args)  # type: ignore[method-assign]
    trusted = {name: all(c.metadata.get("trusted") for c in manager.get(name)["content"].cells
                         if c.cell_type == "code") for name in ("class.ipynb", "seat.ipynb")}
    assert trusted == {"class.ipynb": True, "seat.ipynb": False}
    assert warned == ["Notebook seat.ipynb is not trusted"]
    assert NotebookNotary(parent=app).store is pooled.PAGE_SIGNATURES  # in memory: no file written



def test_the_servers_log_drops_only_the_libraries_ping_notice():
    import dichotomy_widget.server.pooled_voila as pooled

    def record(msg: str) -> logging.LogRecord:
        return logging.LogRecord("tornado.general", logging.WARNING, __file__, 1, msg, None, None)

    notice = record("The websocket_ping_timeout (90000) cannot be longer than the websocket_ping_interval (30000).")
    assert pooled._not_the_ping_notice(notice) is False
    assert pooled._not_the_ping_notice(record("Uncaught exception GET /voila/render/seat.ipynb")) is True


def test_a_page_renderer_whose_kernel_stopped_logs_one_line_and_any_other_task_its_traceback():
    import sys

    import dichotomy_widget.server.pooled_voila as pooled

    def unretrieved(coro: str, error: BaseException) -> logging.LogRecord:
        try:
            raise error
        except BaseException:
            info = sys.exc_info()
        message = f"Task exception was never retrieved\nfuture: <Task finished name='Task-8' coro=<{coro}() done>>"
        return logging.LogRecord("asyncio", logging.ERROR, __file__, 1, message, None, info)

    page = unretrieved("VoilaHandler.get_generator.<locals>.put_html", RuntimeError("Kernel died before replying"))
    assert pooled._one_line_for_a_page_whose_kernel_stopped(page) is True  # kept, as one line
    assert page.exc_info is None and page.levelno == logging.WARNING
    assert page.getMessage() == "a page stopped before it was sent, its kernel gone (shut down or died): RuntimeError"
    other = unretrieved("Aggregate.watch", RuntimeError("a bug"))
    assert pooled._one_line_for_a_page_whose_kernel_stopped(other) is True
    assert other.exc_info is not None and other.levelno == logging.ERROR  # a bug keeps its traceback
