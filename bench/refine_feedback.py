"""Does feedback that quotes the vague sentences help a rewrite? `refine_until_pass` (in process, the embedded
default, at most 2 revisions, the demo's task) on the vague (`specificity`) version of each clinical dev case of a
split: whether it passed, after how many revisions, and the final text and scores. Then the demo's step 2b on the
final text: `judge_rag_answer` with the demo's question and the transcript as the passage, so a rewrite that passes
with a clause the transcript does not state shows as unsupported claims. Run once on a commit and once on the
commit before the change (a checkout of it first on PYTHONPATH), or once per writer setting, to compare. With
`--from-task` there is no draft: the writer writes the first version from the task, where a writer loops if it will.

    python -m bench.refine_feedback --split tune --name refine-feedback-tune-new [--repeat-penalty 1.05] [--from-task]
"""

from __future__ import annotations

import argparse
import asyncio
import tomllib
from typing import Any

from bench.common import RESULTS_DIR, Run, looping, most_repeated_in, say
from bench.rubric_agreement import CLINICAL, read_rows
from gavel.server.cli.demo import DATA_FILE
from gavel.tools.deps import ToolDeps
from gavel.tools.engine.embedded import EmbeddedBackend
from gavel.tools.rag.orchestration import judge_rag_answer
from gavel.tools.rag.requests import JudgeRagAnswerRequest
from gavel.tools.refine import RefineUntilPassRequest, refine_until_pass
from tests.support.config import DEFAULTS
from tests.support.deps import make_deps

CLINICAL_FRESH = CLINICAL.with_name("clinical_fresh.jsonl")
# The demo's writing task and step 2b's question, from the demo's own inputs.
DEMO = tomllib.loads(DATA_FILE.read_text(encoding="utf-8"))["evaluate"]
TASK, QUESTION = DEMO["task"], DEMO["question"]


def writer_deps(repeat_penalty: float, revise_penalty: float) -> ToolDeps:
    """The embedded default in process, two slots, with the writer's two repeat penalties as given."""
    return make_deps(
        EmbeddedBackend(timeout_s=300, parallel=2),
        timeout_s=300,
        concurrency=2,
        generate_repeat_penalty=repeat_penalty,
        revise_repeat_penalty=revise_penalty,
    )


async def probe(split: str, repeat_penalty: float, revise_penalty: float, from_task: bool) -> list[dict[str, Any]]:
    rows = read_rows(CLINICAL_FRESH if split == "fresh" else CLINICAL)
    deps = writer_deps(repeat_penalty, revise_penalty)
    records = []
    for row in (r for r in rows if r["split"] == split and r["version"] == "specificity"):
        request = RefineUntilPassRequest(
            draft=None if from_task else row["assessment"],
            source=row["source"],
            task=TASK,
            max_iterations=2,
            rubric="clinical-assessment",
        )
        result = await refine_until_pass(request, deps)
        final = result.final_evaluation
        sources = [{"content": row["source"]}]
        check = await judge_rag_answer(
            JudgeRagAnswerRequest(question=QUESTION, answer=result.final_text, sources=sources), deps
        )
        records.append({
            "case": row["case"], "passed": result.passed, "stop": result.stop_reason,
            "iterations": result.iterations_used, "first": result.history[0].evaluation.average,
            "final": final.average, "scores": {s.metric: s.score for s in final.scores},
            "error": result.error, "feedback0": result.history[0].feedback, "first_text": result.history[0].text,
            "final_text": result.final_text,
            "most_repeated_run": most_repeated_in(h.text for h in result.history),
            "grounding": check.verdict, "unsupported": list(check.unsupported_claims),
        })  # fmt: skip
        say(f"  {row['case']}: passed {result.passed} after {result.iterations_used}, average {final.average}; "
            f"step 2b {check.verdict}, unsupported {records[-1]['unsupported']}")  # fmt: skip
    return records


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=("tune", "heldout", "fresh"), default="tune",
                        help="fresh: the four cases written blind (bench/data/clinical_fresh.jsonl)")  # fmt: skip
    parser.add_argument("--name", default="refine-feedback")
    parser.add_argument("--from-task", action="store_true", help="no draft: the writer writes the first version")
    parser.add_argument("--repeat-penalty", type=float, default=DEFAULTS.engine_config().generate_repeat_penalty)
    parser.add_argument("--revise-repeat-penalty", type=float, default=DEFAULTS.engine_config().revise_repeat_penalty)
    args = parser.parse_args()
    run = Run(args.name, RESULTS_DIR, smoke=False)
    records = asyncio.run(probe(args.split, args.repeat_penalty, args.revise_repeat_penalty, args.from_task))
    passed = sum(bool(r["passed"]) for r in records)
    supported = sum(not r["unsupported"] for r in records)
    loops = looping(records)
    say(f"passed {passed} of {len(records)}; final text fully supported in {supported}; a text looping in {loops}")
    payload = {"split": args.split, "from_task": args.from_task, "repeat_penalty": args.repeat_penalty,
               "revise_repeat_penalty": args.revise_repeat_penalty,
               "passed": passed, "fully_supported": supported, "looping": loops, "items": records}  # fmt: skip
    say(f"wrote {run.write(payload)}")


if __name__ == "__main__":
    main()
