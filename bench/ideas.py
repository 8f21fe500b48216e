"""score_candidates' LLM path: 20 ideas × the 4 idea-quality criteria, judged by the model.

What it shows: the wall time of one `score_candidates` call against the sum of the single model calls it
made (the process-wide limiter lets GAVEL_MAX_CONCURRENCY calls run at once; the embedded backend gives
llama.cpp one slot per allowed call, as the server does), for per-metric calls (one per idea and criterion)
and for the joint strategy (one call per idea scoring all four criteria). Every model call is timed by a
thin wrapper at the model seam; the tool runs as the server runs it (request model, rubric, limiter).

    python -m bench.ideas                # the embedded default model (tens of minutes on 2 cores)
    python -m bench.ideas --smoke        # 4 ideas, the scripted model at 50 ms per call

Writes bench/results/ideas.json with the machine it ran on.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

import anyio

from bench.common import RESULTS_DIR, Run, quiet_logging, say, table
from bench.scripted import valid_backend
from gavel.tools.candidates import ScoreCandidatesRequest, score_candidates
from gavel.tools.deps import ToolDeps
from gavel.tools.engine.backend import Backend, ChatReply, ChatRequest, DelegatingBackend
from gavel.tools.engine.judge import Judge
from gavel.tools.rubric_registry import RubricRegistry
from tests.support.config import engine_config, input_limits

# Twenty ideas of deliberately mixed quality: concrete and measurable, vague, and far-fetched.
IDEAS: list[tuple[str, str]] = [
    ("Prompt-prefix cache", "Order judge prompts so the shared source comes first and measure llama.cpp's prompt "
     "reuse across metrics; ship it as default if wall time drops 20% on 2 cores."),
    ("A dashboard", "Make a dashboard. It would be nice."),
    ("Verdicts on a blockchain", "Put every verdict on a public blockchain so it is trustworthy; tokens reward "
     "good judges."),
    ("Label-agreement CI gate", "Run the judge on 50 labelled pairs in CI and fail the build when balanced "
     "accuracy drops by more than 5 points against the last release."),
    ("Better AI", "Use better AI to make the judge better."),
    ("Citation checker", "Match every [n] citation in an answer to its passage and flag citations to passages "
     "that do not contain the cited claim, with the quote that fails."),
    ("Judge on the moon", "Host the judge on a lunar data centre for low latency to satellites."),
    ("Rubric linter", "Warn when a rubric's level anchors overlap or skip scores, before the server starts."),
    ("Everything app", "Turn the judge into an everything app with chat, email, payments and a social feed."),
    ("Self-consistency budget", "Sample 3 verdicts only when the first one lands within 0.1 of the pass "
     "threshold; measure the calls saved on the dev set."),
    ("Faster", "Make it faster somehow."),
    ("Injection canaries", "Plant a random canary instruction in every judged block and flag replies that obey "
     "it; count false flags on clean text."),
    ("Emoji verdicts", "Return verdicts only as emoji so they are fun."),
    ("Per-rubric few-shot", "Store two graded examples per metric in the rubric file and put them in the prompt; "
     "measure agreement with and without them."),
    ("Quantum judge", "Use a quantum computer to judge answers in superposition."),
    ("Ledger diff view", "Show how a judgment of the same text changed between two models, metric by metric, "
     "from the ledger."),
    ("More metrics", "Add more metrics."),
    ("Streaming partial verdicts", "Send each metric's score as a progress notification as soon as it is "
     "judged, so agents can stop early."),
    ("NFT rubrics", "Sell rubrics as NFTs."),
    ("Offline model bundle", "Ship a 0.5B model in a wheel for machines with under 4 GB of memory and report "
     "its agreement against the 1.5B default."),
]  # fmt: skip
# Written as concrete ideas (a mechanism and a measurement); the other ten are vague or far-fetched. Fixed with
# the list, before any run: the judge's ranking is checked against it, never the other way round.
CONCRETE = frozenset({
    "Prompt-prefix cache", "Label-agreement CI gate", "Citation checker", "Rubric linter", "Self-consistency budget",
    "Injection canaries", "Per-rubric few-shot", "Ledger diff view", "Streaming partial verdicts",
    "Offline model bundle",
})  # fmt: skip
SMOKE_IDEAS = 4
SMOKE_LATENCY_S = 0.05


class TimedBackend(DelegatingBackend):
    """Delegates to a real backend and times every call: the sum of single calls, next to the wall time."""

    def __init__(self, inner: Backend) -> None:
        super().__init__(inner)
        self.durations: list[float] = []

    async def chat(self, request: ChatRequest) -> ChatReply:
        started = time.perf_counter()
        try:
            return await self.inner.chat(request)
        finally:
            self.durations.append(time.perf_counter() - started)


def separation(scores: dict[str, float | None], concrete: set[str]) -> dict[str, Any]:
    """How well the judge's scores put the concrete ideas above the weak ones.

    Pairwise: over every (concrete, weak) pair both scored, 1 when the concrete one scores higher, 0.5 for a tie.
    Top half: how many of the best-scored half are concrete (ties broken by input order, as the tool ranks).
    """
    scored = {i: v for i, v in scores.items() if v is not None}
    good = [v for i, v in scored.items() if i in concrete]
    weak = [v for i, v in scored.items() if i not in concrete]
    pairs = [1.0 if g > w else 0.5 if g == w else 0.0 for g in good for w in weak]
    ranked = sorted(scored, key=lambda i: -scored[i])  # stable: input order among ties
    half = len(ranked) // 2
    return {
        "concrete_over_weak": round(sum(pairs) / len(pairs), 3) if pairs else None,
        "pairs": len(pairs),
        "concrete_in_top_half": sum(1 for i in ranked[:half] if i in concrete),
        "top_half": half,
    }


def candidates(count: int) -> list[dict[str, Any]]:
    return [{"id": f"idea-{i:02d}", "title": title, "text": text} for i, (title, text) in enumerate(IDEAS[:count])]


async def run_strategy(inner: Backend, strategy: str, count: int, concurrency: int) -> dict[str, Any]:
    timed = TimedBackend(inner)
    # "probability": every criterion read as one Yes/No probability; "per_metric"/"joint": generated replies.
    readout = "probability" if strategy == "probability" else "generated"
    config = engine_config(max_concurrency=concurrency, timeout_s=1800, readout=readout, candidate_readout=readout)
    judge = Judge(timed, config, strategy="per_metric" if strategy == "probability" else strategy)

    async def factory(**wiring: Any) -> Judge:
        return judge  # one judge for the whole run: its timings are the bench's

    deps = ToolDeps(registry=RubricRegistry.load(), limits=input_limits(), judge_factory=factory)
    request = ScoreCandidatesRequest(candidates=candidates(count), rubric="idea-quality", top_k=3)
    started = time.perf_counter()
    result = await score_candidates(request, deps)
    wall = time.perf_counter() - started
    scores = {e["id"]: e["judge_score"] for e in result.ranking}
    concrete = {c["id"] for c in request.candidates if c["title"] in CONCRETE}
    statuses = [e["status"] for e in result.ranking]
    usage = result.usage
    return {
        "strategy": strategy,
        "ideas": count,
        "llm_calls": len(timed.durations),
        "wall_s": round(wall, 2),
        "sum_of_calls_s": round(sum(timed.durations), 2),
        "wall_over_sum": round(wall / sum(timed.durations), 3) if timed.durations else None,
        "prompt_tokens": usage.prompt_tokens if usage else 0,
        "cached_prompt_tokens": usage.cached_prompt_tokens if usage else 0,
        "completion_tokens": usage.completion_tokens if usage else 0,
        "unscored": statuses.count("unscored"),
        "rejected": statuses.count("rejected"),
        "selected": [p.id for p in result.selected],
        "separation": separation(scores, concrete),
        "judge_scores": scores,
    }


async def main_async(args: argparse.Namespace) -> Path:
    quiet_logging()
    run = Run("ideas", args.out, args.smoke)
    count = SMOKE_IDEAS if args.smoke else args.ideas
    if args.smoke:
        backend: Backend = valid_backend(SMOKE_LATENCY_S)
        model = f"scripted, {SMOKE_LATENCY_S * 1000:g} ms per call"
    else:
        from gavel.tools.engine.embedded import EmbeddedBackend

        embedded = EmbeddedBackend(
            Path(args.model_path) if args.model_path else None, parallel=args.concurrency, timeout_s=1800
        )
        embedded.load_sync()
        backend, model = embedded, embedded.model_name
    strategies = args.strategies.split(",")
    rows: list[dict[str, Any]] = []
    for strategy in strategies:
        rows.append(await run_strategy(backend, strategy, count, args.concurrency))
        # Written after each strategy: a long model run that is cut off keeps what it measured.
        run.write({"model": model, "concurrency": args.concurrency, "complete": len(rows) == len(strategies),
                   "results": rows})  # fmt: skip
    say(f"## score_candidates, LLM path: {count} ideas × 4 criteria ({model}, limiter {args.concurrency})")
    headers = ["strategy", "LLM calls", "wall s", "sum of calls s", "wall / sum", "prompt tokens", "reused",
               "completion", "unscored", "concrete > weak", "concrete in top half", "selected"]  # fmt: skip
    keys = ["strategy", "llm_calls", "wall_s", "sum_of_calls_s", "wall_over_sum", "prompt_tokens",
            "cached_prompt_tokens", "completion_tokens", "unscored"]  # fmt: skip
    say(table(headers, [
        [r[k] for k in keys]
        + [r["separation"]["concrete_over_weak"],
           f"{r['separation']['concrete_in_top_half']} of {r['separation']['top_half']}",
           ", ".join(r["selected"])]
        for r in rows
    ]))  # fmt: skip
    path = run.out_dir / "ideas.json"
    say(f"written to {path}")
    return path


def main(argv: list[str] | None = None) -> Path:
    parser = argparse.ArgumentParser(prog="python -m bench.ideas", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    parser.add_argument("--smoke", action="store_true", help=f"{SMOKE_IDEAS} ideas on the scripted model")
    parser.add_argument("--ideas", type=int, default=len(IDEAS), help=f"how many ideas (default {len(IDEAS)})")
    parser.add_argument("--concurrency", type=int, default=2, help="the limiter and llama.cpp slots (default 2)")
    parser.add_argument(
        "--strategies", default="probability,per_metric,joint",
        help="comma-separated: probability (the default readout), per_metric, joint (generated readouts)",
    )  # fmt: skip
    parser.add_argument("--model-path", default=None, help="a GGUF file (default: the embedded default model)")
    parser.add_argument("--out", type=Path, default=RESULTS_DIR, help="results directory")
    args = parser.parse_args(argv)
    if args.smoke and args.out == RESULTS_DIR:
        args.out = RESULTS_DIR / "smoke"
    return anyio.run(main_async, args)


if __name__ == "__main__":
    main()
