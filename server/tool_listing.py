"""The tools as tools/list shows them, read from a data file at start; the tools themselves register at first use.

A start answers tools/list without importing a tool's request and result models or building the SDK's argument
model for each: those were most of Gavel's share of a start. `tools_list.json`, beside this module, holds what the
live registration lists (names, titles, descriptions without their limits, input and output schemas, annotations);
a test regenerates it from the live models and fails, naming this command, whenever they differ:

    python -m gavel.server.tool_listing

The tools register for real (`gavel.server.tool_registry`) at the first call, input-schema lookup or result-schema
read (see `BoundaryServer.defer_tools`), after which tools/list is the live listing, the same as before.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp_types import Tool as MCPTool

from gavel.server.boundary import BoundaryServer, DepsFactory, add_result_schema
from gavel.server.tool_limits import described
from gavel.tools.common import Limits

LISTING_FILE = Path(__file__).with_name("tools_list.json")
REGENERATE = "python -m gavel.server.tool_listing"


def stored_listing(path: Path = LISTING_FILE) -> list[dict[str, Any]]:
    listing: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))
    return listing


def listed_tools(limits: Limits, listing: list[dict[str, Any]] | None = None) -> list[MCPTool]:
    """The tools/list entries for these limits, from the stored listing."""
    return [
        MCPTool.model_validate({**entry, "description": described(entry["name"], entry["description"], limits)})
        for entry in (stored_listing() if listing is None else listing)
    ]


def register_later(server: MCPServer[Any], deps_factory: DepsFactory, limits: Limits) -> None:
    """`build_server`'s default registrar: the stored listing now, Gavel's tools at their first use.

    Any other server (not a `BoundaryServer`) gets the tools registered at once."""

    def register() -> None:
        from gavel.server.tool_registry import register_all_tools

        register_all_tools(server, deps_factory, limits)

    if not isinstance(server, BoundaryServer):
        register()
        return
    listed = listed_tools(limits)
    server.defer_tools(listed, register)
    # The result-schema resources are listed from the start, where the registration would add them.
    for tool in listed:
        add_result_schema(server, tool.name, tool.title or tool.name)


def live_listing() -> list[dict[str, Any]]:
    """What the live registration lists, as stored: each tool's description without its limits note."""
    import anyio

    from gavel.server.tool_registry import TOOLS, publish_all

    server = BoundaryServer("listing")
    publish_all(server, TOOLS, _no_deps, None)
    tools = anyio.run(server.list_tools)
    return [tool.model_dump(mode="json", by_alias=True, exclude_none=True) for tool in tools]


def _no_deps(*args: Any) -> Any:
    raise AssertionError("listing the tools makes no call")


def render(listing: list[dict[str, Any]]) -> str:
    return json.dumps(listing, indent=1, ensure_ascii=False) + "\n"


def main() -> None:
    LISTING_FILE.write_text(render(live_listing()), encoding="utf-8")
    sys.stderr.write(f"wrote {LISTING_FILE}\n")


if __name__ == "__main__":
    main()
