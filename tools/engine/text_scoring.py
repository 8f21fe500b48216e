"""Scoring a given text on llama.cpp: the log-probability the model gives each token of a text it did not write.

llama.cpp's server returns log-probabilities only for tokens it generates (its completions endpoint has no
`echo`), so the text is made the one reply it can generate: the text is tokenized by the server's own tokenizer,
a grammar allows exactly those token ids in that order, and each generated token's log-probability is read.
llama.cpp computes that log-probability from the model's logits before the grammar applies, so it is the model's
own probability of that token at that place. A grammar over the text's characters instead lets the model spell
the text in odd pieces ("love" + "d" for "loved"), whose probabilities say little: the ids pin the tokenizer's
own spelling.

The grammar is written for llguidance, which the pinned xllamacpp build carries, rather than in GBNF: llguidance
computes each step's allowed tokens from a token trie instead of testing grammar rules against the vocabulary.
The log-probabilities are the same to the last digit; a forced token costs what a freely generated one does
(65-83 against 90-97 ms in GBNF on a 2-core AMD EPYC), and a clinical text's two readings side by side took 14-21 %
less time (bench/README.md, "Forcing a text with llguidance").
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gavel.tools.engine.backend import ChatRequest


def token_grammar(ids: Sequence[int]) -> str:
    """An llguidance (Lark) grammar that allows exactly these token ids, in order."""
    return "%llguidance {}\nstart: " + " ".join(f"<[{int(token)}]>" for token in ids)


def scoring_body(request: ChatRequest, ids: Sequence[int]) -> dict[str, Any]:
    """llama.cpp's chat body that makes `ids` the reply and returns each one's log-probability."""
    return {
        "messages": [{"role": m.role, "content": m.content} for m in request.messages],
        "temperature": 0.0,
        "max_tokens": len(ids),
        "logprobs": True,
        "top_logprobs": 1,
        "grammar": token_grammar(ids),
        "cache_prompt": True,
    }


def forced_logprobs(choice: dict[str, Any], ids: Sequence[int]) -> tuple[float, ...] | None:
    """Each forced token's log-probability, or None when the reply is not exactly `ids` (a server that ignored
    the grammar, or stopped early): then the numbers would not be the text's."""
    content = (choice.get("logprobs") or {}).get("content")
    if not isinstance(content, list) or len(content) < len(ids):
        return None
    values = []
    for token, position in zip(ids, content, strict=False):
        if not isinstance(position, dict) or position.get("id") != token:
            return None
        values.append(float(position["logprob"]))
    return tuple(values)
