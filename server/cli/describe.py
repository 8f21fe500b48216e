"""`gavel rubrics` (the loaded rubrics, or one in full) and `gavel config` (the effective settings, the backend
that would be used, and the ledger's state)."""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from typing import Any

from gavel.server.cli.console import EXIT_OK, fail, load_registry, out
from gavel.server.settings import Settings
from gavel.tools.errors import GavelError, RubricFileError, UnknownRubric
from gavel.tools.guards.text import printable
from gavel.tools.rubrics import Rubric

BACKEND_PROBE_UNAVAILABLE = "backend probe not available yet"


def _rubric_table(rubrics: Sequence[Rubric]) -> list[str]:
    header = ("ID", "VERSION", "TITLE", "METRICS", "SCALE")
    rows = [
        (r.id, r.version, r.title, ", ".join(m.id for m in r.metrics), f"{r.scale.min:g}-{r.scale.max:g}")
        for r in rubrics
    ]
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header) - 1)]
    lines = []
    for row in [header, *rows]:
        cells = [cell.ljust(width) for cell, width in zip(row[:-1], widths, strict=True)]
        lines.append("  ".join([*cells, row[-1]]).rstrip())
    return lines


def _rubric_text(rubric: Rubric) -> list[str]:
    scale = rubric.scale
    direction = "higher is better" if scale.higher_is_better else "lower is better"
    kind = ", whole numbers" if scale.integer else ""
    lines = [
        f"{rubric.id} v{rubric.version}: {rubric.title}",
        "",
        rubric.description,
        "",
        f"scale: {scale.min:g}-{scale.max:g} ({direction}{kind}); pass threshold: {rubric.pass_threshold:g}",
        "",
        "metrics:",
    ]
    for metric in rubric.metrics:
        lines.append(f"  {metric.id} - {metric.name} (weight {metric.weight:g})")
        lines.append(f"      {metric.description}")
        for level, meaning in sorted(metric.levels.items(), key=lambda kv: float(kv[0])):
            lines.append(f"      {level}: {meaning}")
    for name, rules in rubric.contexts.items():
        lines += ["", f"context {name}: approve at {rules.approve_at:g}, reject below {rules.reject_below:g}"]
        if rules.not_applicable:
            lines.append(f"  not applicable: {', '.join(rules.not_applicable)}")
    return lines


def rubrics(settings: Settings, args: argparse.Namespace) -> int:
    try:
        registry = load_registry(settings)
    except RubricFileError as exc:
        return fail(str(exc))
    if args.rubrics_command != "show":
        for line in _rubric_table(registry.all()):
            out(line)
        return EXIT_OK
    try:
        rubric = registry.get(args.rubric_id)
    except UnknownRubric as exc:
        return fail(str(exc))
    if args.json:
        out(rubric.model_dump_json(indent=2))
    else:
        for line in _rubric_text(rubric):
            out(line)
    return EXIT_OK


def _backend_description(settings: Settings) -> dict[str, Any]:
    try:
        from gavel.server.backend_select import describe_backend
    except ImportError as exc:
        return {"probe": f"{BACKEND_PROBE_UNAVAILABLE} ({exc})"}
    try:
        return describe_backend(settings)
    except (GavelError, OSError) as exc:
        return {"probe": f"backend probe failed: {exc}"}


def config(settings: Settings, args: argparse.Namespace) -> int:
    view = settings.public_view()
    backend: dict[str, Any] = {"probe": "skipped (--no-probe)"} if args.no_probe else _backend_description(settings)
    ledger = settings.ledger_status()
    if args.json:
        out(json.dumps({"settings": view, "backend": backend, "ledger": ledger.as_dict()}, indent=2, default=str))
        return EXIT_OK
    out("settings (environment and flags; secrets masked):")
    for line in _readable(view, indent=2):
        out(line)
    out("")
    out("backend:")
    for line in _readable(backend, indent=2):
        out(line)
    out("")
    out(f"ledger: {printable(ledger.line())}")  # an unavailable ledger's error text may come from a remote server
    return EXIT_OK


def _readable(values: dict[str, Any], indent: int) -> list[str]:
    """'key  value' lines, nested dicts indented under their key; null shows as '-'. Values pass through `printable`:
    a backend probe's detail (and the reasons built from it) can hold an error text a remote server sent."""
    width = max((len(key) for key in values), default=0)
    lines = []
    for key, value in values.items():
        if isinstance(value, dict):
            lines.append(f"{' ' * indent}{key}:")
            lines += _readable(value, indent + 2)
        else:
            shown = "-" if value is None else value if isinstance(value, str) else json.dumps(value, default=str)
            lines.append(f"{' ' * indent}{key.ljust(width)}  {printable(shown)}")
    return lines
