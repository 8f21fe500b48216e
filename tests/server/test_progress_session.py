"""Progress during a single judgment, through a real in-memory MCP session: a client that resets its request
timeout on progress (the MCP Inspector gives a call 60 s otherwise) hears from every judgment, not only from the
loops and batches."""

from __future__ import annotations

from typing import Any

import anyio
import mcp
import pytest

from gavel.tools.engine.backend import ChatReply, ChatRequest
from gavel.tools.engine.progress import Progress
from tests.reliability.support import schema_reply, scripted_server
from tests.support.deps import ProgressEvent, strictly_increasing
from tests.support.scripted import ScriptedBackend, yes_no

PASSAGES = [{"id": "1", "content": "The Eiffel Tower was completed in 1889 for the World's Fair."}]
RAG = {
    "question": "When was the Eiffel Tower completed?",
    "answer": "It was completed in 1889 [1]. It was built for the World's Fair [1].",
    "sources": PASSAGES,
}
ASSESSMENT = {"assessment": "Low mood for three weeks; plan: follow up in two weeks.", "source": "Patient: low mood."}


def probability_model(*, latency_s: float = 0.0) -> ScriptedBackend:
    """A model with log-probabilities: every check and every 0-1 metric is a confident Yes."""
    return ScriptedBackend(default=lambda r: yes_no(0.9) if r.top_logprobs else schema_reply(r), probabilities=True,
                           latency_s=latency_s)  # fmt: skip


async def call_with_progress(backend: Any, tool: str, arguments: dict[str, Any], **env: str) -> list[ProgressEvent]:
    server, _ = scripted_server(backend, **env)
    events: list[ProgressEvent] = []

    async def progress(value: float, total: float | None, message: str | None) -> None:
        events.append((value, total, message))

    async with mcp.Client(server) as client:
        result = await client.call_tool(tool, arguments, progress_callback=progress)
    assert result.is_error is False, result
    return events


@pytest.mark.parametrize(
    ("tool", "arguments", "backend"),
    [
        ("judge_rag_answer", RAG, lambda: probability_model()),
        ("judge_rag_answer", RAG, lambda: ScriptedBackend(default=schema_reply)),
        ("evaluate_assessment", ASSESSMENT, lambda: ScriptedBackend(default=schema_reply)),
        ("evaluate_assessment", ASSESSMENT, lambda: probability_model()),
    ],
    ids=["rag-probability", "rag-generated", "assessment-generated", "assessment-probability"],
)
async def test_a_single_judgment_sends_progress(tool: str, arguments: dict[str, Any], backend: Any) -> None:
    events = await call_with_progress(backend(), tool, arguments)
    assert events, "a single judgment sent no progress notification"
    assert strictly_increasing(events)
    assert all(message and "answered" in message for _, _, message in events)


async def test_judge_rag_answer_reports_each_sentence_and_each_metric(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Progress, "min_interval_s", 0.0)
    # One call at a time, a moment each, as on the embedded model: notifications that would coincide are dropped.
    events = await call_with_progress(
        probability_model(latency_s=0.01), "judge_rag_answer", RAG, GAVEL_MAX_CONCURRENCY="1"
    )
    steps = {(message or "").split(":")[0] for _, _, message in events}
    assert {"sentence 1 of 2", "sentence 2 of 2", "Relevance", "Coherence"} <= steps, steps
    assert strictly_increasing(events)


class LoadingModel(ScriptedBackend):
    """A model that, like the embedded one on its first call, spends a while loading before it answers."""

    def __init__(self) -> None:
        super().__init__(default=lambda r: yes_no(0.9) if r.top_logprobs else schema_reply(r), probabilities=True)
        self.loading: str | None = "loading the embedded model"

    async def chat(self, request: ChatRequest) -> ChatReply:
        if self.loading is not None:
            await anyio.sleep(0.4)
            self.loading = None
        return await super().chat(request)


async def test_while_the_model_loads_a_heartbeat_keeps_the_client_waiting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Progress, "heartbeat_s", 0.1)
    arguments = {"assessment": "Low mood.", "source": "Patient: I feel low."}
    events = await call_with_progress(LoadingModel(), "evaluate_assessment", arguments)
    assert any("loading the embedded model (" in (message or "") for _, _, message in events), events
    assert strictly_increasing(events)
