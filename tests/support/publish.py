"""Tools of the tests' and benchmarks' own, published through the boundary exactly as Gavel's tools are."""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import MCPServer

from gavel.server.boundary import DepsFactory, ToolSpec, publish
from gavel.server.client_sampling import UsesSampling


def register_tool(
    server: MCPServer[Any],
    *,
    deps_factory: DepsFactory,
    uses_sampling: UsesSampling | None = None,
    **spec: Any,
) -> None:
    """`publish` a `ToolSpec` given as keyword arguments."""
    publish(server, ToolSpec(**spec), deps_factory, uses_sampling)
