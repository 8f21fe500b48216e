"""How the embedded backend sizes llama.cpp: the context per slot, the threads, and the weights' layout.

llama.cpp's parameters are recorded on a plain namespace; no model is loaded.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from gavel.tools.engine.embedded import EmbeddedBackend


@pytest.mark.parametrize("repack", [False, True])
def test_the_weights_keep_their_plain_layout_unless_repacking_is_asked_for(repack: bool) -> None:
    params = SimpleNamespace(cpuparams=SimpleNamespace(), cpuparams_batch=SimpleNamespace())
    EmbeddedBackend(Path("/nonexistent.gguf"), n_ctx=4096, parallel=2, threads=3, repack=repack)._size(params)
    assert params.no_extra_bufts is not repack
    # two generation slots, the probability slot and the slot for checks apart from it, each with the full window
    assert (params.n_parallel, params.n_ctx) == (4, 4 * 4096)
    assert (params.cpuparams.n_threads, params.cpuparams_batch.n_threads) == (3, 3)
