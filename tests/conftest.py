"""Session-wide pytest hooks."""

from __future__ import annotations

import sys


def pytest_terminal_summary(terminalreporter) -> None:  # type: ignore[no-untyped-def]
    """List the benches that ran in their smoke mode (tests/test_bench_smoke.py), if any did."""
    module = sys.modules.get("test_bench_smoke") or sys.modules.get("tests.test_bench_smoke")
    ran = getattr(module, "RAN", None)
    if not ran:
        return
    terminalreporter.section("benches run in smoke mode")
    for script, seconds, code in sorted(ran):
        terminalreporter.write_line(f"{script:40} {seconds:6.1f} s  exit {code}")
