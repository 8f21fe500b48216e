"""The judge's calibration over MCP: the tool `calibrate_judge` and the resources `calibration://index` and
`calibration://{key}` (the key is a judgment's `provenance.fitness_key`)."""

from __future__ import annotations

import dataclasses
import json
import re
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError

from gavel.server.boundary import DepsFactory, judging_annotations, ledger_for, register_tool
from gavel.tools import calibration
from gavel.tools.calibration_store import calibration_index, calibrations_for
from gavel.tools.deps import ProgressFn, ToolDeps
from gavel.tools.ledger import Ledger

INDEX_URI = "calibration://index"
_KEY_RE = re.compile(r"^[0-9a-f]{16}$")

DESCRIPTION = (
    "Measure the configured judge on a labelled set (halueval-qa: judge_rag_answer; clinical-assessment: "
    "evaluate_assessment): balanced accuracy, AUROC, pairwise accuracy with 95% intervals, unscored count, time per "
    "item, best decision cut. Kept in the ledger; later verdicts carry it as provenance.judge_fitness. Items judged "
    "identically before come from the ledger's cache. Progress per item; a cancel keeps a partial calibration. "
    "Seconds per item on a local model: keep limit small."
)


def register_calibrate_judge(server: MCPServer[Any], deps_factory: DepsFactory) -> None:
    def with_ledger(ctx: Context[Any, Any], progress: ProgressFn) -> ToolDeps:
        return dataclasses.replace(deps_factory(ctx, progress), ledger=ledger_for(server))

    register_tool(
        server,
        name="calibrate_judge",
        title="Measure the judge on a labelled set",
        description=DESCRIPTION,
        request_model=calibration.CalibrateJudgeRequest,
        result_model=calibration.CalibrationReport,
        impl=calibration.calibrate_judge,
        deps_factory=with_ledger,
        # Like the judging tools: it records in the ledger, and changes nothing else.
        annotations=judging_annotations(idempotent=False, title="Measure the judge on a labelled set"),
    )


def _ledger(server: MCPServer[Any]) -> Ledger:
    ledger = ledger_for(server)
    if ledger is None:
        raise ResourceError("the evaluation ledger is off (GAVEL_LEDGER_PATH=off): no calibration is kept")
    if ledger.failure is not None:
        raise ResourceError(f"the evaluation ledger at {ledger.path} is unavailable: {ledger.failure}")
    return ledger


def add_calibration_resources(server: MCPServer[Any]) -> None:
    import anyio

    @server.resource(
        INDEX_URI,
        name="calibration-index",
        title="Judge calibrations",
        description="The newest calibration per judge key and set: backend, model, readout, n, balanced accuracy, "
        "AUROC, date. Read one in full as calibration://{key}.",
        mime_type="application/json",
    )
    async def index() -> str:
        entries = await anyio.to_thread.run_sync(calibration_index, _ledger(server))
        return json.dumps({"calibrations": entries}, indent=2)

    @server.resource(
        "calibration://{key}",
        name="calibration",
        title="A judge's calibrations",
        description="Every calibration of one judge key (a judgment's provenance.fitness_key), newest first, with "
        "its figures, intervals, decision cut and items.",
        mime_type="application/json",
    )
    async def by_key(key: str) -> str:
        ledger = _ledger(server)
        reports = await anyio.to_thread.run_sync(calibrations_for, ledger, key) if _KEY_RE.match(key) else []
        if not reports:
            raise ResourceNotFoundError(f"no calibration for key {key!r}; see {INDEX_URI}")
        return json.dumps({"key": key, "calibrations": reports}, indent=2, ensure_ascii=False)
