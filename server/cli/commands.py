"""Every `gavel` subcommand in one table: its name, help, arguments, and where its handler lives.

The handler is named, not imported: `gavel serve` loads only the module that serves, never the ledger readers,
the calibration run or the config printer (nor what they import), and a new command is one more row here.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gavel.server.cli.console import Parser, port, positive_int, since
from gavel.server.http_defaults import DEFAULT_HOST, DEFAULT_PORT, TRANSPORTS

HISTORY_LIMIT = 20
# The tools `gavel eval` runs (gavel.tools.evaluation.figures.TOOLS; a test keeps the two equal).
EVAL_TOOLS = ("evaluate_assessment", "judge_rag_answer", "judge_rag_answers", "score_candidates", "refine_until_pass")


class Arg:
    """One argument, as `parser.add_argument(*flags, **options)` takes it."""

    def __init__(self, *flags: str, **options: Any) -> None:
        self.flags = flags
        self.options = options


@dataclass(frozen=True)
class Command:
    name: str
    # "module:function" in gavel.server; imported only when this command runs.
    handler: str
    help: str
    description: str
    args: tuple[Arg, ...] = ()
    # Arguments of which at most one may be given (argparse's mutually exclusive group), listed before `args`.
    one_of: tuple[Arg, ...] = ()
    # Sub-actions (`gavel rubrics show ID`); the chosen one's name is in `<name>_command`.
    actions: tuple[Command, ...] = ()


COMMANDS: tuple[Command, ...] = (
    Command(
        "serve", "serve:serve", "run the MCP server (stdio by default)",
        "Run the MCP server. stdio by default; --transport sse or streamable-http listens on HTTP.",
        args=(
            Arg("--transport", choices=TRANSPORTS, default="stdio", help="default: stdio"),
            Arg("--host", default=DEFAULT_HOST,
                help=f"HTTP bind address (default {DEFAULT_HOST}); anything but loopback needs an auth token"),
            Arg("--port", type=port, default=DEFAULT_PORT, help=f"HTTP port (default {DEFAULT_PORT})"),
            Arg("--auth-token", metavar="TOKEN", help="HTTP bearer token clients must send "
                "(GAVEL_AUTH_TOKEN; prefer the variable: flags show in the process list)"),
            Arg("--stateless", action="store_true", help="streamable-http without sessions: every "
                "request stands alone (no server-to-client requests such as sampling)"),
            Arg("--allow-host", action="append", default=[], metavar="HOST[:PORT]", help="an extra Host header "
                "value to accept (DNS-rebinding protection), e.g. the machine's name; repeatable"),
        ),
    ),
    Command(
        "demo", "serve:demo", "run every tool once through a real MCP session",
        "Start 'gavel serve' over stdio and call every tool through a real MCP client session.",
    ),
    Command(
        "rubrics", "describe:rubrics", "list the rubrics, or show one",
        "List the loaded rubrics (built-in plus --rubrics-dir), or show one with 'show ID'.",
        actions=(
            Command(
                "show", "describe:rubrics", "show one rubric", "Show one rubric: metrics, anchors, scale.",
                args=(
                    Arg("rubric_id", metavar="ID", help="rubric id, as listed by 'gavel rubrics'"),
                    Arg("--json", action="store_true", help="print the rubric as JSON (as the rubric:// resource)"),
                ),
            ),
        ),
    ),
    Command(
        "config", "describe:config", "show the effective settings and the backend that would be used",
        "Show the effective settings (secrets masked) and which model backend would be used.",
        args=(
            Arg("--json", action="store_true", help="print JSON"),
            Arg("--no-probe", action="store_true", help="do not probe the model backends"),
        ),
    ),
    Command(
        "history", "history:history", "the latest recorded calls, as a table",
        "The latest calls in the evaluation ledger, newest first: id, time (UTC), tool, whether it was served from "
        "the ledger, and the headline result. Batch items and refinement iterations are recorded inside their call "
        "and not listed; 'gavel show ID' prints a call with the ids of its items.",
        args=(
            Arg("--tool", metavar="T", help="only this tool's calls, e.g. judge_rag_answer"),
            Arg("--limit", type=positive_int, default=HISTORY_LIMIT, metavar="N",
                help=f"how many (default {HISTORY_LIMIT})"),
        ),
    ),
    Command(
        "show", "history:show", "one recorded judgment in full, as JSON",
        "Print one judgment from the evaluation ledger as JSON: request (or its hash), result, provenance, usage, "
        "and the ids of its items. The same record as the evaluation://{id} resource.",
        args=(Arg("evaluation_id", metavar="ID", help="an evaluation id; a unique prefix is enough"),),
    ),
    Command(
        "export", "history:export", "every recorded judgment, one JSON object a line",
        "Print every judgment in the evaluation ledger (batch items and refinement iterations included), oldest "
        "first, one JSON record a line.",
        args=(
            Arg("--format", choices=("jsonl",), default="jsonl", help="output format (default jsonl)"),
            Arg("--since", type=since, metavar="DATE",
                help="only judgments recorded at or after DATE (YYYY-MM-DD, midnight UTC, or an ISO 8601 time)"),
        ),
    ),
    Command(
        "eval", "eval:evaluate", "judge a JSONL or CSV dataset; results, an HTML report, a CI exit code",
        "Judge every item of DATA (.jsonl: one object a line; .csv: one row each) with TOOL: keys or columns are the "
        "tool's arguments, 'id' names the item. Writes DIR/results.jsonl, DIR/summary.json and DIR/report.html. "
        "Items judged identically before are served from the ledger. Exit code 1 when a --fail-under figure is "
        "below its value, 3 when a bug in gavel ends the run. Figures: judge_rag_answer mean_overall, "
        "approved_rate, rejected_rate, grounded_rate, unscored_rate; judge_rag_answers mean_overall, best_rate; "
        "evaluate_assessment mean_average, pass_rate, unscored_rate; refine_until_pass pass_rate, mean_average, "
        "improved_rate; score_candidates targets_met_rate, mean_selected_score, unscored_rate; every tool error_rate.",
        args=(
            Arg("data", type=Path, metavar="DATA", help="the dataset, .jsonl or .csv"),
            Arg("--tool", required=True, choices=EVAL_TOOLS, help="the tool that judges each item"),
            Arg("--out", required=True, type=Path, metavar="DIR", help="where results and the report go"),
            Arg("--map", action="append", default=[], metavar="ARG=KEY",
                help="read argument ARG from key/column KEY, e.g. sources=context; repeatable"),
            Arg("--fail-under", action="append", default=[], metavar="FIGURE=VALUE",
                help="exit 1 when FIGURE is below VALUE, e.g. mean_overall=0.7; repeatable"),
            Arg("--compare", type=Path, metavar="DIR", help="an earlier run's --out DIR: report what changed"),
            Arg("--limit", type=positive_int, metavar="N", help="only the first N items"),
        ),
    ),
    Command(
        "calibrate", "calibrate:calibrate",
        "measure the judge on a labelled set; stamp its fitness on every verdict",
        "Run the tool a labelled set belongs to on every item (up to --limit, whole pairs) with the configured "
        "backend and model, and report balanced accuracy, AUROC, pairwise accuracy, Spearman (each with a bootstrap "
        "95 percent interval), the unscored count, the base rate, time per item and the decision cut that maximizes "
        "balanced accuracy. Kept in the ledger: every later judgment by this judge carries it as judge_fitness. "
        "Items judged identically before are served from the ledger.",
        one_of=(
            Arg("--set", metavar="NAME", help="a shipped set: halueval-qa, clinical-assessment or topicalchat-usr"),
            Arg("--data", type=Path, metavar="FILE", help="your own labelled JSONL (a sidecar .toml optional)"),
            Arg("--show", action="store_true", help="list the calibrations kept in the ledger"),
        ),
        args=(
            Arg("--limit", type=positive_int, metavar="N", help="at most N items, whole pairs (default: all)"),
            Arg("--json", action="store_true", help="print the report as JSON"),
            Arg("--report", type=Path, metavar="FILE", help="also write a self-contained HTML report (ROC curve, "
                "reliability diagram, one card per item)"),
        ),
    ),
)  # fmt: skip


def add_commands(commands: Any, parent: argparse.ArgumentParser, table: tuple[Command, ...] = COMMANDS) -> None:
    """Register `table` on `commands` (an `add_subparsers()` result); each takes the shared settings flags."""
    for command in table:
        parser = commands.add_parser(command.name, parents=[parent], help=command.help, description=command.description)
        parser.set_defaults(handler=command.handler)
        if command.one_of:
            group = parser.add_mutually_exclusive_group()
            for arg in command.one_of:
                group.add_argument(*arg.flags, **arg.options)
        for arg in command.args:
            parser.add_argument(*arg.flags, **arg.options)
        if command.actions:
            actions = parser.add_subparsers(dest=f"{command.name}_command", metavar="ACTION", parser_class=Parser)
            add_commands(actions, parent, command.actions)
