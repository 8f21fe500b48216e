"""Does asking whether an answer names the same answer as the judge's own help the verdict? For each HaluEval dev
answer whose question has an own answer in `rag-own-answer-<skip>.json`, one check of the whole answer against the
own answer as the document (the reference layout, the question after the claim), in two wordings; each alone and
mixed with the shipped per-claim check (`hinted`). Reports AUROC and balanced accuracy at the best cut and at 0.45.

    python -m bench.rag_same_answer [--skip 0] [--pairs 50]   # writes bench/results/rag-same-answer-<skip>.json
"""

from __future__ import annotations

import json
import math
from typing import Any

from bench.common import RESULTS_DIR, run_halueval_probe, say
from bench.rag_layout import balanced_accuracy, right_and_wrong, separation
from gavel.tools.engine.embedded import EmbeddedBackend
from gavel.tools.engine.judge import Judge
from gavel.tools.engine.one_token import document_prefix, yes_no
from tests.support.config import engine_config
from tests.support.devset import load_pairs

WORDINGS = {
    "same_answer": "Does the claim give the same answer to the question as the document? Answer Yes or No.",
    "same_named": "Do the claim and the document name the same answer to the question? Answer Yes or No.",
}


async def probe(skip: int, pairs: int) -> list[dict[str, Any]]:
    judge = Judge(EmbeddedBackend(timeout_s=300), engine_config(call_deadline_s=86_400))
    earlier = json.loads((RESULTS_DIR / f"rag-own-answer-{skip}.json").read_text())["items"]
    rows = {row["id"]: row for pair in load_pairs()[skip : skip + pairs] for row in pair}
    records = []
    for item in earlier:
        if item["own"] is None or item["id"] not in rows:
            continue
        row = rows[item["id"]]
        record = {key: item[key] for key in ("id", "hallucinated", "own", "hinted")}
        for name, question in WORDINGS.items():
            readout, _ = await yes_no(judge.calls, document_prefix(item["own"], row["question"]), question,
                                      extra={"claim": row["answer"]})  # fmt: skip
            record[name] = readout.value
        records.append(record)
        say(f"  {len(records)} {row['id']} {record}")
    return records


def figures(records: list[dict[str, Any]]) -> dict[str, Any]:
    ways = {"hinted": lambda r: r["hinted"]}
    for name in WORDINGS:
        ways[name] = lambda r, n=name: r[n]
        ways[f"mean hinted, {name}"] = lambda r, n=name: (r["hinted"] + r[n]) / 2
        ways[f"min hinted, {name}"] = lambda r, n=name: min(r["hinted"], r[n])
        ways[f"geometric hinted, {name}"] = lambda r, n=name: math.sqrt(r["hinted"] * r[n])
    out = {}
    for way, value in ways.items():
        scored = [r for r in records if r["hinted"] is not None and all(r[n] is not None for n in WORDINGS)]
        right, wrong = right_and_wrong(scored, value)
        out[way] = {**separation(right, wrong), "balanced_accuracy_at_0.45": balanced_accuracy(right, wrong, 0.45)}
    return out


def main() -> None:
    run_halueval_probe(__doc__.splitlines()[0], "rag-same-answer", probe, figures)


if __name__ == "__main__":
    main()
