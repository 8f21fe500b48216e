"""tools/list, byte for byte, as `gavel serve` answers it over stdio: what agents read must not drift by accident.

Start-up work (lazy imports, cheaper registration) must leave the listing alone. A start answers from the stored
listing (server/tools_list.json), so a deliberate change to a tool's name, description or schema regenerates that
first (`python -m gavel.server.tool_listing`), then this snapshot: `python -m tests.server.test_tools_list_snapshot`.
"""

from __future__ import annotations

import os
from pathlib import Path

from tests.conftest import PYTHON
from tests.support.processes import tools_list_over_stdio

SNAPSHOT = Path(__file__).with_name("tools_list.jsonl")


def listed_line(env: dict[str, str]) -> bytes:
    """The raw JSON-RPC line that answers tools/list."""
    line, stderr, returncode = tools_list_over_stdio([PYTHON, "-m", "gavel.server", "serve"], env)
    assert line is not None and returncode == 0, stderr[-2000:]
    return line


def test_tools_list_is_byte_identical_to_the_snapshot(clean_env: dict[str, str]) -> None:
    assert listed_line(clean_env) == SNAPSHOT.read_bytes().rstrip(b"\n")


if __name__ == "__main__":
    env = {k: v for k, v in os.environ.items() if not k.startswith("GAVEL_") and k != "OLLAMA_HOST"}
    env.update({"GAVEL_OLLAMA_HOST": "http://127.0.0.1:9", "GAVEL_LEDGER_PATH": "off", "PYTHONUNBUFFERED": "1"})
    SNAPSHOT.write_bytes(listed_line(env) + b"\n")
