"""An Ollama-API test server that answers with the embedded model, so the production `ollama` path runs
against a real model: the official client → HTTP → this server → llama.cpp."""

from __future__ import annotations

from typing import Any

from gavel.tools.engine.embedded import EmbeddedBackend
from tests.support.ollama_server import OllamaReply, Responder

MODEL_NAME = "gavel-embedded:latest"
DEFAULT_MAX_TOKENS = 512


def openai_body(request: dict[str, Any], default_max_tokens: int = DEFAULT_MAX_TOKENS) -> dict[str, Any]:
    """An Ollama /api/chat request as the OpenAI-style body llama.cpp's server takes."""
    options = request.get("options") or {}
    num_predict = options.get("num_predict")
    body: dict[str, Any] = {
        "messages": request["messages"],
        "temperature": options.get("temperature", 0.0),
        "max_tokens": num_predict if isinstance(num_predict, int) and num_predict > 0 else default_max_tokens,
        "cache_prompt": True,
    }
    for ollama_name, openai_name in (
        ("seed", "seed"), ("top_k", "top_k"), ("top_p", "top_p"), ("repeat_penalty", "repeat_penalty")
    ):  # fmt: skip
        if ollama_name in options:
            body[openai_name] = options[ollama_name]
    if request.get("logprobs"):
        body["logprobs"] = True
        body["top_logprobs"] = request.get("top_logprobs") or 0
    schema = request.get("format")
    if isinstance(schema, dict):
        body["response_format"] = {"type": "json_schema", "json_schema": {"name": "v", "schema": schema}}
    elif schema == "json":
        body["response_format"] = {"type": "json_object"}
    return body


def ollama_reply(result: dict[str, Any]) -> OllamaReply:
    """llama.cpp's OpenAI-style completion as Ollama's reply, log-probabilities included."""
    if "choices" not in result:
        raise RuntimeError(f"llama.cpp refused the request: {str(result)[:300]}")
    choice = result["choices"][0]
    timings = result.get("timings") or {}
    return OllamaReply(
        content=choice["message"]["content"] or "",
        prompt_eval_count=timings.get("prompt_n"),
        eval_count=timings.get("predicted_n"),
        done_reason="length" if choice.get("finish_reason") == "length" else "stop",
        logprobs=_ollama_logprobs(choice),
    )


def embedded_responder(backend: EmbeddedBackend) -> Responder:
    backend.load_sync()

    def respond(request: dict[str, Any]) -> OllamaReply:
        return ollama_reply(backend.complete_sync(openai_body(request)))

    return respond


def _ollama_logprobs(choice: dict[str, Any]) -> list[dict[str, Any]] | None:
    content = (choice.get("logprobs") or {}).get("content")
    if not isinstance(content, list):
        return None
    return [
        {
            "token": position.get("token", ""),
            "logprob": position.get("logprob", 0.0),
            "top_logprobs": [
                {"token": c["token"], "logprob": c["logprob"]} for c in position.get("top_logprobs") or ()
            ],
        }
        for position in content
    ]
