"""A ledger that cannot record is said so, never a crash: GAVEL_LEDGER_URL without the `postgres` extra (psycopg
made unimportable for the child process) gives `gavel history` one line naming what to install and exit code 2, and
`gavel serve` keeps judging over stdio, each reply's text saying the judgment was not recorded; a SQLite ledger that
cannot be written says the same."""

from __future__ import annotations

from pathlib import Path

import mcp
import pytest
from mcp import StdioServerParameters

from tests.conftest import PYTHON
from tests.reliability.test_backend_faults import CALLS, MODEL, Model
from tests.support.ollama_server import OllamaTestServer
from tests.support.processes import run_gavel

pytestmark = pytest.mark.slow

URL = "postgresql://gavel@127.0.0.1:1/gavel"
INSTALL = "pip install 'gavel-mcp[postgres]'"


@pytest.fixture
def without_postgres(clean_env: dict[str, str], tmp_path: Path) -> dict[str, str]:
    """The environment of a Gavel installed without the `postgres` extra, pointed at a PostgreSQL ledger."""
    for name in ("psycopg", "psycopg_pool"):
        (tmp_path / "no-extra" / name).mkdir(parents=True)
        (tmp_path / "no-extra" / name / "__init__.py").write_text(
            f'raise ImportError("No module named {name}")\n', encoding="utf-8"
        )
    env = {k: v for k, v in clean_env.items() if k != "GAVEL_LEDGER_PATH"}  # 'off' there wins over the URL
    return {**env, "PYTHONPATH": str(tmp_path / "no-extra"), "GAVEL_LEDGER_URL": URL}


@pytest.mark.parametrize("command", [["history"], ["show", "0123456789abcdef"], ["export"]])
def test_reading_the_ledger_without_the_extra_is_one_line_saying_what_to_install(
    without_postgres: dict[str, str], command: list[str]
) -> None:
    result = run_gavel(command, without_postgres)
    assert result.returncode == 2, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert INSTALL in result.stderr and "Traceback" not in result.stderr


async def _judged_text(env: dict[str, str]) -> str:
    with OllamaTestServer(Model(), models=[MODEL]) as ollama:
        settings = {"GAVEL_BACKEND": "ollama", "GAVEL_OLLAMA_HOST": ollama.url, "GAVEL_JUDGE_MODEL": MODEL}
        params = StdioServerParameters(command=PYTHON, args=["-m", "gavel.server", "serve"], env={**env, **settings})
        async with mcp.Client(params, read_timeout_seconds=60) as client:
            result = await client.call_tool("evaluate_assessment", CALLS["evaluate_assessment"])
    assert result.is_error is False
    assert result.structured_content is not None and result.structured_content["evaluation_id"] is None
    return result.content[0].text  # type: ignore[union-attr]


async def test_serving_without_the_extra_judges_and_says_nothing_was_recorded(without_postgres: dict[str, str]) -> None:
    text = await _judged_text(without_postgres)
    assert "not recorded" in text and INSTALL in text, text[-600:]


async def test_a_sqlite_ledger_that_cannot_be_written_is_named_in_the_reply(
    clean_env: dict[str, str], tmp_path: Path
) -> None:
    (tmp_path / "ledger.db").mkdir()  # a directory where the ledger's file should be
    text = await _judged_text({**clean_env, "GAVEL_LEDGER_PATH": str(tmp_path / "ledger.db")})
    assert "not recorded" in text and "ledger.db" in text, text[-600:]
