"""A support reply's policy accuracy read the way `judge_rag_answer` reads an answer: each claim of the reply asked,
after the source as the fact checker's document, whether the document supports it and whether it contradicts it.

Read as `supported` checks (the share of supported sentences) it was tried and held out twice and not kept
(bench/README.md, "Policy accuracy read as sentences checked against the policy"): the sentence that changes a
condition is one of five to ten, so the share stays high, and a good reply's empathy and next steps read unsupported.
A reply's most contradicted claim, or its weakest one, is what a reader of the policy would catch, so this probe
stores every claim's two readings and compares the aggregates on the good and policy versions of the read
support-reply cases. No engine change comes of it by itself: a change would be held out on an unread set.

    python -m bench.policy_contradicts                 # writes bench/results/policy-contradicts.json
    python -m bench.policy_contradicts --figures       # the figures again from the stored file, without the model
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from bench.common import probe_main, say, versus_good
from bench.user_rubrics import domain_rows
from gavel.tools.engine import prompts
from gavel.tools.engine.embedded import EmbeddedBackend
from gavel.tools.engine.judge import Judge
from gavel.tools.engine.one_token import document_prefix, yes_no
from gavel.tools.rag.sentence_support import claims
from tests.support.config import engine_config

# Every split whose support replies have been read; fresh13 is held out (bench/data/README.md).
READ = ("dev", "fresh", "fresh2", "fresh3", "fresh4", "fresh5", "fresh9")
BROKEN = "policy_accuracy"


async def probe(splits: tuple[str, ...], partial: Path) -> list[dict[str, Any]]:
    judge = Judge(EmbeddedBackend(timeout_s=300), engine_config(call_deadline_s=86_400))
    texts = prompts.prompt_set()
    supported_q = texts.fill("rag_sentence", subject="answer", sentence_label="claim")
    contradicts_q = texts.fill("rag_contradicts", subject="claim")
    records: list[dict[str, Any]] = []
    for split, row in domain_rows(splits, "support-reply"):
        if row["version"] not in ("good", BROKEN):
            continue
        shared = document_prefix(row["source"], None)
        read = []
        for claim in claims(row["text"]):
            pair = []
            for question in (supported_q, contradicts_q):
                readout, _ = await yes_no(judge.calls, shared, question, extra={"claim": claim}, question_first=True)
                pair.append(readout.value)
            read.append([claim, *pair])
        records.append({"split": split, "case": row["case"], "version": row["version"], "claims": read})
        partial.write_text(json.dumps(records), encoding="utf-8")  # noqa: ASYNC240 (a probe, one call at a time)
        say(f"  {split:7s} {row['case'][:40]:40s} {row['version']:16s} {_most_contradicted(records[-1]):.2f}")
    return records


def _weakest(record: dict[str, Any]) -> float:
    return min(s for _claim, s, _c in record["claims"] if s is not None)


def _most_contradicted(record: dict[str, Any]) -> float:
    return max(c for _claim, _s, c in record["claims"] if c is not None)


def _share_supported(record: dict[str, Any]) -> float:
    read = [s for _claim, s, _c in record["claims"] if s is not None]
    return sum(read) / len(read)


READINGS = {
    "weakest P(supported)": _weakest,
    "1 - most P(contradicts)": lambda r: 1 - _most_contradicted(r),
    "mean P(supported)": _share_supported,
}


def figures(records: list[dict[str, Any]]) -> dict[str, Any]:
    """For each reading (higher is better): the policy version below the good one, and at the cut under the lowest
    good version, how many policy versions fall under it."""
    out = {}
    for name, value in READINGS.items():
        compared = versus_good(records, BROKEN, value)
        lowest_good = compared["good"][0] if compared["good"] else 0.0
        compared["broken_under_lowest_good"] = sum(b < lowest_good for b in compared["broken"])
        out[name] = compared
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--split", action="append", help="a split to read (default: every read one)")
    parser.add_argument("--name", default="policy-contradicts")
    parser.add_argument("--figures", action="store_true", help="recompute from the stored file, no model")
    args = parser.parse_args()
    splits = tuple(args.split or READ)

    async def read(partial: Path) -> list[dict[str, Any]]:
        return await probe(splits, partial)

    about = {"splits": list(splits), "readings": list(READINGS)}
    probe_main(args.name, args.figures, figures, read, about)


if __name__ == "__main__":
    main()
