"""Whether a `repeated` check's P(yes) says more than the model's leaning to say Yes of that sentence: each sentence
of a text asked whether what the text says before it already states it (the shipped check), and the same sentence
asked against an empty document ("(nothing)"), for the good and concision versions of the support replies already
read (`user_rubrics_{dev,fresh,fresh2,fresh3,fresh4}.jsonl`) and the good and rambling essays of the tuning prompts
(`essay_dev.jsonl`). On the embedded default.

    python -m bench.repeated_baseline   # writes bench/results/repeated-baseline.json as it goes
    python -m bench.repeated_baseline --split fresh5 --split fresh9 --no-essays --name repeated-baseline-fresh5-9
    python -m bench.repeated_baseline --domain summary --every-version --no-essays --name repeated-baseline-summaries

A probe, not the tool (bench/README.md, "Repetition against an empty document").
"""

from __future__ import annotations

import argparse
import asyncio
import json
from pathlib import Path
from typing import Any

from bench.common import RESULTS_DIR, say
from bench.user_rubrics import DATA, domain_rows
from gavel.tools.engine.check_items import Claim, check_items
from gavel.tools.engine.checks import check_claim
from gavel.tools.engine.embedded import EmbeddedBackend
from gavel.tools.engine.judge import Judge
from gavel.tools.rubric_checks import Checks
from gavel.tools.rubric_registry import load_rubric_file
from tests.support.config import engine_config

CHECKS = Checks(kind="repeated")
EMPTY = "(nothing)"
SPLITS = ("dev", "fresh", "fresh2", "fresh3", "fresh4")


# The rubric whose labels a text's checks are asked with (no source is shown); essays take the support reply's, as
# they always have.
ESSAY_RUBRIC = "user-support-reply"
Text = tuple[str, str, str, str, str, str]  # domain, split, case, version, text, rubric id


def texts(
    splits: tuple[str, ...] = SPLITS, essays: bool = True, domain: str = "support-reply", every_version: bool = False
) -> list[Text]:
    found = [
        (domain, split, row["case"], row["version"], row["text"], row["rubric"])
        for split, row in domain_rows(splits, domain)
        if every_version or row["version"] in ("good", "concision")
    ]
    if not essays:
        return found
    for line in (DATA / "essay_dev.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        if row["version"] in ("good", "rambling") and row["split"] == "tune":
            found.append(("essay", row["split"], str(row["prompt_id"]), row["version"], row["essay"], ESSAY_RUBRIC))
    return found


async def probe(out: Path, chosen: list[Text]) -> None:
    judge = Judge(EmbeddedBackend(timeout_s=300), engine_config(call_deadline_s=86_400))
    rubrics = {name: load_rubric_file(DATA / "rubrics" / f"{name}.toml") for name in {t[5] for t in chosen}}
    records: list[dict[str, Any]] = []
    for domain, split, case, version, text, rubric_id in chosen:
        rubric = rubrics[rubric_id]
        against_before, against_nothing = [], []
        for item in check_items(CHECKS, text, None):
            claim = item.claims[0]
            before, _ = await check_claim(judge.calls, rubric, CHECKS, claim, None, {}, None, "before")
            nothing, _ = await check_claim(judge.calls, rubric, CHECKS, Claim(claim.text, EMPTY), None, {}, None, "-")
            assert before.value is not None and nothing.value is not None
            against_before.append(round(before.value, 3))
            against_nothing.append(round(nothing.value, 3))
        records.append({"domain": domain, "split": split, "case": case, "version": version,
                        "before": against_before, "nothing": against_nothing})  # fmt: skip
        out.write_text(json.dumps(records, indent=1), encoding="utf-8")  # noqa: ASYNC240 - a probe, nothing else runs
        say(f"  {domain} {split} {case} {version} {len(against_before)} checks")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--split", action="append", help=f"a support-reply split (default: {', '.join(SPLITS)})")
    parser.add_argument("--no-essays", action="store_true", help="leave out the tuning essays")
    parser.add_argument("--domain", default="support-reply", help="the split files' domain: support-reply or summary")
    parser.add_argument("--every-version", action="store_true", help="every version, not just good and concision")
    parser.add_argument("--name", default="repeated-baseline")
    args = parser.parse_args()
    chosen = texts(tuple(args.split or SPLITS), not args.no_essays, args.domain, args.every_version)
    asyncio.run(probe(RESULTS_DIR / f"{args.name}.json", chosen))


if __name__ == "__main__":
    main()
