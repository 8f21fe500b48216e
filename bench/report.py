"""The README's Benchmarks tables, rendered from bench/results/*.json: `python -m bench.report [--out DIR]`.

The numbers quoted in the README come from this, so they are always those of a real run, with its machine
and load. Commentary (what the numbers mean against the goals) is written by hand around them.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from bench.common import RESULTS_DIR, say, table


def _load(directory: Path, name: str) -> dict[str, Any] | None:
    path = directory / f"{name}.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None


def _when(doc: dict[str, Any]) -> str:
    load = f"load average {doc['load_average_before'][0]} → {doc['load_average_after'][0]}"
    shared = ", machine shared with other work" if doc.get("machine_shared") else ""
    return f"{doc['machine']['when']} at commit {doc['machine']['commit']}, {load}{shared}"


def machine_line(doc: dict[str, Any]) -> str:
    m = doc["machine"]
    return f"{m['cpu']}, {m['cores']} cores, {m['memory_gib']} GiB, Python {m['python']}, {m['platform']}"


def overhead(doc: dict[str, Any]) -> list[str]:
    rows = [
        [r["transport"], r["tool"], r["p50_ms"], r["p95_ms"], r["ratio_p50_to_echo"], r["ratio_p95_to_echo"],
         r["client_validation_p50_ms"], r["ratio_p50_to_echo_without_client_validation"]]
        for r in doc["rows"]
    ]  # fmt: skip
    return [
        f"**1. Server overhead** ({doc['calls_per_tool']} calls per tool after {doc['warmup_per_tool']} warm-up; "
        f"{_when(doc)})",
        "",
        table(
            [
                "transport",
                "tool",
                "p50 ms",
                "p95 ms",
                "p50 ÷ echo",
                "p95 ÷ echo",
                "of which client validation p50 ms",
                "p50 ÷ echo without it",
            ],
            rows,
        ),
        "",
        f"Start-up of `python -m gavel.server serve` to its first tools/list response over stdio: median "
        f"{doc['startup_median_s']:.2f} s (runs: {', '.join(f'{s:.2f}' for s in doc['startup_s'])} s).",
    ]


def cost(doc: dict[str, Any]) -> list[str]:
    rows = [
        [s["judge"], s["items"], s["llm_calls"], s["prompt_tokens_evaluated"], s["prompt_tokens_reused"],
         s["completion_tokens"], s["embedding_calls"], s["wall_s"], s["failures_total"]]
        for s in doc["per_judge"]
    ]  # fmt: skip
    return [
        f"**2. LLM cost per judged item**, same model, same endpoint ({_when(doc)}; embeddings: {doc['embeddings']})",
        "",
        table(
            [
                "judge",
                "items",
                "LLM calls",
                "prompt tokens evaluated",
                "prompt tokens reused",
                "completion tokens",
                "embedding calls",
                "wall s",
                "failures",
            ],
            rows,
        ),
    ]


def agreement(doc: dict[str, Any]) -> list[str]:
    def ci(s: dict[str, Any], name: str) -> str:
        value, (low, high) = s.get(name), s.get(f"{name}_ci95") or (None, None)
        if value is None:
            return "-"
        return f"{value:.2f}" if low is None else f"{value:.2f} [{low:.2f}, {high:.2f}]"

    rows = [
        [s["judge"], s["items"], ci(s, "balanced_accuracy"), ci(s, "f1_hallucinated"), ci(s, "auroc"),
         ci(s, "pairwise_accuracy"), s["undecided_rate"], s["wall_s_per_item"], s["llm_calls_per_item"]]
        for s in doc["summaries"]
    ]  # fmt: skip
    state = "" if doc.get("complete", True) else f" (INCOMPLETE: {doc.get('pairs_done')} pairs done)"
    return [
        f"**3. Agreement with labels**: {doc['subset']}, question numbers {doc['question_numbers']}; peers on the "
        f"{doc.get('peer_subset') or '-'}{state} ({_when(doc)}; llama.cpp threads: {doc.get('llama_threads')})",
        "",
        table(
            [
                "judge",
                "items",
                "balanced accuracy [95% CI]",
                "F1 hallucinated",
                "AUROC",
                "pairwise accuracy",
                "undecided",
                "s / item",
                "LLM calls / item",
            ],
            rows,
        ),
    ]


def scale(doc: dict[str, Any]) -> list[str]:
    candidates = [
        [r["path"], f"{r['candidates']:,}", r.get("validate_s"), r.get("tool_s"), r.get("dump_s"), r["total_s"],
         r["us_per_candidate"]]
        for r in doc["score_candidates"]
    ]  # fmt: skip
    batches = [
        [r["answers"], r["max_concurrency"], r["llm_calls"], r["serial_s"], r["limiter_bound_s"], r["wall_s"],
         r["max_in_flight"]]
        for r in doc["judge_rag_answers"]
    ]  # fmt: skip
    latency = doc["judge_rag_answers"][0]["latency_ms"] if doc["judge_rag_answers"] else "?"
    return [
        f"**4. Scale** ({_when(doc)})",
        "",
        table(
            ["score_candidates path", "candidates", "validate s", "tool s", "dump s", "total s", "µs / candidate"],
            candidates,
        ),
        "",
        table(
            [
                "judge_rag_answers: answers",
                "GAVEL_MAX_CONCURRENCY",
                "LLM calls",
                f"calls × {latency} ms, s",
                "⌈calls ÷ limit⌉ × latency, s",
                "wall s",
                "max in flight",
            ],
            batches,
        ),
    ]


def render(directory: Path) -> str:
    parts: list[str] = []
    docs = {name: _load(directory, name) for name in ("overhead", "cost", "agreement", "scale")}
    first = next((d for d in docs.values() if d is not None), None)
    if first is not None:
        parts += [f"Machine: {machine_line(first)}.", ""]
    for name, render_one in (("overhead", overhead), ("cost", cost), ("agreement", agreement), ("scale", scale)):
        doc = docs[name]
        if doc is not None:
            parts += [*render_one(doc), ""]
    return "\n".join(parts)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.report", description=__doc__)
    parser.add_argument("--out", type=Path, default=RESULTS_DIR, help="results directory")
    args = parser.parse_args(argv)
    say(render(args.out))


if __name__ == "__main__":
    main()
