"""Would a second wording of the grounding question, averaged with the first, rank right HaluEval answers above
hallucinated ones better? Every claim `judge_rag_answer` checks (a sentence and its leading clause) is read with
each candidate wording after the same prefix (the fact checker's system text, the passage, the question); an
answer's score is its weakest claim's P(yes), as the accuracy dimension reads it.

    python -m bench.rag_wordings [--skip 0] [--pairs 50] [--first]

writes bench/results/rag-wordings.json, or rag-wordings-first-<skip>.json with `--first`.

`--first` asks each wording before the claim (the layout `judge_rag_answer` uses, `question_first`), with
judge.toml's `answer_yes_no` reminder after the claim.

A probe of wordings, not of the tool: `bench.agreement` measures the tool through `gavel serve`.
"""

from __future__ import annotations

import asyncio
import itertools
from typing import Any

from bench.common import RESULTS_DIR, Run, halueval_window, say
from bench.consistency_claims import auroc
from bench.rag_layout import right_and_wrong
from gavel.tools.engine import prompts
from gavel.tools.engine.embedded import EmbeddedBackend
from gavel.tools.engine.judge import Judge
from gavel.tools.engine.one_token import document_prefix, yes_no
from gavel.tools.rag.sentence_support import claims
from tests.support.config import engine_config
from tests.support.devset import load_pairs

WORDINGS = {
    "current": prompts.prompt_set().fill("rag_sentence", subject="answer", sentence_label="claim"),
    "states": "Does the document state everything the claim says? Answer Yes or No.",
    "answer": "Based only on the document, is the claim a correct answer to the question? Answer Yes or No.",
    "true": "According to the document, is the claim true? Answer Yes or No.",
}


async def probe(skip: int, pairs: int, first: bool) -> list[dict[str, Any]]:
    rows = [item for pair in load_pairs()[skip : skip + pairs] for item in pair]
    judge = Judge(EmbeddedBackend(timeout_s=300), engine_config(call_deadline_s=86_400))
    records = []
    for row in rows:
        shared = document_prefix(row["context"], row["question"])
        weakest: dict[str, float | None] = {}
        for key, instruction in WORDINGS.items():
            values = []
            for claim in claims(row["answer"]):
                readout, _ = await yes_no(
                    judge.calls, shared, instruction, extra={"claim": claim}, question_first=first
                )
                values.append(readout.value)
            weakest[key] = None if None in values else min(v for v in values if v is not None)
        records.append({"id": row["id"], "hallucinated": row["hallucinated"], "p": weakest})
        say(f"  {len(records)}/{len(rows)} {row['id']} {weakest}")
    return records


def figures(records: list[dict[str, Any]]) -> dict[str, float | None]:
    def score(record: dict[str, Any], keys: tuple[str, ...]) -> float | None:
        values = [record["p"][k] for k in keys]
        return None if None in values else sum(values) / len(values)

    out = {}
    for size in (1, 2):
        for keys in itertools.combinations(WORDINGS, size):
            right, wrong = right_and_wrong(records, lambda r, keys=keys: score(r, keys))
            out["+".join(keys)] = auroc(right, wrong)
    return out


def main() -> None:
    args = halueval_window(__doc__.splitlines()[0], flags=("--first",))
    run = Run(f"rag-wordings-first-{args.skip}" if args.first else "rag-wordings", RESULTS_DIR, smoke=False)
    records = asyncio.run(probe(args.skip, args.pairs, args.first))
    result = figures(records)
    for key, value in result.items():
        say(f"{key:24s} {value}")
    path = run.write({"args": vars(args), "wordings": WORDINGS, "auroc": result, "items": records})
    say(f"wrote {path}")


if __name__ == "__main__":
    main()
