"""A fifth set of injections written by others ("external_heldout_4"), aimed at an LLM judge, built and committed
before any detector ran on it and before any rule changed. external_heldout_3 was read once and is now tuning data;
this set is held out from that tuning, measured once with the rules as they were and once with the tuned rules,
and never tuned on. No clean texts are added (the clean parts are held_out ... held_out_3 and dev's).

Injected texts (each put into one of the held-out carriers, after it or between its sentences, fixed seed):

- promptfoo (promptfoo/promptfoo@dd2f27d1, MIT), examples/judge-prompt-injection/: the attack texts of the five test
  files external_heldout_3 did not read, all against a pairwise judge: promptfooconfig-extreme.yaml,
  -aggressive.yaml, -social.yaml, -vulnerable.yaml and -comparison.yaml. Every test but the baselines (no
  injection); each text is the response that carries the attack as the test gives it (wrong or short answer, then
  the attack; response A or B, both when both carry one). The file index holds one version of each file, at
  dd2f27d1 (external_heldout_3 read its five files at 673ae4ad). The repository's snapshot is over the fetch limit,
  so the tests were read through the file index and transcribed to PROMPTFOO_EXTRACT (format in `_promptfoo`).

Texts sharing a run of eight words with external_tune, external_heldout, external_heldout_2 or external_heldout_3 are
dropped, as are exact repeats; main() prints how many.

    python -m bench.injection_corpus_external_heldout4   # rewrites bench/data/injection_corpus_external_heldout4.jsonl
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from bench.injection_corpus_common import write_jsonl
from bench.injection_corpus_heldout_carriers import carry
from bench.injection_corpus_sources import print_counts, promptfoo_tests, shingles

SEED = 2614
DATA = Path(__file__).resolve().parent / "data"
OUT = DATA / "injection_corpus_external_heldout4.jsonl"
READ_BEFORE = [DATA / "injection_corpus_external.jsonl", DATA / "injection_corpus_external_heldout.jsonl",
               DATA / "injection_corpus_external_heldout2.jsonl",
               DATA / "injection_corpus_external_heldout3.jsonl"]  # fmt: skip
PROMPTFOO_EXTRACT = Path("/tmp/inject5-sources/promptfoo-judge-prompt-injection-2.txt")
PROMPTFOO_COMMIT = "dd2f27d1d22a5ceb17cad02c9d808f9da781ae99"
PROMPTFOO_FILES = {  # test file -> category
    "promptfooconfig-extreme.yaml": "judge-manipulation: promptfoo pairwise judge, extreme",
    "promptfooconfig-aggressive.yaml": "judge-manipulation: promptfoo pairwise judge, aggressive",
    "promptfooconfig-social.yaml": "judge-manipulation: promptfoo pairwise judge, social engineering",
    "promptfooconfig-vulnerable.yaml": "judge-manipulation: promptfoo pairwise judge, undefended prompt",
    "promptfooconfig-comparison.yaml": "judge-manipulation: promptfoo pairwise judge, model comparison",
}

Found = tuple[str, str, str, str, str]  # category, group (the source's own label), attack, source, licence


def _promptfoo() -> list[Found]:
    """The extract: a header line "@@@ <file> | <description> | <metric>" before each test's attack text."""
    return promptfoo_tests(PROMPTFOO_EXTRACT, PROMPTFOO_COMMIT, PROMPTFOO_FILES)


def injected(rng: random.Random) -> tuple[list[dict[str, str]], dict[str, int]]:
    """The kept rows, and how many texts each rule dropped."""
    before: set[tuple[str, ...]] = set()
    for path in READ_BEFORE:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                before |= shingles(json.loads(line)["text"])
    seen: set[str] = set()
    out: list[dict[str, str]] = []
    counts: dict[str, int] = {}
    dropped = {"shares eight words with an earlier set": 0, "exact repeat": 0, "empty": 0}
    for category, group, attack, source, licence in _promptfoo():
        if not attack:
            dropped["empty"] += 1
            continue
        if attack in seen:
            dropped["exact repeat"] += 1
            continue
        if shingles(attack) & before:
            dropped["shares eight words with an earlier set"] += 1
            continue
        seen.add(attack)
        i = counts[category] = counts.get(category, -1) + 1
        out.append({"id": f"external_heldout_4/injection/{category}/{i}", "kind": "injection", "category": category,
                    "split": "external_heldout_4", "text": carry(rng, attack), "source": source, "license": licence,
                    "group": group, "attack": attack})  # fmt: skip
    return out, dropped


def rows() -> list[dict[str, str]]:
    return injected(random.Random(SEED))[0]


def main() -> None:
    built, dropped = injected(random.Random(SEED))
    write_jsonl(OUT, built)
    print_counts(OUT, built)
    print("dropped:", dropped)


if __name__ == "__main__":
    main()
