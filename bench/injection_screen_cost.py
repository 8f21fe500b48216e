"""What GAVEL_INJECTION_SCREEN=model adds to a judgment's time on the embedded default: `evaluate_assessment` on the
4 held-out clinical dev cases' five versions (screen on and off for each text, the order alternating so neither side
always finds the text cached), and `judge_rag_answer` on the right answers of dev pairs 61-70, each a question's
first answer, the screen on for every other question. In-process, one backend with the screen's slot for both sides.

    python -m bench.injection_screen_cost   # writes bench/results/injection-screen-cost.json (about 11 minutes)
"""

from __future__ import annotations

import json
import time
from typing import Any

import anyio

from bench.common import REPO_ROOT, probe_and_write, say
from gavel.tools.assessment import EvaluateAssessmentRequest, evaluate_assessment
from gavel.tools.deps import ToolDeps
from gavel.tools.engine.embedded import EmbeddedBackend
from gavel.tools.engine.judge import Judge
from gavel.tools.engine.probes import Probes
from gavel.tools.rag import JudgeRagAnswerRequest, Passage, judge_rag_answer
from tests.support.config import engine_config, input_limits
from tests.support.deps import REGISTRY, ProgressLog
from tests.support.devset import load_pairs

CLINICAL = REPO_ROOT / "bench" / "data" / "clinical_dev.jsonl"
MODES = ("off", "model")


async def probe() -> list[dict[str, Any]]:
    backend = EmbeddedBackend(timeout_s=600, parallel=4, screen_slot=True)
    limiter, probes = anyio.CapacityLimiter(4), Probes()

    def deps(mode: str) -> ToolDeps:
        config = engine_config(max_concurrency=4, timeout_s=600, injection_screen=mode)

        async def judge(**wiring: Any) -> Judge:
            return Judge(backend, config, limiter, probes=probes, **wiring)

        return ToolDeps(registry=REGISTRY, limits=input_limits(), judge_factory=judge, progress=ProgressLog())

    records: list[dict[str, Any]] = []
    rows = [json.loads(line) for line in CLINICAL.read_text().splitlines() if line.strip()]
    for index, row in enumerate(r for r in rows if r["split"] == "heldout"):
        for mode in MODES if index % 2 == 0 else MODES[::-1]:
            started = time.perf_counter()
            request = EvaluateAssessmentRequest(assessment=row["assessment"], source=row["source"],
                                                rubric="clinical-assessment")  # fmt: skip
            result = await evaluate_assessment(request, deps(mode))
            records.append({"tool": "evaluate_assessment", "id": f"{row['case']}/{row['version']}", "screen": mode,
                            "seconds": round(time.perf_counter() - started, 2), "flags": result.flags})  # fmt: skip
            say(f"  {records[-1]}")
    for index, (right, _) in enumerate(load_pairs()[60:70]):
        mode = MODES[index % 2]
        started = time.perf_counter()
        request = JudgeRagAnswerRequest(question=right["question"], answer=right["answer"],
                                        sources=[Passage(content=right["context"])])  # fmt: skip
        judged = await judge_rag_answer(request, deps(mode))
        records.append({"tool": "judge_rag_answer", "id": right["id"], "screen": mode,
                        "seconds": round(time.perf_counter() - started, 2), "flags": judged.flags})  # fmt: skip
        say(f"  {records[-1]}")
    return records


def figures(records: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for tool in ("evaluate_assessment", "judge_rag_answer"):
        for mode in MODES:
            seconds = [r["seconds"] for r in records if r["tool"] == tool and r["screen"] == mode]
            out[f"{tool} screen {mode}"] = {"n": len(seconds), "mean_s": round(sum(seconds) / len(seconds), 2)}
    return out


def main() -> None:
    probe_and_write("injection-screen-cost", probe, figures)


if __name__ == "__main__":
    main()
