"""The one-token prompt layouts: what comes before the judged text decides what the prompt cache can share."""

from __future__ import annotations

from gavel.tools.engine import prompts
from gavel.tools.engine.one_token import document_prefix, user_prompt

SHARED = document_prefix("The Eiffel Tower was completed in 1889.", "When was it completed?")


def test_the_question_comes_last_by_default():
    text = user_prompt(SHARED, "Is the claim supported?", {"claim": "It was completed in 1889."})
    assert text.index("It was completed in 1889.") < text.index("Is the claim supported?")
    assert text.endswith("Is the claim supported?")


def test_question_first_puts_the_question_before_the_claim_and_the_reminder_last():
    text = user_prompt(SHARED, "Is the claim supported?", {"claim": "It was completed in 1889."}, question_first=True)
    assert text.index("Is the claim supported?") < text.index("It was completed in 1889.")
    assert text.endswith(prompts.prompt_set().text["answer_yes_no"])


def test_two_claims_share_everything_up_to_the_claim_with_question_first():
    one = user_prompt(SHARED, "Is the claim supported?", {"claim": "First claim."}, question_first=True)
    two = user_prompt(SHARED, "Is the claim supported?", {"claim": "Second claim."}, question_first=True)
    prefix = one[: one.index("First claim.")]
    assert two.startswith(prefix)
    assert "Is the claim supported?" in prefix
