"""The OpenAI-style chat-completions body that both OpenAI-compatible backends send, and the log-probabilities
read from a reply's choice in that style.

The embedded llama.cpp server and a remote OpenAI-compatible server read the same fields; only where they take
top_k and repeat_penalty (not in OpenAI's API) and whether a model honours JSON schemas differ, so those stay
with each backend.
"""

from __future__ import annotations

from typing import Any

from gavel.tools.engine.backend import ChatRequest, TokenLogprob


def chat_body(request: ChatRequest, head: dict[str, Any], *, json_schema: bool = True) -> dict[str, Any]:
    """`head` first (e.g. the model name), then the request's messages and sampling options that OpenAI's API
    names; `json_schema=False` leaves the schema out for a model known to refuse it."""
    body: dict[str, Any] = {
        **head,
        "messages": [{"role": m.role, "content": m.content} for m in request.messages],
        "temperature": request.temperature,
        "max_tokens": request.max_tokens,
    }
    if request.seed is not None:
        body["seed"] = request.seed
    if request.top_p is not None:
        body["top_p"] = request.top_p
    if request.top_logprobs is not None:
        body["logprobs"] = True
        body["top_logprobs"] = request.top_logprobs
    if request.schema is not None and json_schema:
        body["response_format"] = {
            "type": "json_schema",
            "json_schema": {"name": "verdict", "schema": request.schema, "strict": True},
        }
    return body


def beyond_openai(request: ChatRequest) -> dict[str, Any]:
    """The sampling options llama.cpp, vLLM, LocalAI and SGLang understand but OpenAI's API does not name."""
    extra = {"top_k": request.top_k, "repeat_penalty": request.repeat_penalty}
    return {key: value for key, value in extra.items() if value is not None}


def openai_top_logprobs(choice: dict[str, Any]) -> tuple[tuple[TokenLogprob, ...], ...] | None:
    """The per-token top-k candidates of an OpenAI-style choice (`logprobs.content[i].top_logprobs`)."""
    content = (choice.get("logprobs") or {}).get("content")
    if not isinstance(content, list):
        return None
    return tuple(
        tuple(TokenLogprob(str(c["token"]), float(c["logprob"])) for c in position.get("top_logprobs") or ())
        for position in content
    )
