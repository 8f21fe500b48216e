"""Benchmark 1: what the server adds per tool call, as a ratio to a trivial echo tool in the same run.

In-memory (`mcp.Client(server)`) and over stdio (`python -m bench.server_entry`, a subprocess like
`gavel serve`), for score_candidates (deterministic path, 20 candidates) and evaluate_assessment (four
per-metric judge calls on a scripted backend answering at once). Calls are interleaved round-robin
(echo, score_candidates, evaluate_assessment, echo, ...) after a warm-up, so drifting load on the shared
machine hits all three alike. Also: start-up of the real `python -m gavel.server serve` to its first
tools/list response over stdio (process start, imports, rubric loading, initialize, tools/list), beside the
SDK's floor: a bare MCPServer with one tool (bench/bare_server.py), started by the same client.

Goals: tool p50 ≤ 1.5 × echo p50; start-up ≤ 1.2 s.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import mcp
from mcp.client.stdio import StdioServerParameters, stdio_client

from bench.common import REPO_ROOT, RESULTS_DIR, Run, quiet_logging, say, summary_ms, table
from bench.scripted import valid_backend
from bench.server_entry import ECHO_TOOL, build_bench_server

NAME = "overhead"
GOAL_RATIO = 1.5
GOAL_STARTUP_S = 1.2  # the goal for gavel serve to the first tools/list over stdio, median, 2 cores
CALL_TIMEOUT_S = 30.0
STARTUP_TIMEOUT_S = 60.0

TRANSCRIPT = (
    "Interviewer: How have you been sleeping?\nPatient: Badly. For about three weeks I wake at 4 a.m. nearly "
    "every night.\nInterviewer: And your interest in things?\nPatient: I stopped going to choir, which I loved."
)


def score_candidates_args(count: int = 20) -> dict[str, Any]:
    genres, eras = ("jazz", "rock", "folk", "ambient"), ("60s", "80s", "00s")
    candidates = [
        {
            "id": f"t{i}",
            "title": f"Track {i}",
            "artist": f"Artist {i % 7}",
            "genre": genres[i % len(genres)],
            "era": eras[i % len(eras)],
            "focus_score": (i * 37 % 100) / 100,
            "energy_score": (i * 53 % 100) / 100,
            "novelty_score": (i * 71 % 100) / 100,
        }
        for i in range(count)
    ]
    return {
        "candidates": candidates,
        "weights": {"focus": 0.5, "energy": 0.3, "novelty": 0.2},
        "diversity_targets": {"genre": 2, "era": 2},
        "top_k": 3,
    }


def evaluate_args() -> dict[str, Any]:
    return {
        "assessment": "The patient has early waking for three weeks and lost interest in choir.",
        "source": TRANSCRIPT,
    }


CALLS: dict[str, Callable[[], dict[str, Any]]] = {
    ECHO_TOOL: lambda: {"text": "ping"},
    "score_candidates": score_candidates_args,
    "evaluate_assessment": evaluate_args,
}


Timings = dict[str, dict[str, list[float]]]


async def _measure(client: mcp.Client, calls: int, warmup: int) -> Timings:
    """Per tool: the round trip, and the part of it the SDK client spends re-validating the result.

    `ClientSession.call_tool` checks every structuredContent against the tool's outputSchema (jsonschema);
    that is the client's cost, not the server's, so it is timed again on its own, on the same result, right
    after each call.
    """
    arguments = {name: make() for name, make in CALLS.items()}
    timings: Timings = {name: {"round_trip": [], "client_validation": []} for name in CALLS}
    for index in range(warmup + calls):
        for name, args in arguments.items():
            started = time.perf_counter()
            result = await client.call_tool(name, args, read_timeout_seconds=CALL_TIMEOUT_S)
            elapsed = time.perf_counter() - started
            if result.is_error:
                text = " ".join(getattr(block, "text", "") for block in result.content)
                raise RuntimeError(f"{name} failed during the benchmark: {text}")
            validation_started = time.perf_counter()
            await client.session.validate_tool_result(name, result)
            validation = time.perf_counter() - validation_started
            if index >= warmup:
                timings[name]["round_trip"].append(elapsed)
                timings[name]["client_validation"].append(validation)
    return timings


async def in_memory(calls: int, warmup: int) -> Timings:
    server, _ = build_bench_server(valid_backend())
    async with mcp.Client(server) as client:
        return await _measure(client, calls, warmup)


def _child_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GAVEL_") and k != "OLLAMA_HOST"}
    # Nothing may be probed off this machine: point Ollama at a port nobody listens on.
    env.update({"GAVEL_OLLAMA_HOST": "http://127.0.0.1:9", "PYTHONUNBUFFERED": "1", **(extra or {})})
    return env


async def over_stdio(calls: int, warmup: int) -> Timings:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "bench.server_entry"], env=_child_env(), cwd=str(REPO_ROOT)
    )
    with open(os.devnull, "w") as quiet:  # noqa: ASYNC230 - opened once, before the session
        async with mcp.Client(stdio_client(params, errlog=quiet)) as client:
            return await _measure(client, calls, warmup)


GAVEL_SERVE = ("-m", "gavel.server", "serve")
# The floor: the SDK's import and session with one tool, which no change to Gavel can go below.
BARE_SDK_SERVER = ("-m", "bench.bare_server")


async def startup_once(args: tuple[str, ...] = GAVEL_SERVE) -> float:
    """Seconds from spawning `python -m gavel.server serve` (or `args`) to its first tools/list response."""
    # As an installed Gavel starts: pip compiles bytecode at install, and a first start writes what is missing.
    # A sandbox's PYTHONDONTWRITEBYTECODE would otherwise recompile every Gavel module at every start.
    env = {k: v for k, v in _child_env().items() if k != "PYTHONDONTWRITEBYTECODE"}
    params = StdioServerParameters(command=sys.executable, args=list(args), env=env, cwd=str(REPO_ROOT))
    with open(os.devnull, "w") as quiet:  # noqa: ASYNC230 - opened once, before the session
        started = time.perf_counter()
        with anyio.fail_after(STARTUP_TIMEOUT_S):
            async with mcp.Client(stdio_client(params, errlog=quiet)) as client:
                tools = await client.list_tools()
                elapsed = time.perf_counter() - started
    if not tools.tools:
        raise RuntimeError(f"{' '.join(args)} listed no tools")
    return elapsed


def _rows(transport: str, timings: Timings) -> list[dict[str, Any]]:
    echo = summary_ms(timings[ECHO_TOOL]["round_trip"])
    echo_rest = summary_ms(_minus(timings[ECHO_TOOL]))
    rows = []
    for name, parts in timings.items():
        stats = summary_ms(parts["round_trip"])
        validation = summary_ms(parts["client_validation"])
        rest = summary_ms(_minus(parts))
        rows.append(
            {
                "transport": transport,
                "tool": name,
                **stats,
                "ratio_p50_to_echo": round(stats["p50_ms"] / echo["p50_ms"], 3),
                "ratio_p95_to_echo": round(stats["p95_ms"] / echo["p95_ms"], 3),
                "client_validation_p50_ms": validation["p50_ms"],
                "without_client_validation_p50_ms": rest["p50_ms"],
                "ratio_p50_to_echo_without_client_validation": round(rest["p50_ms"] / echo_rest["p50_ms"], 3),
            }
        )
    return rows


def _minus(parts: dict[str, list[float]]) -> list[float]:
    return [a - b for a, b in zip(parts["round_trip"], parts["client_validation"], strict=True)]


async def run_async(calls: int, warmup: int, startups: int) -> dict[str, Any]:
    # The server's INFO logs are part of its real per-call cost; they go nowhere here, as stderr does over stdio.
    quiet_logging("INFO")
    rows = _rows("in-memory", await in_memory(calls, warmup)) if calls else []
    rows += _rows("stdio", await over_stdio(calls, warmup)) if calls else []
    for args in (GAVEL_SERVE, BARE_SDK_SERVER):
        await startup_once(args)  # untimed: writes any missing bytecode and warms the file cache
    starts: list[float] = []
    floor: list[float] = []
    for _ in range(startups):  # interleaved, so drifting load on a shared machine hits both alike
        starts.append(await startup_once())
        floor.append(await startup_once(BARE_SDK_SERVER))
    return {"rows": rows, "startup_s": [round(s, 3) for s in starts], "sdk_floor_s": [round(s, 3) for s in floor]}


def main(argv: list[str] | None = None, *, out_dir: Path = RESULTS_DIR) -> Path:
    parser = argparse.ArgumentParser(prog="python -m bench.overhead", description=__doc__)
    parser.add_argument("--calls", type=int, default=300, help="measured calls per tool (default 300)")
    parser.add_argument("--warmup", type=int, default=30, help="warm-up calls per tool (default 30)")
    parser.add_argument("--startups", type=int, default=5, help="server start-ups timed (default 5)")
    parser.add_argument("--smoke", action="store_true", help="20 calls, 3 warm-up, 1 start-up")
    parser.add_argument("--startup-only", action="store_true", help="time the start-ups alone (no calls)")
    parser.add_argument("--out", type=Path, default=None, help="results directory")
    args = parser.parse_args(argv)
    if args.smoke:
        args.calls, args.warmup, args.startups = 20, 3, 1
    if args.startup_only:
        args.calls = args.warmup = 0
    run = Run(f"{NAME}-startup" if args.startup_only else NAME, args.out or out_dir, args.smoke)
    result = anyio.run(run_async, args.calls, args.warmup, args.startups)
    startup_median = statistics.median(result["startup_s"])
    floor_median = statistics.median(result["sdk_floor_s"])
    worst_ratio = max((r["ratio_p50_to_echo"] for r in result["rows"] if r["tool"] != ECHO_TOOL), default=None)
    payload = {
        "calls_per_tool": args.calls,
        "warmup_per_tool": args.warmup,
        "method": "round-robin over echo, score_candidates (20 candidates, deterministic), evaluate_assessment "
        "(clinical-assessment, 4 metrics, scripted backend with zero latency); wall time around client.call_tool; "
        "client_validation = the SDK client's own outputSchema check of the same result, timed again apart",
        **result,
        "startup_median_s": round(startup_median, 3),
        "sdk_floor_median_s": round(floor_median, 3),
        "gavel_share_median_s": round(startup_median - floor_median, 3),
        "goals": {
            "ratio_to_echo_max": GOAL_RATIO,
            "startup_s_max": GOAL_STARTUP_S,
            "worst_p50_ratio": worst_ratio,
            "ratio_met": None if worst_ratio is None else worst_ratio <= GOAL_RATIO,
            "startup_met": startup_median <= GOAL_STARTUP_S,
        },
    }
    path = run.write(payload)
    say(f"\n## 1. Server overhead ({args.calls} calls per tool after {args.warmup} warm-up)\n")
    say(
        table(
            [
                "transport",
                "tool",
                "p50 ms",
                "p95 ms",
                "p50 ÷ echo",
                "p95 ÷ echo",
                "client validation p50 ms",
                "p50 ÷ echo without it",
            ],
            [
                [
                    r["transport"],
                    r["tool"],
                    r["p50_ms"],
                    r["p95_ms"],
                    r["ratio_p50_to_echo"],
                    r["ratio_p95_to_echo"],
                    r["client_validation_p50_ms"],
                    r["ratio_p50_to_echo_without_client_validation"],
                ]
                for r in result["rows"]
            ],
        )
    )
    say(f"\nstart-up to first tools/list (gavel serve, stdio): median {startup_median:.2f} s of {result['startup_s']}")
    say(
        f"the SDK's floor (a bare MCPServer with one tool, same client): median {floor_median:.2f} s of "
        f"{result['sdk_floor_s']}; Gavel's share {startup_median - floor_median:.2f} s"
    )
    say(f"written to {path}")
    return path


if __name__ == "__main__":
    main()
