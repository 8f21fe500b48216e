"""The MCP boundary adapter, through a real in-memory MCP client session and a test-only tool."""

from __future__ import annotations

import io
import json
import re
from typing import Any

import mcp
import pytest
from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS, TextContent, Tool
from pydantic import BaseModel, Field, field_serializer

from gavel.server.app import build_server
from gavel.server.boundary import DepsFactory
from gavel.server.schemas import compact
from gavel.server.settings import Settings
from gavel.tools.common import Limits
from gavel.tools.deps import ToolDeps
from gavel.tools.rubric_registry import RubricRegistry
from tests.server import echo_tool
from tests.server.conftest import RecordingDepsFactory
from tests.support.publish import register_tool


def _text(result: Any) -> str:
    return "\n".join(block.text for block in result.content if isinstance(block, TextContent))


async def _tool(server: MCPServer[Any], name: str) -> Tool:
    async with mcp.Client(server) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    return tools[name]


async def test_tool_arguments_are_the_request_fields_at_top_level_not_nested(echo_server: MCPServer[Any]) -> None:
    tool = await _tool(echo_server, "echo")
    assert set(tool.input_schema["properties"]) == set(echo_tool.EchoRequest.model_fields)
    assert "request" not in tool.input_schema["properties"]
    assert tool.input_schema["required"] == ["text"]


@pytest.mark.parametrize(
    "field",
    [
        pytest.param("text", id="required-string-with-length-bounds"),
        pytest.param("times", id="integer-with-ge-le-bounds"),
        pytest.param("source", id="optional-string"),
        pytest.param("shape", id="nested-model"),
        pytest.param("upper_limit", id="optional-integer-with-bound"),
    ],
)
async def test_input_schema_property_is_the_request_models_own_field_schema(
    echo_server: MCPServer[Any], field: str
) -> None:
    tool = await _tool(echo_server, "echo")
    # Listed in the shorter spelling of the same schema (no titles; an optional field as a type list).
    expected = compact(echo_tool.EchoRequest.model_json_schema()["properties"][field])
    assert tool.input_schema["properties"][field] == expected


async def test_input_schema_carries_descriptions_and_bounds_for_the_model_to_read(echo_server: MCPServer[Any]) -> None:
    props = (await _tool(echo_server, "echo")).input_schema["properties"]
    assert props["text"]["description"] == "The text to echo back."
    assert (props["text"]["minLength"], props["text"]["maxLength"]) == (1, 200)
    assert (props["times"]["minimum"], props["times"]["maximum"]) == (1, 5)
    assert props["tags"]["maxItems"] == 3


async def test_input_schema_keeps_nested_model_definitions(echo_server: MCPServer[Any]) -> None:
    schema = (await _tool(echo_server, "echo")).input_schema
    assert schema["$defs"]["Shape"]["properties"]["size"]["exclusiveMinimum"] == 0


async def test_output_schema_is_listed_as_an_object_and_the_result_models_schema_is_a_resource(
    echo_server: MCPServer[Any],
) -> None:
    tool = await _tool(echo_server, "echo")
    assert tool.output_schema == {"type": "object"}
    async with mcp.Client(echo_server) as client:
        (content,) = (await client.read_resource("schema://result/echo")).contents
    assert json.loads(content.text) == echo_tool.EchoResult.model_json_schema()  # type: ignore[union-attr]


async def test_judging_tool_annotations_say_read_only_closed_world_and_idempotent_as_given(
    echo_server: MCPServer[Any],
) -> None:
    echo = (await _tool(echo_server, "echo")).annotations
    refuse = (await _tool(echo_server, "refuse")).annotations
    assert echo is not None and refuse is not None
    assert (echo.read_only_hint, echo.open_world_hint) == (True, False)
    assert echo.destructive_hint is None  # read-only implies it; MCP defines it only for a tool that is not
    assert echo.idempotent_hint is True
    assert not refuse.idempotent_hint  # MCP's default, so not listed


async def test_tool_title_and_description_are_published(echo_server: MCPServer[Any]) -> None:
    tool = await _tool(echo_server, "echo")
    assert (tool.title, tool.description) == ("Echo", "Echo the text back.")


async def test_successful_call_returns_full_structured_content_and_render_text_as_text(
    echo_server: MCPServer[Any],
) -> None:
    async with mcp.Client(echo_server) as client:
        result = await client.call_tool(
            "echo", {"text": "hi", "times": 2, "tags": ["a"], "shape": {"kind": "circle", "size": 1.5}}
        )
    assert result.is_error is False
    assert result.structured_content == {
        "echoed": "hi hi",
        "times": 2,
        "source": None,
        "tags": ["a"],
        "shape": {"kind": "circle", "size": 1.5},
    }
    assert _text(result) == "echoed 2x: hi hi"


