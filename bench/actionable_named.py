"""A code review's actionability read point by point as a which-question: a probe (bench/README.md, "A code
review's actionability").

Asked yes/no whether a sentence is specific, the small model says Yes of nearly everything; asked to *name* the
evidence a paragraph gives, it answers None where there is none (engine/evidence_named.py). Here each point of a
review (`leading.points`) is asked which change it asks the author to make, in a few wordings, read as 1 - P(the
reply starts "None") (`one_token.named`); `--figures` recomputes the readings per text from the stored points.

    python -m bench.actionable_named                     # good and actionability versions of every read split
    python -m bench.actionable_named --versions others --name actionable-named-others
    python -m bench.actionable_named --figures
"""

from __future__ import annotations

import argparse
import functools
import json
import statistics
from pathlib import Path
from typing import Any

from bench.common import probe_main, say, versus_good
from bench.user_rubrics import domain_rows
from gavel.tools.engine import one_token, prompts
from gavel.tools.engine.embedded import EmbeddedBackend
from gavel.tools.engine.judge import Judge
from gavel.tools.engine.leading import points
from gavel.tools.engine.sentences import sentences_outside_code
from tests.support.config import engine_config

READ = ("dev", "fresh", "fresh2", "fresh3", "fresh4", "fresh6", "fresh7", "fresh8", "fresh9")
METRIC = "actionability"
# Each wording, and whether it is asked of the review's points (`leading.points`) or of its sentences.
WORDINGS = {
    "change": ("Which exact change to the code does this review point ask the author to make?", "points"),
    "fix": ("Which concrete fix does this review point give, and where in the code does it apply?", "points"),
    "edit": ("Which edit to the code does this sentence tell the author to make?", "sentences"),
    "where": ("Which line, function or variable of the code does this sentence point to?", "sentences"),
}


async def probe(
    splits: tuple[str, ...], versions: str, wordings: tuple[str, ...], engine_labels: bool, partial: Path
) -> list[dict[str, Any]]:
    judge = Judge(EmbeddedBackend(timeout_s=300), engine_config(call_deadline_s=86_400))
    texts = prompts.prompt_set()
    records: list[dict[str, Any]] = []
    for split, row in domain_rows(splits, "code-review"):
        wanted = row["version"] in ("good", METRIC)
        if (versions == "actionable") != wanted:
            continue
        units = {"points": points(row["text"]), "sentences": sentences_outside_code(row["text"])}
        read: dict[str, list[float | None]] = {}
        for name, (question, unit) in WORDINGS.items():
            if name not in wordings:
                continue
            instruction = texts.fill("check_named", question=question)
            # The block's label as the engine's named checks give it (`checks.per`), with --label engine.
            label = unit.removesuffix("s") if engine_labels else "review point"
            read[name] = []
            for point in units[unit]:
                readout, _ = await one_token.named(
                    judge.calls, instruction, label, point, model=None, step="actionable"
                )
                read[name].append(readout.value)
        records.append({"split": split, "case": row["case"], "version": row["version"], **units, "read": read})
        partial.write_text(json.dumps(records), encoding="utf-8")  # noqa: ASYNC240 (a probe, one call at a time)
        shown = {n: [round(p, 2) for p in v if p is not None] for n, v in read.items()}
        say(f"  {split:7s} {row['case'][:30]:30s} {row['version'][:14]:14s} {shown}")
    return records


def _share(record: dict[str, Any], wording: str, enough: float | None) -> float:
    named = [p for p in record["read"][wording] if p is not None]
    if enough is None:
        return statistics.fmean(named)
    return min(1.0, sum(named) / (enough * len(named)))


def figures(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Per wording and reading (the mean over the asked units; their worth named against `enough` of them): in how
    many cases the actionability version reads below the good one, and both sides."""
    out: dict[str, Any] = {}
    for wording in sorted({w for r in records for w in r["read"]}):
        for enough in (None, 0.5, 0.6, 0.75):
            out[f"{wording}/{enough}"] = versus_good(
                records, METRIC, functools.partial(_share, wording=wording, enough=enough)
            )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--split", action="append", help="a split to read (default: every read one)")
    parser.add_argument("--versions", choices=("actionable", "others"), default="actionable")
    parser.add_argument("--wording", action="append", choices=tuple(WORDINGS), help="default: every wording")
    parser.add_argument(
        "--label",
        choices=("review-point", "engine"),
        default="review-point",
        help="the asked block's label: 'review point' (the first runs) or the engine's own",
    )
    parser.add_argument("--name", default="actionable-named")
    parser.add_argument("--figures", action="store_true", help="recompute from the stored file, no model")
    args = parser.parse_args()
    splits = tuple(args.split or READ)
    wordings = tuple(args.wording or WORDINGS)
    read = functools.partial(probe, splits, args.versions, wordings, args.label == "engine")
    about = {"splits": list(splits), "versions": args.versions, "label": args.label}
    probe_main(args.name, args.figures, figures, read, about)


if __name__ == "__main__":
    main()
