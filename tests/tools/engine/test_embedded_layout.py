"""How the embedded backend sizes llama.cpp: the context per slot, the threads, and the weights' layout; auto by vendor.

llama.cpp's parameters are recorded on a plain namespace; no model is loaded.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from gavel.tools.engine.embedded import EmbeddedBackend
from gavel.tools.engine.layout import cpu_vendor, repack_weights


@pytest.mark.parametrize("repack", [False, True])
def test_the_weights_keep_their_plain_layout_unless_repacking_is_asked_for(repack: bool) -> None:
    params = SimpleNamespace(cpuparams=SimpleNamespace(), cpuparams_batch=SimpleNamespace())
    EmbeddedBackend(Path("/nonexistent.gguf"), n_ctx=4096, parallel=2, threads=3, repack=repack)._size(params)
    assert params.no_extra_bufts is not repack
    # two generation slots, the probability slot and the slot for checks apart from it, each with the full window
    assert (params.n_parallel, params.n_ctx) == (4, 4 * 4096)
    assert (params.cpuparams.n_threads, params.cpuparams_batch.n_threads) == (3, 3)


@pytest.mark.parametrize(("vendor", "repacked"), [("GenuineIntel", True), ("AuthenticAMD", False), ("", False)])
def test_auto_takes_the_layout_measured_faster_for_the_vendor(vendor: str, repacked: bool) -> None:
    assert repack_weights("auto", vendor=vendor) is repacked


@pytest.mark.parametrize("choice", [True, False])
def test_a_layout_asked_for_wins_over_the_vendor(choice: bool) -> None:
    assert repack_weights(choice, vendor="GenuineIntel") is choice
    assert repack_weights(choice, vendor="AuthenticAMD") is choice


def test_the_vendor_is_read_from_cpuinfo_and_is_empty_without_it(tmp_path: Path) -> None:
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text("processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\n")
    assert cpu_vendor(cpuinfo) == "AuthenticAMD"
    assert cpu_vendor(tmp_path / "absent") == ""
