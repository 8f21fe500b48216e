"""The assembled server over a real in-memory MCP session: rubric resources, prompts, tools, instructions."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import mcp
import pytest
from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS, TextContent, TextResourceContents

from gavel.server.app import build_server, load_server_text
from gavel.server.settings import Settings, load_settings
from gavel.tools.rubric_registry import RubricRegistry
from gavel.tools.rubrics import Rubric
from tests.server.conftest import RecordingDepsFactory
from tests.support.rubrics import HOUSE_STYLE

BUILT_IN = ["clinical-assessment", "dialogue-response", "idea-quality", "music-recommendation", "rag-answer"]
PROMPTS = {
    "evaluate-assessment": {"assessment": True, "source": False, "rubric": False},
    "refine-until-pass": {"task": True, "source": False, "draft": False},
    "judge-rag-answer": {"question": True, "answer": True, "sources": False},
    "score-candidates": {"candidates_json": True, "weights_json": False, "rubric": False},
}


@pytest.fixture(scope="module")
def server(registry: RubricRegistry) -> MCPServer[Any]:
    # Module scope: the server is immutable once built and every test opens its own session.
    return build_server(load_settings({}), registry, RecordingDepsFactory())


async def _read_text(server: MCPServer[Any], uri: str) -> TextResourceContents:
    async with mcp.Client(server) as client:
        result = await client.read_resource(uri)
    (content,) = result.contents
    assert isinstance(content, TextResourceContents)
    return content


async def test_resources_list_shows_every_built_in_rubric_and_the_index(server: MCPServer[Any]) -> None:
    async with mcp.Client(server) as client:
        resources = (await client.list_resources()).resources
    rubrics = [r for r in resources if str(r.uri).startswith("rubric://")]
    assert sorted(str(r.uri) for r in rubrics) == sorted(
        ["rubric://index", *(f"rubric://{rubric_id}" for rubric_id in BUILT_IN)]
    )
    assert {r.mime_type for r in rubrics} == {"application/json"}
    assert "evaluation://recent" in {str(r.uri) for r in resources}


async def test_rubric_resource_is_the_rubric_as_json(server: MCPServer[Any], registry: RubricRegistry) -> None:
    content = await _read_text(server, "rubric://clinical-assessment")
    assert content.mime_type == "application/json"
    assert Rubric.model_validate_json(content.text) == registry.get("clinical-assessment")


async def test_rubric_index_summarizes_every_rubric(server: MCPServer[Any], registry: RubricRegistry) -> None:
    index = json.loads((await _read_text(server, "rubric://index")).text)
    by_id = {entry["id"]: entry for entry in index["rubrics"]}
    assert sorted(by_id) == BUILT_IN
    clinical = registry.get("clinical-assessment")
    assert by_id["clinical-assessment"] == {
        "id": clinical.id,
        "version": clinical.version,
        "title": clinical.title,
        "metrics": [m.id for m in clinical.metrics],
        "scale": {"min": clinical.scale.min, "max": clinical.scale.max},
        "uri": "rubric://clinical-assessment",
    }


async def test_rubric_template_is_listed_for_discovery(server: MCPServer[Any]) -> None:
    async with mcp.Client(server) as client:
        templates = (await client.list_resource_templates()).resource_templates
    assert sorted(t.uri_template for t in templates) == ["calibration://{key}", "evaluation://{id}", "rubric://{id}"]


async def test_unknown_rubric_id_is_an_error_listing_the_known_ids(server: MCPServer[Any]) -> None:
    async with mcp.Client(server) as client:
        with pytest.raises(MCPError) as caught:
            await client.read_resource("rubric://no-such-rubric")
    message = str(caught.value)
    assert "no-such-rubric" in message
    for rubric_id in BUILT_IN:
        assert rubric_id in message


@pytest.mark.parametrize(
    "uri",
    [
        pytest.param("rubric://..%2F..%2Fetc%2Fpasswd", id="encoded-traversal"),
        pytest.param("rubric://%2Fetc%2Fpasswd", id="encoded-absolute-path"),
        pytest.param("rubric://Clinical-Assessment", id="id-outside-the-id-pattern"),
    ],
)
async def test_rubric_ids_cannot_escape_the_registry(server: MCPServer[Any], uri: str) -> None:
    async with mcp.Client(server) as client:
        with pytest.raises(MCPError) as caught:
            await client.read_resource(uri)
    assert "root:" not in str(caught.value)


async def test_rubric_from_an_extra_directory_is_listed_and_served(
    settings: Settings, deps_factory: RecordingDepsFactory, tmp_path: Path
) -> None:
    (tmp_path / "house-style.toml").write_text(HOUSE_STYLE, encoding="utf-8")
    server = build_server(settings, RubricRegistry.load([tmp_path]), deps_factory)
    async with mcp.Client(server) as client:
        uris = {str(r.uri) for r in (await client.list_resources()).resources}
    content = await _read_text(server, "rubric://house-style")
    assert "rubric://house-style" in uris
    assert json.loads(content.text)["version"] == "2.1"


async def test_prompts_list_offers_one_prompt_per_tool_with_its_arguments(server: MCPServer[Any]) -> None:
    async with mcp.Client(server) as client:
        prompts = (await client.list_prompts()).prompts
    listed = {p.name: {a.name: bool(a.required) for a in p.arguments or []} for p in prompts}
    assert listed == PROMPTS
    assert all(p.description and p.title for p in prompts)


async def test_prompt_puts_the_users_text_in_verbatim_even_with_dollar_signs(server: MCPServer[Any]) -> None:
    async with mcp.Client(server) as client:
        result = await client.get_prompt(
            "evaluate-assessment", {"assessment": "Costs $value and ${rubric} $$", "rubric": "idea-quality"}
        )
    (message,) = result.messages
    assert message.role == "user" and isinstance(message.content, TextContent)
    assert "Costs $value and ${rubric} $$" in message.content.text
    assert "`idea-quality`" in message.content.text
    assert "evaluate_assessment" in message.content.text


async def test_prompt_without_an_optional_argument_says_what_happens_instead(server: MCPServer[Any]) -> None:
    async with mcp.Client(server) as client:
        result = await client.get_prompt("judge-rag-answer", {"question": "Why?", "answer": "Because."})
    text = result.messages[0].content.text  # type: ignore[union-attr]
    assert "No sources were retrieved" in text
    assert "$" not in text


async def test_prompt_missing_a_required_argument_is_an_error_naming_it(server: MCPServer[Any]) -> None:
    async with mcp.Client(server) as client:
        with pytest.raises(MCPError, match="answer"):
            await client.get_prompt("judge-rag-answer", {"question": "Why?"})


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_an_unknown_prompt_is_invalid_params_naming_it(server: MCPServer[Any], mode: str) -> None:
    async with mcp.Client(server, mode=mode) as client:
        with pytest.raises(MCPError) as unknown:
            await client.get_prompt("no-such-prompt", {})
    assert (unknown.value.code, unknown.value.message) == (INVALID_PARAMS, "Unknown prompt: no-such-prompt")


@pytest.mark.parametrize("name", [pytest.param(name, id=name) for name in PROMPTS])
async def test_every_prompt_renders_with_all_its_arguments_and_no_placeholder_left(
    server: MCPServer[Any], name: str
) -> None:
    arguments = {arg: f"value-of-{arg}" for arg in PROMPTS[name]}
    async with mcp.Client(server) as client:
        result = await client.get_prompt(name, arguments)
    text = result.messages[0].content.text  # type: ignore[union-attr]
    for arg in arguments:
        assert f"value-of-{arg}" in text
    assert "$" not in text


async def test_initialize_reports_the_server_name_version_and_instructions(server: MCPServer[Any]) -> None:
    async with mcp.Client(server) as client:
        info, instructions = client.server_info, client.instructions
    assert info is not None and info.name == "gavel" and info.version
    assert instructions == load_server_text().instructions
    assert "rubric://index" in instructions


async def test_every_registered_tool_takes_flat_arguments_and_declares_its_output_and_annotations(
    server: MCPServer[Any],
) -> None:
    async with mcp.Client(server) as client:
        tools = (await client.list_tools()).tools
    for tool in tools:
        assert tool.input_schema["type"] == "object"
        assert "request" not in tool.input_schema.get("properties", {}), tool.name
        for name, prop in tool.input_schema.get("properties", {}).items():
            assert prop.get("description"), f"{tool.name}.{name} has no description"
        assert tool.output_schema is not None, tool.name
        assert tool.annotations is not None and tool.annotations.open_world_hint is False, tool.name
        # A calibration changes later verdicts (judge_fitness, the calibrated cut), adding to what was there.
        writes = tool.name == "calibrate_judge"
        assert tool.annotations.read_only_hint is not writes, tool.name
        assert tool.annotations.destructive_hint is (False if writes else None), tool.name
