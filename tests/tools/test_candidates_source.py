"""score_candidates' `source`: rubric mode judges each candidate as an answer to it, as evaluate_assessment does."""

from __future__ import annotations

from typing import Any

import pytest

from gavel.tools.candidates import ScoreCandidatesRequest, ScoreCandidatesResult, score_candidates
from gavel.tools.engine.backend import ChatRequest
from gavel.tools.errors import InvalidInput
from tests.support.config import input_limits
from tests.support.deps import make_deps
from tests.support.scripted import ScriptedBackend, yes_no
from tests.tools.engine.test_overall import RUBRIC

REQUEST = "How do I get a job in software development?"
RESPONSES = [
    {"id": "vague", "text": "If the employer likes you, there are lots of opportunities."},
    {"id": "steps", "text": "Learn the skills employers list, build a portfolio, apply and network."},
]
# The overall readout's rubric (one overall metric on 0-10, a response to a request), sent inline.
RESPONSE_QUALITY: dict[str, Any] = RUBRIC.model_dump(mode="json")


def by_response(request: ChatRequest):
    """P(yes) 0.9 for the response that gives steps, 0.3 for the vague one, to every question."""
    return yes_no(0.9 if RESPONSES[1]["text"] in request.messages[-1].content else 0.3)


def checks(backend: ScriptedBackend) -> list[str]:
    """The prompts of the metric checks (one-token calls), not of the key points written for the picks after."""
    return [r.messages[-1].content for r in backend.requests if r.top_logprobs is not None]


async def run(backend: ScriptedBackend, **fields: Any) -> ScoreCandidatesResult:
    request = ScoreCandidatesRequest(candidates=RESPONSES, custom_rubric=RESPONSE_QUALITY, top_k=1, **fields)
    return await score_candidates(request, make_deps(backend))


async def test_every_candidate_is_judged_after_the_source_under_the_rubrics_label():
    backend = ScriptedBackend(default=by_response, probabilities=True)
    result = await run(backend, source=REQUEST)
    assert checks(backend) and all(f"Request:\n<<<\n{REQUEST}\n>>>" in prompt for prompt in checks(backend))
    assert [s.id for s in result.selected] == ["steps"]
    assert any("as answers to the request" in line for line in result.reasoning_log)


async def test_an_overall_metric_with_a_source_is_asked_the_general_questions_as_evaluate_assessment_asks_them():
    backend = ScriptedBackend(default=by_response, probabilities=True)
    await run(backend, source=REQUEST)
    assert len(checks(backend)) == 2 * 5
    assert any("Is the response helpful to the user who made the request?" in p for p in checks(backend))


async def test_without_a_source_each_candidate_is_asked_its_metric_alone():
    backend = ScriptedBackend(default=by_response, probabilities=True)
    await run(backend)
    assert len(checks(backend)) == 2
    assert not any("Request:" in prompt for prompt in backend.prompts)


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        pytest.param({"weights": {"overall": 1.0}, "custom_rubric": None}, "rubric mode only", id="no-rubric"),
        pytest.param({"source": "x" * (input_limits().max_text_chars + 1)}, "GAVEL_MAX_TEXT_CHARS", id="too-long"),
    ],
)
async def test_a_source_the_judge_would_not_read_is_refused_before_any_model_call(
    fields: dict[str, Any], message: str
) -> None:
    backend = ScriptedBackend(default=by_response, probabilities=True)
    arguments = {"candidates": RESPONSES, "custom_rubric": RESPONSE_QUALITY, "source": REQUEST, **fields}
    with pytest.raises(InvalidInput, match=message) as refused:
        await score_candidates(ScoreCandidatesRequest(**arguments), make_deps(backend))
    assert refused.value.field == "source" and not backend.requests


async def test_one_token_checks_go_one_candidate_at_a_time_so_each_text_stays_in_the_prompt_cache():
    backend = ScriptedBackend(default=by_response, probabilities=True)
    await run(backend, source=REQUEST)
    order = ["steps" if RESPONSES[1]["text"] in prompt else "vague" for prompt in checks(backend)]
    assert order == ["vague"] * 5 + ["steps"] * 5
