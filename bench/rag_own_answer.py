"""Does the judge's own answer to the question help it check a claim? For each HaluEval dev question the embedded
default answers from the passage alone (`tools/rag/own_answer.py`, greedy, a few words); every claim of both
answers is then checked three ways, the answer's weakest claim deciding: the shipped grounding question after the
passage (`plain`), the same with the own answer shown after the question (`hinted`, what judge_rag_answer ships),
and against the own answer alone as the document, as answer_correctness reads a reference (`agree`). Reports AUROC,
pairwise accuracy, balanced accuracy at 0.45 / 0.50 / 0.55 and at the best cut, and the seconds the own answer took.

    python -m bench.rag_own_answer [--skip 0] [--pairs 50]   # writes bench/results/rag-own-answer-<skip>.json
"""

from __future__ import annotations

import statistics
import time
from typing import Any

from bench.common import run_halueval_probe, say
from bench.rag_layout import balanced_accuracy, right_and_wrong, separation
from gavel.tools.engine import prompts
from gavel.tools.engine.embedded import EmbeddedBackend
from gavel.tools.engine.judge import Judge
from gavel.tools.engine.one_token import document_prefix, yes_no
from gavel.tools.rag.own_answer import OwnAnswers, hinted
from gavel.tools.rag.sentence_support import claims
from tests.support.config import engine_config
from tests.support.devset import load_pairs

WAYS = ("plain", "hinted", "agree")


async def probe(skip: int, pairs: int) -> list[dict[str, Any]]:
    judge = Judge(EmbeddedBackend(timeout_s=300), engine_config(call_deadline_s=86_400))
    question = prompts.prompt_set().fill("rag_sentence", subject="answer", sentence_label="claim")
    records = []
    for pair in load_pairs()[skip : skip + pairs]:
        first = pair[0]
        started = time.perf_counter()
        own, _ = await OwnAnswers(judge, first["context"], first["question"], None).get()
        seconds = time.perf_counter() - started
        plain = document_prefix(first["context"], first["question"])
        layouts = {"plain": (plain, True), "hinted": (hinted(plain, own), True)}
        if own.text is not None:
            layouts["agree"] = (document_prefix(own.text, first["question"]), False)
        for row in pair:
            record: dict[str, Any] = {"id": row["id"], "hallucinated": row["hallucinated"], "own": own.text,
                                      "own_s": seconds}  # fmt: skip
            for way, (shared, first_layout) in layouts.items():
                values = []
                for claim in claims(row["answer"]):
                    readout, _ = await yes_no(judge.calls, shared, question, extra={"claim": claim},
                                              question_first=first_layout)  # fmt: skip
                    values.append(readout.value)
                record[way] = None if None in values else min(v for v in values if v is not None)
            records.append(record)
        say(f"  {len(records)}/{2 * pairs} own answer {own.text!r} in {seconds:.1f}s")
    return records


def figures(records: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for way in WAYS:
        right, wrong = right_and_wrong(records, lambda r, way=way: r.get(way))
        by_id = {r["id"]: r.get(way) for r in records}
        pairs = [(by_id[r["id"]], by_id[r["id"].replace("-right", "-hallucinated")])
                 for r in records if r["id"].endswith("-right")]  # fmt: skip
        scored = [(a, b) for a, b in pairs if a is not None and b is not None]
        out[way] = {
            **separation(right, wrong),
            "pairwise": sum((a > b) + 0.5 * (a == b) for a, b in scored) / len(scored),
            **{f"balanced_accuracy_at_{cut}": balanced_accuracy(right, wrong, cut) for cut in (0.45, 0.5, 0.55)},
            "answers": len(right) + len(wrong),
        }
    out["own_answer_s_mean"] = statistics.fmean(r["own_s"] for r in records)
    return out


def main() -> None:
    run_halueval_probe(__doc__.splitlines()[0], "rag-own-answer", probe, figures)


if __name__ == "__main__":
    main()
