"""Can the embedded default tell a status email's jumbled list from a well-grouped one, asked item by item? A probe
of `user-status-email`'s organization ("the key status is buried, and decisions, actions and risks are mixed
together or filed under the wrong headings"), on the read status emails (dev, fresh to fresh4, fresh13; never
fresh15, held out for organization then): the good, organization and professional-tone versions, the tone versions
to see whether a reading fails a well-organized email whose wording is off.

    python -m bench.organization_probe status     # each point asked whether it sums up the overall status
    python -m bench.organization_probe filing     # each listed item asked whether it belongs under its heading
    python -m bench.organization_probe contrast   # ... asked under every heading the email has
    python -m bench.organization_probe contrast --figures   # the figures again from the results file

Each writes bench/results/organization-probe-<way>.json. 'status' is scored as a status email's organization would
be if read as `leads` checks with that question (engine/leading.py: the share of the email, by length, not ahead of
a point that reads more like the overall status), a wall of text left out (engine/wall.py reads those). 'filing'
reads each email as the mean P(yes); 'contrast' as the mean margin of an item's own heading over the likeliest
other heading (positive: filed where the model would file it). A probe of questions, not of the tool:
`bench.user_rubrics` measures the rubric through `gavel serve`.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from statistics import mean
from typing import Any

from bench.common import probe_main, say
from bench.user_rubrics import domain_rows
from gavel.tools.engine import prompts, wall
from gavel.tools.engine.embedded import EmbeddedBackend
from gavel.tools.engine.judge import Judge
from gavel.tools.engine.leading import _ITEM, ahead, points, share_not_ahead
from gavel.tools.engine.one_token import prefix, yes_no
from gavel.tools.rubric_registry import load_rubric_file
from tests.support.config import engine_config

SPLITS = ("dev", "fresh", "fresh2", "fresh3", "fresh4", "fresh13")
VERSIONS = ("good", "organization", "professional_tone")
RUBRIC = Path(__file__).resolve().parent / "data" / "rubrics" / "user-status-email.toml"
STATUS = "Does this part of the email sum up the overall status of the work, rather than give one detail?"
FILING = "Does this item belong under the heading it is listed under, {heading}?"
UNDER = "Does this item belong under the heading {heading}?"


def filed(text: str) -> list[tuple[str, str]]:
    """Each list item with the heading it is listed under: the line before a list's first item."""
    out: list[tuple[str, str]] = []
    heading, before = None, ""
    for line in text.splitlines():
        if _ITEM.match(line):
            if heading is None and before.strip():
                heading = before.strip().rstrip(":")
            if heading:
                out.append((heading, _ITEM.sub("", line).strip()))
        else:
            heading, before = None, line
    return out


def _rows() -> Iterator[tuple[str, dict[str, Any]]]:
    for split, row in domain_rows(SPLITS, "status-email"):
        if row["version"] in VERSIONS:
            yield split, row


async def _read(way: str, partial: Path) -> list[dict[str, Any]]:
    judge = Judge(EmbeddedBackend(timeout_s=300), engine_config(call_deadline_s=86_400))
    rubric = load_rubric_file(RUBRIC)
    texts = prompts.prompt_set()

    async def asked(shared: Any, question: str, extra: dict[str, str]) -> float:
        instruction = texts.fill("probability_question", question=question)
        readout, _ = await yes_no(judge.calls, shared, instruction, extra=extra)
        assert readout.value is not None, readout.reason
        return round(readout.value, 4)

    async def one(split: str, row: dict[str, Any]) -> dict[str, Any]:
        record: dict[str, Any] = {"split": split, "case": row["case"], "version": row["version"]}
        if way == "status":
            record["points"] = points(row["text"])
            shared = prefix(rubric, row["source"], {})
            record["status"] = [await asked(shared, STATUS, {"point": p}) for p in record["points"]]
            return record
        items = filed(row["text"])
        record["items"] = items
        shared = prefix(rubric, None, {})
        if way == "filing":
            record["belongs"] = [await asked(shared, FILING.format(heading=f'"{h}"'), {"item": i}) for h, i in items]
            return record
        headings = sorted({h for h, _ in items})
        record["under"] = [
            {h: await asked(shared, UNDER.format(heading=f'"{h}"'), {"item": item}) for h in headings}
            for _, item in items
        ]
        return record

    records = []
    for split, row in _rows():
        records.append(await one(split, row))
        say(f"  {split:7s} {row['case']:40s} {row['version']}")
        partial.write_text(json.dumps(records), encoding="utf-8")  # noqa: ASYNC240 (a probe, one call at a time)
    return records


def _reading(way: str, record: dict[str, Any], text: str) -> float | None:
    """One email's reading by `way`; None where it says nothing (a wall, or no heading with a list under it)."""
    if way == "status":
        share, sentences = wall.longest_block(text)
        if share >= wall.WALL_SHARE and sentences >= wall.MIN_SENTENCES:
            return None
        behind = ahead(record["status"], prompts.leads().spread)
        return 1 + 4 * share_not_ahead(record["points"], behind, by_length=True)
    if way == "filing":
        return mean(record["belongs"]) if record["belongs"] else None
    margins = [
        under[heading] - max(v for h, v in under.items() if h != heading)
        for (heading, _), under in zip(record["items"], record["under"], strict=True)
        if len(under) > 1
    ]
    return mean(margins) if margins else None


def figures(way: str, records: list[dict[str, Any]]) -> dict[str, Any]:
    texts = {(split, row["case"], row["version"]): row["text"] for split, row in _rows()}
    cases: dict[str, dict[str, float | None]] = {}
    for r in records:
        value = _reading(way, r, texts[(r["split"], r["case"], r["version"])])
        cases.setdefault(f"{r['split']}/{r['case']}", {})[r["version"]] = value
    read = {k: {v: round(x, 3) for v, x in versions.items() if x is not None} for k, versions in cases.items()}
    paired = [v for v in read.values() if "good" in v and "organization" in v]
    good = sorted(v["good"] for v in read.values() if "good" in v)
    tone = sorted(v["professional_tone"] for v in read.values() if "professional_tone" in v)
    return {
        "organization_below_good": f"{sum(v['organization'] < v['good'] for v in paired)} of {len(paired)}",
        "good": good,
        "organization": sorted(v["organization"] for v in paired),
        "professional_tone": tone,
        "cases": read,
    }


def main() -> None:
    way = sys.argv[1] if len(sys.argv) > 1 else ""
    if way not in ("status", "filing", "contrast"):
        raise SystemExit("usage: python -m bench.organization_probe status|filing|contrast [--figures]")
    asked = {"status": STATUS, "filing": FILING, "contrast": UNDER}[way]

    async def read(partial: Path) -> list[dict[str, Any]]:
        return await _read(way, partial)

    about = {"splits": SPLITS, "versions": VERSIONS, "way": way, "question": asked}
    probe_main(f"organization-probe-{way}", "--figures" in sys.argv[2:], lambda r: figures(way, r), read, about)


if __name__ == "__main__":
    main()
