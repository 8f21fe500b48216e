"""bench.forced_grammar: the sums leave the first text (model load, warm-up) out and say what share was saved."""

from __future__ import annotations

from bench.forced_grammar import figures, gbnf
from gavel.tools.engine.text_scoring import token_grammar


def _record(text: int, grammar: str, seconds: float, tokens: int = 10) -> dict[str, object]:
    return {"text": text, "grammar": grammar, "seconds": seconds, "tokens": tokens}


def test_the_first_text_is_left_out_and_the_saving_is_the_share_of_gbnf_time():
    records = [_record(0, "gbnf", 99.0), _record(0, "llguidance", 1.0)]
    records += [_record(1, "gbnf", 2.0), _record(1, "llguidance", 1.5), _record(2, "llguidance", 1.5)]
    records += [_record(2, "gbnf", 2.0)]
    same = [{"identical": True}, {"identical": False}]
    result = figures(records, same)
    assert result["texts_timed"] == 2
    assert result["seconds"] == {"gbnf": 4.0, "llguidance": 3.0}
    assert result["saving"] == 0.25
    assert result["ms_per_token_pair"] == {"gbnf": 200.0, "llguidance": 150.0}
    assert result["identical_logprobs"] == "1 of 2"


def test_both_grammars_force_the_same_ids_in_order():
    assert gbnf([5, 7]) == "root ::= <[5]> <[7]>"
    assert token_grammar([5, 7]).endswith("start: <[5]> <[7]>")
