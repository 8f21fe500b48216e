"""Deterministic defences for untrusted text: delimiter neutralization, chat-template markup broken up, and
prompt-injection detection.

The engine puts every untrusted block (a judged answer, passages, a question) between lines
`<<<BEGIN label nonce>>>` and `<<<END label nonce>>>`. `neutralize` makes sure the text inside can never
contain a run that reads like those delimiters. `break_chat_markup` keeps markup of the model's own chat template
(`<|im_end|>`) from reaching it as a real end of turn. `detect_injection` finds instructions aimed at the judge,
so a tool can flag them and refuse to approve on the model's word alone, whatever the model says.

All three are pure functions with no model involved: the model is the thing being attacked, so it cannot be
the only line of defence.

The parts: `text` (neutralize, break_chat_markup, and the normalization the rules read), `rules_english`, `rules_intl`
and `rules_world` (the phrases, by language), `concepts` (orders to a judge by their parts), `rules_reader` (orders to
any model reading the text, by their parts), `rules_hijack` (hijacks worded in an attacker's own words: padding, a
claimed password, takeovers, personas freed from the law, orders about the reader's answer or setup), `rules_judge`
(attacks on the judge itself: fake verdicts, orders to pick a response, fake notes from the evaluation's staff),
`rules_judge_asides` (asides to the judge: verdicts in markup, bracketed headers for the evaluation, claims under the
judge's label, orders to follow the text), `rules_tools` (orders about an agent's tools hidden in a tool description
or result: `<IMPORTANT>` blocks, a secret file passed into a call, hiding it from the user, redirected mail),
`disguises` (disguises undone into variants read again) and `injection` (the detector that reads them all).
"""

from typing import TYPE_CHECKING, Any

from gavel.tools.guards.text import break_chat_markup, neutralize

if TYPE_CHECKING:
    from gavel.tools.guards.injection import detect_injection

# The flag a result carries when the detector fires. It is here, not in `injection`, so a result model that names
# it does not compile the detector's phrase rules at a server's start (a tenth of Gavel's share of one on 2 cores).
PROMPT_INJECTION_FLAG = "prompt_injection_suspected"


def __getattr__(name: str) -> Any:
    # The detector is imported at its first use: a start and a tools/list never scan any text.
    if name == "detect_injection":
        from gavel.tools.guards.injection import detect_injection

        return detect_injection
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["PROMPT_INJECTION_FLAG", "break_chat_markup", "detect_injection", "neutralize"]
