"""A code review's actionability read from the nats the change adds to it: a probe (bench/README.md, "A code
review's actionability from the change's nats").

`clinical-assessment` reads specificity as the nats the transcript adds to the assessment's log-likelihood: a vague
text is as likely without its source as with it. A review that says what to change and where names the change's
own identifiers, lines and fixes, which the diff makes likely; one that only voices worries does not. Each text of
the read code-review cases is read after the change and after "(no change)" (`engine/likelihood.py`'s layouts),
and its nats, tokens and per-point nats (`leading.points`) are stored; `--figures` recomputes the readings.

    python -m bench.actionable_nats                      # good and actionability versions of every read split
    python -m bench.actionable_nats --versions others --split dev --name actionable-nats-others
    python -m bench.actionable_nats --figures
"""

from __future__ import annotations

import argparse
import functools
import json
from pathlib import Path
from typing import Any

from bench.common import probe_main, say, versus_good
from bench.user_rubrics import domain_rows
from gavel.tools.engine import prompts
from gavel.tools.engine.backend import ChatMessage
from gavel.tools.engine.calls import Tally
from gavel.tools.engine.embedded import EmbeddedBackend
from gavel.tools.engine.judge import Judge
from gavel.tools.engine.likelihood import Readings, read_side_by_side
from gavel.tools.engine.sentence_gain import sentence_gains
from gavel.tools.guards import break_chat_markup
from tests.support.config import engine_config

READ = ("dev", "fresh", "fresh2", "fresh3", "fresh4", "fresh6", "fresh7", "fresh8", "fresh9")
METRIC = "actionability"


async def probe(splits: tuple[str, ...], versions: str, partial: Path) -> list[dict[str, Any]]:
    judge = Judge(EmbeddedBackend(timeout_s=300), engine_config(call_deadline_s=86_400))
    texts = prompts.prompt_set()
    labels = {"subject": "review comment", "source_label": "change"}
    system = ChatMessage("system", texts.fill("likelihood_system", **labels))
    without = (system, ChatMessage("user", texts.fill("likelihood_without", **labels)))
    records: list[dict[str, Any]] = []
    for split, row in domain_rows(splits, "code-review"):
        wanted = row["version"] in ("good", METRIC)
        if (versions == "actionable") != wanted:
            continue
        layouts = {"after": (system, ChatMessage("user", row["source"])), "without": without}
        read = await read_side_by_side(judge.calls, layouts, row["text"], None, METRIC, Tally())
        assert isinstance(read, Readings), read
        sent = break_chat_markup(row["text"])
        gains = sentence_gains(sent, read.ends, *read.entries)
        assert gains is not None
        after, alone = read.sums
        records.append(
            {
                "split": split, "case": row["case"], "version": row["version"], "nats": after - alone,
                "tokens": read.tokens, "chars": len(row["text"]),
                "sentences": [[g.sentence, g.nats] for g in gains],
            }
        )  # fmt: skip
        partial.write_text(json.dumps(records), encoding="utf-8")  # noqa: ASYNC240 (a probe, one call at a time)
        r = records[-1]
        say(f"  {split:7s} {row['case'][:34]:34s} {row['version']:16s} {r['nats']:+7.1f} {r['tokens']:4d} tokens")
    return records


def figures(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Per reading of a text (nats, nats per token): in how many cases the actionability version reads below the
    good one, and both sides' values."""
    return {
        "nats": versus_good(records, METRIC, lambda r: r["nats"], digits=2),
        "per_token": versus_good(records, METRIC, lambda r: r["nats"] / max(r["tokens"], 1), digits=2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--split", action="append", help="a split to read (default: every read one)")
    parser.add_argument("--versions", choices=("actionable", "others"), default="actionable")
    parser.add_argument("--name", default="actionable-nats")
    parser.add_argument("--figures", action="store_true", help="recompute from the stored file, no model")
    args = parser.parse_args()
    splits = tuple(args.split or READ)
    about = {"splits": list(splits), "versions": args.versions}
    probe_main(args.name, args.figures, figures, functools.partial(probe, splits, args.versions), about)


if __name__ == "__main__":
    main()
