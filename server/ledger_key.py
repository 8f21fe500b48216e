"""The cache key of a judging call: what must be the same for an earlier judgment to be served again.

The request (without no_cache), the rubric's id, version and text, the prompt templates, the judge (backend,
model, digest, readout, sampling options, calibration), the result's schema and a digest of the judging code
(`distribution.code_digest`), all hashed together.
"""

from __future__ import annotations

import weakref
from functools import cache
from typing import Any

from pydantic import BaseModel

from gavel.tools.common import ToolResult
from gavel.tools.deps import Prepared, ToolDeps
from gavel.tools.distribution import code_digest, version
from gavel.tools.engine import prompts
from gavel.tools.engine.judge import Judge
from gavel.tools.ledger import canonical_hash
from gavel.tools.rubric_registry import RubricRegistry
from gavel.tools.rubrics import Rubric

# A registry is immutable after start-up, so its rubrics' key parts are computed once per registry.
_REGISTRY_PARTS: weakref.WeakKeyDictionary[RubricRegistry, dict[str, dict[str, str]]] = weakref.WeakKeyDictionary()


def _rubric_part(registry: RubricRegistry, rubric: Rubric, *, from_registry: bool) -> dict[str, str]:
    """The rubric's share of the cache key: id, version, and the hash of its text and the prompt templates."""
    if not from_registry:
        return {"id": rubric.id, "version": rubric.version, "template": prompts.template_hash(rubric)}
    parts = _REGISTRY_PARTS.setdefault(registry, {})
    if rubric.id not in parts:
        parts[rubric.id] = _rubric_part(registry, rubric, from_registry=False)
    return parts[rubric.id]


@cache
def _schema_hash(result_model: type[BaseModel]) -> str:
    # A changed result model must not be served a result stored in its old shape.
    return canonical_hash(result_model.model_json_schema())[:16]


async def cache_key(
    judge: Judge,
    deps: ToolDeps,
    *,
    tool: str,
    prepared: Prepared,
    request_view: dict[str, Any],
    result_model: type[ToolResult],
) -> str | None:
    """The call's cache key (`request_view`: the request without no_cache; the model and the rubric as the
    tool's prepare step resolved them), or None when this judgment cannot be identified well enough to be
    served again."""
    model, rubric = prepared.model, prepared.rubric
    info = await judge.model_info(model)
    # The client's own model (sampling) is whatever it is today, and a model without a digest may have
    # been replaced under its name: neither can vouch that an old judgment is the one it would give.
    if info.backend == "sampling" or not info.digest:
        return None
    rubric_part = None
    if rubric is not None:
        rubric_part = _rubric_part(deps.registry, rubric, from_registry=prepared.rubric_from_registry)
    config = judge.config
    readout = await judge.readout_kind(model)
    # The result carries the judge's fitness, and may be decided at its calibrated cut: a new calibration
    # makes a new judgment.
    calibrated = await judge.calibration(rubric, model)
    return canonical_hash(
        {
            "tool": tool,
            "request": request_view,
            "rubric": rubric_part,
            # Also for a call without a rubric (candidate narratives): its prompts shape the judgment too.
            "prompts": prompts.template_hash(None),
            "judge": {
                "backend": info.backend,
                "model": info.model,
                "digest": info.digest,
                "strategy": judge.strategy,
                "readout": readout,
                "temperature": config.temperature,
                "sample_temperature": config.sample_temperature,
                "seed": config.seed,
                "top_k": config.top_k,
                "top_p": config.top_p,
                "num_ctx": config.num_ctx,
                "generator_model": config.generator_model,
                "calibration": calibrated.calibration_id if calibrated is not None else None,
                "use_calibrated_cut": config.use_calibrated_cut,
                "injection_screen": config.injection_screen,
            },
            "result_schema": _schema_hash(result_model),
            "gavel": version(),
            "code": code_digest(),
        }
    )
