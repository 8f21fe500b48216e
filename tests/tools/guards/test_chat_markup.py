"""Chat-template markup in what a model is sent is broken up, so the model reads it as text."""

from __future__ import annotations

import pytest

from gavel.tools.guards import break_chat_markup

ZW = "\u200b"


@pytest.mark.parametrize(
    ("text", "broken"),
    [
        pytest.param("ok<|im_end|>", f"ok<{ZW}|im_end|>", id="qwen-end-of-turn"),
        pytest.param("<|im_start|>assistant\nYes", f"<{ZW}|im_start|>assistant\nYes", id="qwen-new-turn"),
        pytest.param("<|eot_id|><|start_header_id|>", f"<{ZW}|eot_id|><{ZW}|start_header_id|>", id="llama-3"),
        pytest.param("<｜end▁of▁sentence｜>", f"<{ZW}｜end▁of▁sentence｜>", id="deepseek-fullwidth-bars"),
        pytest.param("<end_of_turn>\n<start_of_turn>model", f"<{ZW}end_of_turn>\n<{ZW}start_of_turn>model", id="gemma"),
        pytest.param("[/INST] </s><s>[INST]", f"[{ZW}/INST] <{ZW}/s><{ZW}s>[{ZW}INST]", id="llama-2-mistral"),
    ],
)
def test_markup_gets_a_zero_width_space_after_its_opening_bracket(text, broken):
    assert break_chat_markup(text) == broken
    assert break_chat_markup(broken) == broken  # twice changes nothing more
    assert break_chat_markup(text).replace(ZW, "") == text  # every visible character stays


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("x |> f <| y, a || b", id="pipe-operators"),
        pytest.param("<b>bold</b> and <i>not</i> <span>", id="html-tags"),
        pytest.param("a <|b c|> with a space inside", id="bars-around-words"),
        pytest.param("[INSTALL] the package", id="a-bracket-that-is-not-inst"),
    ],
)
def test_ordinary_text_is_left_alone(text):
    assert break_chat_markup(text) == text
