"""Every paragraph's P(None) for `short-essay-checked`'s evidence metric (the `named` check kind), read on the
shipped code path (`Judge.score_metrics`, as `evaluate_assessment` reads it), so that any counting rule can be
recomputed from one reading without asking the model again.

    python -m bench.essay_paragraphs tune
    python -m bench.essay_paragraphs fresh2 --data bench/data/essay_fresh2.jsonl [--system s1]

writes bench/results/essays-named-paragraphs-<split>.json, or essays-named-s1-paragraphs-<split>.json with
`--system s1`: `named_system` without its last sentence ("You answer with a name taken from the text, or with
None."), the variant probed in bench/README.md, "Essays: a second blind set, and the named system text without its
last sentence". Each item's `score` is the share rule's evidence score; `p_none` lists the paragraphs' readings,
highest first.
"""

from __future__ import annotations

import argparse
import asyncio
import time
import tomllib
from pathlib import Path
from typing import Any

from bench.common import RESULTS_DIR, Run, say
from bench.rubric_agreement import ESSAY_RUBRICS, ESSAYS, read_rows
from gavel.tools.engine import prompts
from gavel.tools.engine.embedded import EmbeddedBackend
from gavel.tools.engine.judge import Judge
from gavel.tools.rubric_registry import parse_rubric
from tests.support.config import engine_config

RUBRIC = ESSAY_RUBRICS / "short-essay-checked.toml"
SHIPPED_LAST = " You answer with a name taken from the text, or with None."


def _use_system(variant: str) -> None:
    if variant == "shipped":
        return
    text = prompts.prompt_set().text
    assert isinstance(text, dict) and text["named_system"].endswith(SHIPPED_LAST)
    text["named_system"] = text["named_system"].removesuffix(SHIPPED_LAST)


async def read(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    rubric = parse_rubric(tomllib.loads(RUBRIC.read_text(encoding="utf-8")), origin=str(RUBRIC))
    evidence = [m for m in rubric.metrics if m.id == "evidence"]
    judge = Judge(EmbeddedBackend(timeout_s=600), engine_config(call_deadline_s=86_400))
    items = []
    for row in rows:
        started = time.perf_counter()
        judgment = await judge.score_metrics(
            rubric=rubric, metrics=evidence, subject=row["essay"], source=row["prompt"]
        )
        score = judgment.scores[0]
        p_none = [round(f.p_mistake, 4) for f in score.findings or [] if f.p_mistake is not None]
        items.append({"id": row["id"], "score": score.score, "checks": score.checks, "p_none": p_none})
        say(f"  {row['id']:16s} {score.score}  {p_none}  {time.perf_counter() - started:.1f} s")
    return items


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("split")
    parser.add_argument("--data", default=str(ESSAYS))
    parser.add_argument("--system", default="shipped", choices=["shipped", "s1"])
    args = parser.parse_args()
    name = "essays-named-paragraphs" if args.system == "shipped" else "essays-named-s1-paragraphs"
    run = Run(f"{name}-{args.split}", RESULTS_DIR, smoke=False)
    _use_system(args.system)
    # Every paragraph becomes a finding, so that its reading is reported whatever it is.
    prompts.finding_cut = lambda kind, default: 0.0  # type: ignore[assignment]
    rows = [r for r in read_rows(Path(args.data)) if r["split"] == args.split]
    items = asyncio.run(read(rows))
    what = "per paragraph P(None) of short-essay-checked's evidence metric, read on the shipped code path"
    path = run.write({"what": what, "system": args.system, "data": args.data, "split": args.split, "items": items})
    say(f"wrote {path}")


if __name__ == "__main__":
    main()
