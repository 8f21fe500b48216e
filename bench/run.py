"""Run every benchmark, print their tables, write bench/results/<name>.json (each with the machine).

    python -m bench.run                      # all of them (make bench); 48 minutes on 2 cores from a fresh clone
    python -m bench.run --smoke              # every benchmark on tiny inputs, scripted model (make bench-smoke)
    python -m bench.run --only overhead,scale
    python -m bench.run --full               # benchmark 3 on all 100 labelled pairs (many hours on 2 cores)

Order: the deterministic and scripted ones first (1 overhead, 4 scale), then the model ones (2 cost,
3 agreement), so a long model run never delays the quick numbers. --smoke writes to bench/results/smoke/
unless --out says otherwise, so it never overwrites real results.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path

from bench import agreement, cost, ideas, overhead, scale
from bench.common import RESULTS_DIR, load_average, say

BENCHMARKS: dict[str, Callable[..., Path]] = {
    "overhead": overhead.main,
    "scale": scale.main,
    "cost": cost.main,
    "agreement": agreement.main,
    "ideas": ideas.main,
}


def main(argv: list[str] | None = None) -> list[Path]:
    parser = argparse.ArgumentParser(
        prog="python -m bench.run", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--smoke", action="store_true", help="every benchmark on tiny inputs, no model")
    parser.add_argument("--full", action="store_true", help="benchmark 3 on all 100 labelled pairs")
    parser.add_argument("--only", default=None, help=f"comma-separated subset of: {', '.join(BENCHMARKS)}")
    parser.add_argument("--no-peers", action="store_true", help="skip RAGAS and DeepEval")
    parser.add_argument(
        "--pairs",
        type=int,
        default=None,
        help=f"benchmark 3: question pairs for Gavel (default {agreement.DEFAULT_PAIRS})",
    )
    parser.add_argument(
        "--peer-pairs",
        type=int,
        default=None,
        help=f"benchmark 3: question pairs for the peers ({agreement.DEFAULT_PEER_PAIRS})",
    )
    parser.add_argument(
        "--cost-items", type=int, default=None, help=f"benchmark 2: RAG items (default {cost.DEFAULT_ITEMS})"
    )
    parser.add_argument("--threads", type=int, default=None, help="benchmarks 2, 3: llama.cpp threads (default all)")
    parser.add_argument("--out", type=Path, default=None, help="results directory (default bench/results)")
    args = parser.parse_args(argv)
    names = list(BENCHMARKS) if not args.only else [n.strip() for n in args.only.split(",") if n.strip()]
    unknown = [n for n in names if n not in BENCHMARKS]
    if unknown:
        parser.error(f"unknown benchmark(s) {', '.join(unknown)}; choose from {', '.join(BENCHMARKS)}")
    out = args.out or (RESULTS_DIR / "smoke" if args.smoke else RESULTS_DIR)
    say(f"Gavel benchmarks: {', '.join(names)}{' (smoke)' if args.smoke else ''}; load average {load_average()}")
    written = []
    started = time.perf_counter()
    for name in names:
        module_args = ["--out", str(out)]
        if args.smoke:
            module_args.append("--smoke")
        if args.no_peers and name in ("cost", "agreement"):
            module_args.append("--no-peers")
        if args.full and name == "agreement":
            module_args.append("--full")
        if name == "agreement" and args.pairs is not None:
            module_args += ["--pairs", str(args.pairs)]
        if name == "agreement" and args.peer_pairs is not None:
            module_args += ["--peer-pairs", str(args.peer_pairs)]
        if name in ("cost", "agreement") and args.threads is not None:
            module_args += ["--threads", str(args.threads)]
        if name == "cost" and args.cost_items is not None:
            module_args += ["--items", str(args.cost_items)]
        written.append(BENCHMARKS[name](module_args))
    say(f"\nAll done in {time.perf_counter() - started:.0f} s; results: {', '.join(str(p) for p in written)}")
    return written


if __name__ == "__main__":
    main()
