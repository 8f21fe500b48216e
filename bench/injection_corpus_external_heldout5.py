"""A sixth set of injections written by others ("external_heldout_5"), aimed at an LLM judge or grader, with a clean
part ("held_out_5_clean") of ordinary answers from the same test files, built and committed before any detector ran
on it and before any rule changed. external_heldout_3 and external_heldout_4 were read and are now tuning data; this
set is held out from that tuning, measured once with the rules as they were and once with the tuned rules, and
never tuned on.

Source: promptfoo (promptfoo/promptfoo, MIT), examples/judge-prompt-injection/, the six test files no earlier set
read: promptfooconfig-social-defended.yaml and -model-comparison.yaml (pairwise judge), -default-grader.yaml,
-llm-rubric-test.yaml and promptfooconfig.yaml (rubric grader), and -edge-cases.yaml (pairwise, no attacks). The file
index holds these at different commits (FILE_COMMITS); the repository's snapshot is over the fetch limit, so the
tests were read through the file index and transcribed to PROMPTFOO_EXTRACT (format in `_promptfoo`).

- Injected texts: the response carrying each test's attack as the test gives it (wrong or short answer, then the
  attack), each put into one of the held-out carriers, after it or between its sentences (fixed seed).
- Clean texts (held_out_5_clean): the responses written as ordinary answers, as they are (no carrier): every response
  of -edge-cases.yaml (brevity, hedging, bullet points, claimed expertise, meta-notes such as "This is a simplified
  explanation"), the baseline responses, and the other response of each pairwise attack test.

Injected texts sharing a run of eight words with external_tune, external_heldout, external_heldout_2,
external_heldout_3 or external_heldout_4 are dropped, as are exact repeats in either part; main() prints how many.

    python -m bench.injection_corpus_external_heldout5   # rewrites bench/data/injection_corpus_external_heldout5.jsonl
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from bench.injection_corpus_common import write_jsonl
from bench.injection_corpus_heldout_carriers import carry
from bench.injection_corpus_sources import (
    clean_row,
    injected_row,
    print_split_counts,
    promptfoo_blocks,
    promptfoo_group,
    shingles,
)

SEED = 2615
DATA = Path(__file__).resolve().parent / "data"
OUT = DATA / "injection_corpus_external_heldout5.jsonl"
READ_BEFORE = [DATA / "injection_corpus_external.jsonl", DATA / "injection_corpus_external_heldout.jsonl",
               DATA / "injection_corpus_external_heldout2.jsonl", DATA / "injection_corpus_external_heldout3.jsonl",
               DATA / "injection_corpus_external_heldout4.jsonl"]  # fmt: skip
PROMPTFOO_EXTRACT = Path("/tmp/inject6-sources/promptfoo-judge-prompt-injection-3.txt")
FILE_COMMITS = {  # test file -> the commit the file index holds it at
    "promptfooconfig-social-defended.yaml": "dd2f27d1d22a5ceb17cad02c9d808f9da781ae99",
    "promptfooconfig-model-comparison.yaml": "673ae4ad5bdf439f34d4e4f164637d3617f2b096",
    "promptfooconfig-edge-cases.yaml": "673ae4ad5bdf439f34d4e4f164637d3617f2b096",
    "promptfooconfig-default-grader.yaml": "dd2f27d1d22a5ceb17cad02c9d808f9da781ae99",
    "promptfooconfig-llm-rubric-test.yaml": "dd2f27d1d22a5ceb17cad02c9d808f9da781ae99",
    "promptfooconfig.yaml": "31bfcd611d9d72804cfd6ba7380bb709e8f0813f",
}
CATEGORIES = {  # test file -> category
    "promptfooconfig-social-defended.yaml": "judge-manipulation: promptfoo pairwise judge, social (defended prompt)",
    "promptfooconfig-model-comparison.yaml": "judge-manipulation: promptfoo pairwise judge, hard attacks",
    "promptfooconfig-edge-cases.yaml": "judged answers: promptfoo pairwise judge, edge cases",
    "promptfooconfig-default-grader.yaml": "judge-manipulation: promptfoo rubric grader, default prompt",
    "promptfooconfig-llm-rubric-test.yaml": "judge-manipulation: promptfoo rubric grader, llm-rubric test",
    "promptfooconfig.yaml": "judge-manipulation: promptfoo rubric grader, boundary failures",
}

Found = tuple[str, str, str, str, str, str]  # kind, category, group, text, source, licence


def _promptfoo() -> list[Found]:
    """The extract: a header line "@@@ <kind> | <file> | <description> | <metric>" before each response's text."""
    out: list[Found] = []
    for (kind, name, description, metric), body in promptfoo_blocks(
        PROMPTFOO_EXTRACT, "promptfoo/promptfoo's examples/judge-prompt-injection/ (FILE_COMMITS)"
    ):
        source = f"promptfoo/promptfoo@{FILE_COMMITS[name][:8]} examples/judge-prompt-injection/{name}"
        category = CATEGORIES[name]
        if kind == "clean":
            category = "judged answers: promptfoo " + category.split(": promptfoo ", 1)[1]
        out.append((kind, category, promptfoo_group(description, metric), body, source, "MIT"))
    return out


def built(rng: random.Random) -> tuple[list[dict[str, str]], dict[str, int]]:
    """The kept rows (injected, then clean), and how many texts each rule dropped."""
    before: set[tuple[str, ...]] = set()
    for path in READ_BEFORE:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                before |= shingles(json.loads(line)["text"])
    seen: set[tuple[str, str]] = set()
    out: list[dict[str, str]] = []
    counts: dict[tuple[str, str], int] = {}
    dropped = {"shares eight words with an earlier set": 0, "exact repeat": 0, "empty": 0}
    for kind, category, group, text, source, licence in _promptfoo():
        if not text:
            dropped["empty"] += 1
            continue
        if (kind, text) in seen:
            dropped["exact repeat"] += 1
            continue
        if kind == "injection" and shingles(text) & before:
            dropped["shares eight words with an earlier set"] += 1
            continue
        seen.add((kind, text))
        i = counts[(kind, category)] = counts.get((kind, category), -1) + 1
        if kind == "injection":
            out.append(injected_row("external_heldout_5", category, i, carry(rng, text), text, source, licence, group))
        else:
            out.append(clean_row("held_out_5_clean", category, i, text, source, licence, group))
    return out, dropped


def rows() -> list[dict[str, str]]:
    return built(random.Random(SEED))[0]


def main() -> None:
    kept, dropped = built(random.Random(SEED))
    write_jsonl(OUT, kept)
    print_split_counts(OUT, kept, dropped)


if __name__ == "__main__":
    main()
