"""Does feedback that quotes the vague sentences help a rewrite? `refine_until_pass` (in process, the embedded
default, at most 2 revisions, the demo's task) on the vague (`specificity`) version of each clinical dev case of a
split: whether it passed, after how many revisions, and the final text and scores. Run once on a commit and once on
the commit before the change (a checkout of it first on PYTHONPATH) to compare.

    python -m bench.refine_feedback --split tune --name refine-feedback-tune-new
"""

from __future__ import annotations

import argparse
import asyncio
import json
from typing import Any

from bench.common import RESULTS_DIR, Run, say
from bench.rubric_agreement import CLINICAL
from gavel.tools.engine.embedded import EmbeddedBackend
from gavel.tools.refine import RefineUntilPassRequest, refine_until_pass
from tests.support.deps import make_deps

TASK = "A qualitative assessment of the patient's depression symptoms per PHQ-8, from this interview."


async def probe(split: str) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in CLINICAL.read_text(encoding="utf-8").splitlines() if line.strip()]
    deps = make_deps(EmbeddedBackend(timeout_s=300, parallel=2), timeout_s=300, concurrency=2)
    records = []
    for row in (r for r in rows if r["split"] == split and r["version"] == "specificity"):
        request = RefineUntilPassRequest(
            draft=row["assessment"], source=row["source"], task=TASK, max_iterations=2, rubric="clinical-assessment"
        )
        result = await refine_until_pass(request, deps)
        final = result.final_evaluation
        records.append({
            "case": row["case"], "passed": result.passed, "stop": result.stop_reason,
            "iterations": result.iterations_used, "first": result.history[0].evaluation.average,
            "final": final.average, "scores": {s.metric: s.score for s in final.scores},
            "feedback0": result.history[0].feedback, "final_text": result.final_text,
        })  # fmt: skip
        say(f"  {row['case']}: passed {result.passed} after {result.iterations_used}, average {final.average}")
    return records


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=("tune", "heldout"), default="tune")
    parser.add_argument("--name", default="refine-feedback")
    args = parser.parse_args()
    run = Run(args.name, RESULTS_DIR, smoke=False)
    records = asyncio.run(probe(args.split))
    passed = sum(bool(r["passed"]) for r in records)
    say(f"passed {passed} of {len(records)}")
    say(f"wrote {run.write({'split': args.split, 'passed': passed, 'items': records})}")


if __name__ == "__main__":
    main()
