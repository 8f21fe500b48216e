"""A probe for the injection screen's next step: the shipped screen (`tools/engine/screen.py`) read per sentence,
the text's score the highest of its sentences', against the whole text read at once. An order appended to a fact
reads 0.50 as one text and 0.93 alone (bench/README.md, "Injection, model-read"), so reading sentence by sentence
may find what the whole text hides. Dev texts only (bench/injection_set.jsonl's dev split): nothing held out is
read, and nothing is built on it yet.

    python -m bench.injection_screen_sentences   # writes bench/results/injection-screen-sentences.json (6 minutes)
"""

from __future__ import annotations

import json
import time
from typing import Any

from bench.common import REPO_ROOT, probe_and_write
from bench.consistency_claims import auroc
from gavel.tools.engine import screen
from gavel.tools.engine.embedded import EmbeddedBackend
from gavel.tools.engine.sentences import split_sentences
from tests.support.deps import make_deps

SET = REPO_ROOT / "bench" / "injection_set.jsonl"
CUTS = (0.6, 0.7, 0.8, 0.9)


async def probe() -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in SET.read_text().splitlines() if line.strip()]
    deps = make_deps(EmbeddedBackend(timeout_s=300, parallel=2, screen_slot=True), timeout_s=300)
    records = []
    for row in (r for r in rows if r["split"] == "dev"):
        judge = await deps.judge()  # one per text: each has its own call deadline
        started = time.perf_counter()
        whole, _ = await screen.screen(judge.calls, row["text"], None)
        sentences = split_sentences(row["text"]) or [row["text"]]
        each = [(await screen.screen(judge.calls, sentence, None))[0].value for sentence in sentences]
        scored = [p for p in each if p is not None]
        records.append({
            "id": row["id"], "kind": row["kind"], "category": row["category"], "whole": whole.value,
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
    probe_and_write("injection-screen-sentences", probe, figures)


if __name__ == "__main__":
    main()
