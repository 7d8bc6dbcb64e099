"""Session-wide pytest hooks."""

from __future__ import annotations

#: The longest test modules (minutes each on two cores), run first and in this order: pytest-xdist's
#: --dist loadfile (with --no-loadscope-reorder, pyproject.toml) deals the first modules to its two
#: workers in turn, so the long ones start at once on both workers and the short ones fill in after
#: (xdist's own order, by number of tests, started the one-test five-minute module last).
LONGEST_FIRST = (
    "tests/browser/test_languages.py", "tests/browser/test_serve.py", "tests/browser/test_hub_browser.py",
    "tests/test_bench_smoke.py", "tests/browser/test_class_browser.py", "tests/browser/test_pool.py",
    "tests/browser/test_phone.py", "tests/browser/test_jupyterlab.py", "tests/browser/test_faults_browser.py",
    "tests/browser/test_serve_decks.py", "tests/browser/test_flood.py", "tests/test_scale_out.py",
    "tests/test_properties.py",
)


def pytest_configure(config) -> None:  # type: ignore[no-untyped-def]
    """Build the word tables before the first test (a fresh checkout compiles them from their text
    sources once; pytest-xdist's workers wait on the same lock instead of each test timing out)."""
    from dichotomy_widget.wordsdata import prepare

    prepare()


def pytest_collection_modifyitems(config, items) -> None:  # type: ignore[no-untyped-def]
    """Put the modules of :data:`LONGEST_FIRST` first, in its order (the rest keep theirs)."""
    rank = {path: i for i, path in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::", 1)[0], len(rank)))


def pytest_terminal_summary(terminalreporter) -> None:  # type: ignore[no-untyped-def]
    """List the benches that ran in their smoke mode (tests/test_bench_smoke.py), if any did.

    Each bench test records ``("bench", (script, seconds, exit code))`` in its report's user
    properties, which reach this hook from pytest-xdist's workers too.
    """
    ran = set()
    for reports in terminalreporter.stats.values():
        for report in reports:
            for key, value in getattr(report, "user_properties", ()):
                if key == "bench" and getattr(report, "when", "call") == "call":
                    ran.add(tuple(value))
    if not ran:
        return
    terminalreporter.section("benches run in smoke mode")
    for script, seconds, code in sorted(ran):
        terminalreporter.write_line(f"{script:40} {seconds:6.1f} s  exit {code}")
