"""What `gavel config` says about backends: which one `auto` would use now, and why."""

from __future__ import annotations

from typing import Any

import anyio

from gavel.server.settings import Settings
from gavel.tools.engine.embedded import DEFAULT_MODEL, default_model_path
from gavel.tools.engine.layout import cpu_vendor, repack_weights
from gavel.tools.engine.provider import BackendProvider
from gavel.tools.urls import redact_url


async def _describe(settings: Settings) -> dict[str, Any]:
    provider = BackendProvider(settings.engine_config())
    try:
        openai_ok, openai_why = await provider.probe_openai()
        ollama_ok, ollama_why = await provider.probe_ollama()
        embedded_ok, embedded_why = provider.embedded_usable()
        chosen, why = await provider.choose(client_can_sample=False)
    finally:
        await provider.aclose()
    return {
        "setting": settings.backend,
        "would_use": chosen if chosen != "none" else "sampling (if the client supports it), else nothing",
        "why_not_others": why or None,
        "openai": {
            "base_url": redact_url(settings.openai_base_url) if settings.openai_base_url else None,
            "api_key": "****" if settings.openai_api_key else None,
            "model": settings.judge_model or "(the first model the server lists)",
            "answers": openai_ok,
            "detail": openai_why or None,
        },
        "ollama": {
            "host": redact_url(settings.ollama_host),
            "model": settings.judge_model or settings.engine_config().default_ollama_model,
            "reachable_with_model": ollama_ok,
            "detail": ollama_why or None,
        },
        "embedded": {
            "usable": embedded_ok,
            **_embedded_model(settings),
            "weights_layout": _weights_layout(settings),
            "detail": embedded_why or None,
        },
        "sampling": "used when the calling client declares the MCP sampling capability",
    }


def _embedded_model(settings: Settings) -> dict[str, str]:
    """The GGUF file the embedded backend loads, and where it comes from."""
    if settings.model_path is not None:
        return {"model_path": str(settings.model_path), "model": "GAVEL_MODEL_PATH"}
    path = default_model_path()
    state = "assembled" if path.is_file() else "assembled from the installed parts at first use"
    return {"model_path": str(path), "model": f"the default, {DEFAULT_MODEL.name} ({state})"}


def describe_backend(settings: Settings) -> dict[str, Any]:
    return anyio.run(_describe, settings)


def _weights_layout(settings: Settings) -> str:
    """The layout llama.cpp gives the weights, and whether GAVEL_EMBEDDED_REPACK or the CPU's vendor chose it."""
    vendor = cpu_vendor()
    layout = "repacked" if repack_weights(settings.embedded_repack, vendor) else "plain"
    if settings.embedded_repack != "auto":
        return f"{layout} (GAVEL_EMBEDDED_REPACK)"
    return f"{layout} (auto: CPU vendor {vendor or 'not known'})"
