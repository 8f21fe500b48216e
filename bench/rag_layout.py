"""Where the grounding question goes: after the claim (the layout before) or before it, where it joins the prompt
prefix every claim of a judgment shares (`question_first` in engine.one_token.user_prompt, with judge.toml's
`answer_yes_no` reminder after the claim). Every claim `judge_rag_answer` checks is read both ways on HaluEval dev;
an answer's score is its weakest claim's P(yes). Reports AUROC, balanced accuracy at 0.45 (the cut before) and at
the best cut, seconds, and prompt tokens evaluated.

    python -m bench.rag_layout [--skip 0] [--pairs 50]   # writes bench/results/rag-layout-<skip>.json

Both layouts are read for one answer before the next, so each pays for its passage about once per answer.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from typing import Any

from bench.common import RESULTS_DIR, Run, halueval_window, say
from bench.consistency_claims import auroc
from gavel.tools.engine import prompts
from gavel.tools.engine.embedded import EmbeddedBackend
from gavel.tools.engine.judge import Judge
from gavel.tools.engine.one_token import document_prefix, yes_no
from gavel.tools.rag.sentence_support import claims
from tests.support.config import engine_config
from tests.support.devset import load_pairs

LAYOUTS = ("question_last", "question_first")


async def probe(skip: int, pairs: int) -> tuple[list[dict[str, Any]], dict[str, dict[str, float]]]:
    rows = [item for pair in load_pairs()[skip : skip + pairs] for item in pair]
    judge = Judge(EmbeddedBackend(timeout_s=300), engine_config(call_deadline_s=86_400))
    question = prompts.prompt_set().fill("rag_sentence", subject="answer", sentence_label="claim")
    cost = {layout: {"seconds": 0.0, "prompt_tokens": 0} for layout in LAYOUTS}
    records = []
    for row in rows:
        shared = document_prefix(row["context"], row["question"])
        weakest: dict[str, float | None] = {}
        for layout in LAYOUTS:
            started = time.perf_counter()
            values = []
            for claim in claims(row["answer"]):
                readout, used = await yes_no(judge.calls, shared, question, extra={"claim": claim},
                                             question_first=layout == "question_first")  # fmt: skip
                values.append(readout.value)
                cost[layout]["prompt_tokens"] += used.prompt_tokens
            cost[layout]["seconds"] += time.perf_counter() - started
            weakest[layout] = None if None in values else min(v for v in values if v is not None)
        records.append({"id": row["id"], "hallucinated": row["hallucinated"], "p": weakest})
        say(f"  {len(records)}/{len(rows)} {row['id']} {weakest}")
    return records, cost


def balanced_accuracy(right: list[float], wrong: list[float], cut: float) -> float:
    return (sum(s >= cut for s in right) / len(right) + sum(s < cut for s in wrong) / len(wrong)) / 2


def separation(right: list[float], wrong: list[float]) -> dict[str, float]:
    """How well a reading separates right answers from hallucinated ones: AUROC, and balanced accuracy at the cut
    that does best here (fitted on these very answers, so a ceiling, not a held-out figure)."""
    best = max(sorted({*right, *wrong}), key=lambda c: balanced_accuracy(right, wrong, c))
    return {"auroc": auroc(right, wrong), "best_cut": best,
            "balanced_accuracy_at_best": balanced_accuracy(right, wrong, best)}  # fmt: skip


def right_and_wrong(
    records: Sequence[dict[str, Any]], read: Callable[[dict[str, Any]], float | None]
) -> tuple[list[float], list[float]]:
    """What `read` finds for the right answers and for the hallucinated ones, the records without a reading left
    out."""
    right: list[float] = []
    wrong: list[float] = []
    for record in records:
        if (value := read(record)) is not None:
            (wrong if record["hallucinated"] else right).append(value)
    return right, wrong


def figures(records: list[dict[str, Any]]) -> dict[str, Any]:
    out = {}
    for layout in LAYOUTS:
        right, wrong = right_and_wrong(records, lambda r, layout=layout: r["p"][layout])
        out[layout] = {
            **separation(right, wrong),
            "balanced_accuracy_at_0.45": balanced_accuracy(right, wrong, 0.45),
            "balanced_accuracy_at_0.55": balanced_accuracy(right, wrong, 0.55),
        }
    return out


def main() -> None:
    args = halueval_window(__doc__.splitlines()[0])
    run = Run(f"rag-layout-{args.skip}", RESULTS_DIR, smoke=False)
    records, cost = asyncio.run(probe(args.skip, args.pairs))
    result = figures(records)
    for layout in LAYOUTS:
        say(f"{layout:15s} {result[layout]} {cost[layout]}")
    path = run.write({"args": vars(args), "figures": result, "cost": cost, "items": records})
    say(f"wrote {path}")


if __name__ == "__main__":
    main()
