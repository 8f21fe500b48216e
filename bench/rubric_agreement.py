"""Rubric judgments against people: `evaluate_assessment` through a real `gavel serve` over stdio.

Four labelled sets, each judged as a client would call the tool:

- **clinical** (bench/data/clinical_dev.jsonl): per case a good assessment and four versions, each breaking one
  metric of `clinical-assessment`. Reports, per metric, the share of cases whose broken version scores below the
  good version on that metric, the share of (case, degraded version) pairs whose average is below the good one's,
  and how many good and degraded versions pass.
- **dialogue** (../shared/data/topicalchat_usr_dev.jsonl): each response judged with an inline 1-5 rubric of the
  five USR dimensions (`DIALOGUE_RUBRIC`, no checks: Gavel's default readout); Spearman with the people's means.
- **preferences** (../shared/data/autoj_pairwise_dev.jsonl): each response judged alone with an inline 0-10
  rubric; the higher `overall` is the pick; agreement with the people on the non-tie pairs (ties in the
  judge's scores count as wrong). `--via score_candidates` judges both responses in one `score_candidates` call
  with the request as its `source` instead.
- **essays** (bench/data/essay_dev.jsonl): a user's own rubric (bench/data/rubrics/short-essay.toml, sent
  inline; 1-5, no checks) on 12 essay prompts, each with a good essay and three weaker versions: rambling (no
  thesis, no evidence, repeats itself), unsupported (organized, but bare assertions) and a three-line draft.
  Reports, per weaker version, how often the metrics it breaks score below the good essay's, and how many of each
  version pass.

    python -m bench.rubric_agreement clinical --split heldout
    python -m bench.rubric_agreement dialogue --limit 60
    python -m bench.rubric_agreement preferences --limit 60
    python -m bench.rubric_agreement preferences --limit 10 --via score_candidates
    python -m bench.rubric_agreement essays --split all
    python -m bench.rubric_agreement essays --split fresh --data bench/data/essay_fresh.jsonl --rubric \
        short-essay-counted
    python -m bench.rubric_agreement essays --split fresh2 --data bench/data/essay_fresh2.jsonl --rubric \
        short-essay-counted --name rubric-essays-counted-fresh2
    python -m bench.rubric_agreement dialogue --data other_conversations.jsonl   # another set, the same fields

Writes bench/results/rubric-<set>.json with every item's scores and the machine it ran on.
"""

from __future__ import annotations

import argparse
import json
import os
import time
import tomllib
from pathlib import Path
from typing import Any

import anyio
import mcp
from mcp.client.stdio import stdio_client

from bench.common import RESULTS_DIR, Run, gavel_serve, say, table
from gavel.tools.calibration.stats import bootstrap_ci, spearman

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared" / "data"
CLINICAL = REPO / "bench" / "data" / "clinical_dev.jsonl"
ESSAYS = REPO / "bench" / "data" / "essay_dev.jsonl"
METRICS = ("specificity", "completeness", "coherence", "accuracy")
DIMENSIONS = ("naturalness", "coherence", "engagingness", "groundedness", "overall")

_LEVELS_1_5 = {"1": "very poor", "2": "poor", "3": "fair", "4": "good", "5": "excellent"}
DIALOGUE_RUBRIC: dict[str, Any] = {
    "id": "dialogue-usr",
    "version": "1",
    "title": "Dialogue response quality",
    "description": "Judges the next turn of a chit-chat conversation about a fact.",
    "scale": {"min": 1, "max": 5, "integer": True},
    "pass_threshold": 3,
    "prompt": {"subject": "response", "source_label": "conversation and fact"},
    "metrics": [
        {"id": "naturalness", "name": "Naturalness", "levels": _LEVELS_1_5,
         "description": "Is the response something a person would naturally say?"},
        {"id": "coherence", "name": "Coherence", "levels": _LEVELS_1_5,
         "description": "Does the response follow on from the conversation and keep its context?"},
        {"id": "engagingness", "name": "Engagingness", "levels": _LEVELS_1_5,
         "description": "Is the response interesting, so that the partner wants to go on talking?"},
        {"id": "groundedness", "name": "Groundedness", "levels": _LEVELS_1_5,
         "description": "Does the response use the fact it was given?"},
        {"id": "overall", "name": "Overall", "levels": _LEVELS_1_5,
         "description": "How good is the response as the next turn, overall?"},
    ],
}  # fmt: skip

