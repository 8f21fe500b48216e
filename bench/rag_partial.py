"""Does a complete answer outrank one that answers only part of the question? Each question of
`bench/data/rag_partial_dev.jsonl` (invented by the team: two or three parts, one passage) has a complete answer and
a partial one, both faithful and cited; the partial one is often as long, its words spent on a detail the question
did not ask for. Both are judged in one `judge_rag_answers` batch on the embedded default, their order alternating
by question. Reports, per split, how often the complete answer ranks first and how often its completeness score is
the higher.

    python -m bench.rag_partial                      # writes bench/results/rag-partial.json
    python -m bench.rag_partial --name rag-partial-question --split tune
    python -m bench.rag_partial --name rag-partial-fresh --split fresh
    python -m bench.rag_partial --name rag-partial-yesno --yes-no      # the questions that open with a yes/no part
    python -m bench.rag_partial --data bench/data/rag_three_fresh.jsonl --split three1 --name rag-three-three1

A set whose lines also carry a `wrong` answer (every part answered, one asked-for fact wrong) judges the three in one
batch: is the complete answer first of three, and is the wrong one ever ranked above it or named best?

On a question that opens with a yes/no part, completeness is the lower of the own-answer check and the part's
reading (tools/rag/yes_no_part.py). The figures also give the ranking with the own-answer check alone, recomputed
from the same run: its P(yes) is in the explanation, and the overall is the rubric-weighted mean of the dimensions.
"""

from __future__ import annotations

import argparse
import json
import re
import time
from pathlib import Path
from typing import Any

from bench.common import REPO_ROOT, probe_and_write, say
from gavel.tools.engine.embedded import EmbeddedBackend
from gavel.tools.rag import AgentAnswer, JudgeRagAnswersRequest, Passage, judge_rag_answers
from gavel.tools.rag.orchestration import VERDICT_RANK, ranking
from gavel.tools.rag.yes_no_part import opens_with_yes_no
from gavel.tools.rubric_registry import builtin_rubric_dir, load_rubric_file
from tests.support.deps import make_deps

DATA = REPO_ROOT / "bench" / "data" / "rag_partial_dev.jsonl"
KINDS = ("complete", "partial")


def questions(path: Path = DATA) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def kinds_of(row: dict[str, Any], index: int) -> list[str]:
    """The row's answers in the order the batch gets them, rotated by question so no kind always comes first."""
    kinds = [*KINDS, "wrong"] if "wrong" in row else list(KINDS)
    shift = index % len(kinds)
    return kinds[shift:] + kinds[:shift]


async def probe(split: str, yes_no: bool = False, path: Path = DATA) -> list[dict[str, Any]]:
    rows = [row for row in questions(path) if split in ("all", row["split"])]
    rows = [row for row in rows if opens_with_yes_no(row["question"])] if yes_no else rows
    # As `gavel serve` builds the embedded backend: one generation slot per concurrent call.
    deps, records = make_deps(EmbeddedBackend(timeout_s=300, parallel=4), timeout_s=300), []
    for index, row in enumerate(rows):
        kinds = kinds_of(row, index)
        request = JudgeRagAnswersRequest(
            question=row["question"],
            answers=[AgentAnswer(agent_name=kind, answer=row[kind]) for kind in kinds],
            sources=[Passage(id="p1", content=row["passage"])],
        )
        started = time.perf_counter()
        batch = await judge_rag_answers(request, deps)
        seconds = round(time.perf_counter() - started, 2)
        for rank, result in enumerate(batch.results, 1):
            records.append({
                "id": row["id"], "split": row["split"], "kind": result.agent_name, "rank": rank,
                "verdict": result.verdict, "overall": result.overall_score, "best": batch.best == result.agent_name,
                "completeness": result.completeness.score, "seconds": seconds,
                # It quotes the judge's own answer, which can change with the prompt cache's state (bench/README.md).
                "completeness_explanation": result.completeness.explanation,
                "dimensions": {m.metric: m.score for m in result.dimensions()},
            })  # fmt: skip
        first = records[-len(kinds)]
        say(f"  {row['id']} {row['split']:7s} first: {first['kind']:8s} "
            + " ".join(f"{r['kind']} {r['completeness']} / {r['overall']}" for r in records[-len(kinds):]))  # fmt: skip
    return records


