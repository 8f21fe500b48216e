"""What a client lists and reads about the tool schemas: small listings, strict schemas, full ones as resources."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import mcp
import pytest
from mcp.server.mcpserver import MCPServer
from mcp_types import TextResourceContents
from pydantic import BaseModel

from gavel.server.app import build_server
from gavel.server.schemas import compact
from gavel.server.settings import load_settings
from gavel.tools.assessment import EvaluationResult
from gavel.tools.rag import JudgeRagAnswerRequest, JudgeRagAnswersRequest
from gavel.tools.rubric_registry import RubricRegistry
from gavel.tools.rubrics import Rubric
from tests.server.conftest import RecordingDepsFactory

# Every tools/list reply lands in the agent's context; the full schemas came to ~110,000 characters.
TOOLS_LIST_BUDGET = 12_200
# What MCP Inspector's --strict asks of a schema node that is a property or an array's items.
VALIDATION_KEYWORDS = {"type", "$ref", "anyOf", "oneOf", "allOf", "enum", "const", "not"}


@pytest.fixture(scope="module")
def server(registry: RubricRegistry) -> MCPServer[Any]:
    return build_server(load_settings({}), registry, RecordingDepsFactory())


async def _listing(server: MCPServer[Any]) -> dict[str, Any]:
    async with mcp.Client(server) as client:
        result = await client.list_tools()
    return result.model_dump(mode="json", by_alias=True, exclude_none=True)


async def _read_json(server: MCPServer[Any], uri: str) -> Any:
    async with mcp.Client(server) as client:
        result = await client.read_resource(uri)
    (content,) = result.contents
    assert isinstance(content, TextResourceContents)
    return json.loads(content.text)


def _unvalidated(node: Any, path: str = "", role: str | None = None) -> list[str]:
    """Paths of property and items nodes that carry no validation keyword (Inspector --strict's complaint)."""
    if isinstance(node, list):
        return [bad for index, item in enumerate(node) for bad in _unvalidated(item, f"{path}/{index}")]
    if not isinstance(node, dict):
        return []
    bad = [path] if role is not None and not VALIDATION_KEYWORDS & set(node) else []
    for key, value in node.items():
        if key in ("properties", "$defs") and isinstance(value, dict):
            bad += [b for name, sub in value.items() for b in _unvalidated(sub, f"{path}/{name}", "property")]
        elif key == "items" and isinstance(value, dict):
            bad += _unvalidated(value, f"{path}[]", "items")
        else:
            bad += _unvalidated(value, f"{path}/{key}")
    return bad


async def test_tools_list_stays_within_its_budget(server: MCPServer[Any]) -> None:
    listing = await _listing(server)
    assert len(listing["tools"]) == 6
    size = len(json.dumps(listing, separators=(",", ":")))
    assert size <= TOOLS_LIST_BUDGET, f"tools/list is {size:,} characters of compact JSON"


async def test_every_tool_schema_passes_the_strict_check(server: MCPServer[Any]) -> None:
    for tool in (await _listing(server))["tools"]:
        for which in ("inputSchema", "outputSchema"):
            assert _unvalidated(tool[which]) == [], f"{tool['name']} {which}"


@pytest.mark.parametrize(
    ("tool", "request_model", "arguments"),
    [
        ("judge_rag_answer", JudgeRagAnswerRequest, {"question": "Q?", "answer": "A."}),
        (
            "judge_rag_answers",
            JudgeRagAnswersRequest,
            {"question": "Q?", "answers": [{"agent_name": "a", "answer": "A"}]},
        ),
    ],
)
async def test_sources_given_as_texts_pass_the_listed_schema_as_the_tool_takes_them(
    server: MCPServer[Any], tool: str, request_model: type[BaseModel], arguments: dict[str, Any]
) -> None:
    listed = {listed["name"]: listed for listed in (await _listing(server))["tools"]}[tool]
    texts = ["The tower is 330 m tall.", "It opened in 1889."]
    arguments = {**arguments, "sources": [texts[0], {"id": "S2", "content": texts[1]}]}
    jsonschema.validate(arguments, listed["inputSchema"])
    validated: Any = request_model.model_validate(arguments)
    assert [passage.content for passage in validated.sources] == texts
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**arguments, "sources": [3]}, listed["inputSchema"])


def test_the_strict_check_finds_a_property_without_a_type() -> None:
    assert _unvalidated({"type": "object", "properties": {"x": {"description": "anything"}}}) == ["/x"]
    assert _unvalidated({"type": "array", "items": {}}) == ["[]"]


async def test_no_tool_repeats_the_rubric_schema_and_each_points_to_it(server: MCPServer[Any]) -> None:
    for tool in (await _listing(server))["tools"]:
        custom = tool["inputSchema"]["properties"].get("custom_rubric")
        if custom is not None:
            assert custom["type"] == ["object", "null"], tool["name"]
            assert "schema://rubric" in custom["description"], tool["name"]
        assert "Rubric" not in tool["inputSchema"].get("$defs", {}), tool["name"]


async def test_the_rubric_schema_resource_is_the_rubric_models_schema_with_its_bounds(server: MCPServer[Any]) -> None:
    schema = await _read_json(server, "schema://rubric")
    assert schema == Rubric.model_json_schema()
    assert schema["properties"]["metrics"]["maxItems"] == 32


async def test_a_malformed_inline_rubric_is_refused_naming_the_field_and_the_schema(server: MCPServer[Any]) -> None:
    async with mcp.Client(server) as client:
        result = await client.call_tool("evaluate_assessment", {"assessment": "ok", "custom_rubric": {"id": "x"}})
    assert result.is_error
    text = result.content[0].text  # type: ignore[union-attr]
    assert "custom_rubric." in text and "schema://rubric" in text


async def test_each_tools_full_result_schema_is_a_resource(server: MCPServer[Any]) -> None:
    schema = await _read_json(server, "schema://result/evaluate_assessment")
    assert schema == EvaluationResult.model_json_schema()
    assert "identical earlier request" in schema["properties"]["cached"]["description"]
    # Made when first read, not at registration: every tool's result model must still have one.
    for tool in (await _listing(server))["tools"]:
        full = await _read_json(server, f"schema://result/{tool['name']}")
        assert full["type"] == "object" and full["properties"], tool["name"]


@pytest.mark.parametrize(
    ("node", "listed"),
    [
        pytest.param({"anyOf": [{"type": "string", "maxLength": 5}, {"type": "null"}], "default": None, "title": "X"},
                     {"type": ["string", "null"], "maxLength": 5}, id="optional-string"),
        pytest.param({"anyOf": [{"$ref": "#/$defs/S"}, {"type": "null"}], "default": None},
                     {"anyOf": [{"$ref": "#/$defs/S"}, {"type": "null"}]}, id="optional-reference-kept"),
        pytest.param({"type": "object", "properties": {"title": {"type": "string", "title": "Title"}}},
                     {"type": "object", "properties": {"title": {"type": "string"}}}, id="a-field-named-title-kept"),
    ],
)  # fmt: skip
def test_the_compact_spelling_admits_the_same_values(node: dict[str, Any], listed: dict[str, Any]) -> None:
    assert compact(node) == listed