# The same rubric with each metric read as one yes/no check of the whole response (its description as the
# question; overall worded as a yes/no question), to compare with the default 1-5 digit readout.
_WHOLE_QUESTIONS = {"overall": "Is the response a good next turn for this conversation?"}
DIALOGUE_CHECKS_RUBRIC: dict[str, Any] = {
    **DIALOGUE_RUBRIC,
    "id": "dialogue-usr-checks",
    "metrics": [
        {**m, "checks": {"kind": "whole", "question": _WHOLE_QUESTIONS.get(m["id"], m["description"])}}
        for m in DIALOGUE_RUBRIC["metrics"]
    ],
}

PREFERENCE_RUBRIC: dict[str, Any] = {
    "id": "response-quality",
    "version": "1",
    "title": "Response quality",
    "description": "Judges an assistant's response to a user's request.",
    "scale": {"min": 0, "max": 10},
    "pass_threshold": 6,
    "prompt": {"subject": "response", "source_label": "request"},
    "metrics": [
        {"id": "overall", "name": "Overall quality",
         "description": "Does the response answer the request helpfully, correctly and completely?",
         "levels": {"10": "excellent: helpful, correct and complete", "0": "useless or wrong"}},
    ],
}  # fmt: skip


# A rubric as a user writes one for GAVEL_RUBRICS_DIR (four metrics, anchors at 1, 3 and 5, no checks), sent inline.
ESSAY_RUBRICS = REPO / "bench" / "data" / "rubrics"
ESSAY_RUBRIC: dict[str, Any] = tomllib.loads((ESSAY_RUBRICS / "short-essay.toml").read_text())
# What each weaker version breaks, by design of the set.
ESSAY_BROKEN = {
    "rambling": ("thesis", "evidence", "organization", "clarity"),
    "unsupported": ("evidence",),
    "draft": ("evidence", "organization"),
}


def read_rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


async def _evaluate(client: mcp.Client, arguments: dict[str, Any]) -> tuple[dict[str, Any] | None, float]:
    started = time.perf_counter()
    result = await client.call_tool("evaluate_assessment", arguments, read_timeout_seconds=3600)
    elapsed = time.perf_counter() - started
    if result.is_error:
        say(f"  error: {' '.join(getattr(b, 'text', '') for b in result.content)[:300]}")
        return None, elapsed
    return result.structured_content, elapsed


def _scores(result: dict[str, Any] | None) -> dict[str, float | None]:
    if result is None:
        return {}
    return {s["metric"]: s["score"] for s in result["scores"]}


async def run_clinical(client: mcp.Client, split: str, path: Path = CLINICAL) -> dict[str, Any]:
    rows = [r for r in read_rows(path) if split == "all" or r.get("split", split) == split]
    items = []
    for row in rows:
        result, seconds = await _evaluate(client, {"assessment": row["assessment"], "source": row["source"]})
        scores = _scores(result)
        items.append(
            {
                **{k: row[k] for k in ("case", "version")},
                "scores": scores,
                "seconds": round(seconds, 1),
                "average": result and result["average"],
                "passed": result and result["passed"],
                "findings": {s["metric"]: s.get("findings") for s in (result or {}).get("scores", [])},
            }
        )
        shown = " ".join(f"{m[:4]} {v:.2f}" if v is not None else f"{m[:4]} -" for m, v in scores.items())
        say(f"  {row['case']:22s} {row['version']:12s} {shown}  avg {items[-1]['average']}  {seconds:.1f} s")
    return {"split": split, "items": items, **clinical_figures(items)}


def _below(weak: float | None, good: float | None) -> bool:
    """A weaker version below the good one; an unscored side is no evidence either way."""
    return weak is not None and good is not None and weak < good


