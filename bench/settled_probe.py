"""Probe: does a status email present as settled what its notes leave open?

Each sentence of a status email that restates an open notes line (a question mark, "not decided", "TBC", or a line
under an "Open questions" heading), matched by content words as `engine/contradicted.py` matches lines, is asked
with no document: "Does this sentence say that something is still undecided, unconfirmed or unknown?". A good email
restates an open point as open; a faithfulness version that settles it should read low. Read on the good and
faithfulness versions of every read status email.

    python -m bench.settled_probe [--splits a,b]   # writes bench/results/settled-probe.json
"""

from __future__ import annotations

import argparse
import asyncio
import re
from typing import Any

from bench.common import RESULTS_DIR, Run, say
from bench.focused_support import pairs
from gavel.tools.engine.check_items import Claim
from gavel.tools.engine.checks import check_claim
from gavel.tools.engine.contradicted import _content, read_source
from gavel.tools.engine.embedded import EmbeddedBackend
from gavel.tools.engine.judge import Judge
from gavel.tools.engine.sentences import every_sentence
from gavel.tools.rubric_checks import Checks
from gavel.tools.rubric_registry import RubricRegistry
from tests.support.config import engine_config

QUESTIONS = {
    "open": "Does this sentence say that something is still undecided, unconfirmed or unknown?",
    "settled": "Does this sentence say that something has been decided, confirmed or agreed?",
}
OPEN_WORDS = re.compile(
    r"\?|\b(?:not decided|undecided|no decision|tbd|tbc|unclear|unknown|unconfirmed|not confirmed|not yet|pending|"
    r"to be decided|to decide|decide by|revisit|parked|open q)",
    re.IGNORECASE,
)
OPEN_HEADING = re.compile(r"open|question|parked|undecided|unresolved|tbd", re.IGNORECASE)
SPLITS = (
    "dev,fresh,fresh2,fresh3,fresh4,fresh13,fresh15,fresh16,fresh17,fresh18,fresh19,fresh20,fresh21,fresh22,"
    "fresh23,fresh24"
)


def notes_lines(source: str) -> list[tuple[str, bool]]:
    """Each non-blank line and whether it is open: its own words, or a heading over it that says open questions."""
    out = []
    heading_open = False
    for raw in source.splitlines():
        line = raw.strip()
        if not line:
            continue
        bulleted = re.match(r"^[-*•\[\d]", line) or raw[:1].isspace()
        if not bulleted and len(line) < 40:
            heading_open = bool(OPEN_HEADING.search(line))
            out.append((line, False))
            continue
        out.append((line, heading_open or bool(OPEN_WORDS.search(line))))
    return out


def restated(sentence: str, lines: list[tuple[str, bool]], names: frozenset[str]) -> tuple[str, bool] | None:
    words = _content(sentence, names)
    shared = sorted(((len(words & _content(line, names)), -i) for i, (line, _) in enumerate(lines)), reverse=True)
    if not shared or shared[0][0] < 2 or (len(shared) > 1 and shared[1][0] >= shared[0][0]):
        return None
    return lines[-shared[0][1]]


async def probe(splits: list[str]) -> list[dict[str, Any]]:
    rubric = RubricRegistry.load().get("rag-answer")
    judge = Judge(EmbeddedBackend(timeout_s=300), engine_config(call_deadline_s=86_400))

    async def p(question: str, sentence: str) -> float:
        checks = Checks(kind="sentence", question=question)
        readout, _ = await check_claim(judge.calls, rubric, checks, Claim(sentence, None), None, {}, None, "p")
        assert readout.value is not None, readout.reason
        return round(readout.value, 4)

    records = []
    for split, case, good, faithful in pairs(splits):
        good_sentences = every_sentence(good["text"])
        for version, row in (("good", good), ("faithfulness", faithful)):
            names = read_source(row["source"], row["text"]).names
            lines = notes_lines(row["source"])
            for sentence in every_sentence(row["text"]):
                found = restated(sentence, lines, names)
                if found is None or not found[1]:
                    continue
                record = {
                    "split": split, "case": case, "version": version, "sentence": sentence, "line": found[0],
                    "changed": version == "faithfulness" and sentence not in good_sentences,
                }  # fmt: skip
                for key, question in QUESTIONS.items():
                    record[f"p_{key}"] = await p(question, sentence)
                records.append(record)
                say(f"{version:12s} {record['p_open']:.2f} {record['p_settled']:.2f} {sentence[:80]}")
    return records


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--splits", default=SPLITS)
    args = parser.parse_args()
    run = Run("settled-probe", RESULTS_DIR, smoke=False)
    records = asyncio.run(probe(args.splits.split(",")))
    say(f"wrote {run.write({'questions': QUESTIONS, 'records': records})}")


if __name__ == "__main__":
    main()
