"""Benchmark 4: how time grows with the input.

- score_candidates, deterministic path, in-process: 1k / 10k / 100k candidates, 10 weighted criteria,
  3 diversity targets; request validation, the tool itself, and the result's JSON dump timed apart.
- the same at 10k through a real stdio MCP call (`python -m bench.server_entry`).
- judge_rag_answers with 1 / 4 / 16 answers on the scripted backend with a fixed per-call latency, under
  GAVEL_MAX_CONCURRENCY 2 and 4: wall time against calls × latency (serial) and ⌈calls ÷ limit⌉ × latency
  (the best the limiter allows).
- judge_rag_answers throughput with 1, 2 and 3 `gavel serve --transport streamable-http --stateless` processes
  (GAVEL_MAX_CONCURRENCY each) on one scripted OpenAI-compatible server with a fixed latency and a fixed
  number of parallel slots (its own limit), concurrent MCP clients spread round robin over the instances:
  scaling is near-linear until the instances together ask for more than the model server's slots.
  `--only instances` runs this row alone (bench/results/scale-instances.json).
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import threading
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import anyio
import mcp
from mcp.client.stdio import StdioServerParameters, stdio_client

from bench.common import REPO_ROOT, RESULTS_DIR, Run, quiet_logging, say, table
from bench.overhead import _child_env
from bench.scripted import valid_backend
from gavel.tools import candidates, rag
from gavel.tools.deps import ToolDeps
from gavel.tools.engine.judge import Judge
from gavel.tools.rubric_registry import RubricRegistry
from tests.support.config import engine_config, input_limits

NAME = "scale"
INSTANCES_NAME = "scale-instances"
CRITERIA = [f"c{i}" for i in range(10)]
GENRES = [f"genre-{i}" for i in range(12)]
ERAS = [f"era-{i}" for i in range(6)]
MOODS = [f"mood-{i}" for i in range(8)]
CALLS_PER_ANSWER = 6  # five rubric dimensions + one grounding check
CALL_TIMEOUT_S = 300.0


def candidate_set(count: int) -> list[dict[str, Any]]:
    # A fixed pseudo-random spread (a linear congruence), so every run scores the same numbers.
    return [
        {
            "id": f"c{i}",
            "title": f"Candidate {i}",
            "genre": GENRES[i * 7 % len(GENRES)],
            "era": ERAS[i * 5 % len(ERAS)],
            "mood": MOODS[i * 3 % len(MOODS)],
            **{f"{name}_score": ((i + 1) * (17 + 2 * k) % 1000) / 1000 for k, name in enumerate(CRITERIA)},
        }
        for i in range(count)
    ]


def candidate_args(count: int) -> dict[str, Any]:
    return {
        "candidates": candidate_set(count),
        "weights": {name: round(1 / len(CRITERIA), 4) for name in CRITERIA},
        "diversity_targets": {"genre": 3, "era": 2, "mood": 2},
        "top_k": 10,
    }


def _deps(limit: int, latency_s: float = 0.0, max_candidates: int = 10_000) -> tuple[ToolDeps, Any]:
    backend = valid_backend(latency_s)
    config = engine_config(max_concurrency=limit, timeout_s=60)
    limiter = anyio.CapacityLimiter(limit)

    async def judge(**wiring: Any) -> Judge:
        return Judge(backend, config, limiter, **wiring)

    deps = ToolDeps(
        registry=RubricRegistry.load(), limits=input_limits(max_candidates=max_candidates), judge_factory=judge
    )
    return deps, backend


async def candidates_in_process(count: int, repeats: int) -> dict[str, Any]:
    args = candidate_args(count)
    deps, _ = _deps(2, max_candidates=max(count, 10_000))
    validate, tool, dump = [], [], []
    for _ in range(repeats):
        started = time.perf_counter()
        request = candidates.ScoreCandidatesRequest.model_validate(args)
        validated = time.perf_counter()
        result = await candidates.score_candidates(request, deps)
        scored = time.perf_counter()
        result.model_dump_json()
        dumped = time.perf_counter()
        validate.append(validated - started)
        tool.append(scored - validated)
        dump.append(dumped - scored)
        if len(result.selected) != args["top_k"]:
            raise RuntimeError(f"score_candidates selected {len(result.selected)} of {args['top_k']}")
    total = [a + b + c for a, b, c in zip(validate, tool, dump, strict=True)]
    return {
        "path": "in-process",
        "candidates": count,
        "repeats": repeats,
        "validate_s": round(statistics.median(validate), 4),
        "tool_s": round(statistics.median(tool), 4),
        "dump_s": round(statistics.median(dump), 4),
        "total_s": round(statistics.median(total), 4),
        "us_per_candidate": round(statistics.median(total) / count * 1e6, 2),
    }


async def candidates_over_stdio(count: int, repeats: int) -> dict[str, Any]:
    args = candidate_args(count)
    env = _child_env({"GAVEL_MAX_CANDIDATES": str(max(count, 10_000))})
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "bench.server_entry"], env=env, cwd=str(REPO_ROOT)
    )
    walls = []
    with open(os.devnull, "w") as quiet:  # noqa: ASYNC230 - opened once, before the session
        async with mcp.Client(stdio_client(params, errlog=quiet)) as client:
            await client.call_tool("echo", {"text": "warm up"}, read_timeout_seconds=CALL_TIMEOUT_S)
            for _ in range(repeats):
                started = time.perf_counter()
                result = await client.call_tool("score_candidates", args, read_timeout_seconds=CALL_TIMEOUT_S)
                walls.append(time.perf_counter() - started)
                if result.is_error:
                    raise RuntimeError(f"score_candidates over stdio failed: {result.content}")
    median = statistics.median(walls)
    return {
        "path": "stdio MCP call",
        "candidates": count,
        "repeats": repeats,
        "total_s": round(median, 4),
        "us_per_candidate": round(median / count * 1e6, 2),
    }


def rag_request(answers: int) -> rag.JudgeRagAnswersRequest:
    return rag.JudgeRagAnswersRequest.model_validate(
        {
            "question": "Which magazine was started first, Arthur's Magazine or First for Women?",
            "sources": [{"id": "S1", "content": "Arthur's Magazine (1844–1846) was an American literary periodical."}],
            "answers": [
                {"agent_name": f"agent-{i}", "answer": f"Arthur's Magazine [S1] (variant {i})."} for i in range(answers)
            ],
        }
    )


async def rag_batch(answers: int, limit: int, latency_s: float) -> dict[str, Any]:
    deps, backend = _deps(limit, latency_s)
    started = time.perf_counter()
    result = await rag.judge_rag_answers(rag_request(answers), deps)
    wall = time.perf_counter() - started
    calls = len(backend.requests)
    return {
        "answers": answers,
        "max_concurrency": limit,
        "latency_ms": round(latency_s * 1000, 1),
        "llm_calls": calls,
        "serial_s": round(calls * latency_s, 3),
        "limiter_bound_s": round(math.ceil(calls / limit) * latency_s, 3),
        "wall_s": round(wall, 3),
        "max_in_flight": backend.max_in_flight,
        "speedup_vs_serial": round(calls * latency_s / wall, 2),
        "unscored_answers": sum(1 for r in result.results if r.verdict == "unscored"),
    }


class SlottedModel:
    """A model server with `slots` parallel slots: each chat holds a slot for `latency_s` (queued beyond)."""

    def __init__(self, latency_s: float, slots: int) -> None:
        self.latency_s = latency_s
        self.slots = threading.BoundedSemaphore(slots)
        self.lock = threading.Lock()
        self.in_flight = 0
        self.peak = 0
        self.calls = 0

    def __call__(self, body: dict[str, Any]) -> str:
        from tests.support.replies import reply_for_schema

        with self.slots:
            with self.lock:
                self.in_flight += 1
                self.peak = max(self.peak, self.in_flight)
                self.calls += 1
            time.sleep(self.latency_s)
            with self.lock:
                self.in_flight -= 1
        schema = ((body.get("response_format") or {}).get("json_schema") or {}).get("schema")
        return reply_for_schema(schema, "max")


async def instances_row(
    instances: int, *, clients: int, calls: int, answers: int, latency_s: float, slots: int, limit: int
) -> dict[str, Any]:
    """judge_rag_answers throughput through `instances` stateless server processes sharing one model server."""
    from tests.support.openai_server import OpenAITestServer
    from tests.support.processes import http_server

    model = SlottedModel(latency_s, slots)
    failures: list[str] = []
    judged = 0
    with OpenAITestServer(model, models=["judge"], fingerprint=None) as srv, ExitStack() as stack:
        env = _child_env({
            "GAVEL_BACKEND": "openai", "GAVEL_OPENAI_BASE_URL": srv.url, "GAVEL_JUDGE_MODEL": "judge",
            "GAVEL_MAX_CONCURRENCY": str(limit), "GAVEL_TIMEOUT_S": "120", "GAVEL_LOG_LEVEL": "WARNING",
            "GAVEL_LEDGER_PATH": "off",
        })  # fmt: skip
        workdir = Path(stack.enter_context(tempfile_dir()))
        servers = [
            stack.enter_context(http_server(["--transport", "streamable-http", "--stateless"], env, port, workdir))
            for port in free_ports(instances)
        ]
        warm = [s.base_url for s in servers]

        async def client(index: int) -> None:
            nonlocal judged
            url = warm[index % len(warm)]
            async with mcp.Client(f"{url}/mcp", read_timeout_seconds=CALL_TIMEOUT_S) as session:
                for call in range(calls):
                    request = rag_request(answers).model_dump(mode="json", exclude_none=True)
                    request["question"] += f" (client {index}, call {call})"
                    result = await session.call_tool("judge_rag_answers", request)
                    content = result.structured_content or {}
                    if result.is_error or any(r.get("verdict") == "unscored" for r in content.get("results", [])):
                        failures.append(str(result.content)[:200])
                    else:
                        judged += answers

        model.calls = model.peak = 0
        started = time.perf_counter()
        with anyio.fail_after(CALL_TIMEOUT_S):
            async with anyio.create_task_group() as tg:
                for index in range(clients):
                    tg.start_soon(client, index)
        wall = time.perf_counter() - started
    if failures:
        raise RuntimeError(f"{len(failures)} failed calls, e.g. {failures[0]}")
    return {
        "instances": instances,
        "max_concurrency_per_instance": limit,
        "model_server_slots": slots,
        "latency_ms": round(latency_s * 1000, 1),
        "clients": clients,
        "answers_judged": judged,
        "model_calls": model.calls,
        "wall_s": round(wall, 3),
        "answers_per_s": round(judged / wall, 2),
        "model_calls_per_s": round(model.calls / wall, 2),
        "model_bound_calls_per_s": round(min(instances * limit, slots) / latency_s, 2),
        "max_in_flight_at_model": model.peak,
    }


def tempfile_dir() -> Any:
    import tempfile

    return tempfile.TemporaryDirectory(prefix="gavel-bench-")


def free_ports(count: int) -> list[int]:
    import socket

    sockets = [socket.socket() for _ in range(count)]
    try:
        for sock in sockets:
            sock.bind(("127.0.0.1", 0))
        return [int(sock.getsockname()[1]) for sock in sockets]
    finally:
        for sock in sockets:
            sock.close()


async def instances_rows(counts: list[int], **kwargs: Any) -> list[dict[str, Any]]:
    quiet_logging("WARNING")
    rows = [await instances_row(n, **kwargs) for n in counts]
    base = rows[0]["answers_per_s"]
    for row in rows:
        row["speedup_vs_1"] = round(row["answers_per_s"] / base, 2)
    return rows


def say_instances(rows: list[dict[str, Any]]) -> None:
    first = rows[0]
    say(
        f"\n## 4. Scale: judge_rag_answers over stateless instances, one scripted OpenAI-compatible server "
        f"({first['latency_ms']:g} ms per call, {first['model_server_slots']} slots, "
        f"GAVEL_MAX_CONCURRENCY {first['max_concurrency_per_instance']} per instance)\n"
    )
    say(
        table(
            ["instances", "clients", "answers", "model calls", "wall s", "answers / s", "speed-up vs 1",
             "model calls / s", "bound calls / s", "max in flight"],
            [
                [r["instances"], r["clients"], r["answers_judged"], r["model_calls"], r["wall_s"], r["answers_per_s"],
                 r["speedup_vs_1"], r["model_calls_per_s"], r["model_bound_calls_per_s"], r["max_in_flight_at_model"]]
                for r in rows
            ],
        )
    )  # fmt: skip


INSTANCES_SMALL: dict[str, Any] = {"clients": 8, "calls": 2, "answers": 2, "latency_s": 0.1, "slots": 4, "limit": 2}
INSTANCES_FULL: dict[str, Any] = {"clients": 16, "calls": 4, "answers": 4, "latency_s": 0.1, "slots": 4, "limit": 2}


async def run_async(sizes: list[tuple[int, int]], stdio: tuple[int, int], batches: list[int], limits: list[int],
                    latency_s: float) -> dict[str, Any]:  # fmt: skip
    quiet_logging("WARNING")
    candidate_rows = [await candidates_in_process(count, repeats) for count, repeats in sizes]
    candidate_rows.append(await candidates_over_stdio(*stdio))
    rag_rows = [await rag_batch(n, limit, latency_s) for limit in limits for n in batches]
    return {"score_candidates": candidate_rows, "judge_rag_answers": rag_rows}


def main(argv: list[str] | None = None, *, out_dir: Path = RESULTS_DIR) -> Path:
    parser = argparse.ArgumentParser(prog="python -m bench.scale", description=__doc__)
    parser.add_argument("--latency-ms", type=float, default=50.0, help="scripted per-call latency (default 50)")
    parser.add_argument("--smoke", action="store_true", help="1k candidates, stdio at 1k, 1 and 4 answers")
    parser.add_argument("--out", type=Path, default=None, help="results directory")
    parser.add_argument(
        "--only", choices=["instances"], default=None, help="run only the 1/2/3-instance row (small sizes)"
    )
    args = parser.parse_args(argv)
    latency_s = args.latency_ms / 1000
    if args.only == "instances":
        instances_run = Run(INSTANCES_NAME, args.out or out_dir, False)
        rows = anyio.run(lambda: instances_rows([1, 2, 3], **INSTANCES_SMALL))
        sizes_run = {**INSTANCES_SMALL, "calls_per_client": INSTANCES_SMALL["calls"]}
        path = instances_run.write({"sizes": sizes_run, "judge_rag_answers_instances": rows})
        say_instances(rows)
        say(f"written to {path}")
        return path
    if args.smoke:
        sizes, stdio, batches, limits, latency_s = [(1_000, 1)], (1_000, 1), [1, 4], [2], 0.01
    else:
        sizes, stdio, batches, limits = [(1_000, 5), (10_000, 3), (100_000, 1)], (10_000, 3), [1, 4, 16], [2, 4]
    run = Run(NAME, args.out or out_dir, args.smoke)
    result = anyio.run(run_async, sizes, stdio, batches, limits, latency_s)
    if not args.smoke:
        result["judge_rag_answers_instances"] = anyio.run(lambda: instances_rows([1, 2, 3], **INSTANCES_FULL))
    payload = {
        "criteria": len(CRITERIA),
        "diversity_targets": 3,
        "top_k": 10,
        "calls_per_answer": CALLS_PER_ANSWER,
        **result,
    }
    path = run.write(payload)
    say("\n## 4. Scale: score_candidates, deterministic path (10 criteria, 3 diversity targets, top 10)\n")
    say(
        table(
            ["path", "candidates", "validate s", "tool s", "dump s", "total s", "µs / candidate"],
            [
                [r["path"], f"{r['candidates']:,}", r.get("validate_s"), r.get("tool_s"), r.get("dump_s"),
                 r["total_s"], r["us_per_candidate"]]
                for r in result["score_candidates"]
            ],
        )
    )  # fmt: skip
    say(f"\n## 4. Scale: judge_rag_answers on the scripted backend ({latency_s * 1000:g} ms per call)\n")
    say(
        table(
            ["answers", "limit", "calls", "calls × latency s", "⌈calls÷limit⌉ × latency s", "wall s", "max in flight"],
            [
                [r["answers"], r["max_concurrency"], r["llm_calls"], r["serial_s"], r["limiter_bound_s"], r["wall_s"],
                 r["max_in_flight"]]
                for r in result["judge_rag_answers"]
            ],
        )
    )  # fmt: skip
    if "judge_rag_answers_instances" in result:
        say_instances(result["judge_rag_answers_instances"])
    say(f"written to {path}")
    return path


if __name__ == "__main__":
    main()
