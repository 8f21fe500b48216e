"""An Ollama-API test server that answers with the embedded model, so the production `ollama` path runs
against a real model: the official client → HTTP → this server → llama.cpp."""

from __future__ import annotations

from typing import Any

from gavel.tools.engine.embedded import EmbeddedBackend
from tests.support.ollama_server import OllamaReply, Responder

MODEL_NAME = "gavel-embedded:latest"


def embedded_responder(backend: EmbeddedBackend) -> Responder:
    backend.load_sync()

    def respond(request: dict[str, Any]) -> OllamaReply:
        options = request.get("options") or {}
        body: dict[str, Any] = {
            "messages": request["messages"],
            "temperature": options.get("temperature", 0.0),
            "max_tokens": options.get("num_predict", 512),
            "cache_prompt": True,
        }
        for ollama_name, openai_name in (
            ("seed", "seed"), ("top_k", "top_k"), ("top_p", "top_p"), ("repeat_penalty", "repeat_penalty")
        ):  # fmt: skip
            if ollama_name in options:
                body[openai_name] = options[ollama_name]
        schema = request.get("format")
        if isinstance(schema, dict):
            body["response_format"] = {"type": "json_schema", "json_schema": {"name": "v", "schema": schema}}
        elif schema == "json":
            body["response_format"] = {"type": "json_object"}
        result = backend.complete_sync(body)
        choice = result["choices"][0]
        timings = result.get("timings") or {}
        return OllamaReply(
            content=choice["message"]["content"] or "",
            prompt_eval_count=timings.get("prompt_n"),
            eval_count=timings.get("predicted_n"),
            done_reason="length" if choice.get("finish_reason") == "length" else "stop",
        )

    return respond
