"""Session-wide pytest hooks."""

from __future__ import annotations


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
