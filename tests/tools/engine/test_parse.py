"""Reading model replies: what is taken out of prose, fences and thinking; and that no reply, however built,
costs more than time linear in its length or escapes as an exception."""

from __future__ import annotations

import time

import pytest
from pydantic import BaseModel

from gavel.tools.engine.parse import (
    MAX_REPLY_CHARS,
    clean_reply,
    explanation_before_score,
    last_score_line,
    parse_reply,
    strip_reasoning,
)

# A few hundredths of a second each when measured here; the quadratic scans these replace took seconds to
# minutes on the same shapes. The clock is this thread's CPU time, so a busy machine (the other test worker on
# a 2-core CI box) does not count against the bound; wall time once read 1.04 s for a 0.10 s scan.
BOUND_S = 1.0


class Reply(BaseModel):
    score: int
    explanation: str


def _fill(unit: str, size: int = MAX_REPLY_CHARS) -> str:
    return (unit * (size // len(unit) + 1))[:size]


def test_json_is_taken_out_of_prose_past_braces_that_are_not_objects() -> None:
    parsed = parse_reply('Use {braces} sparingly. {"score": 4, "explanation": "a } in a string"} done', Reply)
    assert parsed.value == Reply(score=4, explanation="a } in a string")
    assert parsed.repaired == "took the JSON object out of surrounding text"


def test_thinking_blocks_closed_nested_and_unclosed_are_dropped() -> None:
    text, steps = clean_reply('<think>a <think> b</think>{"score": 2, "explanation": "x"}<thinking>never closed')
    assert text == '{"score": 2, "explanation": "x"}'
    assert steps == ["stripped <think> block", "dropped unclosed <think> block"]
    assert strip_reasoning("Kept </think> text <THINK>gone</THINK> here") == "Kept </think> text  here"


def test_the_first_closed_fence_is_taken_and_an_unclosed_one_left_alone() -> None:
    assert clean_reply('Here:\n```json\n{"score": 1}\n``` and ```x```')[0] == '{"score": 1}'
    assert clean_reply("``` never closed")[0] == "``` never closed"


def test_the_last_score_line_and_its_explanation_are_read() -> None:
    reply = "Score: [number]\nExplanation: it cites the source.\n\n** Score **: 4\nScore: 3/5"
    assert last_score_line(reply) == 4
    assert explanation_before_score(reply) == "it cites the source."


@pytest.mark.parametrize(
    ("reply", "code"),
    [
        pytest.param("[" * 100_000, "reply_too_deep", id="array-nested-100000-deep"),
        pytest.param("Result: " + '{"a":' * 30_000, "reply_too_deep", id="object-nested-in-prose"),
        pytest.param(" " * (MAX_REPLY_CHARS + 1), "reply_too_long", id="over-the-cap"),
        pytest.param("{" * 20_000, "reply_not_json", id="unmatched-braces"),
        pytest.param("<think>" * 10, "reply_empty", id="only-thinking"),
        pytest.param('{"score": "high", "explanation": ""}', "reply_schema_mismatch", id="wrong-schema"),
    ],
)
def test_a_reply_that_yields_no_value_says_why_with_a_code(reply: str, code: str) -> None:
    parsed = parse_reply(reply, Reply)
    assert parsed.value is None and parsed.code == code and parsed.error


@pytest.mark.parametrize(
    "unit",
    [
        "{", "}", '{"', '{"a":', "[", "<think>", "</think>", "```", "\n", " ", "Score:\n", "** score ** : ** ",
        "Explanation:", "Explanation:\n", '"', "\\", '{"a": [1, {"b": "}', "[],",
    ],
)  # fmt: skip
def test_a_reply_at_the_size_cap_is_read_in_bounded_time_whatever_it_repeats(unit: str) -> None:
    for text in (_fill(unit), '{"a":[' * 40 + _fill(unit, MAX_REPLY_CHARS - 240)):
        started = time.thread_time()
        parse_reply(text, Reply)
        last_score_line(text)
        explanation_before_score(text)
        strip_reasoning(text)
        assert time.thread_time() - started < BOUND_S, f"{unit!r}: {time.thread_time() - started:.2f}s"
