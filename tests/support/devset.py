"""The labelled development set (shared/data/halueval_qa_dev.jsonl) and the fixed subsets the benchmarks report.

100 HaluEval QA questions, each twice: the gold answer and a hallucinated one. Pairs are ordered by their
question number; a subset is always "the first N pairs in that order", so it is fixed and documented, and
never chosen after looking at results.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[2]
DATA_ENV = "GAVEL_BENCH_DATA"
FILE_NAME = "halueval_qa_dev.jsonl"
# Where the set lives beside a checkout: shared/ next to the repository (CI), or /work/shared.
CANDIDATES = (REPO_ROOT.parent / "shared" / "data" / FILE_NAME, Path("/work/shared/data") / FILE_NAME)


def data_path() -> Path:
    override = os.environ.get(DATA_ENV)
    if override:
        return Path(override)
    for path in CANDIDATES:
        if path.is_file():
            return path
    raise FileNotFoundError(
        f"the labelled set {FILE_NAME} was not found in {', '.join(str(p) for p in CANDIDATES)}; "
        f"set {DATA_ENV} to its path"
    )


# Gavel's probe items and probability prompts were chosen on the first 20 question pairs (the first 40 items):
# a held-out figure leaves them out.
TUNED_PAIRS = 20
# The RAG cut, the judge's own answer and the rule that the passages must raise a claim were chosen on the first 50.
RULE_PAIRS = 50


def question_number(item: dict[str, Any]) -> int:
    return int(item["id"].split("-")[2])


def load_pairs(path: Path | None = None) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(right, hallucinated) per question, by question number."""
    rows = [json.loads(line) for line in (path or data_path()).read_text(encoding="utf-8").splitlines() if line]
    by_question: dict[int, dict[bool, dict[str, Any]]] = {}
    for row in rows:
        by_question.setdefault(question_number(row), {})[bool(row["hallucinated"])] = row
    pairs = []
    for number in sorted(by_question):
        both = by_question[number]
        if set(both) != {False, True}:
            raise ValueError(f"question {number} does not have both a right and a hallucinated answer")
        pairs.append((both[False], both[True]))
    return pairs


def subset(pairs: list[tuple[dict[str, Any], dict[str, Any]]], count: int | None):  # type: ignore[no-untyped-def]
    return pairs if count is None else pairs[:count]
