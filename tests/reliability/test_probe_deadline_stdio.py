"""One deadline bounds a whole call, the backend's probes included: `gavel serve` over stdio, the official MCP
client, and a real local HTTP server (Ollama's API or an OpenAI-compatible one) that accepts every request and never
answers. GAVEL_TIMEOUT_S=5 and GAVEL_CALL_DEADLINE_S=3: every call ends within 6 s, a 5-answer batch included, with
the ledger on (its cache key asks for the model's digest and readout before the tool runs).

Against d344139 the model-digest lookup and the log-probability probe ran outside the deadline, once per answer:
evaluate_assessment took 18 s and judge_rag_answers 23 s.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import mcp
import pytest
from mcp import StdioServerParameters

from tests.conftest import PYTHON
from tests.reliability.tally import TALLY
from tests.reliability.test_backend_faults import CALLS, MODEL, Model
from tests.support.injection_cases import RAG_ANSWER
from tests.support.ollama_server import OllamaTestServer
from tests.support.openai_server import OpenAITestServer

pytestmark = pytest.mark.slow

TIMEOUT_S = 5.0
DEADLINE_S = 3.0
BOUND_S = 6.0
FIVE_ANSWERS = [{"agent_name": f"agent-{i}", "answer": RAG_ANSWER} for i in range(5)]
TOOLS = [
    pytest.param("evaluate_assessment", CALLS["evaluate_assessment"], id="assessment"),
    pytest.param("judge_rag_answers", {**CALLS["judge_rag_answers"], "answers": FIVE_ANSWERS}, id="rag-batch-of-5"),
]


@pytest.fixture(params=["ollama", "openai"])
def silent(request: pytest.FixtureRequest) -> Iterator[dict[str, str]]:
    """The settings that point `gavel serve` at a server that never answers."""
    if request.param == "ollama":
        with OllamaTestServer(Model(), models=[MODEL], fault="slow", slow_s=60.0) as ollama:
            yield {"GAVEL_BACKEND": "ollama", "GAVEL_OLLAMA_HOST": ollama.url, "GAVEL_JUDGE_MODEL": MODEL}
    else:
        with OpenAITestServer(models=[MODEL], fault="slow", slow_s=60.0) as server:
            yield {"GAVEL_BACKEND": "openai", "GAVEL_OPENAI_BASE_URL": server.url, "GAVEL_JUDGE_MODEL": MODEL}


def _params(env: dict[str, str], backend: dict[str, str], ledger: Path) -> StdioServerParameters:
    settings = {
        **backend,
        "GAVEL_TIMEOUT_S": str(TIMEOUT_S),
        "GAVEL_CALL_DEADLINE_S": str(DEADLINE_S),
        "GAVEL_LEDGER_PATH": str(ledger),
    }
    return StdioServerParameters(command=PYTHON, args=["-m", "gavel.server", "serve"], env={**env, **settings})


@pytest.mark.parametrize(("tool", "arguments"), TOOLS)
async def test_a_call_to_a_backend_that_never_answers_ends_within_its_deadline(
    clean_env: dict[str, str], silent: dict[str, str], tmp_path: Path, tool: str, arguments: dict
) -> None:
    async with mcp.Client(_params(clean_env, silent, tmp_path / "ledger.db"), read_timeout_seconds=60) as client:
        await client.list_tools()  # the server is up: what is timed is the call alone
        started = time.monotonic()
        result = await client.call_tool(tool, arguments)
        elapsed = time.monotonic() - started
        # The second call finds every probe remembered as failed: it is bounded the same way.
        started = time.monotonic()
        again = await client.call_tool(tool, arguments)
        elapsed_again = time.monotonic() - started
    key = "deadline: slowest call to a backend that never answers (3 s deadline, 5 s timeout), s"
    TALLY[key] = max(TALLY[key], round(max(elapsed, elapsed_again), 1))  # type: ignore[assignment]
    text = json.dumps(result.structured_content)
    assert result.is_error is False, text[:500]
    assert elapsed < BOUND_S, f"{tool} took {elapsed:.1f} s against a backend that never answers"
    assert elapsed_again < BOUND_S, f"{tool}'s second call took {elapsed_again:.1f} s"
    assert again.is_error is False
    assert "GAVEL_CALL_DEADLINE_S" in text or "timed out" in text, text[:800]
