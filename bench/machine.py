"""A description of the machine a benchmark ran on, stored with every result."""

from __future__ import annotations

import os
import platform
import subprocess
from datetime import UTC, datetime
from typing import Any


def describe() -> dict[str, Any]:
    cpu = platform.processor() or ""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    memory_gib = None
    try:
        pages = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        memory_gib = round(pages / 2**30, 1)
    except (ValueError, OSError):
        pass
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False)
    return {
        "when": datetime.now(UTC).isoformat(timespec="seconds"),
        "cpu": cpu,
        "cores": os.cpu_count(),
        "memory_gib": memory_gib,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "commit": commit.stdout.strip() or None,
    }
