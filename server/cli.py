"""The `gavel` command: `serve` (the MCP server), `rubrics`, `config`, `demo`, and the evaluation ledger's
readers `history`, `show` and `export`.

Settings are read once, in `main`, from the environment and the flags (flags win); nothing is read at
import time. Every user error is one line on stderr and exit code 2.

`serve` writes nothing to stdout itself: on stdio that is the protocol channel. The other commands are
for a person and write their output to stdout.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn

from gavel.server.http_defaults import DEFAULT_HOST, DEFAULT_PORT, TRANSPORTS
from gavel.server.settings import Settings, SettingsError, load_settings
from gavel.tools.errors import GavelError, RubricFileError, UnknownRubric
from gavel.tools.ledger import Ledger, parse_since
from gavel.tools.rubrics import Rubric, RubricRegistry

EXIT_OK = 0
EXIT_USAGE = 2
PROG = "gavel"
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")
BACKENDS = ("auto", "openai", "ollama", "embedded", "sampling")
HISTORY_LIMIT = 20
# `gavel history` cuts headlines here so a row stays on one line of a wide terminal.
HEADLINE_CHARS = 100


class _Parser(argparse.ArgumentParser):
    """argparse, with errors on one line (the default prints the whole usage block first)."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def _port(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 0 < value < 65536:
        raise argparse.ArgumentTypeError(f"{value} is not a port number (1-65535)")
    return value


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"{text} must be above 0")
    return value


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} must be at least 1")
    return value