def clinical_figures(items: list[dict[str, Any]]) -> dict[str, Any]:
    by = {(i["case"], i["version"]): i for i in items}
    cases = sorted({i["case"] for i in items})
    per_metric = {}
    for metric in METRICS:
        wins = [
            _below(by[(c, metric)]["scores"].get(metric), by[(c, "good")]["scores"].get(metric))
            for c in cases
            if (c, metric) in by and (c, "good") in by
        ]
        per_metric[metric] = {"broken_below_good": sum(wins), "cases": len(wins)}
    pairs = [
        _below(by[(c, m)]["average"], by[(c, "good")]["average"])
        for c in cases
        for m in METRICS
        if (c, m) in by and (c, "good") in by
    ]
    return {
        "per_metric": per_metric,
        "good_average_higher": {"pairs": len(pairs), "higher": sum(pairs)},
        "good_passed": sum(1 for i in items if i["version"] == "good" and i["passed"]),
        "degraded_passed": sum(1 for i in items if i["version"] != "good" and i["passed"]),
        "seconds_per_text": _mean_seconds(items),
    }


def dialogue_source(row: dict[str, Any], layout: str = "conversation-first") -> str:
    """A Topical-Chat row's conversation, one turn a line, and its fact when it has one: what the judge reads.
    `layout`: how a harness might lay it out (the figures were read with conversation-first): `fact-first` puts
    the fact on a line before the "Conversation:" heading, `json` sends the turns as a JSON list and no fact."""
    history = row["dialogue_history"].replace(" \n ", "\n").strip()
    fact = row["knowledge"].strip()
    fact = fact if fact and fact != "_nofact" else ""
    if layout == "fact-first":
        return (f"Fact: {fact}\n" if fact else "") + f"Conversation:\n{history}"
    if layout == "json":
        return json.dumps(history.splitlines())
    return f"Conversation:\n{history}" + (f"\n\nFact: {fact}" if fact else "")


# The first six dev conversations choose questions; the last four are held out from that choice.
DIALOGUE_TUNE_CONVERSATIONS = 6


async def run_dialogue(
    client: mcp.Client,
    limit: int,
    skip: int,
    checks: bool,
    rubric_id: str | None = None,
    path: Path = SHARED / "topicalchat_usr_dev.jsonl",
    integer: bool = True,
    layout: str = "conversation-first",
) -> dict[str, Any]:
    rows = read_rows(path)[skip : skip + limit]
    items = []
    for row in rows:
        source = dialogue_source(row, layout)
        rubric = DIALOGUE_CHECKS_RUBRIC if checks else DIALOGUE_RUBRIC
        if not integer:
            rubric = {**rubric, "scale": {**rubric["scale"], "integer": False}}
        arguments: dict[str, Any] = {"assessment": row["response"].strip(), "source": source}
        arguments |= {"rubric": rubric_id} if rubric_id else {"custom_rubric": rubric}
        result, seconds = await _evaluate(client, arguments)
        items.append({"id": row["id"], "context_id": row["context_id"], "scores": _scores(result),
                      "human": row["human_scores_mean3"], "seconds": round(seconds, 1)})  # fmt: skip
        say(f"  {len(items)}/{len(rows)} {row['id'][:40]:40s} {items[-1]['scores']}  {seconds:.1f} s")
    conversations = list(dict.fromkeys(i["context_id"] for i in items))
    tune = set(conversations[:DIALOGUE_TUNE_CONVERSATIONS])
    parts = {"all": items, "tune": [i for i in items if i["context_id"] in tune]}
    parts["heldout"] = [i for i in items if i["context_id"] not in tune]
    figures = {
        part: {dim: spearman([(i["human"][dim], i["scores"].get(dim)) for i in chosen]) for dim in DIMENSIONS}
        for part, chosen in parts.items()
        if chosen
    }
    return {"items": items, "spearman": figures["all"], "spearman_by_part": figures,
            "tune_conversations": sorted(tune), "seconds_per_item": _mean_seconds(items)}  # fmt: skip


async def _overall_as_candidates(client: mcp.Client, row: dict[str, Any]) -> list[float | None]:
    """Both responses in one score_candidates call with the request as its source. The accept threshold is the
    scale's top so that no pick is accepted and no key points are written: only the two scores are read."""
    arguments = {
        "candidates": [{"id": f"response_{i}", "text": c} for i, c in enumerate(row["candidates"], start=1)],
        "custom_rubric": PREFERENCE_RUBRIC, "source": row["input"], "top_k": 2, "accept_threshold": 10,
    }  # fmt: skip
    result = await client.call_tool("score_candidates", arguments, read_timeout_seconds=3600)
    if result.is_error or result.structured_content is None:
        say(f"  error: {' '.join(getattr(b, 'text', '') for b in result.content)[:300]}")
        return [None, None]
    scores = {e["id"]: e["judge_score"] for e in result.structured_content["ranking"]}
    return [None if scores.get(f"response_{i}") is None else 10 * scores[f"response_{i}"] for i in (1, 2)]


