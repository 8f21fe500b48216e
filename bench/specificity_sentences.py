"""Which sentences does the transcript explain? For the good and the vague (`specificity`) version of every clinical
case, each sentence's nats: the log-probability differences of its tokens after the transcript and after
"(no transcript)", in the layout the likelihood readout uses, told apart by `engine.sentence_gain`. Every sentence
of a vague version is vague by construction, and every sentence of a good version is meant to be concrete, so a
cut on the nats should put the first under it and the second over it. The cut is chosen on the `tune` split; the
`heldout` split and the fresh cases (`bench/data/clinical_fresh.jsonl`) report it.

    python -m bench.specificity_sentences              # writes bench/results/specificity-sentences.json
    python -m bench.specificity_sentences --cut 13     # the figures at a given cut (default: the rubric's)
"""

from __future__ import annotations

import argparse
import asyncio
import json
from typing import Any

from bench.common import RESULTS_DIR, Run, say
from bench.rubric_agreement import CLINICAL
from gavel.tools.engine import prompts
from gavel.tools.engine.backend import ChatMessage, ChatRequest
from gavel.tools.engine.embedded import EmbeddedBackend
from gavel.tools.engine.sentence_gain import sentence_gains
from gavel.tools.rubric_registry import RubricRegistry

FRESH = CLINICAL.with_name("clinical_fresh.jsonl")
SPLITS = ("tune", "heldout", "fresh")


def rubric_cut() -> float:
    checks = RubricRegistry.load().get("clinical-assessment").metric("specificity").checks
    assert checks is not None and checks.sentence_cut is not None
    return checks.sentence_cut


async def probe() -> list[dict[str, Any]]:
    backend = EmbeddedBackend(timeout_s=300, parallel=2)
    texts = prompts.prompt_set()
    labels = {"subject": "assessment", "source_label": "transcript"}
    system = ChatMessage("system", texts.fill("likelihood_system", **labels))
    without = ChatMessage("user", texts.fill("likelihood_without", **labels))
    rows = [
        json.loads(line)
        for path in (CLINICAL, FRESH)
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    records = []
    for row in (r for r in rows if r["version"] in ("good", "specificity")):

        async def read(user: ChatMessage, text: str = row["assessment"]) -> Any:
            request = ChatRequest(messages=(system, user), max_tokens=1, top_logprobs=1, score_text=text)
            return await backend.chat(request)

        after, alone = await asyncio.gather(read(ChatMessage("user", row["source"])), read(without))
        assert after.text_logprobs is not None and alone.text_logprobs is not None
        gains = sentence_gains(row["assessment"], after.text_ends, after.text_logprobs, alone.text_logprobs)
        assert gains is not None, "the embedded backend gives each token's offset"
        for gain in gains:
            records.append({"split": row["split"], "case": row["case"], "version": row["version"],
                            "sentence": gain.sentence, "nats": gain.nats})  # fmt: skip
            say(f"  {row['case']} {row['version']}: {gain.nats:+6.1f}  {gain.sentence[:70]}")
    await backend.aclose()
    return records


def figures(records: list[dict[str, Any]], cut: float) -> dict[str, Any]:
    out: dict[str, Any] = {"cut": cut}
    for split in SPLITS:
        vague = [r["nats"] for r in records if r["split"] == split and r["version"] == "specificity"]
        concrete = [r["nats"] for r in records if r["split"] == split and r["version"] == "good"]
        out[split] = {
            "vague_under_cut": sum(n < cut for n in vague),
            "vague": len(vague),
            "good_at_or_over_cut": sum(n >= cut for n in concrete),
            "good": len(concrete),
        }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cut", type=float, default=None, help="nats (default: clinical-assessment's sentence_cut)")
    args = parser.parse_args()
    run = Run("specificity-sentences", RESULTS_DIR, smoke=False)
    records = asyncio.run(probe())
    result = figures(records, rubric_cut() if args.cut is None else args.cut)
    say(json.dumps(result))
    path = run.write({"figures": result, "items": records})
    say(f"wrote {path}")


if __name__ == "__main__":
    main()
