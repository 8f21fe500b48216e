"""The deterministic sentence splitter behind judge_rag_answer's per-sentence checks."""

from __future__ import annotations

import pytest

from gavel.tools.engine.sentences import group, split_sentences


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Completed in 1889 [1]. Built for the fair [1].", ["Completed in 1889 [1].", "Built for the fair [1]."]),
        ("Completed in 1889. [1] Built for the fair.", ["Completed in 1889. [1]", "Built for the fair."]),
        ("Dr. Smith paid 7.8 million francs [2][3]. Really?", ["Dr. Smith paid 7.8 million francs [2][3].", "Really?"]),
        ("He lived in the U.S. and moved. J. K. Rowling wrote it.", ["He lived in the U.S. and moved.",
                                                                    "J. K. Rowling wrote it."]),
        ("- one item\n- two. Three!", ["one item", "two.", "Three!"]),
        ("Arthur's Magazine", ["Arthur's Magazine"]),
        ("It ended. then it went on.", ["It ended. then it went on."]),
        ("Text. [1]", ["Text. [1]"]),
    ],
)  # fmt: skip
def test_split_sentences(text, expected):
    assert split_sentences(text) == expected


def test_every_sentence_is_verbatim_from_the_text():
    text = "The tower (330 m) was finished in 1889 [1]. It was meant to be temporary!\n\nIt still stands [2]."
    assert all(sentence in text for sentence in split_sentences(text))


def test_a_long_answer_is_checked_in_runs_of_sentences():
    sentences = [f"Sentence {i}." for i in range(100)]
    runs = group(sentences, 40)
    assert len(runs) <= 40
    assert " ".join(runs) == " ".join(sentences)


def test_a_leading_clause_of_four_words_or_more_is_a_claim_of_its_own():
    from gavel.tools.engine.sentences import leading_clause

    assert (
        leading_clause("The capital of Australia is Sydney, its largest city.") == "The capital of Australia is Sydney"
    )
    assert leading_clause("In 1889, the tower opened.") is None
    assert leading_clause("It was completed in 1889.") is None
    assert leading_clause("The tower was finished in 1889, early.") is None


def test_a_sentence_joining_two_claims_is_split_at_the_joint_and_a_list_is_not():
    from gavel.tools.engine.sentences import clauses

    assert clauses("She sleeps only two hours, and she reports no sleep difficulties.") == [
        "She sleeps only two hours",
        "she reports no sleep difficulties.",
    ]
    assert clauses("Poor sleep, low energy, and fatigue.") == ["Poor sleep, low energy, and fatigue."]
    assert clauses("He naps; he sleeps well at night.") == ["He naps; he sleeps well at night."]
    assert clauses("They feel tired all the time, even though they've been eating more.") == [
        "They feel tired all the time",
        "they've been eating more.",
    ]


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("Dr. " * 50_000, id="abbreviations-that-end-no-sentence"),  # 100,000 characters: 97 s
        pytest.param("a, and b; " * 20_000, id="joints-without-claims"),  # 80,000 characters: 27 s
    ],
)
def test_a_line_at_the_length_limit_is_split_in_linear_time(text: str) -> None:
    # A guard against rescanning the line at every period or joint (quadratic), not a speed target: the bound is
    # far above the milliseconds this takes.
    import time

    from gavel.tools.engine.sentences import clauses, every_sentence

    started = time.perf_counter()
    assert [clauses(sentence) for sentence in every_sentence(text)]
    assert time.perf_counter() - started < 30
