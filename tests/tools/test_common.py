"""Numbers in structured output are rounded once, on every tool result, without touching the outputSchema."""

from __future__ import annotations

from typing import Any

import mcp

from gavel.tools.common import OUTPUT_DECIMALS, ToolResult, rounded
from tests.reliability.support import scripted_server
from tests.support.rubrics import digit_clinical_json
from tests.support.scripted import ScriptedBackend, token_reply


class _Noisy(ToolResult):
    share: float
    nested: dict[str, list[float]]
    count: int


def test_rounded_reaches_every_float_and_leaves_the_rest() -> None:
    assert rounded({"a": [0.1 + 0.2 + 0.32, {"b": 2 / 3}], "n": 3, "s": "0.6200000000000001"}) == {
        "a": [0.62, {"b": 0.6667}],
        "n": 3,
        "s": "0.6200000000000001",
    }


def test_a_result_dumped_as_json_is_rounded_and_keeps_full_precision_in_python() -> None:
    result = _Noisy(share=0.1 + 0.2 + 0.32, nested={"x": [1 / 3]}, count=2)
    assert result.model_dump(mode="json")["share"] == 0.62
    assert '"nested":{"x":[0.3333]}' in result.model_dump_json()
    assert result.share == 0.6200000000000001 and result.model_dump()["share"] == 0.6200000000000001
    # The serialization schema is the fields' own (a serializer's return type would have replaced it).
    assert set(_Noisy.model_json_schema(mode="serialization")["properties"]) >= {"share", "nested", "count"}


def _floats(value: Any) -> list[float]:
    if isinstance(value, float):
        return [value]
    if isinstance(value, dict):
        return [f for item in value.values() for f in _floats(item)]
    if isinstance(value, list):
        return [f for item in value for f in _floats(item)]
    return []


async def test_structured_output_of_a_tool_call_carries_no_float_noise() -> None:
    # Every digit equally likely among 1, 2 and 5: a score of 8/3 = 2.6666666666666665 on each metric.
    thirds = token_reply({"1": 1 / 3, "2": 1 / 3, "5": 1 / 3})
    server, _ = scripted_server(ScriptedBackend(default=thirds, probabilities=True))
    async with mcp.Client(server) as client:
        result = await client.call_tool(
            "evaluate_assessment", {"assessment": "Low mood for three weeks.", "custom_rubric": digit_clinical_json()}
        )
    data = result.structured_content or {}
    assert result.is_error is False, result.content
    assert data["scores"][0]["score"] == 2.6667 and data["average"] == 2.6667
    assert all(value == round(value, OUTPUT_DECIMALS) for value in _floats(data))
