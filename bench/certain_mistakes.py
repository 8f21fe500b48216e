"""A certain mistake against its share: a user-rubrics run of code where a certain mistake costs a faithfulness metric
an anchor, read twice, as run and as the share reading before it. No model. The code was ed83361 (a quantity the
source never states; reverted after `fresh17` and `fresh18`), and is now 05629b2 (a fact the source contradicts,
engine/contradicted.py and engine/certain.py; held out on `fresh20`).

A faithfulness metric with no mistake counts in its anchors is the share of sentences supported placed on the scale;
the anchor places it at most one anchor lower for each certain mistake. Everything else in a judgment is the same
calls read the same way, so the share score is what the metric's own expected mistakes and checks give
(bench/user_rubrics.py records both), and `passed` follows from it. On a run of code without the anchor both
readings are the same. A sentence the code reads as contradicted by an owner is P 0 in both, where code without that
reading asked the model, so the recomputed share can only be lower than that code's. With `--before`, "before" is
another run instead (code whose reading differs asks the model about other sentences, so nothing can be recomputed).

    python -m bench.certain_mistakes user-rubrics-fresh17   # reads results/<name>.json, writes <name>-certain.json
    python -m bench.certain_mistakes user-rubrics-fresh18 --before user-rubrics-fresh18-before
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from bench.common import RESULTS_DIR, Run, say
from bench.quantities_audit import faithfulness_metric, user_rubric
from bench.user_rubrics import selected_rows
from gavel.tools.rubrics import Rubric


def before(item: dict[str, Any], rubric: Rubric) -> dict[str, Any]:
    """The item as the share reading scored it: its faithfulness score and `passed`."""
    metric = faithfulness_metric(rubric.id)
    scores = dict(item["scores"])
    if metric is None or metric not in item.get("counted", {}):
        return {"scores": scores, "passed": item["passed"]}
    expected, checks = item["counted"][metric]
    scores[metric] = rubric.scale.from_share(1 - expected / checks)
    passed = item["passed"]
    if passed is not None:
        passed = all(s is not None and s >= rubric.pass_threshold for s in scores.values())
    return {"scores": scores, "passed": passed}


def figures(
    items: list[dict[str, Any]], rubric_of: dict[str, str], run_before: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    """The rules' figures (bench/data/README.md, `fresh17` to `fresh21`), as shipped and before: `run_before`'s
    items where given, else `items` read as the share reading did."""
    if run_before is None:
        run_before = [{**item, **before(item, user_rubric(rubric_of[item["case"]]))} for item in items]
    out: dict[str, Any] = {}
    for when, run in (("shipped", items), ("before", run_before)):
        read = {(i["case"], i["version"]): (i, user_rubric(rubric_of[i["case"]])) for i in run}
        good = {case: read[(case, v)] for case, v in read if v == "good"}
        faithful = {case: read[(case, v)] for case, v in read if v == "faithfulness"}
        under = below = 0
        for case, (item, rubric) in faithful.items():
            score, good_score = item["scores"]["faithfulness"], good[case][0]["scores"]["faithfulness"]
            under += score is not None and score < rubric.pass_threshold
            below += score is not None and good_score is not None and score < good_score
        out[when] = {
            "faithfulness_versions_under_threshold": [under, len(faithful)],
            "faithfulness_below_good": [below, len(faithful)],
            "good_passed": [sum(bool(i["passed"]) for i, _ in good.values()), len(good)],
            "broken_passed": [
                sum(bool(i["passed"]) for (_, v), (i, _) in read.items() if v != "good"),
                len(read) - len(good),
            ],
            "faithfulness_scores": {f"{c}/{v}": i["scores"].get("faithfulness") for (c, v), (i, _) in read.items()},
        }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("name", help="a bench/results/<name>.json written by bench.user_rubrics")
    parser.add_argument("--before", default=None, help="another run of the same set, by the code before")
    args = parser.parse_args()
    result = json.loads((RESULTS_DIR / f"{args.name}.json").read_text(encoding="utf-8"))
    run_before = None
    if args.before:
        run_before = json.loads((RESULTS_DIR / f"{args.before}.json").read_text(encoding="utf-8"))["items"]
    rows = selected_rows(result["args"]["split"], result["args"]["domain"], result["args"]["cases"], None)
    rubric_of = {row["case"]: row["rubric"] for row in rows}
    payload = figures(result["items"], rubric_of, run_before)
    for when, numbers in payload.items():
        say(f"{when}: " + ", ".join(f"{k} {v[0]}/{v[1]}" for k, v in numbers.items() if isinstance(v, list)))
    sources = {"from": f"{args.name}.json", "before_from": f"{args.before}.json" if args.before else "recomputed"}
    path = Run(f"{args.name}-certain", RESULTS_DIR, smoke=False).write({**sources, **payload})
    say(f"wrote {path}")


if __name__ == "__main__":
    main()
