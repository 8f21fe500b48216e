"""Probe: a tone metric read as which-questions per sentence, the way a code review's actionability is read.

Each sentence outside fenced code of the good and the tone version of every case with a tone metric (code reviews'
`respectful_tone`, support replies' `tone`) is asked a which-question about its wording, read as P(the reply names
something) = 1 - P(it starts "None") (`one_token.named`). A rude sentence should name something where a collegial
one names nothing. A text's reading is its worst sentence (the most named) and, for comparison, the mean; the
figures say in how many cases the tone version reads worse than the good one, and both sides.

    python -m bench.tone_named --split fresh9 --split fresh10 --name tone-named-fresh9-10
    python -m bench.tone_named --figures --name tone-named-fresh9-10
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
from gavel.tools.engine.sentences import sentences_outside_code
from tests.support.config import engine_config

TONE = {"code-review": "respectful_tone", "support-reply": "tone"}
WORDINGS = {
    "person": "Which words of this sentence criticise the person rather than the work?",
    "sneer": "Which words of this sentence are sarcastic, blaming or condescending?",
}


async def probe(splits: tuple[str, ...], wordings: tuple[str, ...], partial: Path) -> list[dict[str, Any]]:
    judge = Judge(EmbeddedBackend(timeout_s=300), engine_config(call_deadline_s=86_400))
    texts = prompts.prompt_set()
    records: list[dict[str, Any]] = []
    for domain, metric in TONE.items():
        for split, row in domain_rows(splits, domain):
            if row["version"] not in ("good", metric):
                continue
            sentences = sentences_outside_code(row["text"])
            read: dict[str, list[float | None]] = {}
            for name in wordings:
                instruction = texts.fill("check_named", question=WORDINGS[name])
                read[name] = []
                for sentence in sentences:
                    readout, _ = await one_token.named(
                        judge.calls, instruction, "sentence", sentence, model=None, step="tone"
                    )
                    read[name].append(readout.value)
            version = "tone" if row["version"] == metric else "good"
            records.append({"split": split, "case": row["case"], "version": version, "sentences": sentences,
                            "read": read})  # fmt: skip
            partial.write_text(json.dumps(records), encoding="utf-8")  # noqa: ASYNC240 (a probe, one call at a time)
            shown = {n: [round(p, 2) for p in v if p is not None] for n, v in read.items()}
            say(f"  {split:7s} {row['case'][:30]:30s} {version:5s} {shown}")
    return records


def figures(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Per wording, read as the worst sentence and as the mean (1 - P(named), so that higher is kinder): in how many
    cases the tone version reads below the good one, and both sides."""
    out: dict[str, Any] = {}
    for wording in sorted({w for r in records for w in r["read"]}):
        for name, pick in (("worst", max), ("mean", statistics.fmean)):

            def kind(record: dict[str, Any], wording: str = wording, pick: Any = pick) -> float:
                return 1 - pick([p for p in record["read"][wording] if p is not None])

            out[f"{wording}/{name}"] = versus_good(records, "tone", kind)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--split", action="append", help="a split to read (default: fresh9 and fresh10)")
    parser.add_argument("--wording", action="append", choices=tuple(WORDINGS), help="default: every wording")
    parser.add_argument("--name", default="tone-named")
    parser.add_argument("--figures", action="store_true", help="recompute from the stored file, no model")
    args = parser.parse_args()
    splits = tuple(args.split or ("fresh9", "fresh10"))
    wordings = tuple(args.wording or WORDINGS)
    about = {"splits": list(splits)}
    probe_main(args.name, args.figures, figures, functools.partial(probe, splits, wordings), about)


if __name__ == "__main__":
    main()
