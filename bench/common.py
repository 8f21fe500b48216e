"""What every benchmark shares: where results go, the load around a run, percentiles, tables.

Benchmarks are programs, not tests: they print a table and write `bench/results/<name>.json` with the
machine they ran on (`bench.machine.describe()`) and the load average before and after, because the
machine (2 cores) is shared and a loaded machine inflates every timing.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

from mcp.client.stdio import StdioServerParameters

from bench.machine import describe

# The percentiles `gavel calibrate` computes, so a benchmark's figures are computed the same way.
from gavel.tools.calibration.stats import percentile

REPO_ROOT = Path(__file__).resolve().parent.parent
RESULTS_DIR = Path(__file__).resolve().parent / "results"
# Load average at which the 2-core machine counts as shared: more runnable work than cores.
SHARED_LOAD = 2.0


def load_average() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


@dataclass
class Run:
    """One benchmark run: its name, the machine, the load around it, and where its JSON goes."""

    name: str
    out_dir: Path
    smoke: bool
    load_before: list[float] = field(default_factory=load_average)
    # Described when the run starts: the commit is the code that was imported, even if HEAD moves while a
    # long model run is going (it did once, and a JSON named a fix its run had not loaded).
    machine: dict[str, Any] = field(default_factory=describe)

    def write(self, payload: dict[str, Any]) -> Path:
        load_after = load_average()
        peak = max(self.load_before[0], load_after[0])
        document = {
            "benchmark": self.name,
            "smoke": self.smoke,
            "machine": self.machine,
            "written": datetime.now(UTC).isoformat(timespec="seconds"),
            "load_average_before": self.load_before,
            "load_average_after": load_after,
            "machine_shared": peak > SHARED_LOAD,
            **payload,
        }
        self.out_dir.mkdir(parents=True, exist_ok=True)
        path = self.out_dir / f"{self.name}.json"
        tmp = path.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(document, indent=2, default=str) + "\n", encoding="utf-8")
        os.replace(tmp, path)
        return path


def probe_and_write(
    name: str,
    probe: Callable[[], Awaitable[list[dict[str, Any]]]],
    figures: Callable[[list[dict[str, Any]]], dict[str, Any]],
) -> None:
    """A model probe's whole run: its records, the figures from them (printed), both written as `<name>.json`."""
    run = Run(name, RESULTS_DIR, smoke=False)
    records = asyncio.run(probe())
    result = figures(records)
    say(json.dumps({k: v for k, v in result.items() if k != "by_category"}, indent=1))
    say(f"wrote {run.write({'figures': result, 'items': records})}")


def stored_records(path: Path) -> list[dict[str, Any]]:
    """A probe's stored records: a finished run's `records`, or a stopped run's partial file (the list itself)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    return data if isinstance(data, list) else data["records"]


def probe_main(
    name: str,
    stored: bool,
    figures: Callable[[list[dict[str, Any]]], dict[str, Any]],
    read: Callable[[Path], Awaitable[list[dict[str, Any]]]],
    about: dict[str, Any],
    results: Path = RESULTS_DIR,
) -> None:
    """A probe's run. `stored` (its --figures): recompute the figures from the results file, finished or stopped, and
    print them. Otherwise `read` with the model, keeping the records so far in `<name>.partial.json` as it goes, then
    write `<name>.json` with `about`, the figures and the records."""
    if stored:
        print(json.dumps(figures(stored_records(results / f"{name}.json")), indent=1))
        return
    partial = results / f"{name}.partial.json"
    records = asyncio.run(read(partial))
    Run(name, results, smoke=False).write({**about, "figures": figures(records), "records": records})
    partial.unlink(missing_ok=True)


def versus_good(
    records: Iterable[dict[str, Any]], broken: str, value: Callable[[dict[str, Any]], float], digits: int = 3
) -> dict[str, Any]:
    """For a probe's records (one per case version, keyed by `case` and `version`): in how many cases the `broken`
    version reads below the good one by `value`, and both sides' values, sorted."""
    cases: dict[str, dict[str, dict[str, Any]]] = {}
    for record in records:
        cases.setdefault(f"{record.get('split', '')}/{record['case']}", {})[record["version"]] = record
    paired = [v for v in cases.values() if "good" in v and broken in v]
    good = [value(v["good"]) for v in paired]
    low = [value(v[broken]) for v in paired]
    return {
        "cases": len(paired),
        "below_good": sum(b < g for g, b in zip(good, low, strict=True)),
        "good": sorted(round(g, digits) for g in good),
        "broken": sorted(round(b, digits) for b in low),
    }