async def test_text_renderer_overrides_the_results_render_text(echo_server: MCPServer[Any]) -> None:
    async with mcp.Client(echo_server) as client:
        result = await client.call_tool("shouted", {"text": "hi"})
    assert _text(result) == "HI"
    assert result.structured_content is not None and result.structured_content["echoed"] == "hi"


async def test_result_without_render_text_gets_its_json_as_text(echo_server: MCPServer[Any]) -> None:
    async with mcp.Client(echo_server) as client:
        result = await client.call_tool("plain", {"text": "hi"})
    assert result.structured_content == {"value": "hi"}
    assert '"value": "hi"' in _text(result)


async def test_source_text_that_looks_like_json_reaches_the_tool_as_text(echo_server: MCPServer[Any]) -> None:
    # The SDK pre-parses JSON-looking strings for non-str parameters; a transcript must stay a string.
    source = '{"speaker": "patient", "says": "tired"}'
    async with mcp.Client(echo_server) as client:
        result = await client.call_tool("echo", {"text": "hi", "source": source})
    assert result.structured_content is not None and result.structured_content["source"] == source


async def test_list_argument_sent_as_json_text_is_accepted(echo_server: MCPServer[Any]) -> None:
    # Some desktop clients send arrays as JSON strings.
    async with mcp.Client(echo_server) as client:
        result = await client.call_tool("echo", {"text": "hi", "tags": '["x", "y"]'})
    assert result.structured_content is not None and result.structured_content["tags"] == ["x", "y"]


async def test_gavel_error_becomes_an_error_result_carrying_its_message(echo_server: MCPServer[Any]) -> None:
    async with mcp.Client(echo_server) as client:
        result = await client.call_tool("refuse", {"text": "HI"})
    assert result.is_error is True
    assert "text: must not be shouted; write it in lower case" in _text(result)
    assert result.structured_content is None


async def test_gavel_errors_raised_inside_a_task_group_still_reach_the_client(echo_server: MCPServer[Any]) -> None:
    async with mcp.Client(echo_server) as client:
        result = await client.call_tool("refuse_concurrently", {"text": "hi"})
    text = _text(result)
    assert result.is_error is True
    # Which of the concurrent errors are collected depends on scheduling; each is the caller's own message.
    assert re.search(r"text: part \d is empty", text)
    assert "internal error" not in text


async def test_unexpected_exception_gives_a_generic_message_without_internals(echo_server: MCPServer[Any]) -> None:
    async with mcp.Client(echo_server) as client:
        result = await client.call_tool("crash", {"text": "hi"})
    text = _text(result)
    assert result.is_error is True
    assert "internal error; see the server log, reference " in text
    assert "hunter2" not in text and "RuntimeError" not in text and "Traceback" not in text


async def test_unexpected_exception_is_logged_with_traceback_under_the_reference_given_to_the_client(
    echo_server: MCPServer[Any], log_stream: io.StringIO
) -> None:
    async with mcp.Client(echo_server) as client:
        result = await client.call_tool("crash", {"text": "hi"})
    reference = _text(result).rsplit("reference ", 1)[1].strip()
    lines = [json.loads(line) for line in log_stream.getvalue().splitlines()]
    failure = next(line for line in lines if line["event"] == "tool call failed unexpectedly")
    assert failure["call_id"] == reference
    assert failure["tool"] == "crash"
    assert "RuntimeError: could not reach" in failure["exception"]


async def test_result_of_the_wrong_type_is_an_internal_error_not_a_silent_success(
    echo_server: MCPServer[Any],
) -> None:
    async with mcp.Client(echo_server) as client:
        result = await client.call_tool("wrong_type", {"text": "hi"})
    assert result.is_error is True
    assert "internal error" in _text(result)


@pytest.mark.parametrize(
    ("arguments", "must_mention"),
    [
        pytest.param({"text": "hi", "times": 9}, ["times", "less than or equal to 5"], id="above-upper-bound"),
        pytest.param({"text": ""}, ["text", "at least 1 character"], id="below-min-length"),
        pytest.param({"text": "hi", "times": "many"}, ["times", "valid integer", "'many'"], id="wrong-type"),
        pytest.param({"times": 2}, ["text", "required"], id="missing-required"),
        pytest.param({"text": "hi", "rubrik": "x"}, ["rubrik", "this tool takes:", "text"], id="unknown-argument"),
        pytest.param({"text": "hi", "tags": ["a", "b", "c", "d"]}, ["tags", "at most 3"], id="too-many-items"),
        pytest.param(
            {"text": "hi", "shape": {"kind": "hexagon", "size": 1}}, ["shape.kind", "circle"], id="nested-field"
        ),
        pytest.param({"text": "hello", "upper_limit": 2}, ["upper_limit must be at least"], id="model-level-validator"),
        pytest.param({"text": "hi", "shape": "circle"}, ["shape", "(got 'circle')"], id="a-string-for-an-object"),
        pytest.param(
            {"text": "hi", "shape": {"kind": "circle", "size": 1, "colour": "red"}},
            ["shape.colour", "not a known field"],
            id="unknown-nested-field",
        ),
    ],
)
async def test_schema_invalid_call_is_an_error_result_naming_the_field_and_what_to_change(
    echo_server: MCPServer[Any], arguments: dict[str, Any], must_mention: list[str]
) -> None:
    async with mcp.Client(echo_server) as client:
        result = await client.call_tool("echo", arguments)
    text = _text(result)
    assert result.is_error is True and text.startswith("Error executing tool echo: invalid arguments: "), text
    for fragment in must_mention:
        assert fragment in text


