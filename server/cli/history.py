"""The evaluation ledger's readers: `gavel history` (the latest calls), `gavel show` (one in full) and
`gavel export` (everything, one JSON object a line)."""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Sequence
from typing import Any

from gavel.server.cli.console import EXIT_OK, fail, load_registry, out
from gavel.server.settings import Settings
from gavel.tools.common import terminal_line
from gavel.tools.ledger import Ledger

_UNESCAPED_CONTROLS = re.compile("[\x7f-\x9f]")
# `gavel history` cuts headlines here so a row stays on one line of a wide terminal.
HEADLINE_CHARS = 100


def _open_ledger(settings: Settings) -> Ledger | str:
    """The ledger to read, or why there is none."""
    ledger = settings.make_ledger()
    if ledger is None:
        return "the evaluation ledger is off (GAVEL_LEDGER_PATH=off); nothing was recorded"
    missing = getattr(ledger.store, "missing_driver", None)
    if missing is not None:
        ledger.close()
        return missing
    return ledger


def _unreadable(ledger: Ledger) -> str | None:
    if ledger.failure is None:
        return None
    return f"the evaluation ledger at {ledger.path} cannot be read: {ledger.failure}"


def _json_text(record: dict[str, Any], indent: int | None = None) -> str:
    text = json.dumps(record, indent=indent, ensure_ascii=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate from an in-process caller's text; escape it
        text = json.dumps(record, indent=indent, ensure_ascii=True)
    # json.dumps escapes C0 controls but not DEL and C1 (U+009B starts an escape sequence on some terminals): they
    # can only stand inside a string, where the same escape keeps the same value.
    return _UNESCAPED_CONTROLS.sub(lambda found: f"\\u{ord(found.group()):04x}", text)


def history_table(rows: Sequence[dict[str, Any]]) -> list[str]:
    header = ("ID", "TIME (UTC)", "TOOL", "CACHED", "HEADLINE")
    cells = [
        (
            row["evaluation_id"],
            row["created_at"][:19].replace("T", " "),
            row["tool"],
            "yes" if row["cached"] else "",
            terminal_line(row["headline"], HEADLINE_CHARS),  # from the model's output, bound for the terminal
        )
        for row in rows
    ]
    widths = [max(len(cell[i]) for cell in [header, *cells]) for i in range(len(header) - 1)]
    return [
        "  ".join([*(c.ljust(w) for c, w in zip(cell[:-1], widths, strict=True)), cell[-1]]).rstrip()
        for cell in [header, *cells]
    ]


def known_tools(settings: Settings) -> list[str]:
    """The tools this server offers, read from the server itself so the list cannot drift from it."""
    import anyio

    from gavel.server.app import build_server
    from gavel.server.call_deps import make_deps_factory

    registry = load_registry(settings)
    server = build_server(settings, registry, make_deps_factory(settings, registry), ledger=None)
    return sorted(tool.name for tool in anyio.run(server.list_tools))


def history(settings: Settings, args: argparse.Namespace) -> int:
    ledger = _open_ledger(settings)
    if isinstance(ledger, str):
        return fail(ledger)
    try:
        rows = ledger.recent(args.limit, args.tool)
        problem = _unreadable(ledger)
    finally:
        ledger.close()
    if problem:
        return fail(problem)
    if not rows and args.tool:
        tools = known_tools(settings)
        if args.tool not in tools:
            return fail(f"there is no tool {args.tool!r}; the tools are {', '.join(tools)}")
    if not rows:
        which = f" for tool {args.tool!r}" if args.tool else ""
        out(f"no evaluations recorded yet{which} ({ledger.path})")
        return EXIT_OK
    for line in history_table(rows):
        out(line)
    return EXIT_OK


def show(settings: Settings, args: argparse.Namespace) -> int:
    ledger = _open_ledger(settings)
    if isinstance(ledger, str):
        return fail(ledger)
    wanted = args.evaluation_id.strip().lower()
    try:
        record = ledger.get(wanted)
        matches = [] if record is not None else ledger.find(wanted)
        if record is None and len(matches) == 1:
            record = ledger.get(matches[0])
        problem = _unreadable(ledger)
    finally:
        ledger.close()
    if problem:
        return fail(problem)
    if record is None:
        if len(matches) > 1:
            return fail(f"{wanted!r} matches several evaluations ({', '.join(matches)}, ...); give more of the id")
        return fail(f"no evaluation {wanted!r} in {ledger.path}; 'gavel history' lists the latest ids")
    out(_json_text(record, indent=2))
    return EXIT_OK


def export(settings: Settings, args: argparse.Namespace) -> int:
    ledger = _open_ledger(settings)
    if isinstance(ledger, str):
        return fail(ledger)
    try:
        for record in ledger.export(args.since):
            out(_json_text(record))
        problem = _unreadable(ledger)
    finally:
        ledger.close()
    return fail(problem) if problem else EXIT_OK
