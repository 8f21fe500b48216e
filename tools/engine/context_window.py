"""A prompt longer than the model's context window, recognised in each server's own words.

llama.cpp, vLLM and OpenAI refuse such a prompt with an HTTP 400; Ollama cuts it to fit unless told not to
(ollama.py). Either way the judge cannot read the prompt it was given, so the check is unscored with
`context_too_long`, and the message says which limit to raise or which text to shorten: the error names the
backend's limit, not a fault of the server (before, it read "the model call failed ... check that it is
running").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gavel.tools.engine.backend import ChatReply
from gavel.tools.errors import ContextTooLong

_REFUSALS = (
    # llama.cpp's server (the embedded model, llama-server): "request (20841 tokens) exceeds the available context
    # size (8192 tokens), try increasing it"
    re.compile(r"\((?P<asked>\d+) tokens\) exceeds the available context size \((?P<window>\d+) tokens\)"),
    # OpenAI and vLLM: "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens",
    # "... your messages resulted in 5000 tokens", "... your request has 5000 input tokens"
    re.compile(
        r"maximum context length is (?P<window>\d+) tokens\. However, "
        r"(?:you requested|your messages resulted in|your request has) (?P<asked>\d+)"
    ),
    # Ollama with context shift off: "the prompt is longer than the context length currently available to the model"
    re.compile(r"prompt is longer than the context length"),
)


@dataclass(frozen=True)
class Overflow:
    asked: int | None  # the prompt's tokens, when the server said
    window: int | None  # the context window's tokens, when the server said


def refused(message: str) -> Overflow | None:
    """The overflow a server's error message reports, or None when the message is about something else."""
    for pattern in _REFUSALS:
        found = pattern.search(message)
        if found is not None:
            numbers = found.groupdict()
            return Overflow(_number(numbers.get("asked")), _number(numbers.get("window")))
    return None


def too_long(overflow: Overflow, model: str, raise_limit: str, *, cut_to: int | None = None) -> ContextTooLong:
    """The error for a prompt that does not fit; `raise_limit` says how to give the model a larger window, and
    `cut_to` is how many tokens a server that cuts such a prompt kept of it."""
    size = f" ({overflow.asked:,} tokens)" if overflow.asked is not None else ""
    window = f" of {overflow.window:,} tokens" if overflow.window is not None else ""
    cut = f" (the server cut it to {cut_to:,} tokens, so it was not judged)" if cut_to is not None else ""
    return ContextTooLong(
        f"the prompt{size} does not fit the context window{window} of {model}{cut}; shorten the judged text, its "
        f"source or the passages, or {raise_limit}"
    )


def filled(reply: ChatReply, window: int) -> bool:
    """Whether a reply used the whole window (its prompt, cached or not, and what it wrote): a server that stops
    there wrote less than it was asked to, for want of room."""
    used = (reply.prompt_tokens or 0) + (reply.cached_prompt_tokens or 0) + (reply.completion_tokens or 0)
    return used >= window - 1


def _number(text: str | None) -> int | None:
    return int(text) if text is not None else None