def figures(records: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    weights = {m.id: m.weight for m in load_rubric_file(builtin_rubric_dir() / "rag-answer.toml").metrics}
    for split in sorted({r["split"] for r in records}):
        by_id: dict[str, dict[str, dict[str, Any]]] = {}
        for r in records:
            if r["split"] == split:
                by_id.setdefault(r["id"], {})[r["kind"]] = r
        pairs = list(by_id.values())
        scored = [p for p in pairs if all(p[k]["completeness"] is not None for k in KINDS)]
        out[split] = {
            "questions": len(pairs),
            "complete_ranked_first": sum(p["complete"]["rank"] == 1 for p in pairs),
            "complete_first_own_answer_check_alone": sum(_first_without_part(p, weights) for p in pairs),
            "complete_first_by_overall_alone": sum(_first_by_overall(p) for p in pairs),
            "completeness_higher": sum(p["complete"]["completeness"] > p["partial"]["completeness"] for p in scored),
            "completeness_scored": len(scored),
            "partial_verdicts": sorted(p["partial"]["verdict"] for p in pairs),
            "complete_verdicts": sorted(p["complete"]["verdict"] for p in pairs),
        }
        wrong = [p for p in pairs if "wrong" in p]
        if wrong:
            out[split] |= {
                "wrong_above_complete": sum(p["wrong"]["rank"] < p["complete"]["rank"] for p in wrong),
                "wrong_named_best": sum(bool(p["wrong"].get("best")) for p in wrong),
                "partial_above_complete": sum(p["partial"]["rank"] < p["complete"]["rank"] for p in wrong),
                "wrong_verdicts": sorted(p["wrong"]["verdict"] for p in wrong),
            }
    return out


_OWN = re.compile(r"^P\(yes\) ([0-9.]+) that the answer states everything")


def _first_by_overall(answers: dict[str, dict[str, Any]]) -> bool:
    """Would the complete answer rank first by verdict and then the overall alone (`rag-answer` 1.5.0's ranking,
    before completeness was added to it)?"""
    if any(r["overall"] is None for r in answers.values()):
        return bool(answers["complete"]["rank"] == 1)  # an unscored dimension: the rank stands

    def key(record: dict[str, Any]) -> tuple[int, int, float]:
        return ranking(record["verdict"], record["overall"], None)

    return all(key(answers["complete"]) < key(r) for kind, r in answers.items() if kind != "complete")


def _first_without_part(pair: dict[str, dict[str, Any]], weights: dict[str, float]) -> bool:
    """Would the complete answer rank first with completeness from the own-answer check alone? The verdict, which
    completeness does not enter, ranks first (as in tools/rag/orchestration.py), then the overall."""

    def overall(record: dict[str, Any]) -> float | None:
        found = _OWN.match(record["completeness_explanation"] or "")
        dims = dict(record["dimensions"], completeness=float(found.group(1)) if found else record["completeness"])
        if any(v is None for v in dims.values()):
            return None
        return sum(weights[k] * v for k, v in dims.items()) / sum(weights[k] for k in dims)

    verdicts = [VERDICT_RANK.get(pair[kind]["verdict"], 3) for kind in KINDS]
    if verdicts[0] != verdicts[1]:
        return verdicts[0] < verdicts[1]
    complete, partial = overall(pair["complete"]), overall(pair["partial"])
    if complete is None or partial is None:
        return bool(pair["complete"]["rank"] == 1)  # an unscored dimension: no overall to recompute, the rank stands
    return complete > partial


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA, help="a JSONL file of questions in this set's fields")
    data = parser.parse_known_args()[0].data
    parser.add_argument("--name", default="rag-partial")
    # The splits the data file has: each set written later got one of its own.
    parser.add_argument("--split", default="all", choices=("all", *sorted({row["split"] for row in questions(data)})))
    parser.add_argument("--yes-no", action="store_true", help="only the questions that open with a yes/no part")
    args = parser.parse_args()
    probe_and_write(args.name, lambda: probe(args.split, args.yes_no, args.data), figures)


if __name__ == "__main__":
    main()
