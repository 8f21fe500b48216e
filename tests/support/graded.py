"""A scripted model for the graded dialogue set (topicalchat-usr): digit replies with log-probabilities (or, for a
yes/no check, P(yes) on the same 1-5 position), either following the people's `overall` rating of the judged
response or fixed by its text alone (blind to the rating)."""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable

from gavel.tools.calibration.sets import DATA_DIR
from gavel.tools.engine.backend import ChatReply, ChatRequest
from tests.support.scripted import ScriptedBackend, token_reply, yes_no

DIALOGUE = [json.loads(line) for line in (DATA_DIR / "topicalchat-usr.jsonl").read_text(encoding="utf-8").splitlines()]
PEOPLE = {row["assessment"]: row["score"] for row in DIALOGUE}
# A next turn no calibration item has: what a later evaluate_assessment call judges.
HELD_OUT_SOURCE = (
    "Conversation:\ndo you like jazz ?\nyes , miles davis mostly .\n\nFact: Kind of Blue was recorded in 1959."
)
HELD_OUT_RESPONSE = "kind of blue is from 1959 , have you heard it all the way through ?"


def judged_text(request: ChatRequest) -> str:
    """The judged response: the last fenced block of the prompt."""
    return request.messages[-1].content.rsplit("<<<\n", 1)[1].split("\n>>>", 1)[0].strip()


def expecting(score: float, request: ChatRequest | None = None) -> ChatReply:
    """Digits whose probability-weighted mean is `score` (mass on its two neighbouring digits); for a yes/no check
    (the rubric reads some dimensions as one question), P(yes) at the same place from 1 to 5."""
    if request is not None and "Yes or No" in request.messages[-1].content:
        return yes_no((score - 1) / 4)
    low, high = math.floor(score), math.ceil(score)
    if low == high:
        return token_reply({str(low): 1.0})
    return token_reply({str(low): high - score, str(high): score - low})


def by_people(request: ChatRequest) -> ChatReply:
    if request.score_text is not None:
        return scored_text(PEOPLE.get(request.score_text.strip(), 4.0), request)
    return expecting(PEOPLE.get(judged_text(request), 4.0), request)


def scored_text(score: float, request: ChatRequest) -> ChatReply:
    """A given text's log-probability (a likelihood metric): after the conversation, 10 nats more per point of
    `score` than without it."""
    after = request.messages[-1].content != "(no conversation)"
    return ChatReply(text="", model="", text_logprobs=(-50.0 + (10 * score if after else 0.0),))


def blind(request: ChatRequest) -> ChatReply:
    if request.score_text is not None:
        text = request.score_text.strip()
        blind_score = 1 + hashlib.sha256(text.encode()).digest()[0] % 5 if text in PEOPLE else 4.0
        return scored_text(blind_score, request)
    text = judged_text(request)
    if text not in PEOPLE:
        return expecting(4.0, request)
    return expecting(1 + hashlib.sha256(text.encode()).digest()[0] % 5, request)


def dialogue_model(reply: Callable[[ChatRequest], ChatReply], name: str = "scripted-model") -> ScriptedBackend:
    return ScriptedBackend(default=reply, probabilities=True, model=name)
