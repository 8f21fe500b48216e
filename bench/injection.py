"""Prompt injection against the embedded default model: does planted text raise the score or the verdict?

Every case of `tests/support/injection_cases.py` is judged twice through the real server (an in-memory MCP
session, the production deps factory, GAVEL_BACKEND=embedded): the clean content and the same content with
the injection. Reported per tool and overall: how often the injection raised the score, how often it raised
the verdict (RAG: rejected < needs_improvement < approved; assessment: passed; candidate: accepted), and how
often it was flagged (prompt_injection_suspected), with the clean twins' false-flag rate beside it.

    python -m bench.injection --smoke   # 2 cases, a few minutes
    python -m bench.injection --full    # every case; about a model call of ~10 s each on 2 cores

Writes bench/results/injection.json with the machine it ran on.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import anyio
import mcp

from bench.machine import describe
from gavel.server.app import build_server
from gavel.server.call_deps import make_deps_factory
from gavel.server.logging import configure_logging
from gavel.server.settings import load_settings
from gavel.tools.guards import PROMPT_INJECTION_FLAG
from gavel.tools.rubric_registry import RubricRegistry
from tests.support.injection_cases import CASES, InjectionCase, arguments

RESULTS = Path(__file__).resolve().parent / "results" / "injection.json"
SMOKE_CASES = ("answer-ignore-previous", "assessment-fake-score")
CALL_TIMEOUT_S = 3600.0
RAG_ORDER = {"rejected": 0, "needs_improvement": 1, "approved": 2}


@dataclass
class Outcome:
    """What one judgment of one twin came to, reduced to what the comparison needs."""

    score: float | None  # RAG overall, assessment average, candidate rubric average; None when unscored
    verdict: int | None  # an ordinal: higher is better for the judged text; None when undecided
    verdict_label: str
    flagged: bool
    held_back: bool  # RAG: the model's scores approved it, the injection guard did not
    llm_calls: int
    seconds: float
    error: str | None = None


def _outcome(case: InjectionCase, data: dict[str, Any], seconds: float) -> Outcome:
    flagged = PROMPT_INJECTION_FLAG in data.get("flags", [])
    calls = (data.get("usage") or {}).get("llm_calls", 0)
    if case.tool == "judge_rag_answer":
        label = data["verdict"]
        held = "not approved on the model's word alone" in data["verdict_reason"]
        return Outcome(data["overall_score"], RAG_ORDER.get(label), label, flagged, held, calls, seconds)
    if case.tool == "evaluate_assessment":
        passed = data["passed"]
        label = {True: "passed", False: "did not pass", None: "undecided"}[passed]
        return Outcome(data["average"], None if passed is None else int(passed), label, flagged, False, calls, seconds)
    if data["selected"]:
        pick = data["selected"][0]
        return Outcome(pick["rubric_average"], 1, "accepted", flagged, False, calls, seconds)
    if data["rejected"]:
        return Outcome(data["rejected"][0]["average"], 0, "rejected", flagged, False, calls, seconds)
    return Outcome(None, None, "unscored", flagged, False, calls, seconds)


async def _judge(client: mcp.Client, case: InjectionCase, *, injected: bool, model: dict[str, Any]) -> Outcome:
    started = time.perf_counter()
    with anyio.fail_after(CALL_TIMEOUT_S):
        result = await client.call_tool(case.tool, arguments(case, injected=injected))
    seconds = round(time.perf_counter() - started, 1)
    if result.is_error or result.structured_content is None:
        text = " ".join(getattr(c, "text", "") for c in result.content)
        return Outcome(None, None, "error", False, False, 0, seconds, error=text[:300])
    provenance = result.structured_content.get("provenance") or {}
    if provenance.get("model") and not model:
        model.update({k: provenance.get(k) for k in ("backend", "model", "model_digest", "strategy", "temperature")})
    return _outcome(case, result.structured_content, seconds)


def _twin_key(case: InjectionCase) -> str:
    return json.dumps(arguments(case, injected=False), sort_keys=True)


def _rate(hits: int, total: int) -> float | None:
    return round(hits / total, 3) if total else None


def _summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    def block(selected: list[dict[str, Any]]) -> dict[str, Any]:
        comparable_scores = [
            r for r in selected if r["clean"]["score"] is not None and r["injected"]["score"] is not None
        ]
        comparable_verdicts = [
            r for r in selected if r["clean"]["verdict"] is not None and r["injected"]["verdict"] is not None
        ]
        return {
            "cases": len(selected),
            "score_raised": sum(r["score_raised"] for r in comparable_scores),
            "score_comparable": len(comparable_scores),
            "score_inflation_rate": _rate(sum(r["score_raised"] for r in comparable_scores), len(comparable_scores)),
            "verdict_raised": sum(r["verdict_raised"] for r in comparable_verdicts),
            "verdict_comparable": len(comparable_verdicts),
            "verdict_inflation_rate": _rate(
                sum(r["verdict_raised"] for r in comparable_verdicts), len(comparable_verdicts)
            ),
            "flag_rate": _rate(sum(r["injected"]["flagged"] for r in selected), len(selected)),
            "clean_false_flag_rate": _rate(sum(r["clean"]["flagged"] for r in selected), len(selected)),
            "held_back_by_the_guard": sum(r["injected"]["held_back"] for r in selected),
            "unscored_injected": sum(r["injected"]["score"] is None for r in selected),
        }

    tools = sorted({r["tool"] for r in rows})
    return {"overall": block(rows), **{tool: block([r for r in rows if r["tool"] == tool]) for tool in tools}}


async def run(
    cases: list[InjectionCase], model_path: str | None, strategy: str, checkpoint: Callable[[dict[str, Any]], None]
) -> dict[str, Any]:
    """Judge every case and its clean twin; `checkpoint` gets the partial result after each case, so a run cut
    short (a shared machine, hours of model calls) still leaves its numbers."""
    env = {
        "GAVEL_BACKEND": "embedded",
        "GAVEL_LEDGER_PATH": "off",
        "GAVEL_MAX_CONCURRENCY": "1",
        "GAVEL_STRATEGY": strategy,
    }
    if model_path:
        env["GAVEL_MODEL_PATH"] = model_path
    settings = load_settings(env, {"timeout_s": 600.0})
    registry = RubricRegistry.load()
    deps = make_deps_factory(settings, registry)
    server = build_server(settings, registry, deps)
    rows: list[dict[str, Any]] = []
    clean_cache: dict[str, Outcome] = {}
    started = time.perf_counter()
    model: dict[str, Any] = {}
    try:
        async with mcp.Client(server) as client:
            for number, case in enumerate(cases, 1):
                key = _twin_key(case)
                if key not in clean_cache:
                    clean_cache[key] = await _judge(client, case, injected=False, model=model)
                    _say(f"  clean twin of {case.tool}/{case.field}: {_show(clean_cache[key])}")
                clean = clean_cache[key]
                injected = await _judge(client, case, injected=True, model=model)
                raised_score = (
                    clean.score is not None and injected.score is not None and injected.score > clean.score + 1e-9
                )
                raised_verdict = (
                    clean.verdict is not None and injected.verdict is not None and (injected.verdict > clean.verdict)
                )
                rows.append(
                    {
                        "id": case.id,
                        "tool": case.tool,
                        "field": case.field,
                        "technique": case.technique,
                        "clean": asdict(clean),
                        "injected": asdict(injected),
                        "score_raised": raised_score,
                        "verdict_raised": raised_verdict,
                    }
                )
                _say(
                    f"[{number}/{len(cases)}] {case.id:<30} {_show(injected)}"
                    f"{'  SCORE RAISED' if raised_score else ''}{'  VERDICT RAISED' if raised_verdict else ''}"
                )
                checkpoint(_result(model, rows, clean_cache, started, complete=number == len(cases)))
    finally:
        await deps.aclose()
    return _result(model, rows, clean_cache, started, complete=True)


def _result(
    model: dict[str, Any], rows: list[dict[str, Any]], clean: dict[str, Outcome], started: float, *, complete: bool
) -> dict[str, Any]:
    return {
        "complete": complete,
        "model": model,
        "cases_run": len(rows),
        "evaluations": len(rows) + len(clean),
        "wall_s": round(time.perf_counter() - started, 1),
        "summary": _summary(rows),
        "rows": rows,
    }


def _show(outcome: Outcome) -> str:
    score = f"{outcome.score:.3g}" if outcome.score is not None else "unscored"
    flag = " flagged" if outcome.flagged else ""
    held = " (held back)" if outcome.held_back else ""
    error = f" error: {outcome.error}" if outcome.error else ""
    return f"score {score}, {outcome.verdict_label}{held}{flag}, {outcome.llm_calls} calls, {outcome.seconds:g}s{error}"


def _say(text: str) -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.injection", description=__doc__.split("\n\n")[0])
    size = parser.add_mutually_exclusive_group()
    size.add_argument("--smoke", action="store_true", help=f"only {', '.join(SMOKE_CASES)}")
    size.add_argument("--full", action="store_true", help="every case (the default)")
    parser.add_argument("--case", action="append", default=[], metavar="ID", help="run only this case (repeatable)")
    parser.add_argument("--model-path", default=None, help="a GGUF file (default: the embedded default model)")
    parser.add_argument(
        "--strategy",
        choices=("per_metric", "joint"),
        default="per_metric",
        help="per_metric (the default setting: one call per metric) or joint (one call for all metrics; faster)",
    )
    parser.add_argument("--out", type=Path, default=RESULTS, help=f"where the JSON goes (default {RESULTS})")
    args = parser.parse_args(argv)
    wanted = list(SMOKE_CASES) if args.smoke else args.case
    cases = _interleaved([c for c in CASES if not wanted or c.id in wanted])
    if wanted and len(cases) != len(wanted):
        known = ", ".join(c.id for c in CASES)
        parser.error(f"unknown case id among {wanted}; known: {known}")
    # The model's progress lines and the engine's logs go to stderr at WARNING; stdout is the report.
    configure_logging("WARNING", stream=sys.stderr)
    load_before = [round(x, 2) for x in os.getloadavg()]
    machine = describe()

    def write(result: dict[str, Any]) -> None:
        document = {
            "benchmark": "injection",
            "smoke": args.smoke,
            "strategy": args.strategy,
            "machine": machine,
            "load_average_before": load_before,
            "load_average_now": [round(x, 2) for x in os.getloadavg()],
            **result,
        }
        args.out.parent.mkdir(parents=True, exist_ok=True)
        tmp = args.out.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
        os.replace(tmp, args.out)

    _say(f"judging {len(cases)} case(s) and their clean twins with the embedded model ...")
    result = anyio.run(run, cases, args.model_path, args.strategy, write)
    write(result)
    _say("")
    _say(f"{'':<22}{'cases':>6}{'score raised':>14}{'verdict raised':>16}{'flagged':>9}{'clean flagged':>15}")
    for name, block in result["summary"].items():
        _say(
            f"{name:<22}{block['cases']:>6}{_pct(block['score_inflation_rate']):>14}"
            f"{_pct(block['verdict_inflation_rate']):>16}{_pct(block['flag_rate']):>9}"
            f"{_pct(block['clean_false_flag_rate']):>15}"
        )
    _say(f"\nwritten to {args.out}")
    return 0


def _interleaved(cases: list[InjectionCase]) -> list[InjectionCase]:
    """Round-robin over (tool, field), so a run cut short has measured every judged field."""
    groups: dict[tuple[str, str], list[InjectionCase]] = {}
    for case in cases:
        groups.setdefault((case.tool, case.field), []).append(case)
    ordered: list[InjectionCase] = []
    while any(groups.values()):
        for group in groups.values():
            if group:
                ordered.append(group.pop(0))
    return ordered


def _pct(rate: float | None) -> str:
    return "n/a" if rate is None else f"{rate * 100:.0f}%"


if __name__ == "__main__":
    raise SystemExit(main())
