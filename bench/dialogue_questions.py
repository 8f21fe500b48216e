"""Which yes/no questions follow the people's dialogue ratings: P(yes) of each candidate question for every
Topical-Chat dev response, read on the embedded default through the engine's own check (one `Judge.yes_no`,
the conversation and fact fenced as the shared prefix), then Spearman with each USR dimension, on the first six
conversations (where questions are chosen) and on the last four (held out from the choice).

    python -m bench.dialogue_questions            # writes bench/results/dialogue-questions.json

A probe of questions, not of the tool: `bench.rubric_agreement dialogue --rubric dialogue-response` measures the
rubric built from what this chose, through `gavel serve`.
"""

from __future__ import annotations

import asyncio
from typing import Any

from bench.common import RESULTS_DIR, Run, say
from bench.rubric_agreement import DIALOGUE_TUNE_CONVERSATIONS, DIMENSIONS, SHARED, dialogue_source, read_rows
from gavel.tools.calibration.stats import spearman
from gavel.tools.engine import prompts
from gavel.tools.engine.embedded import EmbeddedBackend
from gavel.tools.engine.judge import Judge
from gavel.tools.engine.one_token import Prefix, yes_no
from tests.support.config import engine_config

QUESTIONS = {
    "fact": "Does the response use the fact it was given?",
    "last": "Does the response directly reply to the last message of the conversation?",
    "new": "Does the response add a new piece of information or an opinion?",
    "asks": "Does the response ask the partner a question?",
    "fluent": "Is the response fluent, grammatical English?",
    "person": "Could a friendly, interested person have written this response?",
    "generic": "Is the response generic, so that it could follow almost any message?",
    "good": "Is the response a good next turn for this conversation?",
    "interest": "Is the response interesting?",
    "repeat": "Does the response repeat something already said in the conversation?",
    "sense": "Does the response make sense?",
}
LABEL = "conversation and fact"


async def probe() -> list[dict[str, Any]]:
    judge = Judge(EmbeddedBackend(timeout_s=300), engine_config(call_deadline_s=86_400))
    texts = prompts.prompt_set()
    rows = read_rows(SHARED / "topicalchat_usr_dev.jsonl")
    records = []
    for row in rows:
        source = dialogue_source(row)
        shared = Prefix({LABEL: source}, prompts.fenced(LABEL, source))
        p_yes = {}
        for key, question in QUESTIONS.items():
            instruction = texts.fill("probability_question", question=question)
            readout, _ = await yes_no(judge.calls, shared, instruction, extra={"response": row["response"].strip()})
            p_yes[key] = readout.value
        records.append({"id": row["id"], "context_id": row["context_id"], "human": row["human_scores_mean3"],
                        "words": len(row["response"].split()), "p": p_yes})  # fmt: skip
        say(f"  {len(records)}/{len(rows)} {row['id'][:40]}")
    return records


def figures(records: list[dict[str, Any]]) -> dict[str, Any]:
    conversations = list(dict.fromkeys(r["context_id"] for r in records))
    tune = set(conversations[:DIALOGUE_TUNE_CONVERSATIONS])
    parts = {"tune": [r for r in records if r["context_id"] in tune]}
    parts["heldout"] = [r for r in records if r["context_id"] not in tune]

    def rho(chosen: list[dict[str, Any]], dim: str, key: str) -> float | None:
        return spearman([(r["human"][dim], r["words"] if key == "words" else r["p"][key]) for r in chosen])

    table = {
        part: {key: {dim: rho(chosen, dim, key) for dim in DIMENSIONS} for key in [*QUESTIONS, "words"]}
        for part, chosen in parts.items()
    }
    return {"tune_conversations": sorted(tune), "spearman": table}


def main() -> None:
    run = Run("dialogue-questions", RESULTS_DIR, smoke=False)
    records = asyncio.run(probe())
    path = run.write({"questions": QUESTIONS, **figures(records), "items": records})
    say(f"wrote {path}")


if __name__ == "__main__":
    main()
