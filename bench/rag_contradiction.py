"""Does asking whether the passage contradicts a claim add to asking whether it supports it? Every claim
`judge_rag_answer` checks is read with the shipped grounding question (before the claim) and with "Does the claim
state something that the document contradicts?" (before the claim too, same prefix); an answer's support is its
weakest claim's P(supported), its contradiction its strongest claim's P(contradicts). Reports AUROC of support
alone, of 1 - contradiction alone, and of their mean, and balanced accuracy at each one's best cut.

    python -m bench.rag_contradiction [--skip 0] [--pairs 50]   # writes bench/results/rag-contradiction-<skip>.json
"""

from __future__ import annotations

from typing import Any

from bench.common import run_halueval_probe, say
from bench.rag_layout import right_and_wrong, separation
from gavel.tools.engine import prompts
from gavel.tools.engine.embedded import EmbeddedBackend
from gavel.tools.engine.judge import Judge
from gavel.tools.engine.one_token import document_prefix, yes_no
from gavel.tools.rag.sentence_support import claims
from tests.support.config import engine_config
from tests.support.devset import load_pairs

SCORES = ("support", "no_contradiction", "mean")


async def probe(skip: int, pairs: int) -> list[dict[str, Any]]:
    rows = [item for pair in load_pairs()[skip : skip + pairs] for item in pair]
    judge = Judge(EmbeddedBackend(timeout_s=300), engine_config(call_deadline_s=86_400))
    texts = prompts.prompt_set()
    support_q = texts.fill("rag_sentence", subject="answer", sentence_label="claim")
    contradict_q = texts.fill("rag_contradicts", subject="claim")
    records = []
    for row in rows:
        shared = document_prefix(row["context"], row["question"])
        supported, contradicted = [], []
        for claim in claims(row["answer"]):
            for question, into in ((support_q, supported), (contradict_q, contradicted)):
                readout, _ = await yes_no(judge.calls, shared, question, extra={"claim": claim}, question_first=True)
                into.append(readout.value)
        p = {"support": None, "no_contradiction": None, "mean": None}
        if None not in supported + contradicted:
            p["support"] = min(supported)
            p["no_contradiction"] = 1 - max(contradicted)
            p["mean"] = (p["support"] + p["no_contradiction"]) / 2
        records.append({"id": row["id"], "hallucinated": row["hallucinated"], "p": p})
        say(f"  {len(records)}/{len(rows)} {row['id']} {p}")
    return records


def figures(records: list[dict[str, Any]]) -> dict[str, Any]:
    out = {}
    for key in SCORES:
        right, wrong = right_and_wrong(records, lambda r, key=key: r["p"][key])
        out[key] = separation(right, wrong)
    return out


def main() -> None:
    run_halueval_probe(__doc__.splitlines()[0], "rag-contradiction", probe, figures)


if __name__ == "__main__":
    main()
