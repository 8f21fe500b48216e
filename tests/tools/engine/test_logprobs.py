"""The probability readouts on top-k log-probabilities as backends return them: the value, or unscored with a
reason code — never 0.5 by default."""

from __future__ import annotations

import math

import pytest

from gavel.tools.engine.backend import TokenLogprob
from gavel.tools.engine.logprobs import MIN_ANSWER_MASS, scale_expectation, single_token_values, yes_probability


def top(**probabilities: float) -> tuple[tuple[TokenLogprob, ...], ...]:
    return (tuple(TokenLogprob(token.replace("_", " "), math.log(p)) for token, p in probabilities.items()),)


def test_yes_probability_is_yes_over_yes_and_no():
    readout = yes_probability(top(Yes=0.6, No=0.3, The=0.1))
    assert readout.value == pytest.approx(2 / 3)
    assert readout.mass == pytest.approx(0.9)
    assert readout.distribution == pytest.approx({"yes": 2 / 3, "no": 1 / 3})


def test_case_and_leading_space_variants_count_as_the_same_answer():
    readout = yes_probability(top(Yes=0.4, _yes=0.1, YES=0.1, No=0.3, _No=0.1))
    assert readout.value == pytest.approx(0.6)


def test_no_answer_token_in_the_top_k_is_unscored_not_half():
    readout = yes_probability(top(The=0.7, Based=0.3))
    assert readout.value is None
    assert readout.reason_code == "answer_tokens_missing"
    assert "'The'" in (readout.reason or "")


def test_answer_tokens_holding_little_mass_are_unscored():
    readout = yes_probability(top(Yes=0.2, No=0.1, The=0.7))
    assert readout.value is None
    assert readout.reason_code == "answer_mass_low"
    assert readout.mass == pytest.approx(0.3) and readout.mass < MIN_ANSWER_MASS


@pytest.mark.parametrize("positions", [None, (), ((),)])
def test_no_log_probabilities_are_unscored(positions):
    assert yes_probability(positions).reason_code == "no_logprobs"


def test_a_scale_is_the_probability_weighted_mean_of_its_digits():
    readout = scale_expectation(top(**{"4": 0.5, "5": 0.3, "3": 0.2}), [1, 2, 3, 4, 5])
    assert readout.value == pytest.approx(4.1)
    assert readout.distribution["1"] == 0


def test_digits_outside_the_scale_do_not_count():
    readout = scale_expectation(top(**{"9": 0.6, "2": 0.4}), [1, 2, 3, 4, 5])
    assert readout.value is None and readout.reason_code == "answer_mass_low"


@pytest.mark.parametrize(
    ("low", "high", "integer", "expected"),
    [(1, 5, True, [1, 2, 3, 4, 5]), (0, 9, True, list(range(10))), (0, 10, True, None), (0, 1, False, None)],
)
def test_only_single_digit_integer_scales_are_read_as_digits(low, high, integer, expected):
    assert single_token_values(low, high, integer) == expected