async def _overall_alone(client: mcp.Client, request: str, response: str) -> float | None:
    arguments = {"assessment": response, "source": request, "custom_rubric": PREFERENCE_RUBRIC}
    result, _ = await _evaluate(client, arguments)
    return _scores(result).get("overall")


async def run_preferences(
    client: mcp.Client, limit: int, skip: int, path: Path = SHARED / "autoj_pairwise_dev.jsonl",
    via: str = "evaluate_assessment",
) -> dict[str, Any]:  # fmt: skip
    rows = [r for r in read_rows(path) if r["human_label"] != "tie"][skip : skip + limit]
    items = []
    for row in rows:
        if via == "score_candidates":
            overall = await _overall_as_candidates(client, row)
        else:
            overall = [await _overall_alone(client, row["input"], candidate) for candidate in row["candidates"]]
        pick = (
            None
            if None in overall or overall[0] == overall[1]
            else ("response_1" if overall[0] > overall[1] else "response_2")
        )
        items.append({"id": row["id"], "overall": overall, "human": row["human_label"], "pick": pick})
        say(f"  {len(items)}/{len(rows)} {row['id']:18s} {overall} human {row['human_label']} pick {pick}")
    agree = [i["pick"] == i["human"] for i in items]
    low, high = bootstrap_ci(agree, lambda xs: sum(xs) / len(xs) if xs else None)
    return {"items": items, "agreement": sum(agree) / max(1, len(agree)), "agreement_ci95": [low, high],
            "pairs": len(agree)}  # fmt: skip


async def run_essays(client: mcp.Client, split: str, rubric: str | None = None, path: Path = ESSAYS) -> dict[str, Any]:
    rows = [r for r in read_rows(path) if split == "all" or r["split"] == split]
    inline = tomllib.loads((ESSAY_RUBRICS / f"{rubric}.toml").read_text()) if rubric else ESSAY_RUBRIC
    items = []
    for row in rows:
        arguments = {"assessment": row["essay"], "source": row["prompt"], "custom_rubric": inline}
        result, seconds = await _evaluate(client, arguments)
        items.append({"prompt_id": row["prompt_id"], "version": row["version"], "scores": _scores(result),
                      "checked": _checked(result), "average": result and result["average"],
                      "passed": result and result["passed"], "seconds": round(seconds, 1)})  # fmt: skip
        say(f"  {row['id']:16s} {items[-1]['scores']}  avg {items[-1]['average']}  {seconds:.1f} s")
    return {"split": split, "items": items, **essay_figures(items), "seconds_per_text": _mean_seconds(items)}


def _checked(result: dict[str, Any] | None) -> dict[str, list[Any]]:
    """Checked metrics' [expected mistakes, checks], from which another aggregation of the same checks can be
    recomputed without asking the model again."""
    scores = result["scores"] if result else []
    return {s["metric"]: [s["expected_mistakes"], s["checks"]] for s in scores if s.get("checks") is not None}


def essay_figures(items: list[dict[str, Any]]) -> dict[str, Any]:
    by = {(i["prompt_id"], i["version"]): i for i in items}
    prompts = sorted({i["prompt_id"] for i in items if (i["prompt_id"], "good") in by})
    below: dict[str, dict[str, list[int]]] = {}
    for version, broken in ESSAY_BROKEN.items():
        pairs = [(by[(p, "good")], by[(p, version)]) for p in prompts if (p, version) in by]
        readings = {metric: (lambda i, metric=metric: i["scores"].get(metric)) for metric in broken}
        readings["average"] = lambda i: i["average"]
        below[version] = {
            name: [sum(1 for good, weak in pairs if _below(read(weak), read(good))), len(pairs)]
            for name, read in readings.items()
        }
    passed = {
        version: [sum(1 for i in items if i["version"] == version and i["passed"]),
                  sum(1 for i in items if i["version"] == version)]
        for version in ("good", *ESSAY_BROKEN)
    }  # fmt: skip
    return {"below_good": below, "passed": passed}


