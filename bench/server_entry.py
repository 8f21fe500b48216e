"""The benchmark server: the real Gavel server (real tools, rubrics, prompts, boundary) plus a trivial echo
tool, with every judge over a scripted backend that answers validly at once (or after a fixed latency).

    python -m bench.server_entry [--latency-ms MS] [--max-concurrency N]

Serves stdio like `gavel serve`. The echo tool goes through the same boundary (`publish`) as the
real tools, so "tool ÷ echo" is what a real tool costs over the SDK's own round trip.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Annotated, Any

import anyio
from mcp.server.mcpserver import Context, MCPServer
from pydantic import BaseModel, ConfigDict, Field

from gavel.server.app import build_server
from gavel.server.boundary import DepsFactory, judging_annotations
from gavel.server.settings import Settings, load_settings
from gavel.server.tool_registry import register_all_tools
from gavel.tools.common import Limits
from gavel.tools.deps import ToolDeps
from gavel.tools.engine.backend import Backend
from gavel.tools.engine.judge import Judge
from gavel.tools.rubric_registry import RubricRegistry
from tests.support.publish import register_tool

if TYPE_CHECKING:
    from gavel.tools.engine.progress import ProgressFn

ECHO_TOOL = "echo"


class EchoRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    text: Annotated[str, Field(min_length=1, max_length=1000, description="The text to send back.")]


class EchoResult(BaseModel):
    text: str = Field(description="The text, unchanged.")

    def render_text(self) -> str:
        return self.text


async def echo(request: EchoRequest, deps: ToolDeps) -> EchoResult:
    return EchoResult(text=request.text)


def register_echo(server: MCPServer[Any], deps_factory: DepsFactory) -> None:
    """The echo tool, through the same boundary as the real tools (every benchmark's reference round trip)."""
    register_tool(
        server,
        name=ECHO_TOOL,
        title="Echo",
        description="Send the text back unchanged (the benchmark's reference tool).",
        request_model=EchoRequest,
        result_model=EchoResult,
        impl=echo,
        deps_factory=deps_factory,
        annotations=judging_annotations(idempotent=True, title="Echo"),
    )


def register_with_echo(server: MCPServer[Any], deps_factory: DepsFactory, limits: Limits) -> None:
    register_all_tools(server, deps_factory, limits)
    register_echo(server, deps_factory)


class BenchDeps:
    """Per-call `ToolDeps` over one backend and one limiter for the process, as the real server has."""

    def __init__(self, settings: Settings, registry: RubricRegistry, backend: Backend) -> None:
        self.registry = registry
        self.limits = settings.limits()
        self.config = settings.engine_config()
        self.backend = backend
        self.limiter = anyio.CapacityLimiter(self.config.max_concurrency)

    def __call__(self, ctx: Context[Any, Any], progress: ProgressFn) -> ToolDeps:
        async def judge(**wiring: Any) -> Judge:
            return Judge(self.backend, self.config, self.limiter, strategy=self.config.strategy, **wiring)

        return ToolDeps(registry=self.registry, limits=self.limits, judge_factory=judge, progress=progress)


def build_bench_server(backend: Backend, *, environ: dict[str, str] | None = None) -> tuple[MCPServer[Any], BenchDeps]:
    # No ledger: the overhead runs repeat identical calls, which would otherwise be served from the cache.
    settings = load_settings({"GAVEL_LOG_LEVEL": "WARNING", "GAVEL_LEDGER_PATH": "off", **(environ or {})})
    registry = RubricRegistry.load()
    deps = BenchDeps(settings, registry, backend)
    return build_server(settings, registry, deps, register_tools=register_with_echo), deps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--latency-ms", type=float, default=0.0, help="scripted model latency per call")
    parser.add_argument("--max-concurrency", type=int, default=None, help="GAVEL_MAX_CONCURRENCY for the judge")
    args = parser.parse_args()

    from bench.scripted import valid_backend
    from gavel.server.logging import configure_logging
    from gavel.server.transports import run_stdio

    configure_logging("WARNING")
    environ = {"GAVEL_MAX_CONCURRENCY": str(args.max_concurrency)} if args.max_concurrency else {}
    server, _ = build_bench_server(valid_backend(args.latency_ms / 1000), environ=environ)
    run_stdio(server)


if __name__ == "__main__":
    main()
