"""Benchmark: what the evaluation ledger costs, and what a cache hit saves.

1. Write cost per judgment, in process: the time the boundary spends recording a finished judgment
   (`LedgerCall.record`: serialize the result, hop to a worker thread, one SQLite transaction committed in
   WAL mode) for an evaluate_assessment result (1 row) and a judge_rag_answers batch of 5 answers
   (6 rows), and the bare store write (`Ledger.record`, one row) beneath it.
2. Round trips over stdio against a `python -m bench.ledger --serve` process (the real server: tools,
   boundary, ledger, plus an echo tool through the same boundary): echo; a stored evaluation (the same
   result returned by a tool with no ledger and no model: what a result of that size costs through the
   boundary and the SDK); evaluate_assessment served from the ledger (a hit: key, lookup, validation; the
   served call's own row is written in the background); and evaluate_assessment with no_cache (judged by
   a scripted model answering at once, then recorded). Calls are interleaved round-robin after
   a warm-up, so drifting load on the shared machine hits all three alike. Two clients, each against its
   own server process:
   - raw: JSON-RPC lines written to the server's stdin and read from its stdout; the server's round trip.
   - sdk: `mcp.Client`, which also validates every structured result against the tool's outputSchema with
     jsonschema. That costs milliseconds for a judgment's result (and nothing for echo's), for a cached
     and a fresh judgment alike: it is the client's cost, reported so it is not mistaken for the ledger's.

Goal: a cache hit's p50 ≤ 1.5 × the echo tool's p50 in the same run, on the raw round trip.

    python -m bench.ledger [--smoke] [--calls N] [--writes N] [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
import mcp
from anyio.abc import Process
from anyio.streams.buffered import BufferedByteReceiveStream
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel

from bench.common import REPO_ROOT, RESULTS_DIR, Run, quiet_logging, say, summary_ms, table
from bench.scripted import valid_backend
from bench.server_entry import ECHO_TOOL, BenchDeps, register_echo
from gavel.server.app import build_server
from gavel.server.boundary import DepsFactory, judging_annotations
from gavel.server.ledger_calls import LedgerCall, new_evaluation_id
from gavel.server.settings import load_settings
from gavel.server.tool_registry import register_all_tools
from gavel.tools.assessment import EvaluateAssessmentRequest, EvaluationResult, evaluate_assessment
from gavel.tools.common import Limits
from gavel.tools.deps import ToolDeps
from gavel.tools.engine.progress import no_progress
from gavel.tools.ledger import Entry, Ledger, timestamp, to_json, utc_now
from gavel.tools.rag import JudgeRagAnswersRequest, RagBatchResult, judge_rag_answers
from gavel.tools.rubric_registry import RubricRegistry
from tests.support.publish import register_tool

NAME = "ledger"
GOAL_RATIO = 1.5
CALL_TIMEOUT_S = 30.0

TRANSCRIPT = (
    "Interviewer: How have you been sleeping?\nPatient: Badly. For about three weeks I wake at 4 a.m. nearly "
    "every night.\nInterviewer: And your interest in things?\nPatient: I stopped going to choir, which I loved."
)
ASSESSMENT = "The patient has early waking for three weeks and lost interest in choir."
SOURCES = [
    {"id": "doc1", "content": "The Eiffel Tower is 330 metres tall and stands in Paris."},
    {"id": "doc2", "content": "It was completed in 1889 for the World's Fair."},
]


# -- the server (this module with --serve) -------------------------------------------------------------------


class StoredEvaluation:
    """A tool returning a judgment made once at start-up, with no ledger and no model: the floor for a
    result of that size through the same boundary and SDK (request validation, text, structured content)."""

    def __init__(self) -> None:
        self.result: EvaluationResult | None = None

    async def __call__(self, request: EvaluateAssessmentRequest, deps: ToolDeps) -> EvaluationResult:
        if self.result is None:
            self.result = await evaluate_assessment(request, deps)
        return self.result.model_copy()


STORED_EVALUATION_TOOL = "stored_evaluation"


def register_with_echo(server: MCPServer[Any], deps_factory: DepsFactory, limits: Limits) -> None:
    register_all_tools(server, deps_factory, limits)
    register_tool(
        server,
        name=STORED_EVALUATION_TOOL,
        title="Stored evaluation",
        description="Return one evaluation made at the first call, with no ledger and no model afterwards.",
        request_model=EvaluateAssessmentRequest,
        result_model=EvaluationResult,
        impl=StoredEvaluation(),
        deps_factory=deps_factory,
        annotations=judging_annotations(idempotent=True, title="Stored evaluation"),
    )
    register_echo(server, deps_factory)


def serve(ledger_path: str) -> None:
    from gavel.server.logging import configure_logging
    from gavel.server.transports import run_stdio

    configure_logging("WARNING")
    settings = load_settings({"GAVEL_LOG_LEVEL": "WARNING", "GAVEL_LEDGER_PATH": ledger_path})
    registry = RubricRegistry.load()
    deps = BenchDeps(settings, registry, valid_backend())
    run_stdio(build_server(settings, registry, deps, register_tools=register_with_echo))


# -- 1. write cost -------------------------------------------------------------------------------------------


async def _judged(deps: ToolDeps) -> tuple[EvaluateAssessmentRequest, EvaluationResult, JudgeRagAnswersRequest,
                                            RagBatchResult]:  # fmt: skip
    evaluate = EvaluateAssessmentRequest(assessment=ASSESSMENT, source=TRANSCRIPT, no_cache=True)
    batch = JudgeRagAnswersRequest.model_validate(
        {
            "question": "How tall is the Eiffel Tower?",
            "sources": SOURCES,
            "answers": [{"agent_name": f"agent-{i}", "answer": f"It is {300 + i} metres tall [1]."} for i in range(5)],
            "no_cache": True,
        }
    )
    return evaluate, await evaluate_assessment(evaluate, deps), batch, await judge_rag_answers(batch, deps)


async def _record_times(
    ledger: Ledger, deps: ToolDeps, tool: str, request: BaseModel, result: Any, count: int
) -> list[float]:
    times = []
    for _ in range(count):
        call = LedgerCall(
            ledger, tool=tool, request=request, result_model=type(result), evaluation_id=new_evaluation_id()
        )
        await call.track(deps).judge()  # the tool asked for its judge: this call judged (no_cache: no lookup)
        started = time.perf_counter()
        if await call.record(result) is None:
            raise RuntimeError(f"the ledger did not record: {ledger.failure}")
        times.append(time.perf_counter() - started)
    return times


def _store_times(ledger: Ledger, result: EvaluationResult, count: int) -> list[float]:
    result_json = to_json(result.model_dump(mode="json"))
    times = []
    for _ in range(count):
        entry = Entry(id=new_evaluation_id(), tool="evaluate_assessment", created_at=timestamp(utc_now()),
                      duration_ms=1.0, request_hash="0" * 64, request_json=None, result_json=result_json,
                      provenance_json=None, usage_json=None, headline=result.summary)  # fmt: skip
        started = time.perf_counter()
        if not ledger.record([entry]):
            raise RuntimeError(f"the ledger did not record: {ledger.failure}")
        times.append(time.perf_counter() - started)
    return times


async def write_cost(directory: Path, writes: int) -> list[dict[str, Any]]:
    settings = load_settings({"GAVEL_LEDGER_PATH": "off"})
    deps = BenchDeps(settings, RubricRegistry.load(), valid_backend())(None, no_progress)  # type: ignore[arg-type]
    evaluate, evaluation, batch, batch_result = await _judged(deps)
    ledger = Ledger(directory / "writes.sqlite3")
    try:
        rows = []
        for tool, label, request, result, row_count in (
            ("evaluate_assessment", "evaluate_assessment (1 row)", evaluate, evaluation, 1),
            ("judge_rag_answers", "judge_rag_answers, 5 answers (6 rows)", batch, batch_result, 6),
        ):
            times = await _record_times(ledger, deps, tool, request, result, writes)
            size = len(to_json(result.model_dump(mode="json")))
            rows.append({"what": f"record {label}", "rows": row_count, "result_bytes": size, **summary_ms(times)})
        store = _store_times(ledger, evaluation, writes)
        rows.append({"what": "store only: Ledger.record, 1 row", "rows": 1, "result_bytes": None, **summary_ms(store)})
        return rows
    finally:
        ledger.close()


# -- 2. round trips over stdio -------------------------------------------------------------------------------


def _child_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GAVEL_") and k != "OLLAMA_HOST"}
    env.update({"GAVEL_OLLAMA_HOST": "http://127.0.0.1:9", "PYTHONUNBUFFERED": "1"})
    return env


def _plan() -> dict[str, tuple[str, dict[str, Any], bool | None]]:
    evaluate = {"assessment": ASSESSMENT, "source": TRANSCRIPT}
    return {
        "echo": (ECHO_TOOL, {"text": "ping"}, None),
        "stored evaluation (same result, no ledger)": (STORED_EVALUATION_TOOL, evaluate, False),
        "evaluate_assessment, cache hit": ("evaluate_assessment", evaluate, True),
        "evaluate_assessment, no_cache (judged + recorded)": ("evaluate_assessment", {**evaluate, "no_cache": True},
                                                              False),
    }  # fmt: skip


def _server_command(ledger_path: Path) -> list[str]:
    return [sys.executable, "-m", "bench.ledger", "--serve", str(ledger_path)]


async def _interleaved(call: Any, calls: int, warmup: int) -> dict[str, list[float]]:
    """Round-robin over the plan; `call(tool, arguments)` returns the structured content (or raises)."""
    plan = _plan()
    first = await call("evaluate_assessment", plan["evaluate_assessment, cache hit"][1])
    if first.get("evaluation_id") is None:
        raise RuntimeError("the first judgment was not recorded")
    timings: dict[str, list[float]] = {label: [] for label in plan}
    for index in range(warmup + calls):
        for label, (tool, arguments, cached) in plan.items():
            started = time.perf_counter()
            content = await call(tool, arguments)
            elapsed = time.perf_counter() - started
            if cached is not None and content.get("cached") is not cached:
                raise RuntimeError(f"{label}: cached is {content.get('cached')}, expected {cached}")
            if index >= warmup:
                timings[label].append(elapsed)
    return timings


async def sdk_round_trips(directory: Path, calls: int, warmup: int) -> dict[str, list[float]]:
    params = StdioServerParameters(
        command=_server_command(directory / "sdk.sqlite3")[0], args=_server_command(directory / "sdk.sqlite3")[1:],
        env=_child_env(), cwd=str(REPO_ROOT),
    )  # fmt: skip
    with open(os.devnull, "w") as quiet:  # noqa: ASYNC230 - opened once, before the session
        async with mcp.Client(stdio_client(params, errlog=quiet)) as client:

            async def call(tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
                result = await client.call_tool(tool, arguments, read_timeout_seconds=CALL_TIMEOUT_S)
                if result.is_error or result.structured_content is None:
                    raise RuntimeError(f"{tool} failed during the benchmark: {result.content}")
                return result.structured_content

            return await _interleaved(call, calls, warmup)


class RawClient:
    """JSON-RPC over the server's stdin/stdout, one request at a time, nothing validated."""

    def __init__(self, process: Process) -> None:
        assert process.stdin is not None and process.stdout is not None
        self.process = process
        self.stdin = process.stdin
        self.stdout = BufferedByteReceiveStream(process.stdout)
        self.next_id = 0

    async def send(self, method: str, params: dict[str, Any] | None = None, *, notify: bool = False) -> Any:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": params or {}}
        if not notify:
            self.next_id += 1
            message["id"] = self.next_id
        await self.stdin.send((json.dumps(message) + "\n").encode())
        if notify:
            return None
        with anyio.fail_after(CALL_TIMEOUT_S):
            while True:
                line = await self.stdout.receive_until(b"\n", 64 * 1024 * 1024)
                reply = json.loads(line)
                if reply.get("id") == self.next_id:
                    if "error" in reply:
                        raise RuntimeError(f"{method} failed: {reply['error']}")
                    return reply["result"]


