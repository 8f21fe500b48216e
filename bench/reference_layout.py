"""Where the grounding question goes when the document is a reference answer: answer_correctness checks each claim
of an answer against the reference (`tools/rag/reference.py`), a document of a few words where the passages are a
paragraph. The grounding layout (the question before the claim) was measured on passages only; here every claim of
the right and the hallucinated answer of each HaluEval dev question is read both ways against the right answer as
the reference, and an answer's score is its weakest claim's P(yes), as answer_correctness reads it.

    python -m bench.reference_layout --skip 20 --pairs 80   # writes bench/results/reference-layout-<skip>.json

The right answer is its own reference (HaluEval has no paraphrase of it), so the figures measure how far a
hallucinated answer falls below a self-check, as bench.reference says.
"""

from __future__ import annotations

import asyncio
from typing import Any

from bench.common import RESULTS_DIR, Run, halueval_window, say
from bench.rag_layout import LAYOUTS, figures
from gavel.tools.engine import prompts
from gavel.tools.engine.embedded import EmbeddedBackend
from gavel.tools.engine.judge import Judge
from gavel.tools.engine.one_token import document_prefix, yes_no
from gavel.tools.rag.sentence_support import claims
from tests.support.config import engine_config
from tests.support.devset import load_pairs


async def probe(skip: int, pairs: int) -> list[dict[str, Any]]:
    judge = Judge(EmbeddedBackend(timeout_s=300), engine_config(call_deadline_s=86_400))
    question = prompts.prompt_set().fill("rag_sentence", subject="answer", sentence_label="claim")
    records = []
    for right, wrong in load_pairs()[skip : skip + pairs]:
        shared = document_prefix(right["answer"], right["question"])
        for row in (right, wrong):
            weakest: dict[str, float | None] = {}
            for layout in LAYOUTS:
                values = []
                for claim in claims(row["answer"]):
                    readout, _ = await yes_no(judge.calls, shared, question, extra={"claim": claim},
                                              question_first=layout == "question_first")  # fmt: skip
                    values.append(readout.value)
                weakest[layout] = None if None in values else min(v for v in values if v is not None)
            records.append({"id": row["id"], "hallucinated": row["hallucinated"], "p": weakest})
            say(f"  {len(records)}/{2 * pairs} {row['id']} {weakest}")
    return records


def main() -> None:
    args = halueval_window(__doc__.splitlines()[0])
    run = Run(f"reference-layout-{args.skip}", RESULTS_DIR, smoke=False)
    records = asyncio.run(probe(args.skip, args.pairs))
    result = figures(records)
    for layout in LAYOUTS:
        say(f"{layout:15s} {result[layout]}")
    path = run.write({"args": vars(args), "figures": result, "items": records})
    say(f"wrote {path}")


if __name__ == "__main__":
    main()
