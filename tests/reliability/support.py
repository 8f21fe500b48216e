"""What the reliability suite shares: a model that answers any schema, servers built around it, and the checks
every call result must pass. The size switch (CI vs full) and the tally of what the suite tried are in tally.py.

The model is the one fake (`ScriptedBackend`, at the model seam); everything between the MCP client and it
is the real server: `build_server`, the boundary, the tools, the engine.
"""

from __future__ import annotations

import itertools
import json
import math
import re
from collections.abc import Callable, Collection, Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import anyio
import jsonschema
import mcp
from anyio.from_thread import BlockingPortal, start_blocking_portal
from mcp.server.mcpserver import Context, MCPServer
from mcp_types import CallToolResult, TextContent, Tool

from gavel.server.app import build_server
from gavel.server.settings import Settings, load_settings
from gavel.tools.deps import ToolDeps
from gavel.tools.engine.backend import Backend
from gavel.tools.engine.judge import Judge
from gavel.tools.rubric_registry import RubricRegistry
from tests.support.config import engine_config
from tests.support.replies import GENERATED_TEXT, reply_for_schema, schema_reply
from tests.support.scripted import ScriptedBackend

if TYPE_CHECKING:
    from gavel.tools.engine.progress import ProgressFn

REGISTRY = RubricRegistry.load()
TOOLS = ("evaluate_assessment", "refine_until_pass", "judge_rag_answer", "judge_rag_answers", "score_candidates")

# What an error or result text must never show the client: tracebacks, internal exception class names,
# and the boundary's "internal error" reference (which means an input crashed the tool instead of being refused).
LEAK_MARKERS = (
    "Traceback",
    'File "',
    "internal error",
    "ValidationError",
    "pydantic_core",
    "KeyError",
    "TypeError",
    "AttributeError",
    "IndexError",
    "RecursionError",
    "UnicodeEncodeError",
    "UnicodeDecodeError",
    "ZeroDivisionError",
    "OverflowError",
    "AssertionError",
    "RuntimeError",
    "ExceptionGroup",
    "object at 0x",
    "validation error",
    "errors.pydantic.dev",
    "input_value=",
)


# -- models that answer any schema (replies chosen by the schema: tests.support.replies) ------------------------


def perfect_model(*, latency_s: float = 0.0) -> ScriptedBackend:
    """A model that gives the top score on every metric and every favourable grounding decision."""
    return ScriptedBackend(default=lambda request: schema_reply(request, "max"), latency_s=latency_s)


def worst_model(*, latency_s: float = 0.0) -> ScriptedBackend:
    """Every score at the bottom, and a new version at each revision (an unchanged one would end the loop)."""
    versions = itertools.count(1)
    return ScriptedBackend(
        default=lambda request: reply_for_schema(request.schema, "min", text=f"{GENERATED_TEXT} (v{next(versions)})"),
        latency_s=latency_s,
    )


# -- servers --------------------------------------------------------------------------------------------------


class ScriptedDeps:
    """The server's deps factory, over one backend and one process-wide limiter, as `GavelDeps` builds them."""

    def __init__(self, backend: Backend, settings: Settings, *, timeout_s: float = 10.0) -> None:
        self.backend = backend
        self.settings = settings
        self.config = engine_config(max_concurrency=settings.max_concurrency, timeout_s=timeout_s)
        self.limiter = anyio.CapacityLimiter(settings.max_concurrency)
        self.judges = 0

    def __call__(self, ctx: Context[Any, Any], progress: ProgressFn) -> ToolDeps:
        async def judge(**wiring: Any) -> Judge:
            self.judges += 1
            return Judge(self.backend, self.config, self.limiter, **wiring)

        return ToolDeps(registry=REGISTRY, limits=self.settings.limits(), judge_factory=judge, progress=progress)


def make_settings(overrides: Mapping[str, Any] | None = None, **env: str) -> Settings:
    """Settings as `gavel serve` reads them: environment variables, then overrides (as CLI flags would be)."""
    return load_settings({"GAVEL_LEDGER_PATH": "off", **env}, overrides)


