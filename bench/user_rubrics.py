"""A user's own rubrics through `gavel serve` over stdio on the configured default: does a rubric nobody tuned for
tell a good text from one that breaks one of its metrics?

Four domains (support replies, code-review comments, article summaries, status emails), each with a rubric as a user
writes one (bench/data/rubrics/user-<domain>.toml: four 1-5 metrics with anchors at 1, 3 and 5, no checks), sent
inline as `custom_rubric`. Each case is a good text and one version per metric that breaks only that metric
(bench/data/user_rubrics_<split>.jsonl, written by a helper that never read the engine, the prompts or the
shipped rubrics). The figures are the clinical set's: each broken metric below the good version's, the good average
above each broken version's, and how many pass.

    python -m bench.user_rubrics --split dev
    python -m bench.user_rubrics --split fresh --name user-rubrics-fresh
    python -m bench.user_rubrics --split dev,fresh --cases code-review-pagination,code-review-debounce --name x
"""

from __future__ import annotations

import argparse
import os
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import mcp
from mcp.client.stdio import stdio_client

from bench.common import RESULTS_DIR, Run, gavel_serve, say, table
from bench.rubric_agreement import _below, _evaluate, _mean_seconds, _scores, read_rows

REPO = Path(__file__).resolve().parent.parent
DATA = REPO / "bench" / "data"


def domain_rows(splits: tuple[str, ...], domain: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """Each case version of one domain in the splits' files, with its split: what the wording probes read."""
    for split in splits:
        for row in read_rows(DATA / f"user_rubrics_{split}.jsonl"):
            if row["domain"] == domain:
                yield split, row


def _rubric(rubric_id: str, directory: Path) -> dict[str, Any]:
    return tomllib.loads((directory / f"{rubric_id}.toml").read_text(encoding="utf-8"))


def _counted(result: dict[str, Any] | None) -> dict[str, list[float]]:
    """Per metric read as checks, [expected mistakes, checks]: what its score was placed from, so a reading of the
    same calls another way can be recomputed (bench/certain_mistakes.py)."""
    scores = result["scores"] if result else []
    return {
        s["metric"]: [s["expected_mistakes"], s["checks"]] for s in scores if s.get("expected_mistakes") is not None
    }


async def run(client: mcp.Client, rows: list[dict[str, Any]], rubrics: Path) -> list[dict[str, Any]]:
    items = []
    for row in rows:
        inline = _rubric(row["rubric"], rubrics)
        arguments = {"assessment": row["text"], "source": row["source"], "custom_rubric": inline}
        result, seconds = await _evaluate(client, arguments)
        items.append({
            **{k: row[k] for k in ("case", "domain", "version")},
            "scores": _scores(result), "average": result and result["average"], "passed": result and result["passed"],
            "counted": _counted(result), "seconds": round(seconds, 1),
        })  # fmt: skip
        shown = " ".join(f"{m[:5]} {v:.2f}" if v is not None else f"{m[:5]} -" for m, v in items[-1]["scores"].items())
        say(f"  {row['case']:26s} {row['version']:14s} {shown}  avg {items[-1]['average']}  {seconds:.1f} s")
    return items


def figures(items: list[dict[str, Any]]) -> dict[str, Any]:
    """Per domain and metric, whether the version breaking it reads below the good one on that metric; the good
    average above each broken version's; what passes."""
    by = {(i["case"], i["version"]): i for i in items}
    good = {i["case"]: i for i in items if i["version"] == "good"}
    per_metric: dict[str, list[int]] = {}
    pairs = []
    for item in items:
        if item["version"] == "good" or item["case"] not in good:
            continue
        key = f"{item['domain']}.{item['version']}"
        wins = per_metric.setdefault(key, [0, 0])
        wins[0] += _below(item["scores"].get(item["version"]), good[item["case"]]["scores"].get(item["version"]))
        wins[1] += 1
        pairs.append(_below(item["average"], good[item["case"]]["average"]))
    return {
        "per_metric": per_metric,
        "broken_below_good": [sum(w for w, _ in per_metric.values()), sum(n for _, n in per_metric.values())],
        "metrics_met_85": [sum(1 for w, n in per_metric.values() if w >= 0.85 * n), len(per_metric)],
        "good_average_higher": [sum(pairs), len(pairs)],
        "good_passed": [sum(1 for i in good.values() if i["passed"]), len(good)],
        "degraded_passed": [sum(1 for i in items if i["version"] != "good" and i["passed"]), len(items) - len(good)],
        "cases": len({c for c, _ in by}),
        "seconds_per_text": _mean_seconds(items),
    }


def selected_rows(splits: str, domain: str | None, cases: str | None, limit: int | None) -> list[dict[str, Any]]:
    """The rows of the comma-separated splits' files, of one domain and the comma-separated cases where given."""
    names = set(cases.split(",")) if cases else None
    rows = [
        row
        for split in splits.split(",")
        for row in read_rows(DATA / f"user_rubrics_{split}.jsonl")
        if domain in (None, row["domain"]) and (names is None or row["case"] in names)
    ]
    return rows[:limit]


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    rows = selected_rows(args.split, args.domain, args.cases, args.limit)
    with open(os.devnull, "w") as quiet:  # noqa: ASYNC230 - opened once, before the session
        async with mcp.Client(stdio_client(gavel_serve(args.threads), errlog=quiet)) as client:
            items = await run(client, rows, Path(args.rubrics))
    return {"split": args.split, "items": items, **figures(items)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--split", default="dev", help="bench/data/user_rubrics_<split>.jsonl (several: a,b)")
    parser.add_argument("--cases", default=None, help="only these cases (comma-separated names)")
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--domain", default=None, help="only this domain's cases (code-review, summary, ...)")
    parser.add_argument("--rubrics", default=str(DATA / "rubrics"), help="where the user-<domain>.toml files are")
    parser.add_argument("--threads", default=None, help="pin the server to these cores (taskset -c, e.g. 0 or 0,1)")
    parser.add_argument("--name", default=None, help="results file name (default user-rubrics-<split>)")
    args = parser.parse_args()
    run_record = Run(args.name or f"user-rubrics-{args.split}", RESULTS_DIR, smoke=False)
    payload = anyio.run(main_async, args)
    path = run_record.write({"args": vars(args), **payload})
    say(table(["domain.metric", "broken below good"], [[k, f"{w}/{n}"] for k, (w, n) in payload["per_metric"].items()]))
    keys = ("broken_below_good", "metrics_met_85", "good_average_higher", "good_passed", "degraded_passed")
    shown = {key: "/".join(map(str, payload[key])) for key in keys}
    say(f"broken below good {shown['broken_below_good']}; metrics at 85 %: {shown['metrics_met_85']}; good average "
        f"higher {shown['good_average_higher']}; good passed {shown['good_passed']}, degraded passed "
        f"{shown['degraded_passed']}; {payload['seconds_per_text']} s a text")  # fmt: skip
    say(f"written {path}")


if __name__ == "__main__":
    main()
