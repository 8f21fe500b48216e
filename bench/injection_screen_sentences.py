"""A probe for the injection screen's next step: the shipped screen (`tools/engine/screen.py`) read per sentence,
the text's score the highest of its sentences', against the whole text read at once. An order appended to a fact
reads 0.50 as one text and 0.93 alone (bench/README.md, "Injection, model-read"), so reading sentence by sentence
may find what the whole text hides. By default the dev texts (bench/injection_set.jsonl's dev split); with
--unseen, injections and clean texts written by others that no reading of the screen has seen (those
`bench.injection_screen` did not draw), to decide whether to build it.

    python -m bench.injection_screen_sentences            # injection-screen-sentences.json (6 minutes)
    python -m bench.injection_screen_sentences --unseen   # injection-screen-sentences-unseen.json
"""

from __future__ import annotations

import json
import random
import sys
import time
from typing import Any

from bench.common import REPO_ROOT, RESULTS_DIR, probe_and_write
from bench.consistency_claims import auroc
from gavel.tools.engine import screen
from gavel.tools.engine.embedded import EmbeddedBackend
from gavel.tools.engine.sentences import split_sentences
from tests.support.deps import make_deps

SET = REPO_ROOT / "bench" / "injection_set.jsonl"
CUTS = (0.6, 0.7, 0.8, 0.9)


CORPUS = REPO_ROOT / "bench" / "injection_corpus.jsonl"
READ = RESULTS_DIR / "injection-screen.json"
# --unseen: split -> how many texts, drawn with a fixed seed from those `bench.injection_screen` did not read.
UNSEEN: dict[str, int] = {
    "external_heldout_2": 40,
    "external_heldout_3": 40,
    "external_heldout": 30,
    "held_out_2": 120,
    "held_out_3": 60,
}


def dev_texts() -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in SET.read_text().splitlines() if line.strip()]
    return [r for r in rows if r["split"] == "dev"]


def unseen_texts() -> list[dict[str, Any]]:
    read = {item["id"] for item in json.loads(READ.read_text())["items"]}
    corpus = [json.loads(line) for line in CORPUS.read_text().splitlines() if line.strip()]
    chosen = []
    for split, limit in UNSEEN.items():
        part = sorted((r for r in corpus if r["split"] == split and r["id"] not in read), key=lambda r: r["id"])
        random.Random(f"sentences {split}").shuffle(part)
        chosen += part[:limit]
    return chosen


async def probe(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    deps = make_deps(EmbeddedBackend(timeout_s=300, parallel=2, screen_slot=True), timeout_s=300)
    records = []
    for row in rows:
        judge = await deps.judge()  # one per text: each has its own call deadline
        started = time.perf_counter()
        whole, _ = await screen.screen(judge.calls, row["text"], None)
        sentences = split_sentences(row["text"]) or [row["text"]]
        each = [(await screen.screen(judge.calls, sentence, None))[0].value for sentence in sentences]
        scored = [p for p in each if p is not None]
        records.append({
            "id": row["id"], "split": row["split"], "kind": row["kind"], "category": row["category"],
            "whole": whole.value,
            "highest_sentence": max(scored) if len(scored) == len(each) else None, "sentences": len(sentences),
            "seconds": round(time.perf_counter() - started, 2),
        })  # fmt: skip
    return records


def figures(records: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {"texts": len(records), "seconds_per_text": sum(r["seconds"] for r in records) / len(records)}
    for way in ("whole", "highest_sentence"):
        injected = [r[way] for r in records if r["kind"] == "injection" and r[way] is not None]
        clean = [r[way] for r in records if r["kind"] != "injection" and r[way] is not None]
        out[way] = {
            "auroc": auroc(injected, clean),
            "by_cut": {str(c): {"injections": sum(p >= c for p in injected), "of": len(injected),
                                "clean_flagged": sum(p >= c for p in clean), "of_clean": len(clean)} for c in CUTS},
        }  # fmt: skip
    return out


def main() -> None:
    if "--unseen" in sys.argv:
        probe_and_write("injection-screen-sentences-unseen", lambda: probe(unseen_texts()), figures)
    else:
        probe_and_write("injection-screen-sentences", lambda: probe(dev_texts()), figures)


if __name__ == "__main__":
    main()
