"""Probe: each sentence of a status email checked against the one notes line it restates, not the whole notes.

The faithfulness versions that still pass change one sentence (an owner, a settled point, a claim added) and the
whole-notes support check reads it as supported, as it reads its good twin. Here each sentence is asked the same
`supported` question with a short document: the notes line sharing the most content words with it (`line`), and
that line with the line above it (`window`, so an owner written over indented actions is in view). Good emails'
sentences show how low a faithful sentence reads; the faithfulness versions' changed sentences how low a changed one.

    python -m bench.focused_support [--splits dev,fresh,...]   # writes bench/results/focused-support.json
"""

from __future__ import annotations

import argparse
import asyncio
import json
from pathlib import Path
from typing import Any

from bench.common import RESULTS_DIR, Run, say
from gavel.tools.engine.check_items import Claim
from gavel.tools.engine.checks import check_claim
from gavel.tools.engine.contradicted import read_certain
from gavel.tools.engine.embedded import EmbeddedBackend
from gavel.tools.engine.judge import Judge
from gavel.tools.engine.notes import content_words, read_source
from gavel.tools.engine.sentences import every_sentence
from gavel.tools.rubric_checks import Checks
from gavel.tools.rubric_registry import RubricRegistry
from tests.support.config import engine_config

DATA = Path(__file__).parent / "data"


def lines_of(source: str) -> list[str]:
    return [line.strip() for line in source.splitlines() if line.strip()]


def best_line(sentence: str, lines: list[str], names: frozenset[str]) -> tuple[int, int, int] | None:
    """(index of the line sharing the most content words, its count, the runner-up's count)."""
    words = content_words(sentence, names)
    shared = sorted(((len(words & content_words(line, names)), -i) for i, line in enumerate(lines)), reverse=True)
    if not shared or shared[0][0] < 2:
        return None
    return -shared[0][1], shared[0][0], shared[1][0] if len(shared) > 1 else 0


def pairs(splits: list[str]) -> list[tuple[str, str, dict[str, Any], dict[str, Any]]]:
    out = []
    for split in splits:
        rows = [json.loads(x) for x in (DATA / f"user_rubrics_{split}.jsonl").read_text().splitlines() if x.strip()]
        by_case: dict[str, dict[str, Any]] = {}
        for row in rows:
            if row["domain"] == "status-email" and row["version"] in ("good", "faithfulness"):
                by_case.setdefault(row["case"], {})[row["version"]] = row
        out += [(split, case, v["good"], v["faithfulness"]) for case, v in by_case.items() if len(v) == 2]
    return out


async def probe(splits: list[str], out: Path) -> list[dict[str, Any]]:
    rubric = RubricRegistry.load().get("rag-answer")
    supported = Checks(kind="supported")
    judge = Judge(EmbeddedBackend(timeout_s=300), engine_config(call_deadline_s=86_400))

    async def p(text: str, document: str) -> float:
        readout, _ = await check_claim(judge.calls, rubric, supported, Claim(text, document), document, {}, None, "p")
        assert readout.value is not None, readout.reason
        return round(readout.value, 4)

    records: list[dict[str, Any]] = []
    todo = pairs(splits)
    # The changed sentences first (few), then every good sentence: a stopped run still has every changed one.
    jobs = []
    for split, case, good, faithful in todo:
        good_sentences = every_sentence(good["text"])
        changed = [s for s in every_sentence(faithful["text"]) if s not in good_sentences]
        jobs += [(split, case, "faithfulness", s, faithful) for s in changed]
    for split, case, good, _ in todo:
        jobs += [(split, case, "good", s, good) for s in every_sentence(good["text"])]
    for n, (split, case, version, sentence, row) in enumerate(jobs):
        source = row["source"]
        lines = lines_of(source)
        reading = read_source(source, row["text"])
        found = best_line(sentence, lines, reading.names)
        record: dict[str, Any] = {
            "split": split, "case": case, "version": version, "sentence": sentence,
            "certain": any(read_certain(sentence, reading)),
        }  # fmt: skip
        if found is not None:
            index, shared, runner_up = found
            window = "\n".join(lines[max(0, index - 1) : index + 1])
            record |= {
                "line": lines[index], "shared": shared, "runner_up": runner_up,
                "p_line": await p(sentence, lines[index]), "p_window": await p(sentence, window),
            }  # fmt: skip
        records.append(record)
        if found is not None:
            say(f"{n + 1}/{len(jobs)} {version:12s} {record['p_line']:.2f} {record['p_window']:.2f} {sentence[:70]}")
        if n % 20 == 0:
            save(out, records)
    save(out, records)
    return records


def save(out: Path, records: list[dict[str, Any]]) -> None:
    """The records so far: a long run stopped part way still leaves every changed sentence read."""
    out.write_text(json.dumps(records, indent=1))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "--splits",
        default="dev,fresh,fresh2,fresh3,fresh4,fresh13,fresh15,fresh16,fresh17,fresh18,"
        "fresh19,fresh20,fresh21,fresh22,fresh23,fresh24",
    )
    args = parser.parse_args()
    run = Run("focused-support", RESULTS_DIR, smoke=False)
    records = asyncio.run(probe(args.splits.split(","), Path("/tmp/probe/focused-partial.json")))
    say(f"wrote {run.write({'records': records})}")


if __name__ == "__main__":
    main()
