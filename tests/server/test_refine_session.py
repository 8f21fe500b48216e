"""refine_until_pass through a real in-memory MCP session: progress per iteration and cancellation of the loop."""

from __future__ import annotations

import time
from typing import Any

import anyio
import mcp

from tests.reliability.support import scripted_server, worst_model
from tests.support.deps import strictly_increasing

LOOP = {"draft": "Low mood.", "source": "Patient: low mood for three weeks.", "max_iterations": 3}


async def test_the_client_receives_a_progress_notification_per_iteration_with_the_average_and_low_metrics() -> None:
    server, _ = scripted_server(worst_model())  # never passes: the loop runs to the end
    events: list[tuple[float, float | None, str | None]] = []

    async def progress(value: float, total: float | None, message: str | None) -> None:
        events.append((value, total, message))

    async with mcp.Client(server) as client:
        result = await client.call_tool("refine_until_pass", LOOP, progress_callback=progress)
    assert result.is_error is False
    data: dict[str, Any] = result.structured_content or {}
    assert data["stop_reason"] == "max_iterations"
    iterations = [e for e in events if (e[2] or "").startswith("iteration ")]
    # Iteration 0 is reported after the draft's evaluation, whose model calls sent progress of their own: it goes
    # out above them and below 1.
    assert 0 <= iterations[0][0] < 1
    assert [value for value, _, _ in iterations[1:]] == [1, 2, 3]
    assert {total for _, total, _ in iterations} == {3}
    assert all(message and "average" in message and "specificity" in message for _, _, message in iterations)
    assert strictly_increasing(events)


async def test_cancelling_a_refinement_stops_the_loop_and_its_model_calls() -> None:
    backend = worst_model(latency_s=0.05)
    server, _ = scripted_server(backend)
    async with mcp.Client(server) as client:
        async with anyio.create_task_group() as tg:
            tg.start_soon(client.call_tool, "refine_until_pass", {**LOOP, "max_iterations": 20})
            with anyio.fail_after(10):
                while len(backend.requests) < 6:  # noqa: ASYNC110 - the scripted backend signals nothing
                    await anyio.sleep(0.01)
            tg.cancel_scope.cancel()
        stopped_at = len(backend.requests)
        cancelled = time.monotonic()
        with anyio.fail_after(5):
            while backend.in_flight:  # noqa: ASYNC110
                await anyio.sleep(0.01)
        await anyio.sleep(0.3)
        assert len(backend.requests) <= stopped_at + 4, "the cancelled loop kept calling the model"
        assert time.monotonic() - cancelled < 5
        after = await client.call_tool("evaluate_assessment", {"assessment": "Low mood."})
    assert after.is_error is False
