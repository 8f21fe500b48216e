"""One tool call's model work is bounded as a whole: once a model call times out, the rest of the call does not
ask the backend again, and GAVEL_CALL_DEADLINE_S bounds everything, queueing included."""

from __future__ import annotations

import time
from typing import Any

import anyio

from gavel.tools.assessment import EvaluateAssessmentRequest, evaluate_assessment
from gavel.tools.deps import ToolDeps
from gavel.tools.engine.judge import Judge
from tests.support.config import engine_config, input_limits
from tests.support.deps import REGISTRY
from tests.support.scripted import ScriptedBackend

TEXT = "Low mood for three weeks; sleeps four hours a night."


async def _to_client(progress: float, total: float | None, message: str | None) -> None:
    pass


def deps(backend: ScriptedBackend, *, reporting: bool = False, **config: float) -> ToolDeps:
    engine = engine_config(max_concurrency=1, **config)  # type: ignore[arg-type]
    limiter = anyio.CapacityLimiter(1)

    async def judge(**wiring: Any) -> Judge:
        return Judge(backend, engine, limiter, **wiring)

    made = ToolDeps(registry=REGISTRY, limits=input_limits(), judge_factory=judge)
    if reporting:  # a client that asked for progress: each model call waits inside a heartbeat task group
        made.progress = _to_client
    return made


async def test_after_a_timeout_the_call_asks_the_backend_no_more():
    never = ScriptedBackend(default="{}", latency_s=60)
    started = time.monotonic()
    result = await evaluate_assessment(
        EvaluateAssessmentRequest(assessment=TEXT, samples=3), deps(never, timeout_s=0.2)
    )
    assert time.monotonic() - started < 3  # 12 samples, each timing out and re-asked, would take 4.8 s
    assert len(never.requests) == 1
    assert {s.status for s in result.scores} == {"unscored"}
    assert all("timed out" in (s.reason or "") for s in result.scores)
    assert result.passed is None


async def test_a_call_queued_behind_the_timed_out_one_does_not_ask_when_progress_is_reported():
    # Leaving the heartbeat's task group yields to the queued call after the slot is freed: the timeout must be
    # recorded before that (CI once saw 8 requests to a silent model where 7 were the most).
    never = ScriptedBackend(default="{}", latency_s=60)
    await evaluate_assessment(EvaluateAssessmentRequest(assessment=TEXT), deps(never, reporting=True, timeout_s=0.2))
    assert len(never.requests) == 1


async def test_the_whole_call_deadline_bounds_a_slow_backend():
    slow = ScriptedBackend(default='{"explanation": "fine", "score": 4}', latency_s=0.3)
    started = time.monotonic()
    result = await evaluate_assessment(
        EvaluateAssessmentRequest(assessment=TEXT), deps(slow, timeout_s=5, call_deadline_s=0.5)
    )
    assert time.monotonic() - started < 3
    assert [s.status for s in result.scores].count("scored") >= 1  # what was judged stays
    assert any("GAVEL_CALL_DEADLINE_S" in (s.reason or "") for s in result.scores)
