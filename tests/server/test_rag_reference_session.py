"""judge_rag_answer with a reference answer through a real in-memory MCP session: the argument is listed, and
answer correctness and context recall reach the client in the structured result, the text and the full schema."""

from __future__ import annotations

import json

import mcp
import pytest
from mcp_types import TextResourceContents

from tests.reliability.support import result_text, scripted_server
from tests.tools.test_rag_reference import REFERENCE, model
from tests.tools.test_rag_sentence_support import MIXED, PASSAGE, QUESTION

ARGUMENTS = {"question": QUESTION, "answer": MIXED, "sources": [{"content": PASSAGE}], "reference_answer": REFERENCE}


async def test_a_reference_answer_gives_correctness_and_recall_through_a_session() -> None:
    server, _ = scripted_server(model({(REFERENCE, "radio mast"): 0.1}))
    async with mcp.Client(server) as client:
        listed = {tool.name: tool for tool in (await client.list_tools()).tools}
        result = await client.call_tool("judge_rag_answer", ARGUMENTS)
    assert "reference_answer" in listed["judge_rag_answer"].input_schema["properties"]
    assert "reference_answer" in listed["judge_rag_answers"].input_schema["properties"]
    assert not result.is_error
    data = result.structured_content or {}
    assert data["answer_correctness"]["score"] == pytest.approx(0.1)
    assert data["answer_correctness"]["unsupported"] == ["It was built as a radio mast for the army."]
    assert data["context_recall"]["score"] == pytest.approx(0.9)
    assert "answer_correctness (vs the reference, informs only): 0.1" in result_text(result)


async def test_without_a_reference_the_figures_are_null_in_the_result() -> None:
    server, _ = scripted_server(model({}))
    async with mcp.Client(server) as client:
        result = await client.call_tool(
            "judge_rag_answer", {k: v for k, v in ARGUMENTS.items() if k != "reference_answer"}
        )
        full = await client.read_resource("schema://result/judge_rag_answer")
    data = result.structured_content or {}
    assert (data["answer_correctness"], data["context_recall"]) == (None, None)
    (content,) = full.contents
    assert isinstance(content, TextResourceContents)
    properties = json.loads(content.text)["properties"]
    assert "does not change the verdict" in properties["answer_correctness"]["description"]
    assert "does not change the verdict" in properties["context_recall"]["description"]


async def test_passages_sent_as_plain_strings_are_judged_as_passages() -> None:
    server, _ = scripted_server(model({}))
    async with mcp.Client(server) as client:
        result = await client.call_tool(
            "judge_rag_answer", {"question": QUESTION, "answer": MIXED, "sources": [PASSAGE]}
        )
    assert not result.is_error, result_text(result)
    assert (result.structured_content or {})["verdict"] != "unscored"
