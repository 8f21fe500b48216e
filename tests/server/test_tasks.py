"""Long calls as MCP tasks (`io.modelcontextprotocol/tasks`) through a real Streamable HTTP endpoint (stateless, as a
team deploys it), with the scripted model behind the real server: the handle, polling, cancelling, the wire shapes
against the extension's published schema, and clients that do not opt in."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import jsonschema
import mcp
import pytest
from mcp.client.extension import advertise
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult

from gavel.server.tasks import TaskRuntime
from gavel.tools.candidates import ScoreCandidatesResult
from gavel.tools.engine.progress import ProgressFn
from gavel.tools.refine import RefinementResult
from tests.reliability.support import scripted_server, worst_model
from tests.support import tasks_client as tc
from tests.support.http_thread import serving
from tests.support.scripted import ScriptedBackend

LOOP = {"draft": "Low mood.", "source": "Patient: low mood for three weeks.", "max_iterations": 3}
SCHEMA = json.loads(Path(__file__).with_name("ext_tasks_schema.json").read_text(encoding="utf-8"))
CANDIDATES = [{"id": "a", "text": "First idea.", "novelty": 0.9}, {"id": "b", "text": "Second idea.", "novelty": 0.2}]
TASKS = {"extensions": {tc.TASKS_EXTENSION: {}}}


@pytest.fixture
def model() -> ScriptedBackend:
    return worst_model(latency_s=0.05)  # never passes: a refinement runs all its iterations, a few seconds


@pytest.fixture
def endpoint(model: ScriptedBackend, free_port: Callable[[], int]) -> Iterator[str]:
    server, _ = scripted_server(model)
    with serving(server, free_port()) as url:
        yield url


def opted_in(url: str) -> mcp.Client:
    return mcp.Client(url, extensions=[tc.TasksClient()], read_timeout_seconds=30)


def valid(definition: str, instance: dict[str, Any]) -> None:
    jsonschema.validate(instance, {**SCHEMA, "$ref": f"#/$defs/{definition}"})


async def test_an_opted_in_client_gets_a_handle_within_a_second_and_polls_the_refinement_to_its_result(
    endpoint: str,
) -> None:
    async with opted_in(endpoint) as client:
        await client.list_tools()
        started = time.monotonic()
        handle = await tc.handle(client, "refine_until_pass", LOOP)
        waited = time.monotonic() - started
        with anyio.fail_after(60):
            answers = await tc.poll(client.session, handle.task_id)
    assert isinstance(handle, tc.CreateTaskResult) and handle.status == "working", handle
    assert waited < 1.0, f"the handle took {waited:.2f} s"
    final = answers[-1]
    assert final["status"] == "completed", final
    result = CallToolResult.model_validate(final["result"])
    assert result.is_error is False
    assert RefinementResult.model_validate(result.structured_content).stop_reason == "max_iterations"
    progress = [a.get("statusMessage", "") for a in answers if a["status"] == "working"]
    assert any("of 3 done" in message or "model calls" in message for message in progress), progress


async def test_a_stateful_endpoint_runs_tasks_too(model: ScriptedBackend, free_port: Callable[[], int]) -> None:
    server, _ = scripted_server(model)
    with serving(server, free_port(), stateless=False) as url:
        async with opted_in(url) as client:
            handle = await tc.handle(client, "refine_until_pass", LOOP)
            assert isinstance(handle, tc.CreateTaskResult), handle
            with anyio.fail_after(60):
                final = (await tc.poll(client.session, handle.task_id))[-1]
    assert final["status"] == "completed" and final["result"]["isError"] is False


async def test_a_cancelled_task_stops_its_model_calls_and_another_task_runs_on(
    endpoint: str, model: ScriptedBackend
) -> None:
    marker = "Second draft to cancel."

    def calls_for_second() -> int:
        return sum(any(marker in m.content for m in request.messages) for request in model.requests)

    async with opted_in(endpoint) as client:
        first = await tc.handle(client, "refine_until_pass", LOOP)
        second = await tc.handle(client, "refine_until_pass", {**LOOP, "draft": marker, "max_iterations": 20})
        assert isinstance(first, tc.CreateTaskResult) and isinstance(second, tc.CreateTaskResult)
        with anyio.fail_after(30):
            while calls_for_second() < 3:  # noqa: ASYNC110 - the scripted model signals nothing
                await anyio.sleep(0.02)
        ack = await tc.cancel(client.session, second.task_id)
        at_cancel = calls_for_second()
        await anyio.sleep(1.0)
        after = await tc.get(client.session, second.task_id)
        with anyio.fail_after(60):
            finished = (await tc.poll(client.session, first.task_id))[-1]
    assert ack["resultType"] == "complete"
    assert after["status"] == "cancelled" and "result" not in after, after
    assert calls_for_second() <= at_cancel + 4, "the cancelled refinement kept calling the model"
    assert finished["status"] == "completed"


async def test_the_server_advertises_the_extension(endpoint: str) -> None:
    async with opted_in(endpoint) as client:
        extensions = client.server_capabilities.extensions or {}
    assert extensions.get(tc.TASKS_EXTENSION) == {}


async def test_a_client_that_does_not_opt_in_gets_the_result_as_before(endpoint: str) -> None:
    async with mcp.Client(endpoint, read_timeout_seconds=60) as client:
        result = await client.call_tool("refine_until_pass", LOOP)
    assert result.is_error is False
    assert RefinementResult.model_validate(result.structured_content).stop_reason == "max_iterations"


async def test_a_client_on_the_handshake_protocol_gets_the_result_as_before(endpoint: str) -> None:
    async with mcp.Client(endpoint, mode="legacy", extensions=[advertise(tc.TASKS_EXTENSION)]) as client:
        result = await client.call_tool("refine_until_pass", LOOP)
    assert result.is_error is False and result.structured_content is not None


async def test_the_tasks_client_ends_with_the_same_result_a_plain_call_gets(endpoint: str) -> None:
    async with opted_in(endpoint) as client:
        result = await client.call_tool("refine_until_pass", LOOP)
    assert result.is_error is False
    assert RefinementResult.model_validate(result.structured_content).stop_reason == "max_iterations"


async def test_quick_calls_are_answered_directly_and_score_candidates_with_a_rubric_is_a_task(endpoint: str) -> None:
    async with opted_in(endpoint) as client:
        numbers_only = await tc.handle(client, "score_candidates", {"candidates": CANDIDATES, "top_k": 1,
                                                                    "weights": {"novelty": 1}})  # fmt: skip
        judged = await tc.handle(client, "score_candidates", {"candidates": CANDIDATES, "top_k": 1,
                                                              "rubric": "idea-quality"})  # fmt: skip
        assessment = await tc.handle(client, "evaluate_assessment", {"assessment": "Low mood."})
        assert isinstance(judged, tc.CreateTaskResult), judged
        with anyio.fail_after(60):
            final = (await tc.poll(client.session, judged.task_id))[-1]
    assert isinstance(numbers_only, CallToolResult) and numbers_only.is_error is False
    assert isinstance(assessment, CallToolResult) and assessment.is_error is False
    assert final["status"] == "completed"
    assert len(ScoreCandidatesResult.model_validate(final["result"]["structuredContent"]).ranking) == 2


RAG_BATCH = {
    "question": "When was the Eiffel Tower completed?",
    "answers": [{"agent_name": "a", "answer": "In 1889 [1]."}, {"agent_name": "b", "answer": "In 1925 [1]."}],
    "sources": [{"id": "1", "content": "The Eiffel Tower was completed in 1889."}],
}


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [("judge_rag_answers", RAG_BATCH), ("calibrate_judge", {"set": "halueval-qa", "limit": 2})],
)
async def test_the_other_long_tools_run_as_tasks_to_a_result(
    endpoint: str, tool: str, arguments: dict[str, Any]
) -> None:
    async with opted_in(endpoint) as client:
        handle = await tc.handle(client, tool, arguments)
        assert isinstance(handle, tc.CreateTaskResult), handle
        with anyio.fail_after(60):
            final = (await tc.poll(client.session, handle.task_id))[-1]
    assert final["status"] == "completed" and final["result"]["isError"] is False, final
    assert final["result"]["structuredContent"]


async def test_bad_arguments_are_refused_at_once_without_a_task(endpoint: str) -> None:
    async with opted_in(endpoint) as client:
        answer = await tc.handle(client, "refine_until_pass", {**LOOP, "max_iterations": "many"})
    assert isinstance(answer, CallToolResult) and answer.is_error is True
    assert "max_iterations" in answer.content[0].text  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("refine_until_pass", {**LOOP, "rubric": "no-such-rubric"}),
        ("refine_until_pass", {"source": "Patient: low mood."}),
        ("judge_rag_answers", {**RAG_BATCH, "answers": [{"agent_name": "a", "answer": "x"}] * 2}),
        ("calibrate_judge", {"set": "no-such-set"}),
        ("score_candidates", {"candidates": CANDIDATES, "rubric": "no-such-rubric"}),
    ],
)
async def test_a_request_its_tool_refuses_is_answered_at_once_as_without_a_task(
    endpoint: str, tool: str, arguments: dict[str, Any]
) -> None:
    async with opted_in(endpoint) as client:
        answer = await tc.handle(client, tool, arguments)
    async with mcp.Client(endpoint) as client:
        direct = await client.call_tool(tool, arguments)
    assert isinstance(answer, CallToolResult), answer
    assert answer.is_error is True and answer.content == direct.content


async def test_a_task_ending_in_a_tool_error_answers_in_the_words_of_a_direct_call() -> None:
    runtime = TaskRuntime(lambda: None)

    async def refused(progress: ProgressFn) -> CallToolResult:
        raise ToolError("the server is shutting down")

    async with runtime.running():
        handle = await runtime.start("refine_until_pass", "e1", refused)
        assert handle is not None
        with anyio.fail_after(10):
            while (final := await runtime.get(handle["taskId"]))["status"] == "working":  # noqa: ASYNC110
                await anyio.sleep(0.02)
    assert final["status"] == "completed" and final["result"]["isError"] is True
    text = final["result"]["content"][0]["text"]
    assert text == "Error executing tool refine_until_pass: the server is shutting down"


# -- the wire, as the extension's schema has it ---------------------------------------------------------------------


async def post(http: httpx.AsyncClient, url: str, method: str, params: dict[str, Any], *,
               name: str | None = None, capabilities: dict[str, Any] = TASKS) -> dict[str, Any]:  # fmt: skip
    """One 2026-07-28 request as a client sends it over Streamable HTTP; the JSON-RPC response."""
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "raw-client", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": capabilities,
    }
    headers = {"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": method,
               "Accept": "application/json, text/event-stream"}  # fmt: skip
    if name is not None:
        headers["Mcp-Name"] = name
    body = {"jsonrpc": "2.0", "id": 7, "method": method, "params": {**params, "_meta": meta}}
    response = await http.post(url, json=body, headers=headers)
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        events = [json.loads(line[5:]) for line in response.text.splitlines() if line.startswith("data:")]
        return next(event for event in events if event.get("id") == 7)
    return response.json()


async def test_handles_and_task_results_follow_the_extensions_published_schema(endpoint: str) -> None:
    async with httpx.AsyncClient(timeout=30) as http:
        created = await post(http, endpoint, "tools/call", {"name": "refine_until_pass", "arguments": LOOP},
                             name="refine_until_pass")  # fmt: skip
        task_id = created["result"]["taskId"]
        working = await post(http, endpoint, "tasks/get", {"taskId": task_id}, name=task_id)
        updated = await post(http, endpoint, "tasks/update", {"taskId": task_id, "inputResponses": {}}, name=task_id)
        with anyio.fail_after(60):
            done = working
            while done["result"]["status"] == "working":
                await anyio.sleep(0.1)
                done = await post(http, endpoint, "tasks/get", {"taskId": task_id}, name=task_id)
        cancelled = await post(http, endpoint, "tasks/cancel", {"taskId": task_id}, name=task_id)
    valid("CreateTaskResult", created["result"])
    valid("GetTaskResult", working["result"])
    valid("UpdateTaskResult", updated["result"])
    valid("GetTaskResult", done["result"])
    valid("CancelTaskResult", cancelled["result"])
    assert created["result"]["resultType"] == "task" and working["result"]["resultType"] == "complete"
    assert done["result"]["status"] == "completed" and "content" in done["result"]["result"]


async def test_task_requests_are_refused_as_the_extension_says(endpoint: str) -> None:
    async with httpx.AsyncClient(timeout=30) as http:
        created = await post(http, endpoint, "tools/call", {"name": "refine_until_pass", "arguments": LOOP},
                             name="refine_until_pass")  # fmt: skip
        task_id = created["result"]["taskId"]
        undeclared = await post(http, endpoint, "tasks/get", {"taskId": task_id}, name=task_id, capabilities={})
        unknown = await post(http, endpoint, "tasks/get", {"taskId": "0" * 32}, name="0" * 32)
        misrouted = await post(http, endpoint, "tasks/cancel", {"taskId": task_id}, name="another-task")
        still = await post(http, endpoint, "tasks/get", {"taskId": task_id}, name=task_id)
    assert undeclared["error"]["code"] == -32021
    assert undeclared["error"]["data"]["requiredCapabilities"]["extensions"] == {tc.TASKS_EXTENSION: {}}
    assert unknown["error"]["code"] == -32602 and "no task" in unknown["error"]["message"]
    assert misrouted["error"]["code"] == -32020
    assert still["result"]["status"] in ("working", "completed"), "a misrouted cancel cancelled the task"
