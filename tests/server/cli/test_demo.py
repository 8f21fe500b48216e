"""What `gavel demo` prints about the server before it calls the tools, from a real MCP session's listing."""

from __future__ import annotations

import mcp

from gavel.server.cli.demo import rubrics_line
from tests.reliability.support import perfect_model, scripted_server


async def test_the_rubrics_line_lists_rubrics_only() -> None:
    server, _ = scripted_server(perfect_model())
    async with mcp.Client(server) as client:
        uris = [str(r.uri) for r in (await client.list_resources()).resources]
    assert "evaluation://recent" in uris  # listed by the server, but no rubric
    assert rubrics_line(uris) == (
        "Rubrics: clinical-assessment, dialogue-response, idea-quality, music-recommendation, rag-answer "
        "(each readable as rubric://ID)"
    )
