"""Deterministic defences for untrusted text: delimiter neutralization and prompt-injection detection.

The engine puts every untrusted block (a judged answer, passages, a question) between lines
`<<<BEGIN label nonce>>>` and `<<<END label nonce>>>`. `neutralize` makes sure the text inside can never
contain a run that reads like those delimiters. `detect_injection` finds instructions aimed at the judge,
so a tool can flag them and refuse to approve on the model's word alone, whatever the model says.

Both are pure functions with no model involved: the model is the thing being attacked, so it cannot be
the only line of defence.

The parts: `text` (neutralize, and the normalization the rules read), `rules_english`, `rules_intl` and `rules_world`
(the phrases, by language), `concepts` (orders to a judge by their parts), `rules_reader` (orders to any model
reading the text, by their parts), `disguises` (disguises undone into variants read again) and `injection` (the
detector that reads them all).
"""

from gavel.tools.guards.injection import PROMPT_INJECTION_FLAG, detect_injection
from gavel.tools.guards.text import neutralize

__all__ = ["PROMPT_INJECTION_FLAG", "detect_injection", "neutralize"]
