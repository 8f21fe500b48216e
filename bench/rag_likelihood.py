"""Does the likelihood of an answer tell a grounded one from a hallucinated one? For each HaluEval dev answer, the
nats the passage adds to the answer's log-likelihood (after the passage and the question, minus after the question
alone), read on the embedded default through the backend's own text scoring; joined with the shipped grounding
check's P(supported) from `rag-layout-<skip>.json` (question first). Reports AUROC and balanced accuracy at the best
cut of each.

    python -m bench.rag_likelihood [--skip 0] [--pairs 50]   # writes bench/results/rag-likelihood-<skip>.json
"""

from __future__ import annotations

import json
import math
from typing import Any

from bench.common import RESULTS_DIR, run_halueval_probe, say
from bench.rag_layout import right_and_wrong, separation
from gavel.tools.engine.backend import ChatMessage, ChatRequest
from gavel.tools.engine.embedded import EmbeddedBackend
from tests.support.devset import load_pairs

SYSTEM = "Answer the question."


async def probe(skip: int, pairs: int) -> list[dict[str, Any]]:
    backend = EmbeddedBackend(timeout_s=300)
    support = {
        item["id"]: item["p"]["question_first"]
        for item in json.loads((RESULTS_DIR / f"rag-layout-{skip}.json").read_text())["items"]
    }
    records = []
    for pair in load_pairs()[skip : skip + pairs]:
        for row in pair:
            sums = {}
            readings = {
                "after": f"Document:\n{row['context']}\n\nQuestion: {row['question']}",
                "without": f"Question: {row['question']}",
            }
            for name, user in readings.items():
                messages = (ChatMessage("system", SYSTEM), ChatMessage("user", user))
                request = ChatRequest(messages=messages, max_tokens=1, top_logprobs=1, score_text=row["answer"])
                reply = await backend.chat(request)
                assert reply.text_logprobs is not None
                sums[name] = math.fsum(reply.text_logprobs)
            records.append({"id": row["id"], "hallucinated": row["hallucinated"], "tokens": len(reply.text_logprobs),
                            "nats": sums["after"] - sums["without"], "after": sums["after"],
                            "support": support.get(row["id"])})  # fmt: skip
        say(f"  {len(records)}/{2 * pairs}")
    await backend.aclose()
    return records


def figures(records: list[dict[str, Any]]) -> dict[str, Any]:
    out = {}
    for key in ("nats", "after", "support"):
        right, wrong = right_and_wrong(records, lambda r, key=key: r[key])
        out[key] = separation(right, wrong)
    return out


def main() -> None:
    run_halueval_probe(__doc__.splitlines()[0], "rag-likelihood", probe, figures)


if __name__ == "__main__":
    main()
