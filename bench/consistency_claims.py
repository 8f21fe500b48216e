"""Does a claim's P(both true) against the rest of the assessment tell a contradicting claim from a true one?

Every claim (engine/sentences.clauses) of the good and the coherence-broken versions of the clinical dev cases is
checked as the `consistent` kind checks it (judge.toml `check_consistent`, the rest of the text as the document),
and once more against a content-free document, to try subtracting the claim's own leaning. A claim is a mistake
when its sentence appears in the coherence version only.

    python -m bench.consistency_claims [tune|heldout]   # writes bench/results/consistency-claims-<split>.json
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any

from bench.common import RESULTS_DIR, Run, say
from bench.rubric_agreement import CLINICAL, read_rows
from gavel.tools.engine import prompts
from gavel.tools.engine.check_items import check_items
from gavel.tools.engine.embedded import EmbeddedBackend
from gavel.tools.engine.judge import Judge
from gavel.tools.engine.one_token import document_prefix, yes_no
from gavel.tools.engine.sentences import split_sentences
from gavel.tools.rubric_checks import Checks
from tests.support.config import engine_config

NEUTRAL = "The patient attended the interview."


def claims(text: str) -> list[tuple[str, str, str]]:
    """(sentence, claim, the rest of the text) for every claim of the text, as the `consistent` kind checks them."""
    items = check_items(Checks(kind="consistent"), text, None)
    return [(item.text, claim.text, claim.document or "") for item in items for claim in item.claims]


def auroc(positive: list[float], negative: list[float]) -> float | None:
    if not positive or not negative:
        return None
    wins = sum((p > n) + 0.5 * (p == n) for p in positive for n in negative)
    return wins / (len(positive) * len(negative))


async def probe(split: str) -> list[dict[str, Any]]:
    rows = read_rows(CLINICAL)
    rows = [r for r in rows if r["split"] == split and r["version"] in ("good", "coherence")]
    good = {r["case"]: set(split_sentences(r["assessment"])) for r in rows if r["version"] == "good"}
    judge = Judge(EmbeddedBackend(timeout_s=300), engine_config(call_deadline_s=86_400))
    instruction = prompts.prompt_set().fill("check_consistent")
    records = []
    for row in rows:
        for sentence, claim, rest in claims(row["assessment"]):
            in_text, _ = await yes_no(judge.calls, document_prefix(rest, None), instruction, extra={"claim": claim})
            neutral, _ = await yes_no(judge.calls, document_prefix(NEUTRAL, None), instruction, extra={"claim": claim})
            mistake = row["version"] == "coherence" and sentence not in good[row["case"]]
            records.append({"case": row["case"], "version": row["version"], "sentence": sentence, "claim": claim,
                            "p_doc": in_text.value, "p_neutral": neutral.value, "mistake": int(mistake)})  # fmt: skip
            say(f"  {len(records)} {row['case']} {row['version']} {claim[:60]}")
    return records


def figures(records: list[dict[str, Any]]) -> dict[str, Any]:
    def split(score: Any) -> float | None:
        return auroc([score(r) for r in records if r["mistake"]], [score(r) for r in records if not r["mistake"]])

    return {
        "claims": len(records),
        "mistakes": sum(r["mistake"] for r in records),
        "auroc_raw": split(lambda r: 1 - r["p_doc"]),
        "auroc_contrast": split(lambda r: r["p_neutral"] - r["p_doc"]),
    }


def main() -> None:
    part = sys.argv[1] if len(sys.argv) > 1 else "tune"
    run = Run(f"consistency-claims-{part}", RESULTS_DIR, smoke=False)
    records = asyncio.run(probe(part))
    say(f"wrote {run.write({'split': part, **figures(records), 'items': records})}")


if __name__ == "__main__":
    main()
