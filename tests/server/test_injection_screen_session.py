"""GAVEL_INJECTION_SCREEN=model through a real client session: the setting reaches the judge, and a flagged text is
neither passed nor approved, with the flags in the reply a client reads."""

from __future__ import annotations

from pathlib import Path

import mcp

from gavel.tools.engine import screen
from gavel.tools.engine.backend import ChatRequest
from tests.server.ledger_helpers import evaluate_args, ledger_server, rag_args
from tests.support.scripted import ScriptedBackend, yes_no

SYSTEM = screen.messages("x")[0].content


def model(p_screen: float) -> ScriptedBackend:
    def reply(request: ChatRequest):
        return yes_no(p_screen if request.messages[0].content == SYSTEM else 0.9)

    return ScriptedBackend(default=reply, probabilities=True)


async def test_the_setting_screens_each_judged_text_and_the_flags_reach_the_client(tmp_path: Path) -> None:
    backend = model(0.95)
    server, _ = ledger_server(tmp_path / "ledger.sqlite3", backend, GAVEL_INJECTION_SCREEN="model")
    async with mcp.Client(server) as client:
        assessed = await client.call_tool("evaluate_assessment", evaluate_args())
        judged = await client.call_tool("judge_rag_answer", rag_args())
    assert assessed.structured_content is not None and judged.structured_content is not None
    assert {"prompt_injection_suspected", screen.FLAGGED} <= set(assessed.structured_content["flags"])
    assert assessed.structured_content["passed"] is not True
    assert judged.structured_content["verdict"] != "approved"
    assert screen.FLAGGED in assessed.content[0].text
    assert sum(r.messages[0].content == SYSTEM for r in backend.requests) == 2


async def test_without_the_setting_no_text_is_screened(tmp_path: Path) -> None:
    backend = model(0.95)
    server, _ = ledger_server(tmp_path / "ledger.sqlite3", backend)
    async with mcp.Client(server) as client:
        assessed = await client.call_tool("evaluate_assessment", evaluate_args())
    assert assessed.structured_content is not None
    assert screen.FLAGGED not in assessed.structured_content["flags"]
    assert not any(r.messages[0].content == SYSTEM for r in backend.requests)
