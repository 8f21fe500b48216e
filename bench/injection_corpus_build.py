"""Writes bench/injection_corpus.jsonl from its parts: `injection_corpus_heldout` (written first; its injected texts
are still held out, its clean texts became tuning data for false flags once their flags were read),
`injection_corpus_dev` (tuned on), `injection_corpus_dev2` ("dev_2": clean texts from the same sources as held_out_2
but none of its texts, tuned on), the injected texts of `injection_corpus_external` ("external_tune": written by
others, measured once, then read and tuned on), and two parts written by others and held out: the clean texts of
`injection_corpus_heldout2` ("held_out_2") and the injected texts of `injection_corpus_external_heldout`
("external_heldout", from sources the first external set does not use; read once, now tuned on), and a third set
from `injection_corpus_external_heldout2` ("external_heldout_2" injected, "held_out_3" clean, from sources neither
earlier set uses, held out), and a fourth set of injections aimed at a judge or in other languages from
`injection_corpus_external_heldout3` ("external_heldout_3", from sources no earlier set uses; read once, now tuned on),
and a fifth from `injection_corpus_external_heldout4` ("external_heldout_4", promptfoo's judge tests that
external_heldout_3 did not read; read once, now tuned on), and a sixth from `injection_corpus_external_heldout5`
("external_heldout_5" injected and "held_out_5_clean" clean, promptfoo's judge tests no earlier set read, held out),
and a seventh from `injection_corpus_external_heldout6` ("external_heldout_6" injected: MCP tool poisoning and tool
results, Rebuff's and Vigil's examples, role prompts; "held_out_6_clean": benign MCP tool texts and documentation
about MCP attacks; held out, read once), and an eighth from `injection_corpus_external_heldout7`
("external_heldout_7" injected: MCP tool descriptions and a prompt text from an MCP scanner's test material;
"held_out_7_clean": its benign tool descriptions; held out), all read
from their committed jsonl under bench/data. Each row: id, kind (injection or
clean), category, split, text (and source and license for the parts written by others).

    python -m bench.injection_corpus_build
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from bench import (
    injection_corpus_dev,
    injection_corpus_dev2,
    injection_corpus_external,
    injection_corpus_external_heldout,
    injection_corpus_external_heldout2,
    injection_corpus_external_heldout3,
    injection_corpus_external_heldout4,
    injection_corpus_external_heldout5,
    injection_corpus_external_heldout6,
    injection_corpus_external_heldout7,
    injection_corpus_heldout,
    injection_corpus_heldout2,
)
from bench.injection_corpus_common import write_jsonl

OUT = Path(__file__).resolve().parent / "injection_corpus.jsonl"
WRITTEN_BY_OTHERS = [injection_corpus_dev2.OUT, injection_corpus_heldout2.OUT, injection_corpus_external.OUT,
                     injection_corpus_external_heldout.OUT, injection_corpus_external_heldout2.OUT,
                     injection_corpus_external_heldout3.OUT, injection_corpus_external_heldout4.OUT,
                     injection_corpus_external_heldout5.OUT,
                     injection_corpus_external_heldout6.OUT, injection_corpus_external_heldout7.OUT]  # fmt: skip


def main() -> None:
    rows = injection_corpus_heldout.rows() + injection_corpus_dev.rows()
    for path in WRITTEN_BY_OTHERS:
        rows += [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    ids = [row["id"] for row in rows]
    assert len(ids) == len(set(ids)), "duplicate ids"
    texts = Counter((row["split"], row["text"]) for row in rows)
    assert max(texts.values()) == 1, "a text appears twice in one part"
    write_jsonl(OUT, rows)
    for (split, kind), n in sorted(Counter((row["split"], row["kind"]) for row in rows).items()):
        print(f"{split:10} {kind:10} {n}")
    print(f"written to {OUT}")


if __name__ == "__main__":
    main()
