"""A code review's "leads with the most serious issues" read point by point rather than sentence by sentence: the
third try at a user's prioritization metric (bench/README.md, "A code review's priorities read in order").

The second try missed where the real bug sat inside one long sentence or a terse last bullet, read no more serious than
the nits around it. Here a review is cut into its points (`engine/leading.py`'s `points`: a list item with its
continuation lines, or a paragraph; a heading or a line ending in a colon joins the point after it; a review of one
paragraph falls back to its sentences), and each point is asked, after the change, the second try's question and its
opposite. Scored as before, a point counts as far as a later one reads more serious (less a tolerance), over the spread
of seriousness or a floor; weighted by the point's count or by its length (the rubric asks where the comment spends its
attention, so a short opening thanks ahead of the bug should cost little and three paragraphs of nits a lot).

    python -m bench.leads_points            # every read code-review case: writes bench/results/leads-points.json
    python -m bench.leads_points --figures  # the grid again from that file, without the model
    python -m bench.leads_points --split fresh8 --name leads-points-fresh8   # a held-out split, read once
"""

from __future__ import annotations

import argparse
import asyncio
import json
from typing import Any

from bench.common import RESULTS_DIR, Run, say
from bench.leads_wordings import readings
from bench.user_rubrics import domain_rows
from gavel.tools.engine import prompts
from gavel.tools.engine.embedded import EmbeddedBackend
from gavel.tools.engine.judge import Judge
from gavel.tools.engine.leading import ahead, points, share_not_ahead
from gavel.tools.engine.one_token import Prefix
from tests.support.config import engine_config

READ = ("dev", "fresh", "fresh2", "fresh3", "fresh4", "fresh6", "fresh7")
SERIOUS = (
    "Does this point of the review comment point out a serious problem in the change, one that makes it wrong, "
    "broken or unsafe?"
)
MINOR = (
    "Is this point of the review comment only a minor point, such as style, naming, wording or an optional suggestion?"
)
FLOORS = [round(0.02 * i, 2) for i in range(13)]
TOLERANCES = [0.0, 0.01, 0.02, 0.03, 0.05]


async def probe(splits: tuple[str, ...]) -> list[dict[str, Any]]:
    judge = Judge(EmbeddedBackend(timeout_s=300), engine_config(call_deadline_s=86_400))
    records = []
    for split, row in domain_rows(splits, "code-review"):
        found = points(row["text"])
        record: dict[str, Any] = {"split": split, "case": row["case"], "version": row["version"], "points": found}
        shared = Prefix({"change": row["source"]}, prompts.fenced("change", row["source"]))
        for way, question in (("serious", SERIOUS), ("minor", MINOR)):
            record[way] = await readings(judge, shared, question, "point", found)
        records.append(record)
        say(f"  {split:7s} {row['case']:36s} {row['version']:16s} {len(found)} points")
    return records


def score(record: dict[str, Any], floor: float, tolerance: float, by_length: bool) -> float:
    seriousness = [(a + 1 - b) / 2 for a, b in zip(record["serious"], record["minor"], strict=True)]
    return 1 + 4 * share_not_ahead(record["points"], ahead(seriousness, floor, tolerance), by_length)


def counts(records: list[dict[str, Any]], floor: float, tolerance: float, by_length: bool) -> dict[str, Any]:
    cases: dict[str, dict[str, dict[str, Any]]] = {}
    for record in records:
        cases.setdefault(record["case"], {})[record["version"]] = record
    good = nits = below = others = 0
    for versions in cases.values():
        s = {v: score(r, floor, tolerance, by_length) for v, r in versions.items()}
        good += s["good"] >= 4
        nits += s["prioritization"] < 4
        below += s["prioritization"] < s["good"]
        others += sum(x >= 4 for v, x in s.items() if v not in ("good", "prioritization"))
    n = len(cases)
    return {"good_at_4": good, "prioritization_under_4": nits, "below_good": below, "other_at_4": others, "cases": n}


def figures(records: list[dict[str, Any]]) -> dict[str, Any]:
    grid = {}
    for by_length in (False, True):
        for floor in FLOORS:
            for tolerance in TOLERANCES:
                key = f"{'length' if by_length else 'count'} floor {floor:.2f} tol {tolerance:.2f}"
                grid[key] = counts(records, floor, tolerance, by_length)
    return grid


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--figures", action="store_true")
    parser.add_argument("--split", action="append")
    parser.add_argument("--name", default="leads-points")
    args = parser.parse_args()
    if args.figures:
        stored = json.loads((RESULTS_DIR / f"{args.name}.json").read_text())
        grid = figures(stored["items"])
    else:
        splits = tuple(args.split) if args.split else READ
        run = Run(args.name, RESULTS_DIR, smoke=False)
        records = asyncio.run(probe(splits))
        grid = figures(records)
        say(f"wrote {run.write({'splits': splits, 'asked': [SERIOUS, MINOR], 'figures': grid, 'items': records})}")
    best = sorted(grid.items(), key=lambda kv: -(kv[1]["good_at_4"] + kv[1]["prioritization_under_4"]))
    for key, row in best[:15]:
        say(f"{key}: {row}")


if __name__ == "__main__":
    main()
