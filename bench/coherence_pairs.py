"""Does checking a claim against each other claim of the assessment, one pair at a time, tell a contradiction better
than checking it against the whole rest of the text (bench.consistency_claims, AUROC 0.65)?

Every claim (engine/sentences.clauses) of the good and coherence-broken versions of the clinical dev cases is
checked against every other claim of the same text alone, with each candidate question under the fact checker's
system text (`document_prefix`); a claim's P(mistake) is its worst pair's. Each question is also asked once with
the whole text as the document (one prompt prefix for every claim, so cheaper). A claim is a mistake when its
sentence appears in the coherence version only; the figures are the claim-level AUROC and in how many cases the
coherence version's counted mistakes (floor applied) exceed the good one's.

    python -m bench.coherence_pairs [tune|heldout] [--pairs]   # writes bench/results/coherence-pairs-<split>.json
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any

from bench.common import RESULTS_DIR, Run, say
from bench.consistency_claims import auroc
from bench.rubric_agreement import CLINICAL, read_rows
from gavel.tools.engine.checks import counted
from gavel.tools.engine.embedded import EmbeddedBackend
from gavel.tools.engine.judge import Judge
from gavel.tools.engine.one_token import document_prefix, yes_no
from gavel.tools.engine.sentences import clauses, split_sentences
from tests.support.config import engine_config

# (instruction, the answer that is the mistake)
QUESTIONS = {
    "both_true": (
        "Can the claim and the document both be true of the same person at the same time? Answer Yes or No.",
        "no",
    ),
    "contradict": ("Do the claim and the document contradict each other? Answer Yes or No.", "yes"),
}
FLOORS = (0.3, 0.5, 0.6, 0.7)
PAIRS = "--pairs" in sys.argv  # the pairwise reading costs a call per pair: about 40 s per claim on one core


async def _p_mistake(judge: Judge, document: str, claim: str, instruction: str, mistake: str) -> float | None:
    readout, _ = await yes_no(judge.calls, document_prefix(document, None), instruction, extra={"claim": claim})
    if readout.value is None:
        return None
    return readout.value if mistake == "yes" else 1 - readout.value


async def probe(split: str) -> list[dict[str, Any]]:
    rows = read_rows(CLINICAL)
    rows = [r for r in rows if r["split"] == split and r["version"] in ("good", "coherence")]
    good = {r["case"]: set(split_sentences(r["assessment"])) for r in rows if r["version"] == "good"}
    judge = Judge(EmbeddedBackend(timeout_s=300), engine_config(call_deadline_s=86_400))
    records = []
    for row in rows:
        claims = [(s, c) for s in split_sentences(row["assessment"]) for c in clauses(s)]
        for i, (sentence, claim) in enumerate(claims):
            others = [other for j, (_, other) in enumerate(claims) if j != i] if PAIRS else []
            weakest: dict[str, float | None] = {}
            for key, (instruction, mistake) in QUESTIONS.items():
                if PAIRS:
                    pairs = [await _p_mistake(judge, other, claim, instruction, mistake) for other in others]
                    weakest[key] = max((p for p in pairs if p is not None), default=None)
                # The whole text as the document (the claim included): one shared prefix for every claim.
                weakest[f"{key}_whole"] = await _p_mistake(judge, row["assessment"], claim, instruction, mistake)
            mistake_here = row["version"] == "coherence" and sentence not in good[row["case"]]
            records.append({"case": row["case"], "version": row["version"], "claim": claim,
                            "mistake": int(mistake_here), "p_mistake": weakest})  # fmt: skip
            say(f"  {len(records)} {row['case']} {row['version']} {claim[:60]} {weakest}")
    return records


def figures(records: list[dict[str, Any]]) -> dict[str, Any]:
    cases = sorted({r["case"] for r in records})
    out: dict[str, Any] = {}
    keys = [k + suffix for k in QUESTIONS for suffix in (("", "_whole") if PAIRS else ("_whole",))]
    for key in keys:
        bad = [r["p_mistake"][key] for r in records if r["mistake"] and r["p_mistake"][key] is not None]
        ok = [r["p_mistake"][key] for r in records if not r["mistake"] and r["p_mistake"][key] is not None]
        by_floor = {}
        for floor in FLOORS:
            more = 0
            for case in cases:
                chosen = [r for r in records if r["case"] == case]
                total = {
                    v: sum(counted(r["p_mistake"][key] or 0.0, floor) for r in chosen if r["version"] == v)
                    for v in ("good", "coherence")
                }
                more += total["coherence"] > total["good"]
            by_floor[str(floor)] = f"{more}/{len(cases)}"
        out[key] = {"auroc": auroc(bad, ok), "broken_more_mistakes": by_floor}
    return out


def main() -> None:
    split = next((a for a in sys.argv[1:] if not a.startswith("--")), "tune")
    run = Run(f"coherence-pairs-{split}", RESULTS_DIR, smoke=False)
    records = asyncio.run(probe(split))
    result = figures(records)
    for key, value in result.items():
        say(f"{key:12s} {value}")
    path = run.write({"split": split, "questions": QUESTIONS, "figures": result, "items": records})
    say(f"wrote {path}")


if __name__ == "__main__":
    main()