def _since(text: str) -> str:
    try:
        return parse_since(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _settings_parent() -> argparse.ArgumentParser:
    """Flags every command shares: each overrides the matching GAVEL_* environment variable."""
    # SUPPRESS: an absent flag sets nothing, so `rubrics --rubrics-dir X show ID` keeps X (a nested
    # subparser would otherwise overwrite it with its own default).
    parent = _Parser(add_help=False, argument_default=argparse.SUPPRESS)
    group = parent.add_argument_group("settings (each overrides its environment variable)")
    group.add_argument("--backend", choices=BACKENDS, help="model backend (GAVEL_BACKEND; default auto)")
    group.add_argument("--judge-model", metavar="NAME", help="judge model name (GAVEL_JUDGE_MODEL)")
    group.add_argument(
        "--model-path", type=Path, metavar="FILE", help="GGUF file for the embedded backend (GAVEL_MODEL_PATH)"
    )
    group.add_argument(
        "--rubrics-dir",
        type=Path,
        metavar="DIR",
        help="extra rubric directory; its rubrics add to and override the built-in ones by id (GAVEL_RUBRICS_DIR)",
    )
    group.add_argument(
        "--log-level", type=str.upper, choices=LOG_LEVELS, help="log level on stderr (GAVEL_LOG_LEVEL; default INFO)"
    )
    group.add_argument(
        "--ledger-path",
        metavar="FILE",
        help="the evaluation ledger (SQLite), or 'off' (GAVEL_LEDGER_PATH; default: the user data directory; "
        "GAVEL_LEDGER_URL=postgresql://... puts it in PostgreSQL instead)",
    )
    group.add_argument(
        "--timeout-s",
        type=_positive_float,
        metavar="SECONDS",
        help="per model call timeout (GAVEL_TIMEOUT_S; default 120)",
    )
    return parent


def build_parser() -> argparse.ArgumentParser:
    parent = _settings_parent()
    parser = _Parser(
        prog=PROG,
        description="Gavel: an MCP server that gives any agent a judge.",
        epilog="Run 'gavel COMMAND --help' for a command's options.",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    serve = commands.add_parser(
        "serve",
        parents=[parent],
        help="run the MCP server (stdio by default)",
        description="Run the MCP server. stdio by default; --transport sse or streamable-http listens on HTTP.",
    )
    serve.add_argument("--transport", choices=TRANSPORTS, default="stdio", help="default: stdio")
    serve.add_argument(
        "--host",
        default=DEFAULT_HOST,
        help=f"HTTP bind address (default {DEFAULT_HOST}); anything but loopback needs an auth token",
    )
    serve.add_argument("--port", type=_port, default=DEFAULT_PORT, help=f"HTTP port (default {DEFAULT_PORT})")
    serve.add_argument(
        "--auth-token",
        metavar="TOKEN",
        help="HTTP bearer token clients must send "
        "(GAVEL_AUTH_TOKEN; prefer the variable: flags show in the process list)",
    )
    serve.add_argument(
        "--stateless",
        action="store_true",
        help="streamable-http without sessions: every "
        "request stands alone (no server-to-client requests such as sampling)",
    )
    serve.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="HOST[:PORT]",
        help="an extra Host header value to accept (DNS-rebinding protection), e.g. the machine's name; repeatable",
    )

    rubrics = commands.add_parser(
        "rubrics",
        parents=[parent],
        help="list the rubrics, or show one",
        description="List the loaded rubrics (built-in plus --rubrics-dir), or show one with 'show ID'.",
    )
    rubrics_commands = rubrics.add_subparsers(dest="rubrics_command", metavar="ACTION", parser_class=_Parser)
    show = rubrics_commands.add_parser(
        "show", parents=[parent], help="show one rubric", description="Show one rubric: metrics, anchors, scale."
    )
    show.add_argument("rubric_id", metavar="ID", help="rubric id, as listed by 'gavel rubrics'")
    show.add_argument("--json", action="store_true", help="print the rubric as JSON (as the rubric:// resource)")

    config = commands.add_parser(
        "config",
        parents=[parent],
        help="show the effective settings and the backend that would be used",
        description="Show the effective settings (secrets masked) and which model backend would be used.",
    )
    config.add_argument("--json", action="store_true", help="print JSON")
    config.add_argument("--no-probe", action="store_true", help="do not probe the model backends")

    commands.add_parser(
        "demo",
        parents=[parent],
        help="run every tool once through a real MCP session",
        description="Start 'gavel serve' over stdio and call every tool through a real MCP client session.",
    )

    history = commands.add_parser(
        "history",
        parents=[parent],
        help="the latest recorded judgments, as a table",
        description="The latest judgments in the evaluation ledger, newest first: id, time (UTC), tool, whether "
        "it was served from the ledger, and the headline result. 'gavel show ID' prints one in full.",
    )
    history.add_argument("--tool", metavar="T", help="only this tool's judgments, e.g. judge_rag_answer")
    history.add_argument(
        "--limit", type=_positive_int, default=HISTORY_LIMIT, metavar="N", help=f"how many (default {HISTORY_LIMIT})"
    )

    show_one = commands.add_parser(
        "show",
        parents=[parent],
        help="one recorded judgment in full, as JSON",
        description="Print one judgment from the evaluation ledger as JSON: request (or its hash), result, "
        "provenance, usage, and the ids of its items. The same record as the evaluation://{id} resource.",
    )
    show_one.add_argument("evaluation_id", metavar="ID", help="an evaluation id; a unique prefix is enough")

    export = commands.add_parser(
        "export",
        parents=[parent],
        help="every recorded judgment, one JSON object a line",
        description="Print every judgment in the evaluation ledger (batch items and refinement iterations "
        "included), oldest first, one JSON record a line.",
    )
    export.add_argument("--format", choices=("jsonl",), default="jsonl", help="output format (default jsonl)")
    export.add_argument(
        "--since",
        type=_since,
        metavar="DATE",
        help="only judgments recorded at or after DATE (YYYY-MM-DD, midnight UTC, or an ISO 8601 time)",
    )
    return parser


def _overrides(args: argparse.Namespace) -> dict[str, Any]:
    names = (
        "backend", "judge_model", "model_path", "rubrics_dir", "log_level", "timeout_s", "auth_token", "ledger_path",
    )  # fmt: skip
    return {name: getattr(args, name, None) for name in names}


def _fail(message: str) -> int:
    # One line: collapse any newlines a message may carry.
    sys.stderr.write(f"{PROG}: error: {' '.join(message.split())}\n")
    sys.stderr.flush()
    return EXIT_USAGE


def _out(text: str = "") -> None:
    sys.stdout.write(text + "\n")


def load_registry(settings: Settings) -> RubricRegistry:
    return RubricRegistry.load([settings.rubrics_dir] if settings.rubrics_dir else None)


def _serve(settings: Settings, args: argparse.Namespace) -> int:
    from gavel.server.auth import BindRefused, check_bind
    from gavel.server.logging import configure_logging

    token = settings.auth_token.get_secret_value() if settings.auth_token else None
    configure_logging(settings.log_level, secrets=[token] if token else ())
    if args.stateless and args.transport != "streamable-http":
        return _fail("--stateless applies to --transport streamable-http only")
    # Checked before the SDK and the engine are even imported: a refused start is immediate.
    try:
        if args.transport != "stdio":
            check_bind(args.host, token)
        registry = load_registry(settings)
    except (BindRefused, RubricFileError) as exc:
        return _fail(str(exc))

    from gavel.server.app import build_server
    from gavel.server.tool_registry import make_deps_factory
    from gavel.server.transports import HttpOptions, run_http, run_stdio

    deps_factory = make_deps_factory(settings, registry)
    # The factory may own model backends (HTTP clients, a loaded model) to close on the way out.
    on_shutdown = getattr(deps_factory, "aclose", None)
    server = build_server(settings, registry, deps_factory)
    if args.transport == "stdio":
        run_stdio(server, on_shutdown=on_shutdown)
        return EXIT_OK
    options = HttpOptions(
        transport=args.transport,
        host=args.host,
        port=args.port,
        auth_token=token,
        stateless=args.stateless,
        allowed_hosts=tuple(args.allow_host),
        on_shutdown=on_shutdown,
    )
    try:
        run_http(server, options)
    except BindRefused as exc:
        return _fail(str(exc))
    return EXIT_OK


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


def _rubrics(settings: Settings, args: argparse.Namespace) -> int:
    try:
        registry = load_registry(settings)
    except RubricFileError as exc:
        return _fail(str(exc))
    if args.rubrics_command != "show":
        for line in _rubric_table(registry.all()):
            _out(line)
        return EXIT_OK
    try:
        rubric = registry.get(args.rubric_id)
    except UnknownRubric as exc:
        return _fail(str(exc))
    if args.json:
        _out(rubric.model_dump_json(indent=2))
    else:
        for line in _rubric_text(rubric):
            _out(line)
    return EXIT_OK


BACKEND_PROBE_UNAVAILABLE = "backend probe not available yet"


def _backend_description(settings: Settings) -> dict[str, Any]:
    try:
        from gavel.server.backend_select import describe_backend
    except ImportError as exc:
        return {"probe": f"{BACKEND_PROBE_UNAVAILABLE} ({exc})"}
    try:
        return describe_backend(settings)
    except (GavelError, OSError) as exc:
        return {"probe": f"backend probe failed: {exc}"}


def _config(settings: Settings, args: argparse.Namespace) -> int:
    view = settings.public_view()
    backend: dict[str, Any] = {"probe": "skipped (--no-probe)"} if args.no_probe else _backend_description(settings)
    ledger = settings.ledger_status()
    if args.json:
        _out(json.dumps({"settings": view, "backend": backend, "ledger": ledger.as_dict()}, indent=2, default=str))
        return EXIT_OK
    _out("settings (environment and flags; secrets masked):")
    for line in _readable(view, indent=2):
        _out(line)
    _out("")
    _out("backend:")
    for line in _readable(backend, indent=2):
        _out(line)
    _out("")
    _out(f"ledger: {ledger.line()}")
    return EXIT_OK


def _readable(values: dict[str, Any], indent: int) -> list[str]:
    """'key  value' lines, nested dicts indented under their key; null shows as '-'."""
    width = max((len(key) for key in values), default=0)
    lines = []
    for key, value in values.items():
        if isinstance(value, dict):
            lines.append(f"{' ' * indent}{key}:")
            lines += _readable(value, indent + 2)
        else:
            shown = "-" if value is None else value if isinstance(value, str) else json.dumps(value, default=str)
            lines.append(f"{' ' * indent}{key.ljust(width)}  {shown}")
    return lines


def _demo(settings: Settings, args: argparse.Namespace) -> int:
    from gavel.server.demo import main as demo_main

    return demo_main(settings)


def _open_ledger(settings: Settings) -> Ledger | str:
    """The ledger to read, or why there is none."""
    ledger = settings.make_ledger()
    if ledger is None:
        return "the evaluation ledger is off (GAVEL_LEDGER_PATH=off); nothing was recorded"
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
    return text


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def history_table(rows: Sequence[dict[str, Any]]) -> list[str]:
    header = ("ID", "TIME (UTC)", "TOOL", "CACHED", "HEADLINE")
    cells = [
        (
            row["evaluation_id"],
            row["created_at"][:19].replace("T", " "),
            row["tool"],
            "yes" if row["cached"] else "",
            _clip(row["headline"], HEADLINE_CHARS),
        )
        for row in rows
    ]
    widths = [max(len(cell[i]) for cell in [header, *cells]) for i in range(len(header) - 1)]
    return [
        "  ".join([*(c.ljust(w) for c, w in zip(cell[:-1], widths, strict=True)), cell[-1]]).rstrip()
        for cell in [header, *cells]
    ]


def _history(settings: Settings, args: argparse.Namespace) -> int:
    ledger = _open_ledger(settings)
    if isinstance(ledger, str):
        return _fail(ledger)
    try:
        rows = ledger.recent(args.limit, args.tool)
        problem = _unreadable(ledger)
    finally:
        ledger.close()
    if problem:
        return _fail(problem)
    if not rows:
        which = f" for tool {args.tool!r}" if args.tool else ""
        _out(f"no evaluations recorded yet{which} ({ledger.path})")
        return EXIT_OK
    for line in history_table(rows):
        _out(line)
    return EXIT_OK


def _show(settings: Settings, args: argparse.Namespace) -> int:
    ledger = _open_ledger(settings)
    if isinstance(ledger, str):
        return _fail(ledger)
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
        return _fail(problem)
    if record is None:
        if len(matches) > 1:
            return _fail(f"{wanted!r} matches several evaluations ({', '.join(matches)}, ...); give more of the id")
        return _fail(f"no evaluation {wanted!r} in {ledger.path}; 'gavel history' lists the latest ids")
    _out(_json_text(record, indent=2))
    return EXIT_OK


def _export(settings: Settings, args: argparse.Namespace) -> int:
    ledger = _open_ledger(settings)
    if isinstance(ledger, str):
        return _fail(ledger)
    try:
        for record in ledger.export(args.since):
            _out(_json_text(record))
        problem = _unreadable(ledger)
    finally:
        ledger.close()
    return _fail(problem) if problem else EXIT_OK


_COMMANDS: dict[str, Callable[[Settings, argparse.Namespace], int]] = {
    "serve": _serve,
    "rubrics": _rubrics,
    "config": _config,
    "demo": _demo,
    "history": _history,
    "show": _show,
    "export": _export,
}


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        return _fail("give a command: serve, rubrics, config, demo, history, show or export")
    try:
        settings = load_settings(os.environ, _overrides(args))
    except SettingsError as exc:
        return _fail(str(exc))
    if args.command != "serve":
        from gavel.server.logging import configure_logging

        configure_logging(settings.log_level)
    return _COMMANDS[args.command](settings, args)
