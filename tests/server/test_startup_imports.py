"""What a server start imports: only what answering tools/list needs.

Importing the model clients took most of a second of `gavel serve`'s start on 2 cores; a start needs none of
them, and a process uses one backend at most, so each is imported when first used. This test builds the
server the way `gavel serve` does, in a fresh interpreter, and looks at what got imported.
"""

from __future__ import annotations

import json
import subprocess

from tests.conftest import PYTHON, REPO_ROOT

# Model clients and optional extras: imported when a call first needs them, never by a start.
NOT_AT_START = ("openai", "ollama", "xllamacpp", "psycopg", "psycopg_pool")

SCRIPT = f"""
import json, sys
import gavel.server.cli  # the command and every subcommand it registers
from gavel.server.settings import load_settings
from gavel.server.app import build_server
from gavel.server.tool_registry import make_deps_factory
from gavel.tools.rubrics import RubricRegistry
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
