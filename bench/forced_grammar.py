"""How long a likelihood reading takes with the text forced by a GBNF grammar or by an llguidance one.

A likelihood reading (clinical specificity, the dialogue dimensions) makes llama.cpp generate the judged text token
by token under a grammar that allows only the text's own token ids (`engine/text_scoring.py`), once after the
source and once without it, side by side. This times both readings of each clinical dev assessment through
Gavel's own `EmbeddedBackend` (two generation slots and the checks' slot, as `gavel serve` builds it) with each
grammar, the first of the two alternating by text so the machine's drift falls on both alike. Then it reads a
few texts once more, one reading at a time with the same prompt under each grammar, and compares the
log-probabilities the two give (the side-by-side readings differ in their prompts, so they are not compared).

    python -m bench.forced_grammar [--texts 10] [--compared 4]   # writes bench/results/forced-grammar.json
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Callable, Sequence
from typing import Any

import anyio

from bench.common import RESULTS_DIR, Run, say, table
from bench.rubric_agreement import CLINICAL, read_rows
from gavel.tools.engine import prompts, text_scoring
from gavel.tools.engine.backend import ChatMessage, ChatRequest

LLGUIDANCE = text_scoring.token_grammar


def gbnf(ids: Sequence[int]) -> str:
    """The GBNF form Gavel used before llguidance."""
    return "root ::= " + " ".join(f"<[{int(token)}]>" for token in ids)


GRAMMARS: dict[str, Callable[[Sequence[int]], str]] = {"gbnf": gbnf, "llguidance": LLGUIDANCE}


async def both_readings(
    backend: Any, given: tuple[ChatMessage, ...], alone: tuple[ChatMessage, ...], text: str
) -> dict[str, float]:
    """The two readings side by side, as `engine/likelihood.py` makes them: each one's summed log-probability."""
    sums: dict[str, float] = {}

    async def read(key: str, messages: tuple[ChatMessage, ...]) -> None:
        reply = await backend.chat(ChatRequest(messages=messages, max_tokens=1, top_logprobs=1, score_text=text))
        assert reply.text_logprobs is not None
        sums[key] = math.fsum(reply.text_logprobs)
        sums["tokens"] = len(reply.text_logprobs)

    async with anyio.create_task_group() as tg:
        tg.start_soon(read, "after", given)
        tg.start_soon(read, "without", alone)
    return sums


async def measure(texts: int, compared: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    from gavel.tools.engine.embedded import EmbeddedBackend

    rows = read_rows(CLINICAL)[:texts]
    labels = {"subject": "assessment", "source_label": "transcript"}
    texts_ = prompts.prompt_set()
    system = ChatMessage("system", texts_.fill("likelihood_system", **labels))
    backend = EmbeddedBackend(timeout_s=600, parallel=2)
    records = []
    try:
        for index, row in enumerate(rows):
            order = list(GRAMMARS) if index % 2 == 0 else list(reversed(GRAMMARS))
            for name in order:
                text_scoring.token_grammar = GRAMMARS[name]  # the backend builds its body through this function
                # The grammar's name at the end of each prompt: both are evaluated anew, as in a real call.
                given = (system, ChatMessage("user", f"{row['source']}\n({name})"))
                alone = (system, ChatMessage("user", texts_.fill("likelihood_without", **labels) + f" ({name})"))
                started = time.perf_counter()
                sums = await both_readings(backend, given, alone, row["assessment"])
                seconds = time.perf_counter() - started
                records.append({"text": index, "case": row["case"], "version": row["version"], "grammar": name,
                                "seconds": round(seconds, 3), **sums})  # fmt: skip
                say(f"  {row['case']} {row['version']} {name}: {seconds:.2f} s, {int(sums['tokens'])} tokens")
        same = []
        for row in rows[:compared]:
            given = (system, ChatMessage("user", row["source"]))
            read = {}
            # A first reading caches the prompt, so the compared two both start from the cache: a prompt evaluated
            # in the same call gives its last token's logits from another matrix kernel, a few digits apart.
            for name in ("gbnf", *GRAMMARS):
                text_scoring.token_grammar = GRAMMARS[name]
                request = ChatRequest(messages=given, max_tokens=1, top_logprobs=1, score_text=row["assessment"])
                read[name] = (await backend.chat(request)).text_logprobs
            identical = read["gbnf"] == read["llguidance"]
            sums = {name: math.fsum(v or ()) for name, v in read.items()}
            same.append({"case": row["case"], "version": row["version"], "identical": identical, "sums": sums})
    finally:
        text_scoring.token_grammar = LLGUIDANCE
        await backend.aclose()
    return records, same


def figures(records: list[dict[str, Any]], same: list[dict[str, Any]]) -> dict[str, Any]:
    # The first text also pays for loading the model and warming llama.cpp up: left out of the sums.
    timed = [r for r in records if r["text"] > 0]
    seconds = {name: round(sum(r["seconds"] for r in timed if r["grammar"] == name), 2) for name in GRAMMARS}
    tokens = sum(r["tokens"] for r in timed if r["grammar"] == "gbnf")
    return {
        "texts_timed": len(timed) // len(GRAMMARS),
        "seconds": seconds,
        "ms_per_token_pair": {name: round(1000 * value / tokens, 1) for name, value in seconds.items()},
        "saving": round(1 - seconds["llguidance"] / seconds["gbnf"], 3),
        "identical_logprobs": f"{sum(r['identical'] for r in same)} of {len(same)}",
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--texts", type=int, default=10)
    parser.add_argument("--compared", type=int, default=4, help="texts read alone under both grammars")
    args = parser.parse_args()
    run = Run("forced-grammar", RESULTS_DIR, smoke=False)
    records, same = anyio.run(measure, args.texts, args.compared)
    result = figures(records, same)
    say(table(["grammar", "seconds (both readings, all texts but the first)"], list(result["seconds"].items())))
    say(f"saving {result['saving']:.1%}; identical log-probabilities: {result['identical_logprobs']}")
    payload = {"args": vars(args), "figures": result, "records": records, "compared": same}
    say(f"written {run.write(payload)}")


if __name__ == "__main__":
    main()
