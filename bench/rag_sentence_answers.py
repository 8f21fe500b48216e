"""Does the RAG cut hold for faithful answers written as whole sentences? HaluEval's right answers are two words on
average and its hallucinated ones whole sentences, so a cut chosen on them may buy its gain from answer length. Each
right answer of the tuning pairs 1-50 is rewritten as one faithful sentence (`bench/data/halueval_sentence_answers
.jsonl`: the question's terms and the gold answer, no fact the passage lacks) and judged by `judge_rag_answer` on the
embedded default beside that question's hallucinated answer, in one run. Reports AUROC and, per cut, the share of
sentence answers approved, of hallucinated answers rejected, and the balanced accuracy; the HaluEval right answers'
own figures come from bench/results/agreement-tune-own-answer.json (the same pairs through `gavel serve`).

    python -m bench.rag_sentence_answers   # writes bench/results/rag-sentence-answers.json
    python -m bench.rag_sentence_answers --served agreement-tune-rag-system.json --name rag-sentence-answers-rag-system
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

from bench.common import REPO_ROOT, RESULTS_DIR, probe_and_write, say
from bench.consistency_claims import auroc
from bench.rag_layout import balanced_accuracy
from gavel.tools.engine.embedded import EmbeddedBackend
from gavel.tools.rag import JudgeRagAnswerRequest, Passage, judge_rag_answer
from tests.support.deps import make_deps
from tests.support.devset import load_pairs

SENTENCES = REPO_ROOT / "bench" / "data" / "halueval_sentence_answers.jsonl"
SERVED = "agreement-tune-own-answer.json"  # the same pairs' HaluEval answers, judged by the same code
CUTS = (0.4, 0.45, 0.5, 0.55, 0.6)


async def probe() -> list[dict[str, Any]]:
    sentences = {row["id"]: row["answer"] for row in map(json.loads, SENTENCES.read_text().splitlines())}
    # As `gavel serve` builds the embedded backend: one generation slot per concurrent call.
    deps, records = make_deps(EmbeddedBackend(timeout_s=300, parallel=4), timeout_s=300), []
    for right, hallucinated in load_pairs():
        if right["id"] not in sentences:
            continue
        for row, answer, kind in ((right, sentences[right["id"]], "sentence"), (hallucinated, hallucinated["answer"],
                                                                                  "hallucinated")):  # fmt: skip
            started = time.perf_counter()
            request = JudgeRagAnswerRequest(question=row["question"], answer=answer,
                                            sources=[Passage(content=row["context"])])  # fmt: skip
            result = await judge_rag_answer(request, deps)
            seconds = round(time.perf_counter() - started, 2)
            records.append({"id": row["id"], "kind": kind, "answer": answer, "verdict": result.verdict,
                            "score": result.accuracy.score, "seconds": seconds})  # fmt: skip
        say(f"  {len(records)}/{2 * len(sentences)} {records[-2]['score']:.2f} / {records[-1]['score']:.2f}")
    return records


def figures(records: list[dict[str, Any]], served_file: str = SERVED) -> dict[str, Any]:
    sentence = [r["score"] for r in records if r["kind"] == "sentence" and r["score"] is not None]
    wrong = [r["score"] for r in records if r["kind"] == "hallucinated" and r["score"] is not None]
    served = json.loads((RESULTS_DIR / served_file).read_text())["items"]
    ids = {r["id"].replace("-right", "") for r in records if r["kind"] == "sentence"}
    short = [i["score"] for i in served if i["id"].endswith("-right") and i["id"].replace("-right", "") in ids]
    return {
        "answers": len(records),
        "auroc_sentence_vs_hallucinated": auroc(sentence, wrong),
        "auroc_short_vs_hallucinated": auroc(short, wrong),
        "by_cut": {
            str(cut): {
                "sentence_approved": sum(v >= cut for v in sentence) / len(sentence),
                "short_approved": sum(v >= cut for v in short) / len(short),
                "hallucinated_rejected": sum(v < cut for v in wrong) / len(wrong),
                "balanced_accuracy_sentence": balanced_accuracy(sentence, wrong, cut),
                "balanced_accuracy_short": balanced_accuracy(short, wrong, cut),
            }
            for cut in CUTS
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--served", default=SERVED, help="bench/results file with the short answers' judgments")
    parser.add_argument("--name", default="rag-sentence-answers")
    args = parser.parse_args()
    probe_and_write(args.name, probe, lambda records: figures(records, args.served))


if __name__ == "__main__":
    main()
