"""The figures the reliability suite reports at the end of the run (cases, faults, load, injection), merged across
pytest-xdist workers; `GAVEL_FULL_RELIABILITY=1 pytest tests/reliability` runs every part at full size (`FULL`).

Each worker counts into its own `TALLY`; at the end of its session it hands it to the controller
(`config.workeroutput`), which merges them and prints one table. A figure naming the slowest of something is
the largest over the workers; every other figure is a count, summed (a figure one test sets lives in one
worker, so the sum is that figure). The root conftest (tests/conftest.py) calls this: the controller loads that
conftest, not the ones under it.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Mapping
from pathlib import Path

import pytest

TALLY: Counter[str] = Counter()

# `GAVEL_FULL_RELIABILITY=1 pytest tests/reliability` runs every suite at full size.
FULL = os.environ.get("GAVEL_FULL_RELIABILITY", "") not in ("", "0")

# Where the figures of the last run go as JSON too (for the README's Reliability section).
REPORT_PATH_ENV = "GAVEL_RELIABILITY_REPORT"
WORKER_OUTPUT_KEY = "gavel_reliability_tally"


def merge(figures: Mapping[str, float]) -> None:
    for key, value in figures.items():
        TALLY[key] = max(TALLY[key], value) if "slowest" in key else TALLY[key] + value  # type: ignore[assignment]


def write(terminalreporter: pytest.TerminalReporter) -> None:
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
