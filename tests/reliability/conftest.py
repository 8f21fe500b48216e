"""The reliability suite reports what it tried: cases, faults, load, injection figures, at the end of the run.

`GAVEL_FULL_RELIABILITY=1 pytest tests/reliability` runs every part at full size (see support.FULL).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.reliability.support import FULL, TALLY

# Where the figures of the last run go as JSON too (for the README's Reliability section).
REPORT_PATH_ENV = "GAVEL_RELIABILITY_REPORT"


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, exitstatus: int, config: pytest.Config) -> None:
    if not TALLY:
        return
    terminalreporter.section(f"gavel reliability figures ({'full' if FULL else 'CI'} size)")
    width = max(len(key) for key in TALLY)
    for key in sorted(TALLY):
        value = TALLY[key]
        shown = f"{value:,}" if isinstance(value, int) else f"{value:,.1f}"
        terminalreporter.write_line(f"{key.ljust(width)}  {shown}")
    path = os.environ.get(REPORT_PATH_ENV)
    if path:
        Path(path).write_text(json.dumps({"full": FULL, **TALLY}, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        terminalreporter.write_line(f"written to {path}")
