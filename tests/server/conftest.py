"""Fixtures for the server tests: the real rubric registry, settings, and a deps factory over the scripted backend."""

from __future__ import annotations

import io
from typing import TYPE_CHECKING, Any

import pytest
from mcp.server.mcpserver import Context, MCPServer

from gavel.server.app import build_server
from gavel.server.boundary import DepsFactory, judging_annotations
from gavel.server.logging import configure_logging
from gavel.server.settings import Settings, load_settings
from gavel.tools.common import Limits
from gavel.tools.deps import ToolDeps
from gavel.tools.rubric_registry import RubricRegistry
from tests.server import echo_tool
from tests.support.deps import make_deps
from tests.support.publish import register_tool
from tests.support.scripted import ScriptedBackend

if TYPE_CHECKING:
    from gavel.tools.engine.progress import ProgressFn


@pytest.fixture(scope="session")
def registry() -> RubricRegistry:
    return RubricRegistry.load()


@pytest.fixture
def settings() -> Settings:
    return load_settings({"GAVEL_LEDGER_PATH": "off"})


@pytest.fixture
def log_stream(restore_logging: None) -> io.StringIO:
    """Gavel's logging configured onto a buffer, as JSON lines at DEBUG."""
    stream = io.StringIO()
    configure_logging("DEBUG", stream=stream)
    return stream


class RecordingDepsFactory:
    """A deps factory as the server's: builds ToolDeps per call around the progress fn it is given."""

    def __init__(self) -> None:
        self.calls: list[ProgressFn] = []

    def __call__(self, ctx: Context[Any, Any], progress: ProgressFn) -> ToolDeps:
        self.calls.append(progress)
        deps = make_deps(ScriptedBackend(default="{}"))
        deps.progress = progress
        return deps


@pytest.fixture
def deps_factory() -> RecordingDepsFactory:
    return RecordingDepsFactory()


def register_echo_tools(server: MCPServer[Any], deps_factory: DepsFactory, limits: Limits) -> None:
    common: dict[str, Any] = {"request_model": echo_tool.EchoRequest, "deps_factory": deps_factory}
    register_tool(
        server,
        name="echo",
        title="Echo",
        description="Echo the text back.",
        result_model=echo_tool.EchoResult,
        impl=echo_tool.echo,
        annotations=judging_annotations(idempotent=True, title="Echo"),
        **common,
    )
    register_tool(
        server,
        name="refuse",
        title="Refuse",
        description="Always refuses with a GavelError.",
        result_model=echo_tool.EchoResult,
        impl=echo_tool.refuse,
        **common,
    )
    register_tool(
        server,
        name="refuse_concurrently",
        title="Refuse concurrently",
        description="Fails in a task group with GavelErrors only.",
        result_model=echo_tool.EchoResult,
        impl=echo_tool.refuse_concurrently,
        **common,
    )
    register_tool(
        server,
        name="crash",
        title="Crash",
        description="Always fails with an unexpected exception.",
        result_model=echo_tool.EchoResult,
        impl=echo_tool.crash,
        **common,
    )
    register_tool(
        server,
        name="plain",
        title="Plain",
        description="A result without render_text.",
        result_model=echo_tool.PlainResult,
        impl=echo_tool.plain,
        **common,
    )
    register_tool(
        server,
        name="shouted",
        title="Shouted",
        description="Echo with a custom text renderer.",
        result_model=echo_tool.EchoResult,
        impl=echo_tool.echo,
        text_renderer=lambda result: result.echoed.upper(),
        **common,
    )
    register_tool(
        server,
        name="wrong_type",
        title="Wrong type",
        description="Returns a model other than its declared result.",
        result_model=echo_tool.EchoResult,
        impl=echo_tool.wrong_type,
        **common,
    )


@pytest.fixture
def echo_server(settings: Settings, registry: RubricRegistry, deps_factory: RecordingDepsFactory) -> MCPServer[Any]:
    return build_server(settings, registry, deps_factory, register_tools=register_echo_tools)
