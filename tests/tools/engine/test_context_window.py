"""A prompt longer than the model's window, recognised in each server's own words."""

from __future__ import annotations

import pytest

from gavel.tools.engine.backend import ChatReply
from gavel.tools.engine.context_window import Overflow, filled, refused, too_long

# Each server's wording, as its source writes it.
REFUSALS = [
    pytest.param(
        "request (20841 tokens) exceeds the available context size (8192 tokens), try increasing it",
        Overflow(20841, 8192), id="llama.cpp",
    ),
    pytest.param(
        "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens (4000 in the "
        "messages, 1000 in the completion). Please reduce the length of the messages or completion.",
        Overflow(5000, 4096), id="vllm",
    ),
    pytest.param(
        "This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens. "
        "Please reduce the length of the messages.",
        Overflow(130512, 128000), id="openai",
    ),
    pytest.param(
        "the prompt is longer than the context length currently available to the model; shorten the prompt, adjust "
        "the context length in settings, or use a model with a longer context length",
        Overflow(None, None), id="ollama",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("message", "overflow"), REFUSALS)
def test_each_servers_refusal_is_read_with_the_numbers_it_gives(message: str, overflow: Overflow) -> None:
    assert refused(message) == overflow


@pytest.mark.parametrize("message", ["CUDA out of memory", "response_format json_schema is not supported", ""])
def test_other_errors_are_not_read_as_a_long_prompt(message: str) -> None:
    assert refused(message) is None


def test_the_error_says_how_long_the_prompt_is_and_what_to_change() -> None:
    error = too_long(Overflow(20841, 8192), "the embedded model", "raise GAVEL_NUM_CTX (now 8192)")
    assert str(error) == (
        "the prompt (20,841 tokens) does not fit the context window of 8,192 tokens of the embedded model; shorten "
        "the judged text, its source or the passages, or raise GAVEL_NUM_CTX (now 8192)"
    )


@pytest.mark.parametrize(
    ("prompt", "cached", "written", "window", "expected"),
    [
        pytest.param(100, 7000, 1091, 8192, True, id="prompt-cached-and-written-fill-it"),
        pytest.param(100, 7000, 1090, 8192, False, id="one-token-to-spare"),
        pytest.param(None, None, 12, 8192, False, id="counts-missing"),
    ],
)
def test_a_reply_filled_the_window_when_its_tokens_reach_it(prompt, cached, written, window, expected) -> None:
    reply = ChatReply(text="", model="m", prompt_tokens=prompt, cached_prompt_tokens=cached, completion_tokens=written)
    assert filled(reply, window) is expected
