"""score_candidates through a real in-memory MCP session: the laptop example's searched pick and the reason an
unmet diversity target gives reach the client in the structured result and in the text."""

from __future__ import annotations

from typing import Any

import mcp

from tests.reliability.support import scripted_server
from tests.support.scripted import ScriptedBackend
from tests.tools.test_candidates_search import LAPTOPS


async def _call(arguments: dict[str, Any]) -> tuple[dict[str, Any], str]:
    # The deterministic path asks no model; a backend that answers nothing proves it.
    server, _ = scripted_server(ScriptedBackend())
    async with mcp.Client(server) as client:
        result = await client.call_tool("score_candidates", arguments)
    assert not result.is_error
    return result.structured_content or {}, "\n".join(getattr(block, "text", "") for block in result.content)


async def test_the_laptop_example_meets_both_targets_through_a_session() -> None:
    data, text = await _call(
        {"candidates": LAPTOPS, "weights": {"value": 1.0}, "diversity_targets": {"brand": 3, "size": 3}, "top_k": 3}
    )
    assert [s["id"] for s in data["selected"]] == ["L2", "L3", "L4"]
    assert [(d["attribute"], d["achieved"], d["met"], d["reason"]) for d in data["diversity"]] == [
        ("brand", 3, True, None),
        ("size", 3, True, None),
    ]
    assert "NOT met" not in text and "it replaces their pick" in data["reasoning_log"][-1]


async def test_an_unreachable_target_says_why_through_a_session() -> None:
    data, text = await _call(
        {"candidates": LAPTOPS, "weights": {"value": 1.0}, "diversity_targets": {"brand": 3, "size": 4}, "top_k": 3}
    )
    reason = "the eligible candidates offer only 3 distinct value(s)"
    assert data["diversity"][1]["reason"] == reason
    assert f"size 2/4 ({reason})" in data["summary"] and f"size 2/4 ({reason})" in text
