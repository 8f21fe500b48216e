"""Load: `gavel serve --transport streamable-http` (and `--stateless`) as a real process, many concurrent MCP
clients each making many calls, against a model with a fixed latency (the Ollama-API test server in this
process, behind GAVEL_BACKEND=ollama).

Zero failed calls, the limiter honoured (the test server never sees more concurrent /api/chat requests than
GAVEL_MAX_CONCURRENCY), and the server's peak RSS reported. 127.0.0.1 only; the counts and the time are bounded.
CI runs 20 clients x 5 calls; GAVEL_FULL_RELIABILITY=1 runs 50 clients x 20 calls.
"""

from __future__ import annotations

import statistics
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import mcp
import pytest

from tests.reliability.support import result_text
from tests.reliability.tally import FULL, TALLY
from tests.support.ollama_server import OllamaTestServer
from tests.support.processes import RunningServer, http_server, stop
from tests.support.replies import reply_for_schema

pytestmark = pytest.mark.slow

MODEL = "judge-model:latest"
CLIENTS, CALLS_PER_CLIENT = (50, 20) if FULL else (20, 5)
MAX_CONCURRENCY = 4
LATENCY_S = 0.05
LOAD_BOUND_S = 600.0 if FULL else 120.0


@dataclass
class FixedLatencyModel:
    """Answers every chat after LATENCY_S; counts how many chats it serves at once."""

    latency_s: float = LATENCY_S
    active: int = 0
    peak: int = 0
    served: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def __call__(self, body: dict[str, Any]) -> str:
        with self.lock:
            self.active += 1
            self.peak = max(self.peak, self.active)
        try:
            time.sleep(self.latency_s)
            schema = body.get("format") if isinstance(body.get("format"), dict) else None
            return reply_for_schema(schema, "max")
        finally:
            with self.lock:
                self.active -= 1
                self.served += 1


def peak_rss_mib(pid: int) -> float:
    """The process's high-water resident set size (VmHWM), from /proc."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise AssertionError(f"no VmHWM in /proc/{pid}/status")


@dataclass
class LoadOutcome:
    calls: int = 0
    failures: list[str] = field(default_factory=list)
    latencies: list[float] = field(default_factory=list)
    wall_s: float = 0.0


async def _load(server: RunningServer) -> LoadOutcome:
    outcome = LoadOutcome()

    async def client(index: int) -> None:
        try:
            async with mcp.Client(f"{server.base_url}/mcp", read_timeout_seconds=60) as session:
                for call in range(CALLS_PER_CLIENT):
                    started = time.monotonic()
                    result = await session.call_tool(
                        "evaluate_assessment",
                        {"assessment": f"Client {index}, call {call}: low mood for weeks.", "metrics": ["specificity"]},
                    )
                    outcome.latencies.append(time.monotonic() - started)
                    outcome.calls += 1
                    if (
                        result.is_error
                        or not result.structured_content
                        or result.structured_content["passed"] is not True
                    ):
                        outcome.failures.append(result_text(result)[:200])
        except Exception as exc:  # noqa: BLE001 - a client that fails in any way is a failed call, counted and shown
            outcome.failures.append(f"client {index}: {type(exc).__name__}: {exc}"[:300])

    started = time.monotonic()
    with anyio.fail_after(LOAD_BOUND_S):
        async with anyio.create_task_group() as tg:
            for index in range(CLIENTS):
                tg.start_soon(client, index)
    outcome.wall_s = time.monotonic() - started
    return outcome


@pytest.fixture(scope="module")
def ollama() -> Iterator[OllamaTestServer]:
    with OllamaTestServer(FixedLatencyModel(), models=[MODEL]) as server:
        yield server


@pytest.mark.parametrize("mode", [pytest.param([], id="stateful"), pytest.param(["--stateless"], id="stateless")])
async def test_many_concurrent_clients_get_every_call_answered_within_the_limiter_and_bounded_memory(
    ollama: OllamaTestServer,
    clean_env: dict[str, str],
    free_port: Callable[[], int],
    tmp_path: Path,
    mode: list[str],
) -> None:
    model = FixedLatencyModel()
    ollama.responder = model
    env = {
        **clean_env,
        "GAVEL_BACKEND": "ollama",
        "GAVEL_OLLAMA_HOST": ollama.url,
        "GAVEL_JUDGE_MODEL": MODEL,
        "GAVEL_MAX_CONCURRENCY": str(MAX_CONCURRENCY),
        "GAVEL_TIMEOUT_S": "60",
        "GAVEL_LOG_LEVEL": "WARNING",  # an access-log line per request would measure the logger
        "GAVEL_LEDGER_PATH": "off",
    }
    with http_server(["--transport", "streamable-http", *mode], env, free_port(), tmp_path) as server:
        outcome = await _load(server)
        rss = peak_rss_mib(server.process.pid)
        code = stop(server.process)
    name = "stateless" if mode else "stateful"
    total = CLIENTS * CALLS_PER_CLIENT
    TALLY[f"load ({name}): clients x calls"] = total
    TALLY[f"load ({name}): failed calls"] = len(outcome.failures) + (total - outcome.calls)
    TALLY[f"load ({name}): peak RSS of the server, MiB"] = round(rss, 1)
    TALLY[f"load ({name}): max concurrent model calls (limit {MAX_CONCURRENCY})"] = model.peak
    TALLY[f"load ({name}): calls per second"] = round(outcome.calls / outcome.wall_s, 1)
    TALLY[f"load ({name}): p95 call latency, ms"] = round(statistics.quantiles(outcome.latencies, n=20)[-1] * 1000)
    assert outcome.failures == [], outcome.failures[:5]
    assert outcome.calls == total
    # One model call per evaluation, and the backend's one log-probability probe (this model returns none).
    assert model.served == total + 1, "one model call per evaluation and one probe"
    assert 1 < model.peak <= MAX_CONCURRENCY, f"the model saw {model.peak} concurrent calls"
    assert rss < 1024, f"peak RSS {rss:.0f} MiB"
    assert code == 0
