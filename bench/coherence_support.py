"""Coherence unless supported: does a `consistent` check count fewer true sentences as contradictions when a
sentence the transcript supports is not counted? For every clinical text (the dev cases and the fresh ones), each
sentence's P(mistake) from the coherence check (the least P(both true) of its claims against what comes before)
and from the accuracy check (the least P(supported) of its claims against the transcript; 1 for a quantity the
transcript never states), read through the engine's own `check_claim`. Then four ways to combine them, each over
a grid of floors: the coherence P alone (the shipped rule before `unless_supported`), their product, the lesser of
the two, and their geometric mean. Coherence and accuracy are scored from these readings, specificity and
completeness are taken from the last served run of each split (their checks do not change), and each rule is
graded as `bench.rubric_agreement clinical` grades a run. The rule is chosen on `tune`; `heldout` and `fresh`
report it.

    python -m bench.coherence_support                 # reads the model, writes bench/results/coherence-support.json
    python -m bench.coherence_support --records FILE  # grades the records of an earlier run again
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.common import RESULTS_DIR, Run, say
from bench.rubric_agreement import CLINICAL, METRICS, read_rows
from gavel.tools.engine.check_items import check_items
from gavel.tools.engine.checks import (
    check_claim,
    count_anchors,
    counted,
    p_mistake,
    score_from_mistakes,
)
from gavel.tools.engine.embedded import EmbeddedBackend
from gavel.tools.engine.judge import Judge
from gavel.tools.engine.quantities import quantities, unstated
from gavel.tools.rubric_checks import Checks
from gavel.tools.rubric_registry import RubricRegistry
from tests.support.config import engine_config

FRESH = CLINICAL.with_name("clinical_fresh.jsonl")
# The served runs whose specificity and completeness scores stand beside the recomputed coherence and accuracy.
SERVED = {
    "tune": "clinical-tune-likelihood.json",
    "heldout": "clinical-heldout-serve-xeon-repack.json",
    "fresh": "rubric-clinical-fresh.json",
}
RULES: dict[str, Callable[[float, float], float]] = {
    "coherence alone": lambda coherent, unsupported: coherent,
    "product": lambda coherent, unsupported: coherent * unsupported,
    "lesser": min,
    "geometric mean": lambda coherent, unsupported: math.sqrt(coherent * unsupported),
}
FLOORS = [round(0.05 * i, 2) for i in range(4, 13)]  # 0.2 .. 0.6
ACCURACY_FLOOR = 0.5


async def probe() -> list[dict[str, Any]]:
    rubric = RubricRegistry.load().get("clinical-assessment")
    # The consistency check as it was asked before `unless_supported`: the bench combines the readings itself.
    kinds = {"coherence": Checks(kind="consistent"), "accuracy": Checks(kind="supported")}
    rows = [row for path in (CLINICAL, FRESH) for row in read_rows(path)]
    judge = Judge(EmbeddedBackend(timeout_s=300), engine_config(call_deadline_s=86_400))
    records = []
    for row in rows:
        text, source = row["assessment"], row["source"]
        stated = quantities(source)
        record: dict[str, Any] = {"case": row["case"], "version": row["version"], "split": row["split"]}
        for metric_id, checks in kinds.items():
            items = []
            for item in check_items(checks, text, source):
                claims = []
                for claim in item.claims:
                    readout, _ = await check_claim(judge.calls, rubric, checks, claim, source, {}, None, "probe")
                    assert readout.value is not None, readout.reason
                    claims.append([claim.text, round(p_mistake(checks, readout), 4)])
                quantity = checks.kind == "supported" and bool(unstated(item.text, stated))
                items.append({"text": item.text, "quantity": quantity, "claims": claims})
            record[metric_id] = items
        records.append(record)
        say(f"  {row['split']:8s} {row['case']:20s} {row['version']}")
    return records


def _unsupported(record: dict[str, Any]) -> dict[str, float]:
    """Each sentence's P(mistake) as the accuracy metric counts it."""
    return {item["text"]: 1.0 if item["quantity"] else max(p for _, p in item["claims"]) for item in record["accuracy"]}


def coherence_readings(record: dict[str, Any], rule: Callable[[float, float], float]) -> list[float]:
    unsupported = _unsupported(record)
    return [rule(max(p for _, p in item["claims"]), unsupported[item["text"]]) for item in record["coherence"]]


def grade(records: list[dict[str, Any]], split: str, rule: str, floor: float) -> dict[str, Any]:
    points = count_anchors(RubricRegistry.load().get("clinical-assessment").metric("coherence").levels)
    assert points is not None
    items = json.loads((RESULTS_DIR / SERVED[split]).read_text())["items"]
    served = {(i["case"], i["version"]): i["scores"] for i in items}
    by = {}
    for record in (r for r in records if r["split"] == split):
        scores = dict(served[(record["case"], record["version"])])
        readings = coherence_readings(record, RULES[rule])
        scores["coherence"] = score_from_mistakes(sum(counted(p, floor) for p in readings), points)
        accuracy = _unsupported(record).values()
        scores["accuracy"] = score_from_mistakes(sum(counted(p, ACCURACY_FLOOR) for p in accuracy), points)
        by[(record["case"], record["version"])] = scores
    cases = sorted({case for case, _ in by})
    average = {key: sum(s.values()) / len(s) for key, s in by.items()}
    return {
        "broken_below_good": {m: sum(by[(c, m)][m] < by[(c, "good")][m] for c in cases) for m in METRICS},
        "good_average_higher": sum(average[(c, "good")] > average[(c, m)] for c in cases for m in METRICS),
        "good_passed": sum(all(s >= 4 for s in by[(c, "good")].values()) for c in cases),
        "degraded_passed": sum(all(s >= 4 for s in by[(c, m)].values()) for c in cases for m in METRICS),
        "coherence_good_and_broken": {
            c: [round(by[(c, "good")]["coherence"], 2), round(by[(c, "coherence")]["coherence"], 2)] for c in cases
        },
        "cases": len(cases),
    }


def table(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    rows = []
    for rule in RULES:
        for floor in [0.5] if rule == "coherence alone" else FLOORS:
            row: dict[str, Any] = {"rule": rule, "floor": floor}
            line = f"{rule:15s} {floor:.2f}"
            for split in SERVED:
                graded = grade(records, split, rule, floor)
                row[split] = graded
                n = graded["cases"]
                line += (f" | {split} coherence {graded['broken_below_good']['coherence']}/{n}"
                         f" avg {graded['good_average_higher']}/{4 * n} good pass {graded['good_passed']}/{n}"
                         f" degraded pass {graded['degraded_passed']}/{4 * n}")  # fmt: skip
            say(line)
            rows.append(row)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", default=None, help="grade the records of an earlier run instead of reading")
    args = parser.parse_args()
    run = Run("coherence-support", RESULTS_DIR, smoke=False)
    if args.records:
        records = json.loads(Path(args.records).read_text(encoding="utf-8"))["records"]
    else:
        records = asyncio.run(probe())
    path = run.write({"accuracy_floor": ACCURACY_FLOOR, "table": table(records), "records": records})
    say(f"wrote {path}")


if __name__ == "__main__":
    main()
