"""The model-read injection screen (GAVEL_INJECTION_SCREEN=model): does the judged text speak to its grader, or to
the AI reading it?

The deterministic detector (guards/) reads phrases and concepts; injections written by others in forms it has not
seen pass it. This asks the judge model one Yes/No question of the judged text alone, after worked examples given as
earlier turns (judge.toml: injection_screen_system, injection_screen_question, injection_screen_example), and reads
P(yes) like every other check. At or above SCREEN_CUT the text is flagged as the detector flags it, so the result
is never approved or passed on the model's word alone. A screen that could not be read flags that instead
(`injection_screen_unscored`): it is no evidence either way, and says so. A judge without log-probabilities does
not ask it at all (`Judge.screen_injection`).
"""

from __future__ import annotations

from gavel.tools.engine import prompts
from gavel.tools.engine.backend import ChatMessage
from gavel.tools.engine.calls import ModelCalls, Tally
from gavel.tools.engine.logprobs import Readout
from gavel.tools.engine.one_token import ask
from gavel.tools.engine.scores import Usage
from gavel.tools.guards import PROMPT_INJECTION_FLAG

# The lowest cut with no clean text flagged among the 243 clean texts first read with the screen (77 of
# bench/injection_set.jsonl's dev split and two sets written by others); bench/README.md, "Injection, model-read".
SCREEN_CUT = 0.7
FLAGGED = "injection_screen_flagged"
UNSCORED = "injection_screen_unscored"
FINDING = "the judge model read the text as speaking to its grader"


def _asked(text: str) -> str:
    return f"{prompts.fenced('Text', text)}\n{prompts.prompt_set().text['injection_screen_question']}"


def messages(text: str) -> tuple[ChatMessage, ...]:
    """The system text, the worked examples as earlier turns, then the judged text."""
    turns = [ChatMessage("system", prompts.prompt_set().text["injection_screen_system"])]
    for example in prompts.screen_examples():
        turns += [ChatMessage("user", _asked(example["text"])), ChatMessage("assistant", example["answer"])]
    return (*turns, ChatMessage("user", _asked(text)))


async def screen(calls: ModelCalls, text: str, model: str | None) -> tuple[Readout, Usage]:
    """P(yes) that `text` speaks to its grader or the AI reading it, or the reason there is none."""
    tally = Tally()
    readout = await ask(
        calls, "", tally, model=model, step="the injection screen", messages=messages(text), purpose="screen"
    )
    return readout, tally.usage


def flags(readout: Readout) -> list[str]:
    """The judgment's flags from the screen's readout."""
    if readout.value is None:
        return [UNSCORED]
    return [PROMPT_INJECTION_FLAG, FLAGGED] if readout.value >= SCREEN_CUT else []
