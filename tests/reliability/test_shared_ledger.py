"""Beyond one machine: two `gavel serve --transport streamable-http --stateless` processes on different ports,
one PostgreSQL ledger (a real server the suite starts), one scripted model server on 127.0.0.1.

A judgment made through the first instance is served from the cache by the second (`cached: true`, no judging
call reaches the model server), and `gavel history` (a third process, reading the same database) lists both.
Run with the model tier as an Ollama server and as an OpenAI-compatible server (the deploy/ Compose file's
shape). The OpenAI-compatible path makes one one-token identity call per model and process (to learn the
server's `system_fingerprint`, the model's digest): the test tells it apart from a judging call.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import anyio
import mcp
import pytest

from tests.support.ollama_server import OllamaTestServer
from tests.support.openai_server import OpenAITestServer
from tests.support.processes import http_server, run_gavel, stop
from tests.support.replies import reply_for_schema

pytestmark = pytest.mark.slow

MODEL = "judge-model:latest"
CALL_TIMEOUT_S = 60.0
ARGS = {
    "question": "When was the Eiffel Tower completed?",
    "answer": "It was completed in 1889 [1].",
    "sources": [{"id": "1", "content": "The Eiffel Tower was completed in 1889 for the World's Fair in Paris."}],
}


class CountingModel:
    """Scores every metric at the top; counts judging calls (those asking for a JSON schema)."""

    def __init__(self) -> None:
        self.judging_calls = 0
        self.lock = threading.Lock()

    def schema_of(self, body: dict[str, Any]) -> dict[str, Any] | None:
        if isinstance(body.get("format"), dict):  # Ollama
            return body["format"]
        response_format = body.get("response_format") or {}
        return (response_format.get("json_schema") or {}).get("schema")  # OpenAI

    def __call__(self, body: dict[str, Any]) -> str:
        schema = self.schema_of(body)
        if schema is not None:
            with self.lock:
                self.judging_calls += 1
        return reply_for_schema(schema, "max") if schema is not None else "Yes"


@contextmanager
def model_tier(kind: str, model: CountingModel) -> Iterator[dict[str, str]]:
    if kind == "ollama":
        with OllamaTestServer(model, models=[MODEL]) as srv:
            yield {"GAVEL_BACKEND": "ollama", "GAVEL_OLLAMA_HOST": srv.url}
    else:
        with OpenAITestServer(model, models=[MODEL], api_key="model-key") as srv:
            yield {"GAVEL_BACKEND": "openai", "GAVEL_OPENAI_BASE_URL": srv.url, "GAVEL_OPENAI_API_KEY": "model-key"}


async def call(base_url: str) -> dict[str, Any]:
    with anyio.fail_after(CALL_TIMEOUT_S):
        async with mcp.Client(f"{base_url}/mcp", read_timeout_seconds=CALL_TIMEOUT_S) as session:
            result = await session.call_tool("judge_rag_answer", ARGS)
    assert not result.is_error, result
    assert result.structured_content is not None
    return result.structured_content


@pytest.mark.parametrize("kind", ["ollama", "openai"])
async def test_a_judgment_made_by_one_instance_is_served_by_another_from_the_shared_postgres_ledger(
    kind: str,
    postgres_url: str,
    clean_env: dict[str, str],
    free_port: Callable[[], int],
    tmp_path: Path,
) -> None:
    model = CountingModel()
    with model_tier(kind, model) as backend_env:
        env = {
            **clean_env,
            **backend_env,
            "GAVEL_JUDGE_MODEL": MODEL,
            "GAVEL_TIMEOUT_S": "30",
            "GAVEL_LOG_LEVEL": "WARNING",
            "GAVEL_LEDGER_URL": postgres_url,
        }
        env.pop("GAVEL_LEDGER_PATH")
        with ExitStack() as stack:
            first, second = (
                stack.enter_context(
                    http_server(["--transport", "streamable-http", "--stateless"], env, free_port(), tmp_path)
                )
                for _ in range(2)
            )
            judged = await call(first.base_url)
            calls_for_the_judgment = model.judging_calls
            served = await call(second.base_url)
            codes = [stop(first.process), stop(second.process)]
        history = run_gavel(["history"], env)

    assert judged["cached"] is False and judged["evaluation_id"]
    assert calls_for_the_judgment > 0
    assert served["cached"] is True, served
    assert served["evaluation_id"] == judged["evaluation_id"]
    assert model.judging_calls == calls_for_the_judgment, "the second instance asked the model to judge"
    assert {k: v for k, v in served.items() if k != "cached"} == {k: v for k, v in judged.items() if k != "cached"}
    assert codes == [0, 0], first.stderr() + second.stderr()

    assert history.returncode == 0, history.stderr
    rows = [line.split() for line in history.stdout.splitlines()[1:]]
    assert len(rows) == 2, history.stdout  # the judgment, and the call the second instance served from it
    (hit_id,) = [row[0] for row in rows if row[4] == "yes"]
    (made_id,) = [row[0] for row in rows if row[4] != "yes"]
    assert made_id == judged["evaluation_id"], history.stdout
    hit = run_gavel(["show", hit_id], env)
    assert hit.returncode == 0 and json.loads(hit.stdout)["served_from"] == judged["evaluation_id"]
    password = postgres_url.split(":")[2].split("@")[0]
    assert password not in history.stdout + history.stderr + first.stderr() + second.stderr()
