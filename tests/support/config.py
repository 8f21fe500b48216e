"""The engine's configuration and the tools' limits as Gavel's settings default them, with a test's overrides:
`Settings` is the one place those defaults are stated."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from gavel.server.settings import Settings
from gavel.tools.common import Limits
from gavel.tools.engine.config import EngineConfig

DEFAULTS = Settings()


def engine_config(**overrides: Any) -> EngineConfig:
    return replace(DEFAULTS.engine_config(), **overrides)


def input_limits(**overrides: Any) -> Limits:
    return replace(DEFAULTS.limits(), **overrides)