_DEVNULL: TextIO | None = None


def gavel_serve(threads: str | None = None) -> StdioServerParameters:
    """`gavel serve` over stdio as a client starts it, on the embedded default, with the ledger off so every item is
    judged afresh and never served from an earlier run. `threads` (e.g. "0"): pin it, and so llama.cpp, to these
    cores of a shared machine (taskset -c)."""
    env = dict(os.environ)
    env.setdefault("GAVEL_BACKEND", "embedded")
    env.setdefault("GAVEL_LOG_LEVEL", "WARNING")
    env.setdefault("GAVEL_TIMEOUT_S", "900")
    env.setdefault("GAVEL_LEDGER_PATH", "off")
    command = [sys.executable, "-m", "gavel.server", "serve"]
    if threads:
        command = ["taskset", "-c", threads, *command]
    return StdioServerParameters(command=command[0], args=command[1:], env=env)


def quiet_logging(level: str = "WARNING") -> None:
    """Gavel's logging at `level`, written nowhere: a benchmark's stdout is its tables."""
    global _DEVNULL
    from gavel.server.logging import configure_logging

    if _DEVNULL is None:
        _DEVNULL = open(os.devnull, "w")  # noqa: SIM115 - lives as long as the process
    configure_logging(level, stream=_DEVNULL)


def say(text: str = "") -> None:
    """Benchmarks are command-line programs: their tables go to stdout."""
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def summary_ms(seconds: Sequence[float]) -> dict[str, float]:
    ms = [s * 1000 for s in seconds]
    return {
        "n": len(ms),
        "p50_ms": round(percentile(ms, 50), 3),
        "p95_ms": round(percentile(ms, 95), 3),
        "mean_ms": round(statistics.fmean(ms), 3),
        "min_ms": round(min(ms), 3),
    }


def most_repeated_run(text: str, words: int = 6) -> int:
    """How often the most frequent run of `words` words occurs in `text`: 1 for a text that never repeats
    itself, more for a writer that loops (the failure a generation repeat penalty is set against)."""
    tokens = text.lower().split()
    runs = Counter(tuple(tokens[i : i + words]) for i in range(len(tokens) - words + 1))
    return max(runs.values(), default=0)


def most_repeated_in(texts: Iterable[str]) -> int:
    """`most_repeated_run` of the worst of `texts` (a refinement's history: a loop in any version counts)."""
    return max((most_repeated_run(text) for text in texts), default=0)


def looping(records: Iterable[dict[str, Any]]) -> int:
    """How many refinement records hold a text whose most repeated six-word run occurs more than twice."""
    return sum(record["most_repeated_run"] > 2 for record in records)


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """A GitHub-markdown table: readable in a terminal and pasteable into the README."""

    def cell(value: Any) -> str:
        if value is None:
            return "-"
        if isinstance(value, float):
            return f"{value:.3g}" if abs(value) < 1000 else f"{value:,.0f}"
        return str(value)

    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def halueval_window(description: str, flags: tuple[str, ...] = ()) -> argparse.Namespace:
    """The HaluEval dev pairs a probe reads: `--pairs` of them after the first `--skip`; `flags` are the probe's
    own on/off switches."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--skip", type=int, default=0)
    parser.add_argument("--pairs", type=int, default=50)
    for flag in flags:
        parser.add_argument(flag, action="store_true")
    return parser.parse_args()


def run_halueval_probe(
    description: str,
    name: str,
    probe: Callable[[int, int], Awaitable[list[dict[str, Any]]]],
    figures: Callable[[list[dict[str, Any]]], dict[str, Any]],
) -> None:
    """A probe over a window of HaluEval dev pairs: read them, print its figures, and write them with every item to
    bench/results/<name>-<skip>.json."""
    args = halueval_window(description)
    run = Run(f"{name}-{args.skip}", RESULTS_DIR, smoke=False)
    records = asyncio.run(probe(args.skip, args.pairs))
    result = figures(records)
    for key, value in result.items():
        say(f"{key:18s} {value}")
    path = run.write({"args": vars(args), "figures": result, "items": records})
    say(f"wrote {path}")
