"""Shutdown ends the calls in flight as ordinary error results, through a real in-memory MCP session."""

from __future__ import annotations

from typing import Any

import anyio
import mcp
from mcp_types import CallToolResult

from gavel.server.inflight import SHUTTING_DOWN, close_gate, in_flight
from tests.reliability.support import result_text, scripted_server, worst_model

LOOP = {"draft": "Low mood.", "source": "Patient: low mood for three weeks.", "max_iterations": 20}


async def _close_during_a_call(tool: str, arguments: dict[str, Any], grace_s: float) -> tuple[int, CallToolResult]:
    """Start `tool`, close the gate once it has reached the model; returns (calls cancelled, the call's result)."""
    backend = worst_model(latency_s=0.05)
    server, _ = scripted_server(backend)
    outcome: list[CallToolResult] = []
    async with mcp.Client(server) as client, anyio.create_task_group() as tg:

        async def call() -> None:
            outcome.append(await client.call_tool(tool, arguments))

        tg.start_soon(call)
        with anyio.fail_after(10):
            while not backend.requests:  # noqa: ASYNC110 - the scripted backend signals nothing
                await anyio.sleep(0.01)
        with anyio.fail_after(grace_s + 5):
            cancelled = await close_gate(server, grace_s=grace_s)
    assert in_flight(server) == 0
    return cancelled, outcome[0]


async def test_closing_the_gate_ends_a_call_in_flight_as_an_error_result_that_says_the_server_is_stopping() -> None:
    cancelled, result = await _close_during_a_call("refine_until_pass", LOOP, grace_s=0.1)
    assert cancelled == 1
    assert result.is_error is True
    assert SHUTTING_DOWN in result_text(result)


async def test_a_call_that_finishes_within_the_grace_period_is_not_cancelled() -> None:
    cancelled, result = await _close_during_a_call("evaluate_assessment", {"assessment": "Low mood."}, grace_s=5.0)
    assert cancelled == 0
    assert result.is_error is False


async def test_a_call_made_after_the_gate_closed_is_refused_before_any_model_call() -> None:
    backend = worst_model()
    server, _ = scripted_server(backend)
    await close_gate(server, grace_s=0.0)
    async with mcp.Client(server) as client:
        result = await client.call_tool("evaluate_assessment", {"assessment": "Low mood."})
        listed = await client.list_tools()
    assert result.is_error is True and SHUTTING_DOWN in result_text(result)
    assert backend.requests == []
    assert listed.tools, "the server still answers what needs no model"
