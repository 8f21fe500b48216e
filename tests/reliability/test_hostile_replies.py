"""Model replies built to make parsing slow or deep, sent by a real OpenAI-compatible server to a real `gavel
serve` over HTTP: the call ends within its deadline as `unscored` with a reason code, and another client is
served meanwhile.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import mcp
import pytest

from tests.reliability.support import leaks, result_text
from tests.reliability.tally import TALLY
from tests.support.injection_cases import ASSESSMENT, TRANSCRIPT
from tests.support.openai_server import OpenAITestServer
from tests.support.processes import RunningServer, http_server

MODEL = "judge-model"
DEADLINE_S = 20.0
LIST_BOUND_S = 1.0


@contextmanager
def gavel_over(reply: str, env: dict[str, str], port: int, workdir: Path) -> Iterator[RunningServer]:
    """`gavel serve` over HTTP, its judge an OpenAI-compatible server that answers every request with `reply`
    as a finished reply, whatever its length (a hostile server ignores max_tokens)."""

    def complete(body: dict[str, Any]) -> dict[str, Any]:
        message = {"role": "assistant", "content": reply}
        return {
            "id": "chatcmpl-hostile", "object": "chat.completion", "created": 0,
            "choices": [{"index": 0, "message": message, "finish_reason": "stop", "logprobs": None}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }  # fmt: skip

    with OpenAITestServer(models=[MODEL], passthrough=complete) as srv:
        env = {
            **env,
            "GAVEL_BACKEND": "openai",
            "GAVEL_OPENAI_BASE_URL": srv.url,
            "GAVEL_JUDGE_MODEL": MODEL,
            "GAVEL_READOUT": "generated",
            "GAVEL_TIMEOUT_S": "10",
            "GAVEL_CALL_DEADLINE_S": str(DEADLINE_S),
            "GAVEL_LOG_LEVEL": "WARNING",
        }
        with http_server(["--transport", "streamable-http"], env, port, workdir) as server:
            yield server


async def _evaluate(url: str) -> tuple[dict[str, Any], float]:
    started = time.monotonic()
    async with mcp.Client(url, read_timeout_seconds=DEADLINE_S * 2) as client:
        result = await client.call_tool("evaluate_assessment", {"assessment": ASSESSMENT, "source": TRANSCRIPT})
    assert not result.is_error, result_text(result)
    assert not leaks(result_text(result))
    assert result.structured_content is not None
    return result.structured_content, time.monotonic() - started


def _unscored_codes(content: dict[str, Any]) -> set[str | None]:
    metrics = content["scores"]
    assert metrics and all(m["status"] == "unscored" and m["score"] is None for m in metrics), metrics
    return {m["reason_code"] for m in metrics}


async def test_a_reply_of_20000_unmatched_braces_ends_in_time_while_another_client_lists_tools(
    clean_env: dict[str, str], free_port: Callable[[], int], tmp_path: Path
) -> None:
    with gavel_over("{" * 20_000, clean_env, free_port(), tmp_path) as server:
        url = f"{server.base_url}/mcp"
        listings: list[float] = []
        ready, done = anyio.Event(), anyio.Event()
        outcome: dict[str, Any] = {}

        async def evaluate() -> None:
            await ready.wait()
            outcome["content"], outcome["elapsed"] = await _evaluate(url)
            done.set()

        async def list_tools() -> None:
            async with mcp.Client(url, read_timeout_seconds=DEADLINE_S) as client:
                # The client's first request also negotiates the protocol version and meets the server cold: it
                # read 1.03 s once on a loaded 2-core CI machine. It is made before the evaluation starts, so every
                # listing timed is one made while the hostile reply is in flight; start-up is benchmarked apart.
                await client.list_tools()
                ready.set()
                while not done.is_set():
                    started = time.monotonic()
                    await client.list_tools()
                    listings.append(time.monotonic() - started)
                    await anyio.sleep(0.05)

        with anyio.fail_after(DEADLINE_S * 2):
            async with anyio.create_task_group() as tg:
                tg.start_soon(list_tools)
                tg.start_soon(evaluate)
    TALLY["hostile replies: tools/list during a 20k-brace reply, slowest (ms)"] = max(listings) * 1000
    assert outcome["elapsed"] < DEADLINE_S
    assert _unscored_codes(outcome["content"]) == {"reply_not_json"}
    assert listings and max(listings) < LIST_BOUND_S, f"tools/list took up to {max(listings):.2f}s"


@pytest.mark.parametrize("nesting", ["[", '{"a":'])
async def test_a_reply_nested_100000_deep_is_unscored_with_a_reason_code(
    clean_env: dict[str, str], free_port: Callable[[], int], tmp_path: Path, nesting: str
) -> None:
    with gavel_over(nesting * 100_000, clean_env, free_port(), tmp_path) as server:
        content, elapsed = await _evaluate(f"{server.base_url}/mcp")
    assert elapsed < DEADLINE_S
    assert _unscored_codes(content) <= {"reply_too_deep", "reply_too_long"}
