"""Prompt evaluation speed of the embedded default with llama.cpp's weights repacked or in their plain layout.

llama.cpp repacks Q4_K weights into an interleaved layout for its own AVX2 kernels unless told not to
(`no_extra_bufts`); the plain layout goes through its llamafile k-quant matrix code. Gavel's judgments are mostly
prompt evaluation, so this reads tokens a second on prompts like a judgment's: 560 new tokens each (no prompt
cache), one generated token. Each layout loads the model in its own process, one after the other, alternating,
so the machine's drift over the run falls on both alike.

    python -m bench.weight_layout [--rounds 3] [--prompts 4]   # writes bench/results/weight-layout.json
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import time
from typing import Any

from bench.common import RESULTS_DIR, Run, say, table

LAYOUTS = {"plain": False, "repacked": True}  # layout -> repack (GAVEL_EMBEDDED_REPACK)
WORDS = ["patient", "reports", "sleep", "problems", "for", "three", "weeks", "with", "early", "waking"]
WORDS += ["and", "low", "mood", "poor", "appetite"]


def measure(repack: bool, prompts: int) -> list[float]:
    """Tokens a second of each prompt's evaluation, in this process (the child's side)."""
    from gavel.tools.engine.embedded import EmbeddedBackend, assemble_default_model

    backend = EmbeddedBackend(assemble_default_model(), repack=repack)
    backend.load_sync()
    rates = []
    for index in range(prompts + 1):  # the first warms the caches up and is not counted
        rng = random.Random(index)
        text = " ".join(rng.choice(WORDS) for _ in range(520))
        body = {
            "messages": [{"role": "user", "content": f"{index} {text}\nIs this vague? Answer Yes or No."}],
            "max_tokens": 1,
            "logprobs": True,
            "top_logprobs": 20,
            "cache_prompt": False,
        }
        timings = backend.complete_sync(body)["timings"]
        if index:
            rates.append(float(timings["prompt_per_second"]))
    return rates


def _child(layout: str, prompts: int) -> list[float]:
    command = [sys.executable, "-m", "bench.weight_layout", "--child", layout, "--prompts", str(prompts)]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--prompts", type=int, default=4)
    parser.add_argument("--child", choices=sorted(LAYOUTS), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure(LAYOUTS[args.child], args.prompts)))
        return
    run = Run("weight-layout", RESULTS_DIR, smoke=False)
    rounds: list[dict[str, Any]] = []
    for number in range(args.rounds):
        for layout in LAYOUTS:
            started = time.perf_counter()
            rates = _child(layout, args.prompts)
            rounds.append({"round": number, "layout": layout, "tokens_per_s": rates,
                           "seconds": round(time.perf_counter() - started, 1)})  # fmt: skip
            say(f"  round {number} {layout}: median {statistics.median(rates):.1f} tokens/s")
    figures = {
        layout: round(statistics.median(r for x in rounds if x["layout"] == layout for r in x["tokens_per_s"]), 1)
        for layout in LAYOUTS
    }
    say(table(["layout", "median tokens/s"], list(figures.items())))
    say(f"written {run.write({'args': vars(args), 'median_tokens_per_s': figures, 'rounds': rounds})}")


if __name__ == "__main__":
    main()
