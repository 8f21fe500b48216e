"""Which layout llama.cpp gives the embedded model's weights on this CPU: repacked or plain.

llama.cpp can repack Q4_K weights at load into an interleaved layout for its own AVX2 kernels; left plain, the
matrix products go through its llamafile k-quant code. Which is faster depends on the CPU, and a judgment is
mostly prompt evaluation (`python -m bench.weight_layout` reads both):

- Intel Xeon @ 2.50GHz, 2 cores: repacked 41.1 tokens/s against 36.7 plain; a RAG first answer 14.8 s against
  17.9 s, a clinical text 23.1 s against 28.7 s (bench/results/weight-layout-xeon.json, rag-serve-xeon-*.json).
- AMD EPYC, 2 cores: plain 50.7 tokens/s against 38.8 repacked; a RAG first answer 12.9 s against 14.0 s
  (bench/results/weight-layout.json, rag-serve-norepack-1.json, rag-serve-repack-1.json).

One VM of each vendor, so `auto` follows the vendor, and GAVEL_EMBEDDED_REPACK=true/false overrides it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

Layout = bool | Literal["auto"]
CPUINFO = Path("/proc/cpuinfo")
REPACKED_VENDORS = frozenset({"GenuineIntel"})


def cpu_vendor(cpuinfo: Path = CPUINFO) -> str:
    """The CPU's vendor id ("GenuineIntel", "AuthenticAMD", …); empty where the system does not say (not Linux)."""
    try:
        with cpuinfo.open(encoding="utf-8", errors="replace") as lines:
            for line in lines:
                key, _, value = line.partition(":")
                if key.strip() == "vendor_id":
                    return value.strip()
    except OSError:
        pass
    return ""


def repack_weights(choice: Layout, vendor: str | None = None) -> bool:
    """True to let llama.cpp repack the weights: as asked, or under `auto` as measured faster for this vendor."""
    if choice != "auto":
        return bool(choice)
    return (cpu_vendor() if vendor is None else vendor) in REPACKED_VENDORS
