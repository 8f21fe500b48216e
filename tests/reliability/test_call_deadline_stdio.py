"""The whole-call bound over stdio: `gavel serve` as a real process, the real Ollama client against a test server
that accepts and never answers in time, and the official MCP client.

Before the whole-call deadline, `samples=3` took 43 s and a 5-answer batch 88 s at GAVEL_TIMEOUT_S=5: every
sample, re-ask and answer waited out its own timeout.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import mcp
import pytest
from mcp import StdioServerParameters

from tests.conftest import PYTHON
from tests.reliability.test_backend_faults import CALLS, MODEL, Model
from tests.support.injection_cases import RAG_ANSWER
from tests.support.ollama_server import OllamaTestServer

pytestmark = pytest.mark.slow

TIMEOUT_S = 1.0
DEADLINE_S = 3.0
# Start-up, the log-probability probe and the calls in flight when the first one timed out: a few timeouts.
BOUND_S = DEADLINE_S + 4 * TIMEOUT_S + 4.0
FIVE_ANSWERS = [{"agent_name": f"agent-{i}", "answer": RAG_ANSWER} for i in range(5)]


@pytest.fixture
def silent_ollama() -> Iterator[OllamaTestServer]:
    with OllamaTestServer(Model(), models=[MODEL], slow_s=30.0) as server:
        server.fault = "slow"
        yield server


def _params(env: dict[str, str], ollama: OllamaTestServer) -> StdioServerParameters:
    settings = {
        "GAVEL_BACKEND": "ollama",
        "GAVEL_OLLAMA_HOST": ollama.url,
        "GAVEL_JUDGE_MODEL": MODEL,
        "GAVEL_GENERATOR_MODEL": MODEL,
        "GAVEL_TIMEOUT_S": str(TIMEOUT_S),
        "GAVEL_CALL_DEADLINE_S": str(DEADLINE_S),
    }
    return StdioServerParameters(command=PYTHON, args=["-m", "gavel.server", "serve"], env={**env, **settings})


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        pytest.param("evaluate_assessment", {**CALLS["evaluate_assessment"], "samples": 3}, id="assessment-3-samples"),
        pytest.param(
            "judge_rag_answers",
            {**CALLS["judge_rag_answers"], "answers": FIVE_ANSWERS},
            id="rag-batch-of-5",
        ),
    ],
)
async def test_a_silent_model_cannot_hold_a_stdio_call_past_its_bound(
    clean_env: dict[str, str], silent_ollama: OllamaTestServer, tool: str, arguments: dict
) -> None:
    async with mcp.Client(_params(clean_env, silent_ollama), read_timeout_seconds=60) as client:
        started = time.monotonic()
        result = await client.call_tool(tool, arguments)
        elapsed = time.monotonic() - started
    text = json.dumps(result.structured_content)
    assert result.is_error is False, text[:500]
    assert elapsed < BOUND_S, f"{tool} took {elapsed:.1f} s against a model that never answers"
    assert "timed out" in text or "GAVEL_CALL_DEADLINE_S" in text, text[:800]
    assert _scores(result.structured_content) and not any(_scores(result.structured_content)), text[:800]


def _scores(value: object) -> list[object]:
    """Every `score` in a result, however nested: a model that never answered gave none of them."""
    if isinstance(value, dict):
        own = [value["score"]] if "score" in value else []
        return own + [s for child in value.values() for s in _scores(child)]
    if isinstance(value, list):
        return [s for child in value for s in _scores(child)]
    return []
