"""The sampling backend through real in-memory MCP sessions: the client's own model judges and rewrites.

Both protocol generations: the handshake protocol (server-to-client requests in the middle of a call) and
2026-07-28 (Resolve(Sample) slots, one input-required round per sampling call).
"""

from __future__ import annotations

import json
from typing import Any

import mcp
import pytest
from mcp_types import CreateMessageRequestParams, CreateMessageResult, TextContent

from gavel.server.app import build_server
from gavel.server.call_deps import make_deps_factory
from gavel.server.settings import load_settings
from gavel.tools.rubric_registry import RubricRegistry

REGISTRY = RubricRegistry.load()
METRICS = [m.id for m in REGISTRY.get("clinical-assessment").metrics]

MODES = [pytest.param("legacy", id="handshake-protocol"), pytest.param("auto", id="protocol-2026-07-28")]


class ClientModel:
    """The client's sampling callback: answers the judge with a joint verdict, the writer with a text."""

    def __init__(self, score: int = 4) -> None:
        self.score = score
        self.requests: list[CreateMessageRequestParams] = []

    async def __call__(self, context: Any, params: CreateMessageRequestParams) -> CreateMessageResult:
        self.requests.append(params)
        # Routed by what the engine says the call is for, never by the prompt's wording.
        if (params.metadata or {}).get("gavel_purpose") == "judge":
            text = json.dumps({m: {"explanation": f"{m} looks fine", "score": self.score} for m in METRICS})
        else:
            text = "A revised, specific assessment."
        return CreateMessageResult(role="assistant", content=TextContent(type="text", text=text), model="client-llm")


def sampling_server(backend: str = "sampling"):
    settings = load_settings({"GAVEL_BACKEND": backend, "GAVEL_LEDGER_PATH": "off"})
    return build_server(settings, REGISTRY, make_deps_factory(settings, REGISTRY))


@pytest.mark.parametrize("mode", MODES)
async def test_the_clients_model_judges_when_the_backend_is_sampling(mode):
    model = ClientModel(score=4)
    async with mcp.Client(sampling_server(), sampling_callback=model, mode=mode) as client:
        result = await client.call_tool("evaluate_assessment", {"assessment": "The patient reports low mood."})
    assert not result.is_error, result.content
    data = result.structured_content
    assert [s["score"] for s in data["scores"]] == [4, 4, 4, 4]
    assert data["provenance"]["backend"] == "sampling"
    assert data["provenance"]["model"] == "client-llm"
    assert len(model.requests) == 1, "the sampling judge scores every metric in one joint call"


@pytest.mark.parametrize("mode", MODES)
async def test_a_client_without_sampling_gets_a_clear_error(mode):
    async with mcp.Client(sampling_server(), mode=mode) as client:
        result = await client.call_tool("evaluate_assessment", {"assessment": "text"})
    assert result.is_error
    text = result.content[0].text  # type: ignore[union-attr]
    assert "sampling" in text


@pytest.mark.parametrize("mode", MODES)
async def test_the_clients_model_rewrites_in_refine_until_pass(mode):
    model = ClientModel(score=5)
    async with mcp.Client(sampling_server(), sampling_callback=model, mode=mode) as client:
        result = await client.call_tool(
            "refine_until_pass", {"draft": "vague", "generator": "sampling", "max_iterations": 2}
        )
    assert not result.is_error, result.content
    assert result.structured_content["stop_reason"] == "passed"
