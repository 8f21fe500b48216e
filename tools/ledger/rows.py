"""The evaluation ledger's values: the row written per judgment, the stored time format, JSON and hashes, the
status `gavel config` shows, and a stored row read back as a record. No database access here.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal

HEADLINE_MAX_CHARS = 300
# How many rows a listing of the latest evaluations shows (`gavel history`, evaluation://recent).
RECENT_LIMIT = 50

# The evaluations table's columns, in the order `Entry.row` gives them and `record_of` reads them.
COLUMNS = (
    "id, tool, created_at, duration_ms, request_hash, request_json, result_json, provenance_json, usage_json, "
    "cached, headline, parent_id, cache_key, servable, source_id"  # source_id: the row's served_from
)


# -- values ------------------------------------------------------------------------------------------------


def to_json(value: Any) -> str:
    """Compact JSON text that SQLite can store: lone surrogates (which UTF-8 cannot encode) are escaped."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = json.dumps(value, ensure_ascii=True, separators=(",", ":"), default=str)
    return text


def canonical_hash(value: Any) -> str:
    """sha256 of the canonical JSON of `value`: sorted keys, no whitespace, ASCII only."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True, default=str)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def utc_now() -> datetime:
    return datetime.now(UTC)


def timestamp(moment: datetime) -> str:
    """The one stored time format: UTC, ISO 8601, microseconds, so text order is time order."""
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


def parse_since(text: str) -> str:
    """A date ('2025-06-01', midnight UTC) or an ISO time (naive means UTC) as a stored timestamp."""
    try:
        moment = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(f"{text!r} is not a date (YYYY-MM-DD) or an ISO 8601 time") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return timestamp(moment)


def headline_of(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= HEADLINE_MAX_CHARS else line[: HEADLINE_MAX_CHARS - 3] + "..."


@dataclass(frozen=True)
class Entry:
    """One row to write."""

    id: str
    tool: str
    created_at: str
    duration_ms: float
    request_hash: str
    request_json: str | None
    result_json: str
    provenance_json: str | None
    usage_json: str | None
    headline: str
    cached: bool = False
    parent_id: str | None = None
    cache_key: str | None = None
    servable: bool = False
    served_from: str | None = None

    def row(self) -> tuple[Any, ...]:
        return (
            self.id, self.tool, self.created_at, round(self.duration_ms, 3), self.request_hash, self.request_json,
            self.result_json, self.provenance_json, self.usage_json, int(self.cached), self.headline,
            self.parent_id, self.cache_key, int(self.servable), self.served_from,
        )  # fmt: skip


@dataclass(frozen=True)
class LedgerStatus:
    """What `gavel config` says about the ledger."""

    path: str | None
    state: Literal["off", "ok", "not_created", "unavailable"]
    detail: str | None = None
    evaluations: int | None = None
    schema_version: int | None = None
    # Top-level calls (what `gavel history` lists); the rest of `evaluations` are rows inside them.
    calls: int | None = None

    def line(self) -> str:
        if self.state == "off":
            return "off (GAVEL_LEDGER_PATH=off): judgments are not recorded and never served from a cache"
        if self.state == "not_created":
            return f"not created yet; the first judgment creates {self.path}"
        if self.state == "unavailable":
            return f"UNAVAILABLE at {self.path}: {self.detail}; the server judges without recording or cache"
        counted = f"{self.evaluations} evaluation(s)"
        if self.calls is not None and self.evaluations is not None and self.calls != self.evaluations:
            # Otherwise `gavel history` seems to miss rows: it lists calls, not the items inside them.
            counted += (
                f" ({self.calls} call(s), as `gavel history` lists them, and {self.evaluations - self.calls} "
                "batch item(s) and refinement iteration(s) recorded inside them)"
            )
        return f"ok, {counted} at {self.path} (schema v{self.schema_version})"

    def as_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "state": self.state,
            "detail": self.detail,
            "evaluations": self.evaluations,
            "schema_version": self.schema_version,
            "calls": self.calls,
            "summary": self.line(),
        }


def record_of(row: Sequence[Any], items: list[str] | None) -> dict[str, Any]:
    (eid, tool, created_at, duration_ms, request_hash, request_json, result_json, provenance_json, usage_json,
     cached, headline, parent_id, _cache_key, _servable, served_from) = row  # fmt: skip
    record: dict[str, Any] = {
        "evaluation_id": eid,
        "tool": tool,
        "created_at": created_at,
        "duration_ms": duration_ms,
        "cached": bool(cached),
        "served_from": served_from,
        "parent_id": parent_id,
        "headline": headline,
        "request_hash": request_hash,
        "request": json.loads(request_json) if request_json is not None else None,
        "result": json.loads(result_json),
        "provenance": json.loads(provenance_json) if provenance_json is not None else None,
        "usage": json.loads(usage_json) if usage_json is not None else None,
    }
    if items is not None:
        record["items"] = items
    return record
