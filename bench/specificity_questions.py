"""Which yes/no question tells a vague sentence of a clinical assessment from a precise one: P(yes) of each candidate
question for every sentence of the good and the specificity-broken versions of the clinical dev cases, read on the
embedded default as the `sentence` check kind reads it (engine/checks.py: the sentence alone, `probability_question`).
A sentence is vague when it appears in the specificity version only.

    python -m bench.specificity_questions [tune|heldout] [--source | --first]

writes bench/results/specificity-questions-<split>.json. `--source` asks SOURCE_QUESTIONS instead: each sentence as
the claim against the transcript as the document, as the `supported` kind asks (the fact checker's system text,
the question before the claim), since the rubric calls a statement vague "where the transcript allows something
precise"; it writes specificity-questions-source-<split>.json. `--first` asks QUESTIONS before the sentence, as the
shipped `sentence` checks do (`checks.question_first`), and writes specificity-questions-first-<split>.json.

Reports, per question: AUROC of P(mistake) for vague against precise sentences, and in how many cases the
specificity version's counted mistakes (the rubric's floor applied, by `checks.counted`) exceed the good one's.
A probe of questions, not of the tool: `bench.rubric_agreement clinical` measures the rubric built from the choice.
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

from bench.common import RESULTS_DIR, Run, say
from bench.consistency_claims import auroc
from bench.rubric_agreement import CLINICAL
from gavel.tools.engine import prompts
from gavel.tools.engine.checks import counted
from gavel.tools.engine.embedded import EmbeddedBackend
from gavel.tools.engine.judge import Judge
from gavel.tools.engine.one_token import Prefix, document_prefix, yes_no
from gavel.tools.engine.sentences import split_sentences
from tests.support.config import engine_config

# (question, the answer that is the mistake)
QUESTIONS = {
    "precise": (
        "Does this sentence give a precise detail, such as a number, a time, a duration, a frequency, a named "
        "activity or the patient's own words?",
        "no",
    ),
    "number": ("Does this sentence state a number, a date, or how often or how long something happens?", "no"),
    "vague": ("Is this sentence vague, so that it could describe almost any patient?", "yes"),
    "hedged": ("Does this sentence hedge with words like 'some', 'seems', 'appears', 'somewhat' or 'lately'?", "yes"),
    "specific": ("Is this sentence specific?", "no"),
    "anyone": ("Could this sentence be said of almost any depressed patient?", "yes"),
    "concrete": (
        "Does this sentence name something concrete that happened, such as an activity, an amount, a time or a quote?",
        "no",
    ),
}
# Asked of each sentence against the transcript (`--source`).
SOURCE_QUESTIONS = {
    "more_precise": (
        "Does the document say something more precise about the claim's topic than the claim does, such as a "
        "number, a time, a frequency or the patient's own words that the claim leaves out?",
        "yes",
    ),
    "as_precise": (
        "Is the claim as precise as the document: does it keep the document's numbers, times, frequencies and own "
        "words about its topic?",
        "no",
    ),
    "detail_from": (
        "Does the claim give a precise detail from the document, such as a number, a time, a duration, a "
        "frequency, a named activity or the patient's own words?",
        "no",
    ),
}
FLOOR = 0.2  # judge.toml check_floor.sentence


async def probe(
    split: str, questions: dict[str, tuple[str, str]], against_source: bool, first: bool = False
) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in CLINICAL.read_text().splitlines() if line.strip()]
    rows = [r for r in rows if r["split"] == split and r["version"] in ("good", "specificity")]
    good = {r["case"]: set(split_sentences(r["assessment"])) for r in rows if r["version"] == "good"}
    judge = Judge(EmbeddedBackend(timeout_s=300), engine_config(call_deadline_s=86_400))
    texts = prompts.prompt_set()
    records = []
    for row in rows:
        for sentence in split_sentences(row["assessment"]):
            p_mistake = {}
            for key, (question, mistake) in questions.items():
                if against_source:
                    readout, _ = await yes_no(judge.calls, document_prefix(row["source"], None),
                                              f"{question} Answer Yes or No.", extra={"claim": sentence},
                                              question_first=True)  # fmt: skip
                else:
                    instruction = texts.fill("probability_question", question=question)
                    readout, _ = await yes_no(judge.calls, Prefix({}, ""), instruction, extra={"sentence": sentence},
                                              question_first=first)  # fmt: skip
                p = readout.value
                p_mistake[key] = None if p is None else (p if mistake == "yes" else 1 - p)
            vague = row["version"] == "specificity" and sentence not in good[row["case"]]
            records.append({"case": row["case"], "version": row["version"], "sentence": sentence,
                            "vague": int(vague), "p_mistake": p_mistake})  # fmt: skip
            say(f"  {len(records)} {row['case']} {row['version']} {sentence[:60]}")
    return records


def figures(records: list[dict[str, Any]], questions: dict[str, tuple[str, str]]) -> dict[str, Any]:
    out = {}
    cases = sorted({r["case"] for r in records})
    for key in questions:
        vague = [r["p_mistake"][key] for r in records if r["vague"] and r["p_mistake"][key] is not None]
        precise = [r["p_mistake"][key] for r in records if not r["vague"] and r["p_mistake"][key] is not None]
        more = 0
        for case in cases:
            chosen = [r for r in records if r["case"] == case]
            total = {
                v: sum(counted(r["p_mistake"][key] or 0.0, FLOOR) for r in chosen if r["version"] == v)
                for v in ("good", "specificity")
            }
            more += total["specificity"] > total["good"]
        out[key] = {"auroc": auroc(vague, precise), "broken_more_mistakes": f"{more}/{len(cases)}"}
    return out


def main() -> None:
    args = [a for a in sys.argv[1:] if a not in ("--source", "--first")]
    split = args[0] if args else "tune"
    against_source = "--source" in sys.argv[1:]
    first = "--first" in sys.argv[1:]
    questions = SOURCE_QUESTIONS if against_source else QUESTIONS
    name = f"specificity-questions-{'source-' if against_source else 'first-' if first else ''}{split}"
    run = Run(name, RESULTS_DIR, smoke=False)
    records = asyncio.run(probe(split, questions, against_source, first))
    result = figures(records, questions)
    for key, value in result.items():
        say(f"{key:10s} {value}")
    path = run.write({"split": split, "questions": questions, "figures": result, "items": records})
    say(f"wrote {path}")


if __name__ == "__main__":
    main()
