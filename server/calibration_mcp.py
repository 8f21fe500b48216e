"""The judge's calibrations over MCP: the resources `calibration://index` and `calibration://{key}` (the key is a
judgment's `provenance.fitness_key`). The tool `calibrate_judge` is in `gavel.server.tool_registry`'s table."""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError

from gavel.server.boundary import BoundaryServer

if TYPE_CHECKING:
    from gavel.tools.ledger import Ledger

INDEX_URI = "calibration://index"
_KEY_RE = re.compile(r"^[0-9a-f]{16}$")


def _ledger(server: MCPServer[Any]) -> Ledger:
    ledger = server.ledger if isinstance(server, BoundaryServer) else None
    if ledger is None:
        raise ResourceError("the evaluation ledger is off (GAVEL_LEDGER_PATH=off): no calibration is kept")
    if ledger.failure is not None:
        raise ResourceError(f"the evaluation ledger at {ledger.path} is unavailable: {ledger.failure}")
    return ledger


def _stored(tool: str, result: dict[str, Any]) -> list[str]:
    if tool != "calibrate_judge" or not result.get("stored"):
        return []
    return [INDEX_URI, f"calibration://{result['fitness_key']}"] if result.get("fitness_key") else [INDEX_URI]


def add_calibration_resources(server: MCPServer[Any]) -> None:
    import anyio

    if isinstance(server, BoundaryServer):
        server.changed_by.append(_stored)

    # The records (and the ledger under them) load at the first read of these resources, not at a start.

    @server.resource(
        INDEX_URI,
        name="calibration-index",
        title="Judge calibrations",
        description="The newest calibration per judge key and set: backend, model, readout, n, balanced accuracy, "
        "AUROC, date. Read one in full as calibration://{key}.",
        mime_type="application/json",
    )
    async def index() -> str:
        from gavel.tools.calibration.records import calibration_index

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
        from gavel.tools.calibration.records import calibrations_for

        ledger = _ledger(server)
        reports = await anyio.to_thread.run_sync(calibrations_for, ledger, key) if _KEY_RE.match(key) else []
        if not reports:
            raise ResourceNotFoundError(f"no calibration for key {key!r}; see {INDEX_URI}")
        return json.dumps({"key": key, "calibrations": reports}, indent=2, ensure_ascii=False)