async def test_long_rejected_value_is_quoted_only_in_part(echo_server: MCPServer[Any]) -> None:
    async with mcp.Client(echo_server) as client:
        result = await client.call_tool("echo", {"text": "x" * 500})
    assert result.is_error is True
    assert "x" * 100 not in _text(result)


async def test_server_keeps_answering_after_invalid_refused_and_crashing_calls(echo_server: MCPServer[Any]) -> None:
    async with mcp.Client(echo_server) as client:
        await client.call_tool("echo", {"times": 0})
        await client.call_tool("refuse", {"text": "x"})
        await client.call_tool("crash", {"text": "x"})
        result = await client.call_tool("echo", {"text": "still here"})
        resources = await client.list_resources()
    assert result.is_error is False
    assert resources.resources


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_an_unknown_tool_is_a_protocol_error_naming_it(echo_server: MCPServer[Any], mode: str) -> None:
    async with mcp.Client(echo_server, mode=mode) as client:
        with pytest.raises(MCPError) as unknown:
            await client.call_tool("no_such_tool", {})
        result = await client.call_tool("echo", {"text": "still here"})
    assert (unknown.value.code, unknown.value.message) == (INVALID_PARAMS, "Unknown tool: no_such_tool")
    assert result.is_error is False


async def test_progress_reaches_the_client_when_it_sent_a_progress_token(echo_server: MCPServer[Any]) -> None:
    events: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        events.append((progress, total, message))

    async with mcp.Client(echo_server) as client:
        result = await client.call_tool("echo", {"text": "hi"}, progress_callback=on_progress)
    assert result.is_error is False
    assert events == [(1, 2, "halfway"), (2, 2, "done")]


async def test_without_a_progress_token_the_tool_still_runs_and_reports_nothing(
    echo_server: MCPServer[Any], deps_factory: RecordingDepsFactory
) -> None:
    async with mcp.Client(echo_server) as client:
        result = await client.call_tool("echo", {"text": "hi"})
    assert result.is_error is False
    assert len(deps_factory.calls) == 1


async def test_deps_factory_is_called_once_per_call(
    echo_server: MCPServer[Any], deps_factory: RecordingDepsFactory
) -> None:
    async with mcp.Client(echo_server) as client:
        for _ in range(3):
            await client.call_tool("echo", {"text": "hi"})
    assert len(deps_factory.calls) == 3


class _Aliased(BaseModel):
    text: str = Field(alias="Text", description="An aliased field.")


class _Reserved(BaseModel):
    mcp_context: str = Field(description="Collides with the boundary's own parameter.")


@pytest.mark.parametrize(
    "request_model", [pytest.param(_Aliased, id="aliased-field"), pytest.param(_Reserved, id="reserved-name")]
)
def test_request_models_the_boundary_cannot_publish_faithfully_are_refused_at_registration(
    request_model: type[BaseModel], deps_factory: RecordingDepsFactory
) -> None:
    with pytest.raises(ValueError, match=r"not supported|reserved"):
        register_tool(
            MCPServer("t"),
            name="bad",
            title="Bad",
            description="Bad.",
            request_model=request_model,
            result_model=echo_tool.PlainResult,
            impl=echo_tool.plain,  # type: ignore[arg-type]
            deps_factory=deps_factory,
        )


class _Unfaithful(BaseModel):
    """A result whose JSON is not an instance of itself."""

    count: int = 1

    @field_serializer("count")
    def _as_words(self, count: int) -> str:
        return f"{count} item(s)"


async def _unfaithful(request: echo_tool.EchoRequest, deps: ToolDeps) -> _Unfaithful:
    return _Unfaithful()


async def test_a_result_whose_json_does_not_validate_as_its_model_is_an_error_not_structured_content(
    settings: Settings, registry: RubricRegistry, deps_factory: RecordingDepsFactory
) -> None:
    def register(server: MCPServer[Any], factory: DepsFactory, limits: Limits) -> None:
        register_tool(
            server, name="unfaithful", title="Unfaithful", description="Its result's JSON breaks its own model.",
            request_model=echo_tool.EchoRequest, result_model=_Unfaithful, impl=_unfaithful, deps_factory=factory,
        )  # fmt: skip

    server = build_server(settings, registry, deps_factory, register_tools=register)
    async with mcp.Client(server) as client:
        result = await client.call_tool("unfaithful", {"text": "hi"})
    assert result.is_error
    assert result.structured_content is None
