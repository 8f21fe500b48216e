"""Does the likelihood of a clinical assessment tell the good version from each broken one? For every version of
every clinical dev case, the nats the transcript adds to the assessment's log-likelihood (after the transcript,
minus after "(no transcript)"), read on the embedded default through the backend's own text scoring in the layout
the likelihood readout uses; then, per split and per broken metric, in how many cases the good version gains more.

    python -m bench.clinical_likelihood          # writes bench/results/clinical-likelihood.json

A probe of the reading, not of the tool: `bench.rubric_agreement clinical` measures the rubric through
`gavel serve`.
"""

from __future__ import annotations

import asyncio
import json
import math
from typing import Any

from bench.common import RESULTS_DIR, Run, say
from bench.rubric_agreement import CLINICAL, read_rows
from gavel.tools.engine import prompts
from gavel.tools.engine.backend import ChatMessage, ChatRequest
from gavel.tools.engine.embedded import EmbeddedBackend

BROKEN = ("specificity", "completeness", "coherence", "accuracy")


async def probe() -> list[dict[str, Any]]:
    backend = EmbeddedBackend(timeout_s=300)
    texts = prompts.prompt_set()
    labels = {"subject": "assessment", "source_label": "transcript"}
    system = ChatMessage("system", texts.fill("likelihood_system", **labels))
    without = ChatMessage("user", texts.fill("likelihood_without", **labels))
    rows = read_rows(CLINICAL)
    records = []
    for row in rows:
        sums = {}
        for name, user in (("after", ChatMessage("user", row["source"])), ("without", without)):
            request = ChatRequest(messages=(system, user), max_tokens=1, top_logprobs=1, score_text=row["assessment"])
            reply = await backend.chat(request)
            assert reply.text_logprobs is not None, "the embedded backend scores a given text"
            sums[name] = math.fsum(reply.text_logprobs)
        records.append({"case": row["case"], "version": row["version"], "split": row["split"],
                        "tokens": len(reply.text_logprobs), "nats": sums["after"] - sums["without"]})  # fmt: skip
        say(f"  {row['case']} {row['version']}: {records[-1]['nats']:+.1f} nats")
    await backend.aclose()
    return records


def figures(records: list[dict[str, Any]]) -> dict[str, Any]:
    nats = {(r["split"], r["case"], r["version"]): r["nats"] for r in records}
    out: dict[str, Any] = {}
    for split in ("tune", "heldout"):
        cases = sorted({case for s, case, _ in nats if s == split})
        out[split] = {
            broken: sum(nats[split, c, "good"] > nats[split, c, broken] for c in cases if (split, c, broken) in nats)
            for broken in BROKEN
        } | {"cases": len(cases)}
    return out


def main() -> None:
    run = Run("clinical-likelihood", RESULTS_DIR, smoke=False)
    records = asyncio.run(probe())
    result = figures(records)
    say(json.dumps(result))
    path = run.write({"figures": result, "items": records})
    say(f"wrote {path}")


if __name__ == "__main__":
    main()
