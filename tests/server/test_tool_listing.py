"""The stored tools/list (server/tools_list.json) is what the live tool models list, so it can never go stale."""

from __future__ import annotations

from typing import Any

import mcp

from gavel.server.app import build_server
from gavel.server.call_deps import make_deps_factory
from gavel.server.settings import load_settings
from gavel.server.tool_listing import LISTING_FILE, REGENERATE, live_listing, render
from gavel.tools.rubric_registry import RubricRegistry


def test_the_stored_listing_is_what_the_live_tool_models_list() -> None:
    assert LISTING_FILE.read_text(encoding="utf-8") == render(live_listing()), (
        f"{LISTING_FILE.name} differs from the tools' live models: regenerate it with `{REGENERATE}`"
    )


def _dumped(tools: list[Any]) -> list[dict[str, Any]]:
    return [tool.model_dump(mode="json", by_alias=True, exclude_none=True) for tool in tools]


async def test_a_server_lists_the_same_tools_before_and_after_they_register(registry: RubricRegistry) -> None:
    # Limits other than the defaults: each description states the configured ones either way.
    settings = load_settings({"GAVEL_LEDGER_PATH": "off", "GAVEL_MAX_TEXT_CHARS": "5000", "GAVEL_MAX_SOURCES": "7"})
    server = build_server(settings, registry, make_deps_factory(settings, registry))
    async with mcp.Client(server) as client:
        stored = (await client.list_tools()).tools
        assert "5,000 characters per text field" in (stored[0].description or "")
        server.tools_now()
        assert server.tool_specs  # registered for real
        live = (await client.list_tools()).tools
    assert _dumped(stored) == _dumped(live)
