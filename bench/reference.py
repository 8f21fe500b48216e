"""Reference answers on the labelled set: does answer_correctness separate HaluEval's right answers from its
hallucinated ones when judge_rag_answers is given the right answer as the reference?

THE DESIGN, FIXED BEFORE ANY MEASUREMENT, AND WHAT IT DOES NOT MEASURE:
- per question, one judge_rag_answers call: the question's passage as the one source, its right answer as
  `reference_answer`, and two answers: the right answer (positive) and the hallucinated answer (negative);
- THE RIGHT ANSWER IS JUDGED AGAINST ITSELF. HaluEval has one right answer per question and no paraphrase of
  it, so the positive side's correctness is near 1 by construction. The AUROC below therefore measures the
  hallucinated side only: how far a hallucinated answer falls below the right answer's self-check. It says
  nothing about how a correct answer worded differently from the reference would score;
- context_recall (the right answer's claims against the passage) is reported as read; HaluEval's passage
  supports the right answer by construction, so high recall is the expected value, not a finding;
- an unscored figure counts as a lost pair in the pairwise accuracy and is left out of the AUROC; the
  unscored rate is reported beside them.

Subset: held out by default (the probability prompts were chosen on the first 20 question pairs): --pairs N
question pairs by question number after the first --skip (20). --full: every held-out pair (21-100). --smoke:
2 pairs on the scripted model, the numbers mean nothing. Not run on the real model by the test suite.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path
from typing import Any

import anyio

from bench.common import RESULTS_DIR, Run, quiet_logging, say, table
from gavel.tools import rag
from gavel.tools.calibration import stats
from gavel.tools.deps import ToolDeps
from tests.support.devset import TUNED_PAIRS, data_path, load_pairs, subset

NAME = "reference"
DEFAULT_PAIRS = 10
SELF_JUDGED = (
    "the right answer is judged against itself as the reference (HaluEval has no paraphrase of it), so its "
    "correctness is near 1 by construction: this AUROC measures the hallucinated side only"
)


def request(right: dict[str, Any], hallucinated: dict[str, Any]) -> rag.JudgeRagAnswersRequest:
    return rag.JudgeRagAnswersRequest(
        question=right["question"],
        sources=[rag.Passage(content=right["context"])],
        reference_answer=right["answer"],
        answers=[
            rag.AgentAnswer(agent_name="right", answer=right["answer"]),
            rag.AgentAnswer(agent_name="hallucinated", answer=hallucinated["answer"]),
        ],
        evaluation_context="RAG",
    )


def _score(figure: Any) -> float | None:
    return figure.score if figure is not None else None


async def judge_pairs(deps: ToolDeps, pairs: list[tuple[dict[str, Any], dict[str, Any]]]) -> list[dict[str, Any]]:
    rows = []
    for right, hallucinated in pairs:
        started = time.perf_counter()
        batch = await rag.judge_rag_answers(request(right, hallucinated), deps)
        by_name = {r.agent_name: r for r in batch.results}
        row = {
            "question": right["id"].rsplit("-", 1)[0],
            "correctness_right": _score(by_name["right"].answer_correctness),
            "correctness_hallucinated": _score(by_name["hallucinated"].answer_correctness),
            "unsupported_hallucinated": _unsupported(by_name["hallucinated"].answer_correctness),
            "context_recall": _score(by_name["right"].context_recall),
            "accuracy_right": by_name["right"].accuracy.score,
            "accuracy_hallucinated": by_name["hallucinated"].accuracy.score,
            "verdicts": {name: r.verdict for name, r in by_name.items()},
            "llm_calls": batch.usage.llm_calls,
            "wall_s": round(time.perf_counter() - started, 2),
        }
        say(
            f"  {row['question']}: correctness right {_cell(row['correctness_right'])}, hallucinated "
            f"{_cell(row['correctness_hallucinated'])}; recall {_cell(row['context_recall'])} ({row['wall_s']:.0f}s)"
        )
        rows.append(row)
    return rows


def _unsupported(figure: Any) -> list[str]:
    return list(figure.unsupported) if figure is not None else []


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    def figures(up: str, down: str) -> dict[str, Any]:
        ups, downs = [r[up] for r in rows], [r[down] for r in rows]
        auroc = stats.auroc(ups, downs)
        pairwise = stats.pairwise_accuracy(list(zip(ups, downs, strict=True)))
        return {
            "auroc": round(auroc, 4) if auroc is not None else None,
            "pairwise_accuracy": round(pairwise, 4) if pairwise is not None else None,
            "unscored_rate": round(sum(v is None for v in ups + downs) / (2 * len(rows)), 4) if rows else None,
            "mean_right": _mean(ups),
            "mean_hallucinated": _mean(downs),
        }

    recall = [r["context_recall"] for r in rows]
    return {
        "pairs": len(rows),
        "answer_correctness": {**figures("correctness_right", "correctness_hallucinated"), "caveat": SELF_JUDGED},
        "accuracy_for_comparison": figures("accuracy_right", "accuracy_hallucinated"),
        "context_recall": {
            "mean": _mean(recall),
            "unscored_rate": round(sum(v is None for v in recall) / len(rows), 4) if rows else None,
        },
        "llm_calls_per_pair": round(statistics.fmean(r["llm_calls"] for r in rows), 2) if rows else None,
        "wall_s_per_pair": round(statistics.fmean(r["wall_s"] for r in rows), 2) if rows else None,
    }


def _mean(values: list[float | None]) -> float | None:
    scored = [v for v in values if v is not None]
    return round(statistics.fmean(scored), 4) if scored else None


def _cell(value: float | None) -> str:
    return "unscored" if value is None else f"{value:.2f}"


def smoke_deps() -> ToolDeps:
    """The scripted model (tests.support, the one fake at the model seam): P(yes) high when every word of the
    judged claim is in the document. The numbers mean nothing; the run proves the path."""
    from bench.scripted import overlap_backend
    from tests.support.deps import make_deps

    return make_deps(overlap_backend())


def main(argv: list[str] | None = None, *, out_dir: Path = RESULTS_DIR) -> Path:
    parser = argparse.ArgumentParser(
        prog="python -m bench.reference", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--pairs", type=int, default=DEFAULT_PAIRS, help=f"question pairs ({DEFAULT_PAIRS})")
    parser.add_argument("--skip", type=int, default=TUNED_PAIRS, help=f"pairs skipped first ({TUNED_PAIRS}: tuned on)")
    parser.add_argument("--full", action="store_true", help="every held-out pair (21-100)")
    parser.add_argument("--smoke", action="store_true", help="2 pairs on the scripted model (no real model)")
    parser.add_argument("--threads", type=int, default=None, help="llama.cpp threads (default: every core)")
    parser.add_argument("--out", type=Path, default=None, help="results directory")
    args = parser.parse_args(argv)
    quiet_logging("WARNING")
    count = 2 if args.smoke else (None if args.full else args.pairs)
    chosen = subset(load_pairs()[args.skip :], count)
    run = Run(NAME, args.out or out_dir, args.smoke)
    say(f"\n## Reference answers: answer_correctness on {len(chosen)} HaluEval dev pairs\n")
    say(f"NOTE: {SELF_JUDGED}.\n")
    started = time.perf_counter()
    if args.smoke:
        rows = anyio.run(judge_pairs, smoke_deps(), chosen)
        model = "scripted (smoke: the numbers mean nothing)"
    else:
        rows, model = _on_the_embedded_model(chosen, args.threads)
    summary = summarize(rows)
    path = run.write(
        {
            "data": str(data_path()),
            "subset": f"{len(chosen)} question pairs by question number after the first {args.skip}",
            "design": "reference = the right answer; judged: the right answer (positive) and the hallucinated "
            "answer (negative), in one judge_rag_answers call per question",
            "caveat": SELF_JUDGED,
            "model": model,
            "wall_s": round(time.perf_counter() - started, 1),
            "summary": summary,
            "items": rows,
        }
    )
    _print(summary)
    say(f"written to {path}")
    return path


def _on_the_embedded_model(chosen: list[Any], threads: int | None) -> tuple[list[dict[str, Any]], str]:
    from bench.judges import GavelJudge
    from bench.meter import start_embedded_endpoint

    endpoint = start_embedded_endpoint(embeddings=False, threads=threads)
    gavel = GavelJudge(endpoint)

    async def judged() -> list[dict[str, Any]]:
        try:
            return await judge_pairs(gavel.deps(), chosen)
        finally:
            await gavel.aclose()

    try:
        return anyio.run(judged), endpoint.model
    finally:
        endpoint.close()


def _print(summary: dict[str, Any]) -> None:
    rows = []
    for name, key in (("answer_correctness (vs the right answer)", "answer_correctness"),
                      ("accuracy (vs the passage), same items", "accuracy_for_comparison")):  # fmt: skip
        s = summary[key]
        rows.append([name, 2 * summary["pairs"], s["auroc"], s["pairwise_accuracy"], s["unscored_rate"],
                     s["mean_right"], s["mean_hallucinated"]])  # fmt: skip
    say(table(["figure", "items", "AUROC", "pairwise acc", "unscored", "mean right", "mean halluc."], rows))
    recall = summary["context_recall"]
    say(f"\ncontext_recall (the right answer's claims vs the passage): mean {recall['mean']}, unscored "
        f"{recall['unscored_rate']}")  # fmt: skip
    say(f"\n{SELF_JUDGED}.")


if __name__ == "__main__":
    main()
