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
from bench.rubric_agreement import METRICS, clinical_figures
from gavel.tools.engine.checks import count_anchors, counted, score_from_mistakes
from gavel.tools.rubric_registry import RubricRegistry

FLOORS = [0.5, 0.55, 0.6, 0.625, 0.65, 0.7, 0.75, 0.8]


def rescored(items: list[dict[str, Any]], floor: float) -> list[dict[str, Any]]:
    """The items with coherence, and the average, recomputed at `floor` from the stored P(mistake)."""
    points = count_anchors(RubricRegistry.load().get("clinical-assessment").metric("coherence").levels)
    assert points is not None
    out = []
    for item in items:
        p_mistakes = [finding["p_mistake"] for finding in item["findings"].get("coherence") or []]
        scores = {
            **item["scores"],
            "coherence": score_from_mistakes(sum(counted(p, floor) for p in p_mistakes), points),
        }
        out.append({**item, "scores": scores, "average": sum(scores.values()) / len(scores)})
    return out


def at_floor(items: list[dict[str, Any]], floor: float) -> dict[str, Any]:
    """What `bench.rubric_agreement` counts at this floor (its `clinical_figures`), with the smallest margins and the
    coherence versions under the pass threshold."""
    threshold = RubricRegistry.load().get("clinical-assessment").pass_threshold
    recounted = rescored(items, floor)
    figures = clinical_figures(recounted)
    by = {(item["case"], item["version"]): item for item in recounted}
    cases = sorted({case for case, _ in by})
    pair_margins = [by[(c, "good")]["average"] - by[(c, v)]["average"] for c in cases for v in METRICS]
    coherence = [by[(c, "coherence")]["scores"]["coherence"] for c in cases]
    coherence_margins = [by[(c, "good")]["scores"]["coherence"] - own for c, own in zip(cases, coherence, strict=True)]
    return {
        "floor": floor,
        "pairs_good_higher": figures["good_average_higher"]["higher"],
        "pairs": figures["good_average_higher"]["pairs"],
        "smallest_pair_margin": round(min(pair_margins), 4),
        "coherence_version_below": figures["per_metric"]["coherence"]["broken_below_good"],
        "cases": figures["per_metric"]["coherence"]["cases"],
        "smallest_coherence_margin": round(min(coherence_margins), 4),
        "coherence_versions_below_threshold": sum(own < threshold for own in coherence),
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
