"""How to read a support reply's "does it answer every question the customer asked?" item by item: each question
of the source (a sentence ending in "?") asked against the reply, in five ways, on the embedded default. The
support-reply cases of the user-rubric splits already read (dev, fresh, fresh2, fresh3; never fresh4, held out),
each case's five versions.

    python -m bench.answered_wordings [way ...]   # writes bench/results/answered-wordings.json

Reports, per way, in how many cases the resolves-request version's mean P(answered) is below the good version's, and
below every other version's. A probe of wordings, not of the tool: `bench.user_rubrics` measures a rubric. None of the
ways was shipped (bench/README.md, "A support reply's questions, asked one by one").
"""

from __future__ import annotations

import asyncio
import statistics
import sys
from typing import Any

from bench.common import RESULTS_DIR, Run, say
from bench.user_rubrics import domain_rows
from gavel.tools.engine import prompts
from gavel.tools.engine.calls import Tally
from gavel.tools.engine.embedded import EmbeddedBackend
from gavel.tools.engine.judge import Judge
from gavel.tools.engine.one_token import Prefix, ask, document_prefix, user_prompt
from gavel.tools.engine.sentences import split_sentences
from tests.support.config import engine_config

SPLITS = ("dev", "fresh", "fresh2", "fresh3")
# way: (system text, instruction, the question's block label); the reply is the document.
ASKED = {
    "claim_covered": ("document_system", prompts.prompt_set().text["check_covered"], "Claim"),
    "document_answers": ("document_system", "Does the document answer the question? Answer Yes or No.", "Question"),
    "named": (
        "named_system",
        "What answer does the document give to this question? Answer with the answer, or None if it gives none.",
        "Question",
    ),
}
WITH_SOURCE = "Does the reply directly answer this question the customer asked? Answer Yes or No."
OWN_SYSTEM = "Answer the customer's question from the document in one short sentence."
WAYS = (*ASKED, "with_source", "own_answer")


def questions(source: str) -> list[str]:
    return [s for line in source.splitlines() for s in split_sentences(line) if s.rstrip().endswith("?")]


async def own_answer(judge: Judge, source: str, question: str) -> str:
    """The judge's answer to the question from the source alone, as judge_rag_answer's own answer is asked."""
    request = judge.calls.request(
        OWN_SYSTEM, document_prefix(source, question).section, None, seed=0, temperature=0.0, max_tokens=48, model=None
    )
    reply = await judge.calls.call(request, Tally(), step="own answer")
    lines = [line.strip() for line in reply.text.splitlines() if line.strip()]
    return lines[0] if lines else ""


async def p_answered(judge: Judge, way: str, reply: str, source: str, question: str, own: str) -> float:
    if way == "with_source":  # the source and the reply fenced under the general system text, the question after
        blocks = {"Policy and customer message": source, "Reply": reply}
        shared = Prefix(blocks, "\n\n".join(prompts.fenced(k, v) for k, v in blocks.items()))
        system, instruction, extra = "probability_system", WITH_SOURCE, {"Customer's question": question}
    elif way == "own_answer":  # does the reply state the judge's own answer (judge_rag_answer's completeness)?
        shared, system = document_prefix(reply, None), "document_system"
        instruction, extra = prompts.prompt_set().text["check_covered"], {"Claim": own}
    else:
        system, instruction, label = ASKED[way]
        shared, extra = document_prefix(reply, None), {label: question}
    user = user_prompt(shared, instruction, extra)
    readout = await ask(judge.calls, user, Tally(), model=None, system=system, names=system == "named_system")
    assert readout.value is not None, readout.reason
    return round(readout.value, 4)


async def probe(ways: tuple[str, ...]) -> list[dict[str, Any]]:
    judge = Judge(EmbeddedBackend(timeout_s=300), engine_config(call_deadline_s=86_400))
    records = []
    for split, row in domain_rows(SPLITS, "support-reply"):
        asked = questions(row["source"])
        own = [await own_answer(judge, row["source"], q) if "own_answer" in ways else "" for q in asked]
        record: dict[str, Any] = {"split": split, "case": row["case"], "version": row["version"], "own": own}
        for way in ways:
            pairs = zip(asked, own, strict=True)
            record[way] = [await p_answered(judge, way, row["text"], row["source"], q, o) for q, o in pairs]
        records.append(record)
        shown = " ".join(f"{w}={statistics.mean(record[w]):.2f}" for w in ways)
        say(f"  {split:7s} {row['case']:40s} {row['version']:18s} {shown}")
    return records


def figures(records: list[dict[str, Any]], ways: tuple[str, ...]) -> dict[str, Any]:
    by = {(r["case"], r["version"]): r for r in records}
    cases = sorted({r["case"] for r in records})
    out: dict[str, Any] = {}
    for way in ways:
        below_good = lowest = 0
        for c in cases:
            mean = {v: statistics.mean(by[(cc, v)][way]) for (cc, v) in by if cc == c}
            broken = mean["resolves_request"]
            below_good += broken < mean["good"]
            lowest += all(broken < m for v, m in mean.items() if v != "resolves_request")
        out[way] = {"below_good": f"{below_good}/{len(cases)}", "lowest": f"{lowest}/{len(cases)}"}
    return out


def main() -> None:
    ways = tuple(sys.argv[1:]) or WAYS
    run = Run("answered-wordings", RESULTS_DIR, smoke=False)
    records = asyncio.run(probe(ways))
    result = figures(records, ways)
    for key, value in result.items():
        say(f"{key:20s} {value}")
    say(f"wrote {run.write({'splits': SPLITS, 'ways': ways, 'figures': result, 'items': records})}")


if __name__ == "__main__":
    main()
