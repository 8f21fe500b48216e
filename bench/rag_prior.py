"""Do the passages raise a claim's support above what the model believes without them? For each HaluEval dev
question the embedded default answers from the passages (`tools/rag/own_answer.py`); every claim of the right and
the hallucinated answer (and, on pairs 1-50, of the right answer rewritten as a faithful whole sentence,
bench/data/halueval_sentence_answers.jsonl) is checked twice: as judge_rag_answer shipped it (`hinted`: the
passages, the question and the own answer before the claim) and with the passages left out (`without`: the
question alone). Reports AUROC and balanced accuracy of `hinted` alone, of `hinted - without`, and of the rule
judge_rag_answer now ships: a claim is supported when `hinted` >= 0.45 and `hinted` >= `without`; the weakest claim
decides for the answer.

    python -m bench.rag_prior [--skip 0] [--pairs 50]   # writes bench/results/rag-prior-<skip>.json
    python -m bench.rag_prior --rebuild RECORDS.json --skip 0   # figures from records an earlier run gathered
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from bench.common import RESULTS_DIR, Run, run_halueval_probe, say
from bench.rag_layout import balanced_accuracy, right_and_wrong, separation
from gavel.tools.engine import prompts
from gavel.tools.engine.embedded import EmbeddedBackend
from gavel.tools.engine.judge import Judge
from gavel.tools.engine.one_token import document_prefix, yes_no
from gavel.tools.rag.own_answer import OwnAnswers, hinted
from gavel.tools.rag.sentence_support import SUPPORT_CUT, claims
from tests.support.config import engine_config
from tests.support.devset import load_pairs

SENTENCES = Path(__file__).resolve().parent / "data" / "halueval_sentence_answers.jsonl"


def sentence_answers() -> dict[str, str]:
    lines = SENTENCES.read_text(encoding="utf-8").splitlines()
    return {row["id"]: row["answer"] for row in map(json.loads, lines) if row}


async def probe(skip: int, pairs: int) -> list[dict[str, Any]]:
    judge = Judge(EmbeddedBackend(timeout_s=300), engine_config(call_deadline_s=86_400))
    question = prompts.prompt_set().fill("rag_sentence", subject="answer", sentence_label="claim")
    rewritten = sentence_answers()
    records = []
    for right, wrong in load_pairs()[skip : skip + pairs]:
        own, _ = await OwnAnswers(judge, right["context"], right["question"], None).get()
        layouts = {
            "hinted": hinted(document_prefix(right["context"], right["question"]), own),
            "without": document_prefix(None, right["question"]),
        }
        answers = [(right["id"], "short", right["answer"]), (wrong["id"], "hallucinated", wrong["answer"])]
        if right["id"] in rewritten:
            answers.append((right["id"], "sentence", rewritten[right["id"]]))
        for answer_id, kind, answer in answers:
            record: dict[str, Any] = {"id": answer_id, "kind": kind, "hallucinated": kind == "hallucinated",
                                      "own": own.text, "claims": []}  # fmt: skip
            for claim in claims(answer):
                values = {}
                for way, shared in layouts.items():
                    readout, _ = await yes_no(judge.calls, shared, question, extra={"claim": claim},
                                              question_first=True)  # fmt: skip
                    values[way] = readout.value
                record["claims"].append(values)
            records.append(record)
        say(f"  {len(records)} answers; own answer {own.text!r}")
    return records


def supported(record: dict[str, Any], cut: float = SUPPORT_CUT) -> bool:
    """The shipped rule: every claim at or above the cut and no lower than without the passages."""
    return all(c["hinted"] >= cut and c["hinted"] >= c["without"] for c in record["claims"])


def _reading(record: dict[str, Any], way: str) -> float | None:
    values = [c["hinted"] - c["without"] if way == "difference" else c[way] for c in record["claims"]]
    return None if not values or None in values else min(values)


def figures(records: list[dict[str, Any]]) -> dict[str, Any]:
    halueval = [r for r in records if r["kind"] != "sentence"]
    out: dict[str, Any] = {}
    for way in ("hinted", "difference"):
        right, wrong = right_and_wrong(halueval, lambda r, way=way: _reading(r, way))
        out[way] = {**separation(right, wrong), "answers": len(right) + len(wrong)}
    right, wrong = right_and_wrong(halueval, lambda r: _reading(r, "hinted"))
    out["hinted"]["balanced_accuracy_at_cut"] = balanced_accuracy(right, wrong, SUPPORT_CUT)
    hallucinated = [r for r in halueval if r["hallucinated"]]
    rejected = sum(not supported(r) for r in hallucinated) / len(hallucinated)
    approved = sum(supported(r) for r in halueval if not r["hallucinated"]) / (len(halueval) - len(hallucinated))
    out["rule"] = {"right_approved": approved, "hallucinated_rejected": rejected,
                   "balanced_accuracy": (approved + rejected) / 2}  # fmt: skip
    sentences = [r for r in records if r["kind"] == "sentence"]
    if sentences:
        cut_only = sum(all(c["hinted"] >= SUPPORT_CUT for c in r["claims"]) for r in sentences) / len(sentences)
        with_rule = sum(supported(r) for r in sentences) / len(sentences)
        cut_rejected = sum(any(c["hinted"] < SUPPORT_CUT for c in r["claims"]) for r in hallucinated)
        out["faithful_sentences"] = {
            "answers": len(sentences),
            "approved_cut_only": cut_only,
            "approved_rule": with_rule,
            "balanced_accuracy_cut_only": (cut_only + cut_rejected / len(hallucinated)) / 2,
            "balanced_accuracy_rule": (with_rule + rejected) / 2,
        }
    return out


def rebuild(path: Path, skip: int) -> None:
    """Figures from the records of an earlier run (`items`, or a bare list), written as this probe writes them."""
    loaded = json.loads(path.read_text(encoding="utf-8"))
    records = loaded["items"] if isinstance(loaded, dict) else loaded
    result = figures(records)
    for key, value in result.items():
        say(f"{key:18s} {value}")
    run = Run(f"rag-prior-{skip}", RESULTS_DIR, smoke=False)
    say(f"wrote {run.write({'args': {'rebuild': str(path), 'skip': skip}, 'figures': result, 'items': records})}")


def main() -> None:
    if "--rebuild" in sys.argv:
        parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
        parser.add_argument("--rebuild", type=Path, required=True)
        parser.add_argument("--skip", type=int, default=0)
        args = parser.parse_args()
        rebuild(args.rebuild, args.skip)
        return
    run_halueval_probe(__doc__.splitlines()[0], "rag-prior", probe, figures)


if __name__ == "__main__":
    main()
