"""The deterministic injection detector on bench/injection_set.jsonl: detection per language and disguise, false
flags per kind of clean text, for the whole set and for its held-out third. No model: `detect_injection` only,
so every run gives the same numbers.

    python -m bench.injection_generalize

Prints a table and writes bench/results/injection_generalize.json.
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

from gavel.tools.guards import detect_injection
from tests.support.injection_texts import load_injection_set

RESULTS = Path(__file__).resolve().parent / "results" / "injection_generalize.json"


def measure(rows: list[dict[str, str]]) -> dict[str, Any]:
    per: dict[tuple[str, str], dict[str, Any]] = defaultdict(
        lambda: {"texts": 0, "flagged": 0, "held_out": 0, "held_out_flagged": 0, "after_rules": 0,
                 "after_rules_flagged": 0, "wrong": []}
    )  # fmt: skip
    for row in rows:
        flagged = bool(detect_injection(row["text"]))
        cell = per[(row["kind"], row["category"])]
        cell["texts"] += 1
        cell["flagged"] += flagged
        if row["split"] in ("held_out", "after_rules"):
            cell[row["split"]] += 1
            cell[f"{row['split']}_flagged"] += flagged
        if flagged != (row["kind"] == "injection"):
            cell["wrong"].append(row["id"])
    report: dict[str, Any] = {"injection": {}, "clean": {}}
    for (kind, category), cell in sorted(per.items()):
        report[kind][category] = cell
    for kind in ("injection", "clean"):
        cells = report[kind].values()
        report[f"{kind}_total"] = {
            "texts": sum(c["texts"] for c in cells),
            "flagged": sum(c["flagged"] for c in cells),
            "held_out": sum(c["held_out"] for c in cells),
            "held_out_flagged": sum(c["held_out_flagged"] for c in cells),
            "after_rules": sum(c["after_rules"] for c in cells),
            "after_rules_flagged": sum(c["after_rules_flagged"] for c in cells),
        }
    return report


def _rate(flagged: int, texts: int) -> str:
    return f"{flagged}/{texts} ({flagged / texts:.0%})" if texts else "-"


def main() -> int:
    report = measure(load_injection_set())
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    for kind, word in (("injection", "detected"), ("clean", "falsely flagged")):
        print(f"{kind} texts, {word} (all | held out | written after the rules):")
        for category, cell in [*report[kind].items(), ("total", report[f"{kind}_total"])]:
            print(f"  {category:40} {_rate(cell['flagged'], cell['texts']):>14} | "
                  f"{_rate(cell['held_out_flagged'], cell['held_out']):>12} | "
                  f"{_rate(cell['after_rules_flagged'], cell['after_rules'])}")  # fmt: skip
    print(f"written to {RESULTS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
