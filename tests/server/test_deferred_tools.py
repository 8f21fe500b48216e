"""A server whose tools wait: listed from what it was given, registered at the first thing that needs a tool."""

from __future__ import annotations

import mcp
from mcp_types import Tool as MCPTool

from gavel.server.deferred_tools import DeferredToolsServer


def _waiting(registered: list[str]) -> DeferredToolsServer:
    server = DeferredToolsServer("deferred")

    def register() -> None:
        registered.append("now")

        @server.tool()
        def ping(text: str) -> str:
            """Send the text back."""
            return text

    server.defer_tools([MCPTool(name="ping", input_schema={"type": "object"})], register)
    return server


async def test_listing_registers_nothing_and_a_call_registers_the_tools_once() -> None:
    registered: list[str] = []
    async with mcp.Client(_waiting(registered)) as client:
        assert [tool.name for tool in (await client.list_tools()).tools] == ["ping"]
        assert registered == []
        assert (await client.call_tool("ping", {"text": "hi"})).structured_content == {"result": "hi"}
        await client.call_tool("ping", {"text": "again"})
    assert registered == ["now"]


async def test_a_tool_added_later_comes_after_the_waiting_ones() -> None:
    server = _waiting([])

    @server.tool()
    def later() -> str:
        """Added after the deferred tools."""
        return "later"

    assert [tool.name for tool in await server.list_tools()] == ["ping", "later"]
