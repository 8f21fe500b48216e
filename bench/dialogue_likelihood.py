"""How the likelihood readout should show a conversation: the nats a context adds to each Topical-Chat dev
response's log-likelihood, for several ways of showing the conversation and of leaving it out, read on the
embedded default through the backend's own text scoring (`ChatRequest.score_text`), then Spearman with each USR
dimension on all 60 responses, the first six conversations and the last four.

    python -m bench.dialogue_likelihood          # writes bench/results/dialogue-likelihood.json

A probe of layouts, not of the tool: `bench.rubric_agreement dialogue --rubric dialogue-response` measures the
rubric through `gavel serve`.
"""

from __future__ import annotations

import asyncio
import math
from typing import Any

from bench.common import RESULTS_DIR, Run, say
from bench.rubric_agreement import DIALOGUE_TUNE_CONVERSATIONS, DIMENSIONS, SHARED, dialogue_source, read_rows
from gavel.tools.calibration.stats import spearman
from gavel.tools.engine.backend import ChatMessage, ChatRequest
from gavel.tools.engine.embedded import EmbeddedBackend

CHAT = "You are chatting with a partner about a topic. Reply with the next turn of the conversation."
WRITE = "Write the response that follows the conversation."  # the shipped likelihood_system, filled


def turns(row: dict[str, Any], last: int | None = None) -> list[ChatMessage]:
    lines = [t.strip() for t in row["dialogue_history"].split(" \n ") if t.strip()][-(last or 0) :]
    end = len(lines) - 1
    return [ChatMessage("user" if (end - i) % 2 == 0 else "assistant", line) for i, line in enumerate(lines)]


def fact(row: dict[str, Any]) -> str:
    given = row["knowledge"].strip()
    return f"\nFact: {given}" if given and given != "_nofact" else ""


def layouts(row: dict[str, Any]) -> dict[str, list[ChatMessage]]:
    """Each reading's messages: 'turns_*' the conversation as chat turns, 'block' in one user message (the
    rubric's source as the judge sees it), 'without_*' no conversation."""
    return {
        "turns_chat": [ChatMessage("system", CHAT + fact(row)), *turns(row)],
        "turns_write": [ChatMessage("system", WRITE + fact(row)), *turns(row)],
        "turns_no_fact": [ChatMessage("system", WRITE), *turns(row)],
        "last_turn": [ChatMessage("system", WRITE), *turns(row, 1)],
        "last_3_turns": [ChatMessage("system", WRITE), *turns(row, 3)],
        "block": [ChatMessage("system", WRITE), ChatMessage("user", dialogue_source(row))],
        "without_hi_chat": [ChatMessage("system", CHAT), ChatMessage("user", "hi")],
        "without_hi": [ChatMessage("system", WRITE), ChatMessage("user", "hi")],
        "without": [ChatMessage("system", WRITE), ChatMessage("user", "(no conversation)")],  # shipped
    }


# (reading after the conversation, reading without it); None: the raw log-likelihood.
PAIRS = {
    "turns_chat - without_hi_chat": ("turns_chat", "without_hi_chat"),
    "turns_write - without (shipped)": ("turns_write", "without"),
    "turns_write - without_hi": ("turns_write", "without_hi"),
    "turns_no_fact - without": ("turns_no_fact", "without"),
    "last_turn - without": ("last_turn", "without"),
    "last_3_turns - without": ("last_3_turns", "without"),
    "block - without": ("block", "without"),
    "block - without_hi": ("block", "without_hi"),
    "turns_write alone": ("turns_write", None),
}


async def probe() -> list[dict[str, Any]]:
    backend = EmbeddedBackend(timeout_s=300)
    rows = read_rows(SHARED / "topicalchat_usr_dev.jsonl")
    sums: dict[str, dict[str, float]] = {row["id"]: {} for row in rows}
    tokens: dict[str, int] = {}
    # Layout by layout within a conversation: its six responses share the prompt, which llama.cpp's cache keeps.
    for conversation in dict.fromkeys(row["context_id"] for row in rows):
        group = [row for row in rows if row["context_id"] == conversation]
        for name in layouts(group[0]):
            for row in group:
                messages = tuple(layouts(row)[name])
                response = row["response"].strip()
                request = ChatRequest(messages=messages, max_tokens=1, top_logprobs=1, score_text=response)
                reply = await backend.chat(request)
                assert reply.text_logprobs is not None, "the embedded backend scores a given text"
                sums[row["id"]][name] = math.fsum(reply.text_logprobs)
                tokens[row["id"]] = len(reply.text_logprobs)
        say(f"  conversation {conversation}: {len(group)} responses")
    await backend.aclose()
    return [
        {
            "id": row["id"],
            "context_id": row["context_id"],
            "human": row["human_scores_mean3"],
            "tokens": tokens[row["id"]],
            "log_likelihood": sums[row["id"]],
        }
        for row in rows
    ]


def figures(records: list[dict[str, Any]]) -> dict[str, Any]:
    conversations = list(dict.fromkeys(r["context_id"] for r in records))
    tune = set(conversations[:DIALOGUE_TUNE_CONVERSATIONS])
    parts = {"all": records, "tune": [r for r in records if r["context_id"] in tune]}
    parts["heldout"] = [r for r in records if r["context_id"] not in tune]

    def nats(record: dict[str, Any], after: str, without: str | None) -> float:
        sums = record["log_likelihood"]
        return sums[after] - (sums[without] if without else 0.0)

    table = {
        name: {
            part: {dim: spearman([(r["human"][dim], nats(r, *pair)) for r in chosen]) for dim in DIMENSIONS}
            for part, chosen in parts.items()
        }
        for name, pair in PAIRS.items()
    }
    return {"tune_conversations": sorted(tune), "spearman": table}


def main() -> None:
    run = Run("dialogue-likelihood", RESULTS_DIR, smoke=False)
    records = asyncio.run(probe())
    path = run.write({"pairs": PAIRS, **figures(records), "items": records})
    say(f"wrote {path}")


if __name__ == "__main__":
    main()
