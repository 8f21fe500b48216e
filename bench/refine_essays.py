"""What `refine_until_pass` does with a weak essay when the rubric counts named evidence: the rambling essays and the
failing drafts of an essay split, refined in process on the embedded default against a rubric of bench/data/rubrics
(default `short-essay-counted`), at most 2 revisions. Records whether each passed, after how many revisions, the
evidence feedback the writer was given, and the final text, so that what the writer named can be read by hand.

    python -m bench.refine_essays --data bench/data/essay_fresh2.jsonl --split fresh2 --name refine-essays-fresh2
"""

from __future__ import annotations

import argparse
import asyncio
import tomllib
from pathlib import Path
from typing import Any

from bench.common import RESULTS_DIR, Run, looping, most_repeated_in, say
from bench.refine_feedback import writer_deps
from bench.rubric_agreement import ESSAY_RUBRICS, read_rows
from gavel.tools.refine import RefineUntilPassRequest, refine_until_pass
from tests.support.config import DEFAULTS

TASK = "A short argumentative essay answering the essay prompt."


async def probe(
    rows: list[dict[str, Any]], rubric: dict[str, Any], repeat_penalty: float, revise_penalty: float
) -> list[dict[str, Any]]:
    deps = writer_deps(repeat_penalty, revise_penalty)
    records = []
    for row in rows:
        request = RefineUntilPassRequest(
            draft=row["essay"], source=row["prompt"], task=TASK, max_iterations=2, custom_rubric=rubric
        )
        result = await refine_until_pass(request, deps)
        first, final = result.history[0].evaluation, result.final_evaluation
        if first.passed:
            continue  # the draft passes as it stands: nothing to refine
        records.append({
            "id": row["id"], "passed": result.passed, "stop": result.stop_reason,
            "iterations": result.iterations_used, "error": result.error, "first": first.average, "final": final.average,
            "scores": {s.metric: s.score for s in final.scores},
            "feedback0": result.history[0].feedback, "final_text": result.final_text,
            "most_repeated_run": most_repeated_in(h.text for h in result.history),
            "history": [{"iteration": h.iteration, "average": h.evaluation.average,
                         "scores": {s.metric: s.score for s in h.evaluation.scores}, "text": h.text}
                        for h in result.history],
        })  # fmt: skip
        say(f"  {row['id']}: passed {result.passed} after {result.iterations_used}, {first.average} -> {final.average}")
    return records


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", required=True)
    parser.add_argument("--split", required=True)
    parser.add_argument("--rubric", default="short-essay-counted")
    parser.add_argument("--versions", default="rambling,draft")
    parser.add_argument("--name", default="refine-essays")
    parser.add_argument("--repeat-penalty", type=float, default=DEFAULTS.engine_config().generate_repeat_penalty)
    parser.add_argument("--revise-repeat-penalty", type=float, default=DEFAULTS.engine_config().revise_repeat_penalty)
    args = parser.parse_args()
    run = Run(args.name, RESULTS_DIR, smoke=False)
    rubric = tomllib.loads((ESSAY_RUBRICS / f"{args.rubric}.toml").read_text(encoding="utf-8"))
    versions = args.versions.split(",")
    rows = [r for r in read_rows(Path(args.data)) if r["split"] == args.split and r["version"] in versions]
    records = asyncio.run(probe(rows, rubric, args.repeat_penalty, args.revise_repeat_penalty))
    passed = sum(bool(r["passed"]) for r in records)
    loops = looping(records)
    say(f"passed {passed} of {len(records)} that failed as written; a text looping in {loops}")
    payload = {"data": args.data, "split": args.split, "rubric": args.rubric, "repeat_penalty": args.repeat_penalty,
               "revise_repeat_penalty": args.revise_repeat_penalty,
               "passed": passed, "looping": loops, "items": records}  # fmt: skip
    say(f"wrote {run.write(payload)}")


if __name__ == "__main__":
    main()
