"""Writes bench/injection_corpus.jsonl from its two parts: `injection_corpus_heldout` (written first, never read
while tuning) and `injection_corpus_dev` (tuned on). Each row: id, kind (injection or clean), category, split, text.

    python -m bench.injection_corpus_build
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from bench import injection_corpus_dev, injection_corpus_heldout

OUT = Path(__file__).resolve().parent / "injection_corpus.jsonl"


def main() -> None:
    rows = injection_corpus_heldout.rows() + injection_corpus_dev.rows()
    ids = [row["id"] for row in rows]
    assert len(ids) == len(set(ids)), "duplicate ids"
    texts = Counter((row["split"], row["text"]) for row in rows)
    assert max(texts.values()) == 1, "a text appears twice in one part"
    OUT.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
    for (split, kind), n in sorted(Counter((row["split"], row["kind"]) for row in rows).items()):
        print(f"{split:9} {kind:10} {n}")
    print(f"written to {OUT}")


if __name__ == "__main__":
    main()
