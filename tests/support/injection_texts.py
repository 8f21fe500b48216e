"""Texts the injection detector is measured on, read by its tests and by the benchmarks alike: the generalization
set (bench/injection_set.jsonl, written by bench/injection_set_build.py) and a corpus of ordinary texts it must
not flag.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

from gavel.tools.rubric_registry import RubricRegistry
from tests.support.devset import REPO_ROOT, data_path
from tests.support.injection_cases import CASES

INJECTION_SET = REPO_ROOT / "bench" / "injection_set.jsonl"


def load_injection_set(path: Path = INJECTION_SET) -> list[dict[str, str]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


DEMO_DATA = REPO_ROOT / "server" / "cli" / "demo_data.toml"


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value] if value.strip() else []
    if isinstance(value, dict):
        return [text for item in value.values() for text in _strings(item)]
    if isinstance(value, list):
        return [text for item in value for text in _strings(item)]
    return []


def clean_corpus(dev_set: Path | None = None) -> list[tuple[str, str]]:
    """(where it comes from, text) for every ordinary text, each distinct text once. Raises FileNotFoundError
    when the dev set is not beside the checkout."""
    rows = [json.loads(line) for line in (dev_set or data_path()).read_text(encoding="utf-8").splitlines() if line]
    texts: dict[str, str] = {}
    for row in rows:
        texts.setdefault(row["answer"], "dev set answer")
        texts.setdefault(row["context"], "dev set passage")
        texts.setdefault(row["question"], "dev set question")
    for rubric in RubricRegistry.load().all():
        for text in _strings(rubric.model_dump(mode="json", exclude={"id", "version", "scale"})):
            texts.setdefault(text, "rubric text")
    for text in _strings(tomllib.loads(DEMO_DATA.read_text(encoding="utf-8"))):
        texts.setdefault(text, "demo input")
    for case in CASES:
        texts.setdefault(case.clean, "clean twin of a case")
    return [(source, text) for text, source in texts.items()]
