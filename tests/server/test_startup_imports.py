"""What a server start imports: only what answering tools/list needs.

Importing the model clients took most of a second of `gavel serve`'s start on 2 cores; a start needs none of
them, and a process uses one backend at most, so each is imported when first used. The other commands' modules
(the ledger readers, calibration, config, demo) are named in the command table and imported only when run.
These tests build the server, or run a real `gavel serve` over stdio, in a fresh interpreter and look at what
got imported.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import anyio
import mcp
from mcp.client.stdio import StdioServerParameters, stdio_client

from tests.conftest import PYTHON, REPO_ROOT
from tests.support.processes import tools_list_over_stdio

# Model clients and optional extras: imported when a call first needs them, never by a start.
NOT_AT_START = ("openai", "ollama", "xllamacpp", "psycopg", "psycopg_pool")

SCRIPT = f"""
import json, sys
import gavel.server.cli.main  # the command and every subcommand it registers
from gavel.server.settings import load_settings
from gavel.server.app import build_server
from gavel.server.call_deps import make_deps_factory
from gavel.tools.rubric_registry import RubricRegistry
import gavel.server.transports

settings = load_settings({{"GAVEL_LEDGER_PATH": "off"}})
registry = RubricRegistry.load()
build_server(settings, registry, make_deps_factory(settings, registry))
print(json.dumps(sorted(m for m in sys.modules if m.split(".")[0] in {NOT_AT_START!r})))
"""


def test_building_the_server_imports_no_model_client(clean_env: dict[str, str]) -> None:
    done = subprocess.run(
        [PYTHON, "-c", SCRIPT], cwd=REPO_ROOT, env=clean_env, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []


# What `gavel serve` over stdio must not have imported by the time it stops: the other commands' handlers, and
# every model client (httpx is the Ollama and OpenAI clients' transport; the SDK speaks httpx2).
NOT_FOR_SERVE = (
    "gavel.server.cli.calibrate", "gavel.server.cli.describe", "gavel.server.cli.history", "gavel.server.cli.demo",
    "httpx", *NOT_AT_START,
)  # fmt: skip
SERVE = """
import atexit, json, sys
from gavel.server.cli.main import main
atexit.register(lambda: sys.stderr.write("IMPORTED " + json.dumps(sorted(sys.modules)) + "\\n"))
raise SystemExit(main(["serve"]))
"""


def test_a_stdio_serve_answers_tools_list_without_the_other_commands_or_a_model_client(
    clean_env: dict[str, str], tmp_path: Path
) -> None:
    ledger = tmp_path / "ledger.sqlite3"
    env = {**clean_env, "GAVEL_LEDGER_PATH": str(ledger)}
    line, stderr, returncode = tools_list_over_stdio([PYTHON, "-c", SERVE], env)
    listed = None if line is None else json.loads(line)
    assert listed is not None and len(listed["result"]["tools"]) == 6, stderr[-2000:]
    assert returncode == 0, stderr[-2000:]
    imported = json.loads(stderr.decode().rsplit("IMPORTED ", 1)[1])
    assert [m for m in imported if m in NOT_FOR_SERVE or m.split(".")[0] in NOT_FOR_SERVE] == []
    assert not ledger.exists()  # opened at the first judgment, not by a start


# What a start and a tools/list never need: the tools' table and their request and result models (tools/list is
# the stored listing), each tool's code and the engine under it, the judge, the backend provider, the injection
# detector's rules, the ledger (its calls, its SQLite code, the user directory it lives in), the HTTP connection
# guard (h11), and structlog (a start's lines are written without it). Each loads at the first call (or HTTP serve)
# that uses it.
LOADED_AT_FIRST_CALL = (
    "gavel.server.tool_registry", "gavel.tools.assessment", "gavel.tools.refine", "gavel.tools.rag",
    "gavel.tools.candidates", "gavel.tools.calibration.models", "gavel.tools.rag.orchestration",
    "gavel.tools.candidates.orchestration", "gavel.tools.calibration.measure",
    "gavel.tools.engine.judge", "gavel.tools.engine.provider", "gavel.tools.guards.injection",
    "gavel.server.ledger_calls", "gavel.tools.ledger.ledger", "sqlite3", "platformdirs",
    "gavel.server.connections", "h11", "structlog", "gavel.tools.engine.progress", "gavel.tools.engine.scores",
)  # fmt: skip


async def test_an_mcp_client_lists_the_tools_of_a_stdio_serve_that_loaded_no_tool_code(
    clean_env: dict[str, str], tmp_path: Path
) -> None:
    params = StdioServerParameters(
        command=PYTHON, args=["-c", SERVE], cwd=str(REPO_ROOT),
        env={**clean_env, "GAVEL_LEDGER_PATH": str(tmp_path / "ledger.sqlite3")},
    )  # fmt: skip
    stderr = tmp_path / "stderr.log"
    with stderr.open("w") as errlog, anyio.fail_after(120):
        async with mcp.Client(stdio_client(params, errlog=errlog)) as client:
            listed = await client.list_tools()
    assert len(listed.tools) == 6
    # The client's exit closes stdin and waits for the server, which writes what it imported on the way out.
    imported = json.loads(stderr.read_text().rsplit("IMPORTED ", 1)[1].splitlines()[0])
    assert [m for m in imported if m in LOADED_AT_FIRST_CALL] == []
