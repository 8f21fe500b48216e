"""`judge_rag_answer` as a client calls it: through a real `gavel serve` over stdio on the embedded default.

The agreement benchmark (bench/agreement.py) runs Gavel in-process against a metered Ollama-API endpoint with one
llama.cpp slot, so it can count tokens for every judge alike. This one measures what the issue's speed target
names: the shipped server with its default settings (the embedded model, its own slots, GAVEL_MAX_CONCURRENCY 2),
one call per answer, the ledger off so nothing is served from an earlier run.

Per HaluEval dev question the right and the hallucinated answer are judged one after the other; the first of the
two alternates by question, so first answers (passages not yet cached) are of both kinds. Reported: seconds per
call (all, first answers, second answers), and the verdict's balanced accuracy and the accuracy dimension's AUROC
on the same calls.

    python -m bench.rag_serve --skip 50 --pairs 10     # held-out pairs 51-60
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from typing import Any

import anyio
import mcp
from mcp.client.stdio import stdio_client

from bench.common import RESULTS_DIR, Run, gavel_serve, say, table
from gavel.tools.calibration import stats
from tests.support.devset import load_pairs, question_number


async def _judge(client: mcp.Client, row: dict[str, Any]) -> dict[str, Any]:
    arguments = {
        "question": row["question"],
        "answer": row["answer"],
        "sources": [{"content": row["context"]}],
        "evaluation_context": "RAG",
    }
    started = time.perf_counter()
    result = await client.call_tool("judge_rag_answer", arguments, read_timeout_seconds=900)
    seconds = round(time.perf_counter() - started, 3)
    out: dict[str, Any] = {"id": row["id"], "hallucinated": row["hallucinated"], "seconds": seconds}
    if result.is_error or result.structured_content is None:
        out["error"] = " ".join(getattr(b, "text", "") for b in result.content)[:300]
        return out
    content = result.structured_content
    out["verdict"] = content["verdict"]
    out["accuracy"] = content["accuracy"]["score"]
    return out


async def run(skip: int, count: int) -> list[dict[str, Any]]:
    pairs = load_pairs()[skip : skip + count]
    items = []
    with open(os.devnull, "w") as quiet:  # noqa: ASYNC230 - opened once, before the session
        async with mcp.Client(stdio_client(gavel_serve(), errlog=quiet)) as client:
            await _judge(client, load_pairs()[0][0])  # warm-up (a tuning pair, not reported): loads the model
            for index, (right, hallucinated) in enumerate(pairs):
                order = (right, hallucinated) if index % 2 == 0 else (hallucinated, right)
                for position, row in enumerate(order):
                    judged = await _judge(client, row)
                    judged["first"] = position == 0
                    judged["question"] = question_number(row)
                    items.append(judged)
                    say(f"  {judged['id']}: {judged.get('verdict', judged.get('error'))} {judged['seconds']} s")
    return items


def figures(items: list[dict[str, Any]]) -> dict[str, Any]:
    def mean(rows: list[dict[str, Any]]) -> float | None:
        return round(statistics.fmean(r["seconds"] for r in rows), 2) if rows else None

    def predicted(item: dict[str, Any]) -> bool | None:  # hallucinated? None (a wrong prediction): no verdict
        verdict = item.get("verdict", "unscored")
        return None if verdict == "unscored" else verdict != "approved"

    decided = [i for i in items if "verdict" in i]
    outcomes = [(i["hallucinated"], predicted(i)) for i in items]
    scored = [i for i in decided if i["accuracy"] is not None]
    right = [i["accuracy"] for i in scored if not i["hallucinated"]]
    wrong = [i["accuracy"] for i in scored if i["hallucinated"]]
    return {
        "seconds_per_call": mean(items),
        "seconds_first_answer": mean([i for i in items if i["first"]]),
        "seconds_second_answer": mean([i for i in items if not i["first"]]),
        "seconds_first_answer_max": max((i["seconds"] for i in items if i["first"]), default=None),
        "balanced_accuracy": stats.balanced_accuracy(outcomes),
        "auroc": stats.auroc(right, wrong),
        "errors": len(items) - len(decided),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip", type=int, default=50, help="question pairs to skip (default: the tuning pairs 1-50)")
    parser.add_argument("--pairs", type=int, default=10)
    parser.add_argument("--name", default="rag-serve")
    args = parser.parse_args()
    record = Run(args.name, RESULTS_DIR, smoke=False)
    items = anyio.run(run, args.skip, args.pairs)
    summary = figures(items)
    path = record.write({"args": vars(args), "summary": summary, "items": items})
    say(table(["figure", "value"], [[k, v] for k, v in summary.items()]))
    say(f"written {path}")


if __name__ == "__main__":
    main()
