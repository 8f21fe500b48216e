"""Benchmark 4: how time grows with the input.

- score_candidates, deterministic path, in-process: 1k / 10k / 100k candidates, 10 weighted criteria,
  3 diversity targets; request validation, the tool itself, and the result's JSON dump timed apart.
- the same at 10k through a real stdio MCP call (`python -m bench.server_entry`).
- judge_rag_answers with 1 / 4 / 16 answers on the scripted backend with a fixed per-call latency, under
  GAVEL_MAX_CONCURRENCY 2 and 4: wall time against calls × latency (serial) and ⌈calls ÷ limit⌉ × latency
  (the best the limiter allows).
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import time
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
from gavel.tools.engine.config import EngineConfig, Limits
from gavel.tools.engine.judge import Judge
from gavel.tools.rubrics import RubricRegistry

NAME = "scale"
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
    config = EngineConfig(max_concurrency=limit, timeout_s=60)
    limiter = anyio.CapacityLimiter(limit)

    async def judge() -> Judge:
        return Judge(backend, config, limiter)

    deps = ToolDeps(registry=RubricRegistry.load(), limits=Limits(max_candidates=max_candidates), judge_factory=judge)
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
    args = parser.parse_args(argv)
    latency_s = args.latency_ms / 1000
    if args.smoke:
        sizes, stdio, batches, limits, latency_s = [(1_000, 1)], (1_000, 1), [1, 4], [2], 0.01
    else:
        sizes, stdio, batches, limits = [(1_000, 5), (10_000, 3), (100_000, 1)], (10_000, 3), [1, 4, 16], [2, 4]
    run = Run(NAME, args.out or out_dir, args.smoke)
    result = anyio.run(run_async, sizes, stdio, batches, limits, latency_s)
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
    say(f"written to {path}")
    return path


if __name__ == "__main__":
    main()
