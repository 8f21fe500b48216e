"""Probe, not kept: does the likelihood readout see a contradiction? For the good and the `coherence` version of
each clinical tuning case, each sentence's nats from the assessment's own earlier sentences: its log-probability
inside the whole assessment minus its log-probability alone, both after the transcript (`ctx_src`) and after
"(no transcript)" (`ctx_no`). A sentence that contradicts what came before should gain less. A sentence of a
coherence version that its good version lacks is a contradiction (`contra`).

    python -m bench.coherence_likelihood      # writes bench/results/coherence-likelihood-tune.json
"""

from __future__ import annotations

import asyncio
import json
import math
from typing import Any

from bench.common import RESULTS_DIR, Run, say
from bench.rubric_agreement import CLINICAL, read_rows
from gavel.tools.engine import prompts
from gavel.tools.engine.backend import ChatMessage, ChatReply, ChatRequest
from gavel.tools.engine.embedded import EmbeddedBackend
from gavel.tools.engine.sentence_gain import sentence_gains
from gavel.tools.engine.sentences import every_sentence


async def probe() -> list[dict[str, Any]]:
    backend = EmbeddedBackend(timeout_s=300, parallel=2)
    texts = prompts.prompt_set()
    labels = {"subject": "assessment", "source_label": "transcript"}
    system = ChatMessage("system", texts.fill("likelihood_system", **labels))
    rows = read_rows(CLINICAL)
    rows = [r for r in rows if r["split"] == "tune" and r["version"] in ("good", "coherence")]
    good = {r["case"]: set(every_sentence(r["assessment"])) for r in rows if r["version"] == "good"}

    async def read(user: str, text: str) -> ChatReply:
        request = ChatRequest(
            messages=(system, ChatMessage("user", user)), max_tokens=1, top_logprobs=1, score_text=text
        )
        reply = await backend.chat(request)
        assert reply.text_logprobs is not None
        return reply

    def inside(reply: ChatReply, text: str) -> list[float]:
        assert reply.text_logprobs is not None
        zeros = [0.0] * len(reply.text_logprobs)
        gains = sentence_gains(text, reply.text_ends, reply.text_logprobs, zeros)
        assert gains is not None
        return [gain.nats for gain in gains]

    records = []
    without = texts.fill("likelihood_without", **labels)
    for row in rows:
        text = row["assessment"]
        layouts = {"ctx_src": row["source"], "ctx_no": without}
        whole = {name: inside(await read(user, text), text) for name, user in layouts.items()}
        for k, sentence in enumerate(every_sentence(text)):
            record = {"case": row["case"], "version": row["version"], "k": k, "sentence": sentence,
                      "contra": row["version"] == "coherence" and sentence not in good[row["case"]]}  # fmt: skip
            for name, user in layouts.items():
                alone = await read(user, sentence)
                assert alone.text_logprobs is not None
                record[name] = whole[name][k] - math.fsum(alone.text_logprobs)
                record["tokens"] = len(alone.text_logprobs)
            records.append(record)
            say(f"  {row['case']} {row['version']} {int(record['contra'])} {record['ctx_no']:+6.1f}  {sentence[:60]}")
    await backend.aclose()
    return records


def auroc(records: list[dict[str, Any]], key: str, per_token: bool = False) -> float:
    """P(a contradiction gains less than another sentence), first sentences left out (nothing before them)."""
    later = [r for r in records if r["k"] > 0]
    value = [r[key] / r["tokens"] if per_token else r[key] for r in later]
    pos = [v for v, r in zip(value, later, strict=True) if r["contra"]]
    neg = [v for v, r in zip(value, later, strict=True) if not r["contra"]]
    wins = sum((p < n) + 0.5 * (p == n) for p in pos for n in neg)
    return round(wins / (len(pos) * len(neg)), 3)


def main() -> None:
    run = Run("coherence-likelihood-tune", RESULTS_DIR, smoke=False)
    records = asyncio.run(probe())
    result = {f"{key}{' per token' if per else ''}": auroc(records, key, per)
              for key in ("ctx_src", "ctx_no") for per in (False, True)}  # fmt: skip
    say(json.dumps(result))
    say(f"wrote {run.write({'auroc': result, 'items': records})}")


if __name__ == "__main__":
    main()
