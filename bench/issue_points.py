"""A code review's issue accuracy read point by point against the change: a probe (bench/README.md, "A code
review's issue accuracy read point by point").

As the digit the issue-accuracy metric of `user-code-review` reads a review that claims bugs the diff does not have
within hundredths of the good one, and read as `supported` checks (a fact checker's "is the claim supported by the
document?") good reviews read as low as broken ones: no line of a diff states that a bug is real. Here each point of
the review (`leading.points`: list items, paragraphs, outside fenced code) is asked, after the change, whether what
it says is true of the code, in a few wordings; each point's P(yes) is stored, and the readings per text are
computed from them (`--figures`).

    python -m bench.issue_points                   # good and issue-accuracy versions of every read split
    python -m bench.issue_points --versions others --name issue-points-others
    python -m bench.issue_points --figures         # the readings again from the stored files, without the model
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
from tests.support.config import engine_config

READ = ("dev", "fresh", "fresh2", "fresh3", "fresh4", "fresh6", "fresh7", "fresh8", "fresh9")
METRIC = "issue_accuracy"
# Each wording with whether a Yes means the point is right (True) or wrong (False).
WORDINGS = {
    "true": ("Is what the following review point says about this change true of its code?", True),
    "real": ("Does the change's code really have the problem the following review point describes?", True),
    "misread": (
        "Does the following review point misread the change's code, or claim a problem the code does not have?",
        False,
    ),
}


async def probe(splits: tuple[str, ...], versions: str, partial: Path) -> list[dict[str, Any]]:
    judge = Judge(EmbeddedBackend(timeout_s=300), engine_config(call_deadline_s=86_400))
    records: list[dict[str, Any]] = []
    for split, row in domain_rows(splits, "code-review"):
        wanted = row["version"] in ("good", METRIC)
        if (versions == "issue") != wanted:
            continue
        shared = one_token.Prefix({"change": row["source"]}, prompts.fenced("Change", row["source"]))
        said = points(row["text"])
        read: dict[str, list[float | None]] = {}
        for name, (question, _yes_is_right) in WORDINGS.items():
            read[name] = []
            for point in said:
                readout, _usage = await one_token.yes_no(
                    judge.calls, shared, question, extra={"Review point": point}, question_first=True
                )
                read[name].append(readout.value)
        records.append({"split": split, "case": row["case"], "version": row["version"], "points": said, "read": read})
        partial.write_text(json.dumps(records), encoding="utf-8")  # noqa: ASYNC240 (a probe, one call at a time)
        lows = {n: round(min(_rightness(records[-1], n)), 3) for n in WORDINGS}
        say(f"  {split:7s} {row['case'][:34]:34s} {row['version']:16s} {lows}")
    return records


def _rightness(record: dict[str, Any], wording: str) -> list[float]:
    """Each point's probability of being right under one wording (a negated wording's P(yes) turned round)."""
    yes_is_right = WORDINGS[wording][1]
    return [p if yes_is_right else 1 - p for p in record["read"][wording] if p is not None]


def _lengths(record: dict[str, Any]) -> list[int]:
    return [len(p) for p in record["points"]]


READINGS = {
    "min": lambda r, w: min(_rightness(r, w)),
    "mean": lambda r, w: statistics.fmean(_rightness(r, w)),
    "by_length": lambda r, w: sum(p * n for p, n in zip(_rightness(r, w), _lengths(r), strict=True)) / sum(_lengths(r)),
}


def _reading(record: dict[str, Any], wording: str, reading: str) -> float:
    """One text's reading: a wording's points summed one way, or the first two wordings averaged ("true+real")."""
    summed = READINGS[reading]
    if wording == "true+real":
        return (summed(record, "true") + summed(record, "real")) / 2
    return float(summed(record, wording))


def figures(records: list[dict[str, Any]]) -> dict[str, Any]:
    """For each wording and way of summing a text's points: in how many cases the issue-accuracy version reads
    below the good one, and the two versions' readings side by side."""
    return {
        f"{wording}/{reading}": versus_good(
            records, METRIC, functools.partial(_reading, wording=wording, reading=reading)
        )
        for wording in [*WORDINGS, "true+real"]
        for reading in READINGS
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--split", action="append", help="a split to read (default: every read one)")
    parser.add_argument("--versions", choices=("issue", "others"), default="issue")
    parser.add_argument("--name", default="issue-points")
    parser.add_argument("--figures", action="store_true", help="recompute from the stored file, no model")
    args = parser.parse_args()
    splits = tuple(args.split or READ)
    about = {"splits": list(splits), "versions": args.versions, "wordings": WORDINGS}
    probe_main(args.name, args.figures, figures, functools.partial(probe, splits, args.versions), about)


if __name__ == "__main__":
    main()
