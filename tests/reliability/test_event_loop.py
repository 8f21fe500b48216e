"""CPU-heavy deterministic work runs off the event loop, so one big call does not hold every other client."""

from __future__ import annotations

import random
import threading
from collections.abc import Callable
from typing import Any

import mcp
import pytest

from gavel.tools.candidates import orchestration as candidates_module
from gavel.tools.engine import ladder as ladder_module
from tests.reliability.support import perfect_model, result_text, scripted_server
from tests.support.injection_cases import ASSESSMENT, TRANSCRIPT
from tests.support.scripted import ScriptedBackend


async def test_selecting_among_10000_candidates_runs_in_a_worker_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    threads: dict[str, bool] = {}

    def recording(name: str, original: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            threads[name] = threading.current_thread() is threading.main_thread()
            return original(*args, **kwargs)

        return wrapper

    for name in ("scan", "select", "_selected"):
        monkeypatch.setattr(candidates_module, name, recording(name, getattr(candidates_module, name)))
    rng = random.Random(3)
    candidates = [{"id": f"c{i}", "quality": rng.random(), "genre": f"g{i % 40}"} for i in range(10_000)]
    server, _ = scripted_server(perfect_model())
    async with mcp.Client(server) as client:
        arguments = {"candidates": candidates, "weights": {"quality": 1}, "diversity_targets": {"genre": 5}}
        result = await client.call_tool("score_candidates", arguments)
    assert result.is_error is False, result_text(result)
    assert threads == {"scan": False, "select": False, "_selected": False}, "ran on the event loop thread"


async def test_a_long_model_reply_is_parsed_in_a_worker_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    threads: list[bool] = []
    original = ladder_module.parse_reply

    def recording(text: str, model: Any) -> Any:
        threads.append(threading.current_thread() is threading.main_thread())
        return original(text, model)

    monkeypatch.setattr(ladder_module, "parse_reply", recording)
    long_reply = "Let me think. " * 1_000 + '{"unfinished": '
    server, _ = scripted_server(ScriptedBackend(default=long_reply))
    async with mcp.Client(server) as client:
        result = await client.call_tool("evaluate_assessment", {"assessment": ASSESSMENT, "source": TRANSCRIPT})
    assert result.is_error is False, result_text(result)
    assert threads and not any(threads), "a long reply was parsed on the event loop thread"
