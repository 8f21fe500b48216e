"""What a client is told is what happened: the real server and the official MCP client (in memory), with the model
scripted at the seam or a real OpenAI-compatible HTTP server behind the real backend.

- refine_until_pass with every metric unscored stops with `nothing_scored`, not `no_low_metrics`;
- a backend that fails leaves the passages' relevance undecided: no `retrieval_miss`, no "the passages do not
  address the question", and the advice is to check the backend, not to use a stronger judge model;
- llama-server's build fingerprint (`b0-unknown`) is not reported as the model's digest;
- a scale 5e-324 wide, a top_k of 10^30 and `samples: true` are refused, each naming its field.
"""

from __future__ import annotations

import json
from typing import Any

import mcp
import pytest

from gavel.tools.engine.openai_backend import OpenAIBackend
from gavel.tools.errors import BackendError
from tests.reliability.support import REGISTRY, result_text, scripted_server
from tests.support.injection_cases import ASSESSMENT, RAG_ANSWER, RAG_PASSAGES, RAG_QUESTION
from tests.support.openai_server import OpenAITestServer
from tests.support.replies import reply_for_schema
from tests.support.scripted import ScriptedBackend

RAG = {"question": RAG_QUESTION, "answer": RAG_ANSWER, "sources": RAG_PASSAGES}
# On the question's topic in other words: the deterministic term check cannot vouch for them, only the judge can.
PARAPHRASED = [
    {"id": "S1", "content": "Pure H2O turns to vapour at 100 °C under one atmosphere."},
    {"id": "S2", "content": "In Denver the thinner air makes that happen near 95 °C."},
]


async def _call(backend: Any, tool: str, arguments: dict[str, Any]) -> tuple[bool, dict[str, Any] | None, str]:
    server, _ = scripted_server(backend)
    async with mcp.Client(server) as client:
        result = await client.call_tool(tool, arguments)
    return result.is_error, result.structured_content, result_text(result)


async def test_refining_a_text_the_judge_scored_nothing_on_stops_with_nothing_scored() -> None:
    _, result, text = await _call(ScriptedBackend(default="no JSON here"), "refine_until_pass", {"draft": ASSESSMENT})
    assert result is not None and result["final_evaluation"]["unscored_metrics"], text[:600]
    assert result["stop_reason"] == "nothing_scored"
    assert "scored no metric" in result["summary"]


@pytest.mark.parametrize("probabilities", [True, False], ids=["probability", "generated"])
async def test_a_failed_backend_is_no_retrieval_miss_and_no_reason_for_a_stronger_model(probabilities: bool) -> None:
    missing = BackendError("model judge-model not found on http://127.0.0.1:11434; run `ollama pull judge-model`")
    backend = ScriptedBackend(default=missing, probabilities=probabilities)
    _, result, text = await _call(backend, "judge_rag_answer", {**RAG, "sources": PARAPHRASED})
    assert result is not None and result["verdict"] == "unscored", text[:600]
    assert result["diagnosis"] != "retrieval_miss", result["diagnosis_reason"]
    assert result["passages_relevant"] is None
    assert not any("do not address the question" in issue for issue in result["issues"]), result["issues"]
    assert "stronger judge model" not in text and "check that it is running" in result["verdict_reason"]
    dimensions = ("relevance", "completeness", "accuracy", "source_attribution", "coherence")
    unscored = [result[d] for d in dimensions if result[d]["status"] == "unscored"]
    assert unscored and all(s["reason_code"] == "backend_error" for s in unscored)


async def test_a_model_that_answers_badly_still_gets_the_stronger_model_advice() -> None:
    _, result, _ = await _call(ScriptedBackend(default="no JSON here"), "judge_rag_answer", RAG)
    assert result is not None and "stronger judge model" in result["verdict_reason"]


async def test_a_llama_server_build_fingerprint_is_not_the_models_digest() -> None:
    def answer(body: dict[str, Any]) -> str:
        return reply_for_schema(((body.get("response_format") or {}).get("json_schema") or {}).get("schema"))

    with OpenAITestServer(answer, models=["judge"], fingerprint="b0-unknown", logprobs=False) as llama_server:
        backend = OpenAIBackend(llama_server.url, "judge", timeout_s=10)
        try:
            _, result, text = await _call(backend, "evaluate_assessment", {"assessment": ASSESSMENT})
        finally:
            await backend.aclose()
    assert result is not None and result["passed"] is True, text[:600]
    assert result["provenance"]["model_digest"] is None
    assert "b0-unknown" not in json.dumps(result)


NARROW = {**REGISTRY.get("idea-quality").model_dump(mode="json"), "scale": {"min": 0, "max": 5e-324}}


@pytest.mark.parametrize(
    ("arguments", "field", "says"),
    [
        pytest.param({"custom_rubric": NARROW}, "scale", "too narrow", id="scale-5e-324-wide"),
        pytest.param({"top_k": 10**30}, "top_k", "at most", id="top_k-10^30"),
        pytest.param({"samples": True}, "samples", "valid integer", id="samples-true"),
        pytest.param({"top_k": True}, "top_k", "valid integer", id="top_k-true"),
    ],
)
async def test_nonsense_numbers_are_refused_naming_their_field(
    arguments: dict[str, Any], field: str, says: str
) -> None:
    candidates = [{"id": "a", "text": "An idea."}, {"id": "b", "text": "Another idea."}]
    error, _, text = await _call(
        ScriptedBackend(default="{}"), "score_candidates", {"candidates": candidates, **arguments}
    )
    assert error, text[:600]
    assert field in text and says in text, text[:600]
