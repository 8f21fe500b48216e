"""One tool call's model calls remember the replies that are the same whenever asked (a one-token read of
probabilities, a given text's scores) and ask again for the rest: a generated reply is asked again to get another."""

from __future__ import annotations

from gavel.tools.engine.backend import ChatMessage, ChatRequest
from gavel.tools.engine.calls import Tally
from gavel.tools.engine.judge import Judge
from tests.support.config import engine_config
from tests.support.scripted import ScriptedBackend, yes_no

MESSAGES = (ChatMessage("system", "You check claims."), ChatMessage("user", "Is the sky green? Answer Yes or No."))


async def ask_twice(backend: ScriptedBackend, request: ChatRequest) -> None:
    calls = Judge(backend, engine_config()).calls
    for _ in range(2):
        await calls.call(request, Tally())


async def test_a_one_token_read_asked_twice_in_one_call_reaches_the_model_once():
    backend = ScriptedBackend(default=lambda request: yes_no(0.2), probabilities=True)
    await ask_twice(backend, ChatRequest(messages=MESSAGES, max_tokens=1, top_logprobs=20, temperature=0.0))
    assert len(backend.requests) == 1


async def test_a_generated_reply_asked_twice_reaches_the_model_twice():
    backend = ScriptedBackend(default="The sky is blue.")
    await ask_twice(backend, ChatRequest(messages=MESSAGES, max_tokens=64))
    assert len(backend.requests) == 2
