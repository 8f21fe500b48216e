"""The floors of `clinical-assessment`'s checks, fitted on the clinical dev cases: every check's P(mistake) for
every text of a split, read through the engine's own `check_claim` in the layout the product uses
(`checks.question_first`), then a grid over the floors of judge.toml `[check_floor]`.

    python -m bench.check_floors [tune|heldout] [--threads N]   # writes bench/results/check-floors-<split>.json

For each floor setting the grid counts, over the split's cases, the metrics whose broken version scores below the
good one and the (case, degraded version) pairs whose average is below the good one's, both as
`bench.rubric_agreement clinical` counts them, and how many good versions pass. A probe for choosing floors on the
tuning cases, not a measurement of the tool: `bench.rubric_agreement clinical --split heldout` measures that.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
from typing import Any

from bench.common import RESULTS_DIR, Run, say
from bench.rubric_agreement import CLINICAL, METRICS, read_rows
from gavel.tools.engine import prompts
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
from gavel.tools.rubric_registry import RubricRegistry
from tests.support.config import engine_config

GRID = [round(0.05 * i, 2) for i in range(19)]  # 0.0 .. 0.9
COARSE = [round(0.1 * i, 1) for i in range(3, 10)]  # 0.3 .. 0.9, for the consistent checks' floor


def _rubric() -> Any:
    return RubricRegistry.load().get("clinical-assessment")


async def probe(split: str, threads: int | None) -> list[dict[str, Any]]:
    rubric = _rubric()
    rows = read_rows(CLINICAL)
    rows = [r for r in rows if r["split"] == split]
    judge = Judge(EmbeddedBackend(timeout_s=300, threads=threads), engine_config(call_deadline_s=86_400))
    records = []
    for row in rows:
        text, source = row["assessment"], row["source"]
        per_metric: dict[str, list[float]] = {}
        for metric in rubric.metrics:
            checks = metric.checks
            assert checks is not None
            stated = quantities(source)
            p_items = []
            for item in check_items(checks, text, source):
                if checks.kind == "supported" and unstated(item.text, stated):
                    p_items.append(1.0)  # the quantities rule: no model call, a certain mistake
                    continue
                worst = 0.0
                for claim in item.claims:
                    readout, _ = await check_claim(judge.calls, rubric, checks, claim, source, {}, None, "probe")
                    assert readout.value is not None, readout.reason
                    worst = max(worst, p_mistake(checks, readout))
                p_items.append(round(worst, 4))
            per_metric[metric.id] = p_items
        records.append({"case": row["case"], "version": row["version"], "p_mistake": per_metric})
        say(f"  {row['case']:20s} {row['version']:12s} " + " ".join(f"{k[:4]} {len(v)}" for k, v in per_metric.items()))
    return records


def scores(record: dict[str, Any], floors: dict[str, float], kinds: dict[str, str], points: Any) -> dict[str, float]:
    return {
        m: score_from_mistakes(sum(counted(p, floors[kinds[m]]) for p in ps), points)
        for m, ps in record["p_mistake"].items()
    }


def grade(
    records: list[dict[str, Any]], floors: dict[str, float], kinds: dict[str, str], points: Any
) -> dict[str, Any]:
    by = {(r["case"], r["version"]): scores(r, floors, kinds, points) for r in records}
    cases = sorted({r["case"] for r in records})
    metric_wins = {m: sum(by[(c, m)][m] < by[(c, "good")][m] for c in cases) for m in METRICS}
    average = {k: sum(v.values()) / len(v) for k, v in by.items()}
    pairs = sum(average[(c, "good")] > average[(c, m)] for c in cases for m in METRICS)
    good_pass = sum(all(s >= 4 for s in by[(c, "good")].values()) for c in cases)
    degraded_pass = sum(all(s >= 4 for s in by[(c, m)].values()) for c in cases for m in METRICS)
    return {"metric_wins": metric_wins, "average_wins": pairs, "good_pass": good_pass, "degraded_pass": degraded_pass,
            "cases": len(cases)}  # fmt: skip


def search(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    rubric = _rubric()
    kinds = {m.id: m.checks.kind for m in rubric.metrics if m.checks is not None}
    points = count_anchors(rubric.metrics[0].levels)
    ranked = []
    for supported, covered, sentence, consistent in itertools.product(GRID, GRID, GRID, COARSE):
        floors = {"supported": supported, "covered": covered, "sentence": sentence, "consistent": consistent}
        graded = grade(records, floors, kinds, points)
        total = sum(graded["metric_wins"].values()) + graded["average_wins"]
        ranked.append({"floors": floors, "total": total, **graded})
    ranked.sort(key=lambda r: (-r["total"], -r["good_pass"], r["degraded_pass"]))
    return ranked


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("split", nargs="?", default="tune", choices=["tune", "heldout"])
    parser.add_argument("--threads", type=int, default=None)
    args = parser.parse_args()
    run = Run(f"check-floors-{args.split}", RESULTS_DIR, smoke=False)
    records = asyncio.run(probe(args.split, args.threads))
    ranked = search(records)
    current = {k: prompts.check_floor(k) for k in ("supported", "covered", "consistent", "sentence")}
    rubric = _rubric()
    kinds = {m.id: m.checks.kind for m in rubric.metrics if m.checks is not None}
    at_current = grade(records, current, kinds, count_anchors(rubric.metrics[0].levels))
    say(f"current floors {current}: {at_current}")
    for row in ranked[:10]:
        say(f"  {row['floors']} total {row['total']} {row['metric_wins']} avg {row['average_wins']} "
            f"good pass {row['good_pass']} degraded pass {row['degraded_pass']}")  # fmt: skip
    path = run.write({"split": args.split, "current": {"floors": current, **at_current}, "best": ranked[:25],
                      "items": records})  # fmt: skip
    say(f"wrote {path}")


if __name__ == "__main__":
    main()
