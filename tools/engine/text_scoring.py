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
from dataclasses import dataclass
from typing import Any, NamedTuple

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


class TextToken(NamedTuple):
    """One token of a given text, as llama.cpp's tokenizer spells it: its id and its bytes (a piece of a
    character when the tokenizer splits one, such as an emoji or a CJK character after a space)."""

    id: int
    piece: bytes


def text_token(entry: Any) -> TextToken:
    """One entry of llama.cpp's /tokenize with pieces: the piece is text, or a list of bytes when it ends inside
    a character. Anything else raises ValueError or TypeError, which the caller reports."""
    token, piece = entry["id"], entry["piece"]
    if not isinstance(token, int) or isinstance(token, bool):
        raise TypeError(f"token id {token!r} is not an integer")
    if isinstance(piece, str):
        return TextToken(token, piece.encode("utf-8"))
    if not isinstance(piece, list):
        raise TypeError(f"token piece {piece!r} is neither text nor bytes")
    return TextToken(token, bytes(piece))


@dataclass(frozen=True)
class ForcedReading:
    """The log-probabilities llama.cpp reported for a forced text, in order; how many of its tokens it reported
    none for; and where each reported entry's bytes end in the text's UTF-8, so a reading can be told apart by
    sentence."""

    logprobs: tuple[float, ...]
    unread: int
    ends: tuple[int, ...] = ()


def forced_logprobs(choice: dict[str, Any], tokens: Sequence[TextToken]) -> ForcedReading | None:
    """Each forced token's log-probability, or None when the reply is not exactly `tokens` (a server that ignored
    the grammar, or stopped early): then the numbers would not be the text's.

    llama.cpp holds back a token that ends inside a character until the token that completes it, and reports the
    two as one entry: the bytes of both, the id and log-probability of the last. The earlier pieces' own
    log-probabilities are not reported anywhere, so they are counted as unread, never guessed. Each entry is
    matched to the tokens by its bytes, and its id must be the last token's."""
    content = (choice.get("logprobs") or {}).get("content")
    if not isinstance(content, list):
        return None
    values: list[float] = []
    ends: list[int] = []
    unread = 0
    at = 0
    spelled = 0
    for entry in content:
        if at == len(tokens):
            break
        if not isinstance(entry, dict) or not isinstance(entry.get("logprob"), int | float):
            return None
        size = _group(entry, tokens, at)
        if size is None:
            return None
        values.append(float(entry["logprob"]))
        spelled += sum(len(tokens[k].piece) for k in range(at, at + size))
        ends.append(spelled)
        unread += size - 1
        at += size
    return ForcedReading(tuple(values), unread, tuple(ends)) if at == len(tokens) else None


def _group(entry: dict[str, Any], tokens: Sequence[TextToken], at: int) -> int | None:
    """How many tokens from `at` this entry reports, or None when it matches none."""
    shown = entry.get("bytes")
    if not isinstance(shown, list):
        # A server that gives no bytes: one entry per token, or no match.
        return 1 if entry.get("id") == tokens[at].id else None
    try:
        want = bytes(shown)
    except (TypeError, ValueError):
        return None  # not a list of bytes: nothing to match
    spelled = b""
    for end in range(at, len(tokens)):
        spelled += tokens[end].piece
        if len(spelled) >= len(want):
            return end - at + 1 if spelled == want and entry.get("id") == tokens[end].id else None
    return None
