"""Progress of one tool call: the tool's steps and the engine's ticks in one strictly increasing sequence, and a
heartbeat while a model call waits (the embedded model's assembly and loading included)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import anyio
import pytest

from gavel.tools.engine import embedded
from gavel.tools.engine.backend import ChatRequest
from gavel.tools.engine.embedded import EmbeddedBackend
from gavel.tools.engine.judge import Judge
from gavel.tools.engine.progress import Progress
from gavel.tools.rubric_registry import RubricRegistry
from tests.support.config import engine_config
from tests.support.deps import ProgressLog, strictly_increasing
from tests.support.scripted import ScriptedBackend, yes_no

RUBRIC = RubricRegistry.load().get("rag-answer")  # a 0-1 scale: each metric is one Yes/No readout


class NeedsAnswer(BaseException):
    """Like the sampling replay's NeedSample: a BaseException the engine must let through unwrapped."""


@pytest.fixture
def every_tick(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Progress, "min_interval_s", 0.0)


@pytest.fixture
def fast_heartbeat(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Progress, "heartbeat_s", 0.05)


async def test_steps_keep_their_numbers_and_ticks_fall_between_them(every_tick: None) -> None:
    log = ProgressLog()
    progress = Progress(log)
    await progress.tick("before any step")
    await progress(0, 3, "step 0")  # not above the tick sent: goes out as a tick, with the tool's message and total
    await progress(1, 3, "step 1")
    await progress.tick("a model call")
    await progress.tick("another")
    await progress(2, 3, "step 2")
    await progress(3, 3, "step 3")
    await progress.tick("after the last step")
    assert [round(v, 3) for v, _, _ in log.events] == [0.5, 0.667, 1, 1.5, 1.667, 2, 3, 3.5]
    assert [t for _, t, _ in log.events] == [None, 3, 3, 3, 3, 3, 3, None]  # never above its total
    assert [m for _, _, m in log.events][1] == "step 0"
    assert strictly_increasing(log.events)


async def test_thousands_of_ticks_between_two_steps_still_increase(every_tick: None) -> None:
    log = ProgressLog()
    progress = Progress(log)
    for _ in range(5000):
        await progress.tick("a model call")
    await progress(1, None, "step 1")
    assert strictly_increasing(log.events) and log.events[-1][0] == 1 and len(log.events) == 5001


async def test_ticks_closer_than_the_interval_are_dropped_and_steps_never_are() -> None:
    log = ProgressLog()
    progress = Progress(log)
    for _ in range(50):
        await progress.tick("a model call")
    await progress(1, 2, "step 1")
    await progress(2, 2, "step 2")
    assert [m for _, _, m in log.events] == ["a model call", "step 1", "step 2"]


async def test_a_tick_that_cannot_be_delivered_does_not_fail_the_work() -> None:
    async def gone(progress: float, total: float | None, message: str | None) -> None:
        raise anyio.BrokenResourceError

    await Progress(gone).tick("a model call")


async def test_a_heartbeat_goes_out_while_the_work_waits_and_stops_when_it_returns(fast_heartbeat: None) -> None:
    log = ProgressLog()

    async def slow() -> int:
        await anyio.sleep(0.3)
        return 7

    assert await Progress(log).waiting(slow, lambda: "waiting for the model") == 7
    beats = len(log.events)
    assert beats >= 2 and all(m and m.startswith("waiting for the model (") for _, _, m in log.events)
    await anyio.sleep(0.15)
    assert len(log.events) == beats


@pytest.mark.parametrize("error", [TimeoutError("slow"), NeedsAnswer()])
async def test_the_works_exception_comes_out_as_it_is(fast_heartbeat: None, error: BaseException) -> None:
    async def failing() -> None:
        await anyio.sleep(0.1)
        raise error

    with pytest.raises(type(error)):
        await Progress(ProgressLog()).waiting(failing, lambda: "waiting")


async def test_cancelling_the_work_cancels_the_heartbeat(fast_heartbeat: None) -> None:
    log = ProgressLog()
    with anyio.move_on_after(0.12):
        await Progress(log).waiting(lambda: anyio.sleep(10), lambda: "waiting")
    beats = len(log.events)
    await anyio.sleep(0.15)
    assert len(log.events) == beats


