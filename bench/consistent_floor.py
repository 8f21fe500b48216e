"""The floor of `clinical-assessment`'s coherence checks (`consistent`), refitted from readings a clinical run stored.

`bench.rubric_agreement clinical` keeps, for every text, each coherence check's P(mistake) at or above 0.5 (its
`findings`). For a floor of 0.5 or more that is every check that can count, so coherence's expected mistakes,
its score and the text's average can be recomputed at another floor without asking the model again. For each
floor this counts what `bench.rubric_agreement` counts: the cases whose coherence version scores below the good
one on coherence, and the (case, degraded version) pairs whose average is below the good one's, with the smallest
margin of each; and the coherence versions whose coherence stays under the rubric's pass threshold, which
`refine_until_pass` needs to name a contradiction as what to fix.

    python -m bench.consistent_floor bench/results/clinical-tune-likelihood.json   # writes consistent-floor-<stem>.json
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from bench.common import RESULTS_DIR, Run, say, table
from bench.rubric_agreement import METRICS
from gavel.tools.engine.checks import count_anchors, counted, score_from_mistakes
from gavel.tools.rubrics import RubricRegistry

FLOORS = [0.5, 0.55, 0.6, 0.625, 0.65, 0.7, 0.75, 0.8]


def at_floor(items: list[dict[str, Any]], floor: float) -> dict[str, Any]:
    rubric = RubricRegistry.load().get("clinical-assessment")
    points = count_anchors(rubric.metric("coherence").levels)
    assert points is not None
    scored: dict[tuple[str, str], tuple[float, float]] = {}  # (case, version) -> (coherence, average)
    for item in items:
        p_mistakes = [finding["p_mistake"] for finding in item["findings"].get("coherence") or []]
        scores = dict(item["scores"])
        scores["coherence"] = score_from_mistakes(sum(counted(p, floor) for p in p_mistakes), points)
        scored[(item["case"], item["version"])] = (scores["coherence"], sum(scores.values()) / len(scores))
    cases = sorted({case for case, _ in scored})
    pair_margins = [scored[(c, "good")][1] - scored[(c, v)][1] for c in cases for v in METRICS]
    coherence_margins = [scored[(c, "good")][0] - scored[(c, "coherence")][0] for c in cases]
    return {
        "floor": floor,
        "pairs_good_higher": sum(m > 0 for m in pair_margins),
        "pairs": len(pair_margins),
        "smallest_pair_margin": round(min(pair_margins), 4),
        "coherence_version_below": sum(m > 0 for m in coherence_margins),
        "cases": len(cases),
        "smallest_coherence_margin": round(min(coherence_margins), 4),
        "coherence_versions_below_threshold": sum(scored[(c, "coherence")][0] < rubric.pass_threshold for c in cases),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path, help="a bench.rubric_agreement clinical results file")
    args = parser.parse_args()
    items = json.loads(args.results.read_text(encoding="utf-8"))["items"]
    run = Run(f"consistent-floor-{args.results.stem}", RESULTS_DIR, smoke=False)
    grid = [at_floor(items, floor) for floor in FLOORS]
    rows = [
        [g["floor"], f"{g['pairs_good_higher']}/{g['pairs']}", g["smallest_pair_margin"],
         f"{g['coherence_version_below']}/{g['cases']}", g["smallest_coherence_margin"],
         f"{g['coherence_versions_below_threshold']}/{g['cases']}"]
        for g in grid
    ]  # fmt: skip
    headers = ["floor", "good average higher", "smallest margin", "coherence below good", "smallest margin"]
    say(table([*headers, "coherence version under the pass threshold"], rows))
    run.write({"source": args.results.name, "grid": grid})


if __name__ == "__main__":
    main()
