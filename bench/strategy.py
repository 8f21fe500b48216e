"""Per-metric calls (shared prefix first) vs one joint call, for evaluate_assessment-shaped work.

Runs on the embedded model: wall time, LLM calls, prompt tokens evaluated vs reused from llama.cpp's
prompt cache, completion tokens. `python -m bench.strategy [--smoke] [--repeats N]`.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import anyio

from bench.machine import describe
from gavel.tools.engine.embedded import EmbeddedBackend
from gavel.tools.engine.judge import Judge
from gavel.tools.rubric_registry import RubricRegistry
from tests.support.config import engine_config

TRANSCRIPT = """Interviewer: How have you been sleeping?
Patient: Badly. For about three weeks I wake at 4 a.m. nearly every night and can't get back to sleep.
Interviewer: And your interest in things?
Patient: I stopped going to choir, which I loved. Most days I just don't feel like doing anything.
Interviewer: Energy?
Patient: Tired all the time, even after lying in bed for hours. I've also been eating much less."""

ASSESSMENT = "The patient seems depressed and has some sleep problems. Mood is low."


async def run(strategy: str, repeats: int, backend: EmbeddedBackend) -> dict[str, object]:
    rubric = RubricRegistry.load().get("clinical-assessment")
    judge = Judge(backend, engine_config(max_concurrency=1), strategy=strategy)
    walls, calls, prompt, cached, completion, unscored = [], [], [], [], [], 0
    for _ in range(repeats):
        started = time.perf_counter()
        judgment = await judge.score_metrics(
            rubric=rubric, metrics=rubric.metrics, subject=ASSESSMENT, source=TRANSCRIPT
        )
        walls.append(time.perf_counter() - started)
        calls.append(judgment.usage.llm_calls)
        prompt.append(judgment.usage.prompt_tokens)
        cached.append(judgment.usage.cached_prompt_tokens or 0)
        completion.append(judgment.usage.completion_tokens)
        unscored += sum(1 for s in judgment.scores if s.status != "scored")
    return {
        "strategy": strategy,
        "repeats": repeats,
        "wall_s_median": round(statistics.median(walls), 2),
        "llm_calls": statistics.median(calls),
        "prompt_tokens_evaluated": statistics.median(prompt),
        "prompt_tokens_reused": statistics.median(cached),
        "completion_tokens": statistics.median(completion),
        "unscored_metrics_total": unscored,
        "scores_last_run": {s.metric: s.score for s in judgment.scores},
    }


async def main_async(args: argparse.Namespace) -> None:
    backend = EmbeddedBackend(Path(args.model_path) if args.model_path else None, parallel=1)
    results = []
    # Warm-up: loads the model so load time is not charged to the first strategy.
    rubric = RubricRegistry.load().get("clinical-assessment")
    await Judge(backend, engine_config()).score_metrics(rubric=rubric, metrics=rubric.metrics[:1], subject="warm up")
    for strategy in ("per_metric", "joint"):
        results.append(await run(strategy, args.repeats, backend))
    payload = {"benchmark": "strategy", "machine": describe(), "model": backend.model_name, "results": results}
    out = Path(__file__).parent / "results" / "strategy.json"
    out.write_text(json.dumps(payload, indent=2) + "\n")
    header = (
        f"{'strategy':<12}{'wall s':>8}{'calls':>7}{'prompt eval':>13}{'reused':>8}{'completion':>12}{'unscored':>10}"
    )
    lines = [header]
    for r in results:
        lines.append(
            f"{r['strategy']:<12}{r['wall_s_median']:>8}{r['llm_calls']:>7}{r['prompt_tokens_evaluated']:>13}"
            f"{r['prompt_tokens_reused']:>8}{r['completion_tokens']:>12}{r['unscored_metrics_total']:>10}"
        )
    sys.stdout.write("\n".join(lines) + f"\nwritten to {out}\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--model-path", default=None, help="a GGUF file (default: the embedded default model)")
    parser.add_argument("--smoke", action="store_true", help="one repeat")
    args = parser.parse_args()
    if args.smoke:
        args.repeats = 1
    anyio.run(main_async, args)


if __name__ == "__main__":
    main()
