"""The deterministic injection detector on bench/injection_corpus.jsonl, per category and per part: detection on
the injected texts, false flags on the clean ones, and the time per text. No model, so every run gives the same
counts; the times depend on the machine and its load, both stored with the result.

    python -m bench.injection_corpus_measure            # every part, writes bench/results/injection_corpus.json
    python -m bench.injection_corpus_measure --split dev  # one part only, prints the misses, writes nothing

The parts: dev (tuned on); dev_2 (clean texts written by others, from held_out_2's sources, tuned on); held_out
(its injected texts held out; its clean texts tuned on for false flags once read); held_out_2 (clean texts written
by others, held out for the false-flag rate); external_tune (injection sets written by others, measured once, then
read and tuned on); external_heldout (injection sets written by others from other sources, measured once, then
read and tuned on); external_heldout_2 and held_out_3 (injected and clean texts written by others from a third group
of sources, held out, measured once at the end); external_heldout_3 (injections written by others aimed at a judge
or grader, or in other languages, from a fourth group of sources, measured once, then read and tuned on);
external_heldout_4 (promptfoo judge tests external_heldout_3 did not read, held out, measured once with the rules
before that tuning and once after it; now tuned on); external_heldout_5 and held_out_5_clean (promptfoo judge tests
no earlier set read: injected texts and the ordinary answers beside them, held out, measured once with the rules
before the tuning on external_heldout_4 and once after it); external_heldout_6 and held_out_6_clean (MCP tool
poisoning and tool results, Rebuff's and Vigil's examples and role prompts, with benign MCP tool texts and
documentation about MCP attacks, from a seventh group of sources, measured once; its MCP part later tuned on);
external_heldout_7 and held_out_7_clean (MCP tool descriptions and a prompt text from an MCP scanner's test
material, with its benign tool descriptions, held out, measured once before the MCP tuning and once after it).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from bench.machine import describe
from gavel.tools.guards import detect_injection

CORPUS = Path(__file__).resolve().parent / "injection_corpus.jsonl"
RESULTS = Path(__file__).resolve().parent / "results" / "injection_corpus.json"
SPLITS = ["dev", "dev_2", "held_out", "held_out_2", "external_tune", "external_heldout", "external_heldout_2",
          "held_out_3", "external_heldout_3", "external_heldout_4",
          "external_heldout_5", "held_out_5_clean", "external_heldout_6", "held_out_6_clean",
          "external_heldout_7", "held_out_7_clean"]  # fmt: skip


def load(path: Path = CORPUS) -> list[dict[str, str]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def measure(rows: list[dict[str, str]]) -> dict[str, Any]:
    cells: dict[str, dict[str, dict[str, Any]]] = defaultdict(dict)
    seconds: list[float] = []
    for row in rows:
        start = time.perf_counter()
        flagged = bool(detect_injection(row["text"]))
        seconds.append(time.perf_counter() - start)
        key = f"{row['kind']}: {row['category']}"
        cell = cells[row["split"]].setdefault(key, {"texts": 0, "flagged": 0, "wrong": []})
        cell["texts"] += 1
        cell["flagged"] += flagged
        if flagged != (row["kind"] == "injection"):
            cell["wrong"].append(row["id"])
    report: dict[str, Any] = {}
    for split, per in cells.items():
        totals = {}
        for kind in ("injection", "clean"):
            mine = [c for k, c in per.items() if k.startswith(kind + ":")]
            if mine:
                totals[kind] = {"texts": sum(c["texts"] for c in mine), "flagged": sum(c["flagged"] for c in mine)}
        report[split] = {"categories": dict(sorted(per.items())), "totals": totals}
    seconds.sort()
    report["seconds_per_text"] = {"median": seconds[len(seconds) // 2], "max": seconds[-1],
                                  "p99": seconds[int(len(seconds) * 0.99)]}  # fmt: skip
    return report


def _rate(cell: dict[str, Any]) -> str:
    return f"{cell['flagged']}/{cell['texts']} ({cell['flagged'] / cell['texts']:.0%})"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--split", choices=SPLITS, help="measure one part only (and write nothing)")
    args = parser.parse_args()
    rows = [row for row in load() if args.split in (None, row["split"])]
    report = measure(rows)
    for split in [s for s in SPLITS if s in report]:
        print(f"== {split}: detected (injected) / flagged (clean)")
        for key, cell in report[split]["categories"].items():
            print(f"  {key:65} {_rate(cell):>14}")
            if args.split:
                for wrong in cell["wrong"]:
                    print(f"      missed or false: {wrong}")
        for kind, cell in report[split]["totals"].items():
            print(f"  TOTAL {kind:59} {_rate(cell):>14}")
    print("seconds per text:", {k: round(v, 4) for k, v in report["seconds_per_text"].items()})
    if args.split is None:
        report["machine"] = {**describe(), "load_average": os.getloadavg()}
        RESULTS.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"written to {RESULTS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
