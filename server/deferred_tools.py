"""An MCP server whose tools may register at their first use, while tools/list answers from a stored listing.

Building a tool for the SDK (its request and result models, the argument model the SDK derives from its signature)
was most of Gavel's share of a start, and a start only lists the tools. `defer_tools` gives the listing and what
registers the tools; everything that needs a tool itself (a call, an input-schema lookup, adding or removing a tool)
registers them first, and from then on tools/list is the live listing.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp_types import CallToolResult, InputRequiredResult
from mcp_types import Tool as MCPTool


class DeferredToolsServer(MCPServer[Any]):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # While the tools wait (`defer_tools`): what tools/list answers, and what registers them.
        self._listed: list[MCPTool] | None = None
        self._register: Callable[[], None] | None = None

    def defer_tools(self, listed: list[MCPTool], register: Callable[[], None]) -> None:
        """List `listed` until a tool is first needed, then `register` the tools (once) and list them live.

        `listed` must be what `register` makes the live listing (`gavel.server.tool_listing` keeps it so)."""
        self._listed, self._register = listed, register

    def tools_now(self) -> None:
        """Register the deferred tools, if they are still waiting."""
        register, self._register = self._register, None
        if register is not None:
            self._listed = None
            register()

    async def list_tools(self) -> list[MCPTool]:
        if self._listed is not None:
            return list(self._listed)
        return await self.live_tools()

    async def live_tools(self) -> list[MCPTool]:
        """tools/list once the tools are registered."""
        return await super().list_tools()

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        self.tools_now()
        return await super().call_tool(name, arguments, context)

    def add_tool(self, *args: Any, **kwargs: Any) -> None:
        self.tools_now()  # a tool added later comes after the deferred ones, as it would have
        super().add_tool(*args, **kwargs)

    def remove_tool(self, name: str) -> None:
        self.tools_now()
        super().remove_tool(name)

    def _tool_input_schema(self, name: str) -> Mapping[str, Any] | None:
        # The SDK's lookup for the Mcp-Param headers of Streamable HTTP, made before a call reaches `call_tool`.
        self.tools_now()
        return super()._tool_input_schema(name)