# -- the judge ---------------------------------------------------------------------------------------------------


def judge_over(backend: Any, log: ProgressLog, **config: Any) -> Judge:
    return Judge(backend, engine_config(timeout_s=5, **config), progress=Progress(log))


async def test_each_metric_reports_when_the_model_answered_it(every_tick: None) -> None:
    log = ProgressLog()
    # One call at a time, each taking a moment, as on a local model: ticks that coincide are dropped.
    backend = ScriptedBackend(default=yes_no(0.9), probabilities=True, latency_s=0.01)
    judge = judge_over(backend, log, max_concurrency=1)
    judgment = await judge.score_metrics(rubric=RUBRIC, metrics=RUBRIC.metrics, subject="x")
    assert all(score.status == "scored" for score in judgment.scores)
    messages = [m or "" for _, _, m in log.events]
    assert sorted(m.split(":")[0] for m in messages) == sorted(metric.name for metric in RUBRIC.metrics)
    assert all("answered" in m for m in messages)
    assert strictly_increasing(log.events)


async def test_a_slow_model_call_sends_heartbeats_naming_what_it_waits_for(fast_heartbeat: None) -> None:
    log = ProgressLog()
    backend = ScriptedBackend(default=yes_no(0.9), probabilities=True, latency_s=0.3)
    metric = RUBRIC.metrics[0]
    await judge_over(backend, log, max_concurrency=1).score_metrics(rubric=RUBRIC, metrics=[metric], subject="x")
    waits = [m for _, _, m in log.events if m and "waiting for the model" in m]
    assert waits and all(m.startswith(f"{metric.name}: ") for m in waits)


def fake_model_file(tmp_path: Path) -> Path:
    path = tmp_path / "model.gguf"
    path.write_bytes(b"GGUF")
    return path


class FakeLlamaServer:
    """xllamacpp.Server at the model seam: takes a while to load, then answers every completion with Yes."""

    listening_address = "unix:///tmp/fake-llama.sock"

    def __init__(self, params: Any) -> None:
        time.sleep(0.3)

    def handle_chat_completions(self, body: dict[str, Any]) -> dict[str, Any]:
        top = [{"token": "Yes", "logprob": -0.1}, {"token": "No", "logprob": -2.4}]
        return {"choices": [{"message": {"content": "Yes"}, "logprobs": {"content": [{"top_logprobs": top}]}}]}


async def test_the_embedded_models_assembly_and_loading_send_heartbeats(
    fast_heartbeat: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    xllamacpp = pytest.importorskip("xllamacpp")
    model_file = fake_model_file(tmp_path)

    def assemble(cache_dir: Path | None = None) -> Path:
        time.sleep(0.3)
        return model_file

    monkeypatch.setattr(xllamacpp, "Server", FakeLlamaServer)
    monkeypatch.setattr(embedded, "default_model_assembled", lambda cache_dir=None: False)
    monkeypatch.setattr(embedded, "assemble_default_model", assemble)
    log = ProgressLog()
    backend = EmbeddedBackend(cache_dir=tmp_path)
    metric = RUBRIC.metrics[0]
    judgment = await judge_over(backend, log).score_metrics(rubric=RUBRIC, metrics=[metric], subject="x")
    assert judgment.scores[0].status == "scored"
    messages = [m or "" for _, _, m in log.events]
    assert any("assembling the embedded model from its 22 parts" in m for m in messages), messages
    assert any("loading the embedded model model.gguf" in m for m in messages), messages
    assert backend.loading is None
    assert strictly_increasing(log.events)


async def test_without_a_client_to_tell_no_heartbeat_runs() -> None:
    backend = ScriptedBackend(default=yes_no(0.9), probabilities=True)
    judge = Judge(backend, engine_config(timeout_s=5))
    assert judge.progress.silent
    await judge.score_metrics(rubric=RUBRIC, metrics=RUBRIC.metrics[:1], subject="x")
    assert isinstance(backend.requests[0], ChatRequest)