async def raw_round_trips(directory: Path, calls: int, warmup: int) -> dict[str, list[float]]:
    async with await anyio.open_process(
        _server_command(directory / "raw.sqlite3"), env=_child_env(), cwd=str(REPO_ROOT), stderr=subprocess.DEVNULL
    ) as process:
        client = RawClient(process)
        try:
            await client.send("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                             "clientInfo": {"name": "bench-raw", "version": "0"}})  # fmt: skip
            await client.send("notifications/initialized", notify=True)

            async def call(tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
                result = await client.send("tools/call", {"name": tool, "arguments": arguments})
                if result.get("isError") or result.get("structuredContent") is None:
                    raise RuntimeError(f"{tool} failed during the benchmark: {result.get('content')}")
                return dict(result["structuredContent"])

            return await _interleaved(call, calls, warmup)
        finally:
            await process.stdin.aclose()  # type: ignore[union-attr]  # EOF: the server exits on its own
            with anyio.move_on_after(10):
                await process.wait()
            if process.returncode is None:
                process.kill()


# -- run -----------------------------------------------------------------------------------------------------


async def run_async(calls: int, warmup: int, writes: int) -> dict[str, Any]:
    quiet_logging("WARNING")
    with tempfile.TemporaryDirectory(prefix="gavel-ledger-bench-") as tmp:
        directory = Path(tmp)
        writes_rows = await write_cost(directory, writes)
        trip_rows = []
        for client, measure in (("raw", raw_round_trips), ("sdk", sdk_round_trips)):
            trips = await measure(directory, calls, warmup)
            echo_stats = summary_ms(trips["echo"])
            for label, values in trips.items():
                stats = summary_ms(values)
                trip_rows.append(
                    {
                        "client": client,
                        "call": label,
                        **stats,
                        "ratio_p50_to_echo": round(stats["p50_ms"] / echo_stats["p50_ms"], 3),
                        "ratio_p95_to_echo": round(stats["p95_ms"] / echo_stats["p95_ms"], 3),
                    }
                )
    return {"writes": writes_rows, "stdio": trip_rows}


def main(argv: list[str] | None = None, *, out_dir: Path = RESULTS_DIR) -> Path | None:
    parser = argparse.ArgumentParser(prog="python -m bench.ledger", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    parser.add_argument("--calls", type=int, default=300, help="measured round trips per call kind (default 300)")
    parser.add_argument("--warmup", type=int, default=30, help="warm-up round trips per call kind (default 30)")
    parser.add_argument("--writes", type=int, default=500, help="measured ledger writes per kind (default 500)")
    parser.add_argument("--smoke", action="store_true", help="20 round trips, 3 warm-up, 30 writes")
    parser.add_argument("--out", type=Path, default=None, help="results directory")
    parser.add_argument("--serve", metavar="LEDGER", help=argparse.SUPPRESS)  # the stdio server side
    args = parser.parse_args(argv)
    if args.serve:
        serve(args.serve)
        return None
    if args.smoke:
        args.calls, args.warmup, args.writes = 20, 3, 30
    run = Run(NAME, args.out or out_dir, args.smoke)
    result = anyio.run(run_async, args.calls, args.warmup, args.writes)
    hit = next(r for r in result["stdio"] if r["client"] == "raw" and r["call"].endswith("cache hit"))
    stored = next(r for r in result["stdio"] if r["client"] == "raw" and r["call"].startswith("stored evaluation"))
    sdk_hit = next(r for r in result["stdio"] if r["client"] == "sdk" and r["call"].endswith("cache hit"))
    payload = {
        "calls_per_kind": args.calls,
        "warmup_per_kind": args.warmup,
        "writes_per_kind": args.writes,
        "method": "writes: wall time of LedgerCall.record (serialize, worker thread, one committed transaction; "
        "WAL, synchronous=NORMAL) on a temp-dir ledger, and of the bare Ledger.record beneath it. stdio: a "
        "'python -m bench.ledger --serve' process per client (real server, scripted model answering at once), "
        "round-robin over echo, an evaluate_assessment cache hit and an evaluate_assessment with no_cache; wall "
        "time per call. raw: JSON-RPC lines, no validation; sdk: mcp.Client.call_tool, which validates each "
        "structured result against the outputSchema",
        **result,
        "goals": {
            "hit_ratio_to_echo_max": GOAL_RATIO,
            "hit_p50_ratio_raw": hit["ratio_p50_to_echo"],
            "hit_p50_ratio_sdk_client": sdk_hit["ratio_p50_to_echo"],
            "hit_p50_ratio_to_stored_evaluation_raw": round(hit["p50_ms"] / stored["p50_ms"], 3),
            "hit_p50_minus_stored_evaluation_ms_raw": round(hit["p50_ms"] - stored["p50_ms"], 3),
            "met": hit["ratio_p50_to_echo"] <= GOAL_RATIO,
        },
    }
    path = run.write(payload)
    say(f"\n## Ledger write cost per judgment ({args.writes} writes each)\n")
    write_rows = [[r["what"], r["rows"], r["result_bytes"], r["p50_ms"], r["p95_ms"]] for r in result["writes"]]
    say(table(["what", "rows", "result bytes", "p50 ms", "p95 ms"], write_rows))
    say(f"\n## Round trips over stdio ({args.calls} calls each after {args.warmup} warm-up)\n")
    say(table(["client", "call", "p50 ms", "p95 ms", "p50 ÷ echo", "p95 ÷ echo"],
              [[r["client"], r["call"], r["p50_ms"], r["p95_ms"], r["ratio_p50_to_echo"], r["ratio_p95_to_echo"]]
               for r in result["stdio"]]))  # fmt: skip
    verdict = "met" if payload["goals"]["met"] else "NOT met"
    say(
        f"\ngoal: cache hit p50 ≤ {GOAL_RATIO}× echo (raw round trip): {verdict} ({hit['ratio_p50_to_echo']}×; "
        f"{sdk_hit['ratio_p50_to_echo']}× through mcp.Client, which validates each result); the ledger's part "
        f"of a hit (hit − stored evaluation, raw p50): {payload['goals']['hit_p50_minus_stored_evaluation_ms_raw']} "
        f"ms. Results: {path}"
    )
    return path


if __name__ == "__main__":
    main()