def _mean_seconds(items: list[dict[str, Any]]) -> float:
    return round(sum(i["seconds"] for i in items) / max(1, len(items)), 1)


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    with open(os.devnull, "w") as quiet:  # noqa: ASYNC230 - opened once, before the session
        async with mcp.Client(stdio_client(gavel_serve(args.threads), errlog=quiet)) as client:
            data = {"path": Path(args.data)} if args.data else {}
            if args.set == "clinical":
                return await run_clinical(client, args.split, **data)
            if args.set == "dialogue":
                return await run_dialogue(
                    client, args.limit, args.skip, args.checks, args.rubric, integer=not args.real_scale,
                    layout=args.layout, **data,
                )  # fmt: skip
            if args.set == "essays":
                return await run_essays(client, args.split, args.rubric, **data)
            return await run_preferences(client, args.limit, args.skip, via=args.via, **data)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("set", choices=["clinical", "dialogue", "preferences", "essays"])
    parser.add_argument(
        "--split", default="heldout",
        help="the rows whose split field is this (tune, heldout, or a blind set's: fresh, fresh2, ...), or all",
    )  # fmt: skip
    parser.add_argument("--limit", type=int, default=60)
    parser.add_argument("--skip", type=int, default=0)
    parser.add_argument("--threads", default=None, help="pin the server to these cores (taskset -c, e.g. 0 or 0,1)")
    parser.add_argument("--checks", action="store_true", help="dialogue: each metric as one yes/no check")
    parser.add_argument(
        "--rubric",
        help="dialogue: a shipped rubric id instead of the inline one; essays: a rubric of bench/data/rubrics by id "
        "(default short-essay)",
    )
    parser.add_argument("--name", default=None, help="results file name (default rubric-<set>)")
    parser.add_argument(
        "--real-scale", action="store_true", help="dialogue: the inline 1-5 scale without integer = true"
    )
    parser.add_argument("--data", default=None, help="another labelled set with the dev set's fields (a .jsonl file)")
    parser.add_argument(
        "--layout", default="conversation-first", choices=["conversation-first", "fact-first", "json"],
        help="dialogue: how the source is laid out, as different harnesses might",
    )  # fmt: skip
    parser.add_argument(
        "--via", default="evaluate_assessment", choices=["evaluate_assessment", "score_candidates"],
        help="preferences: each response alone, or both in one score_candidates call with the request as source",
    )  # fmt: skip
    args = parser.parse_args()
    if args.set in ("clinical", "essays"):
        path = Path(args.data) if args.data else CLINICAL if args.set == "clinical" else ESSAYS
        splits = {r.get("split", args.split) for r in read_rows(path)} | {"all"}
        if args.split not in splits:
            parser.error(f"--split {args.split}: {path} has the splits {', '.join(sorted(splits))}")
    run = Run(args.name or f"rubric-{args.set}", RESULTS_DIR, smoke=False)
    payload = anyio.run(main_async, args)
    path = run.write({"set": args.set, "args": vars(args), **payload})
    if args.set == "clinical":
        rows = [[m, f"{v['broken_below_good']}/{v['cases']}"] for m, v in payload["per_metric"].items()]
        say(table(["metric", "broken below good"], rows))
        g = payload["good_average_higher"]
        say(f"good average higher in {g['higher']}/{g['pairs']} pairs; good passed {payload['good_passed']}, "
            f"degraded passed {payload['degraded_passed']}; {payload['seconds_per_text']} s per text")  # fmt: skip
    elif args.set == "essays":
        rows = [[v, m, f"{n}/{of}"] for v, ms in payload["below_good"].items() for m, (n, of) in ms.items()]
        say(table(["version", "metric", "below the good essay"], rows))
        say("passed: " + ", ".join(f"{v} {n}/{of}" for v, (n, of) in payload["passed"].items()))
    elif args.set == "dialogue":
        say(table(["dimension", "Spearman"], [[d, v] for d, v in payload["spearman"].items()]))
    else:
        say(f"agreement {payload['agreement']:.2f} {payload['agreement_ci95']} on {payload['pairs']} pairs")
    say(f"written {path}")


if __name__ == "__main__":
    main()