def scripted_server(
    backend: Backend, overrides: Mapping[str, Any] | None = None, *, timeout_s: float = 10.0, **env: str
) -> tuple[MCPServer[Any], ScriptedDeps]:
    """The real server, with every tool's judge over `backend` (the scripted model, or a real OllamaBackend)."""
    settings = make_settings(overrides, **env)
    deps = ScriptedDeps(backend, settings, timeout_s=timeout_s)
    return build_server(settings, REGISTRY, deps), deps


class PortalClient:
    """One in-memory MCP session kept open across synchronous tests (Hypothesis examples, parametrized cases).

    A client caches the tool listing and its compiled outputSchema validators, so one session for many calls
    costs milliseconds per call where a fresh session per call costs a listing and a schema compile.
    """

    def __init__(self, portal: BlockingPortal, client: mcp.Client, tools: dict[str, Tool]) -> None:
        self.portal = portal
        self.client = client
        self.tools = tools

    def call(self, name: str, arguments: dict[str, Any], timeout_s: float = 30.0) -> CallToolResult:
        return self.portal.call(_bounded_call, self.client, name, arguments, timeout_s)


async def _bounded_call(client: mcp.Client, name: str, arguments: dict[str, Any], timeout_s: float) -> CallToolResult:
    with anyio.fail_after(timeout_s):
        return await client.call_tool(name, arguments)


@contextmanager
def portal_client(server: MCPServer[Any]) -> Iterator[PortalClient]:
    with start_blocking_portal() as portal, portal.wrap_async_context_manager(mcp.Client(server)) as client:
        tools = {tool.name: tool for tool in portal.call(client.list_tools).tools}
        yield PortalClient(portal, client, tools)


# -- checking what the client got --------------------------------------------------------------------------------


def result_text(result: CallToolResult) -> str:
    return "\n".join(c.text for c in result.content if isinstance(c, TextContent))


def leaks(text: str) -> list[str]:
    return [marker for marker in LEAK_MARKERS if marker in text]


def _finite(value: Any) -> bool:
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, dict):
        return all(_finite(v) for v in value.values())
    if isinstance(value, list):
        return all(_finite(v) for v in value)
    return True


_VALIDATORS: dict[str, Any] = {}


def _validator(tool: Tool) -> Any:
    """The tool's outputSchema validator, built (and the schema itself checked) once per tool and schema."""
    key = tool.name + json.dumps(tool.output_schema, sort_keys=True)
    if key not in _VALIDATORS:
        cls = jsonschema.validators.validator_for(tool.output_schema)
        cls.check_schema(tool.output_schema)
        _VALIDATORS[key] = cls(tool.output_schema)
    return _VALIDATORS[key]


def check_result(tool: Tool, result: CallToolResult, *, must_name: Collection[str] = ()) -> str:
    """Assert the call ended properly; returns "ok" or "error" for the tally.

    A result: its structured content validates against the tool's outputSchema and holds finite numbers
    only. An error: it names one of `must_name` (the offending field) when given, else one of the tool's
    arguments or says what was wrong with the arguments. Neither leaks internals.
    """
    text = result_text(result)
    leaked = leaks(text)
    assert not leaked, f"{tool.name}: the client saw {leaked}: {text[:600]}"
    if not result.is_error:
        assert result.structured_content is not None, f"{tool.name}: a result without structured content"
        assert tool.output_schema is not None
        _validator(tool).validate(result.structured_content)
        assert _finite(result.structured_content), f"{tool.name}: a non-finite number in the result"
        assert "flags" in result.structured_content, f"{tool.name}: the result carries no flags list"
        return "ok"
    names = list(must_name) or [*tool.input_schema.get("properties", {}), "arguments"]
    assert any(re.search(rf"(?<![A-Za-z_]){re.escape(n)}(?![A-Za-z_])", text) for n in names), (
        f"{tool.name}: the error names none of {names}: {text[:600]}"
    )
    return "error"


CheckFn = Callable[[Tool, CallToolResult], str]
