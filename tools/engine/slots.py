"""Which llama.cpp slot an embedded call runs in, and how long a generation slot stays taken.

Each llama.cpp slot keeps its own prompt cache. Calls that share a long prompt prefix therefore go to one slot,
and generated replies to slots of their own, so they decode side by side and never overwrite that prefix.
"""

from __future__ import annotations

import threading

# With more than one slot, probability checks (one-token calls behind one long shared prefix, the passages)
# all go to this slot: each llama.cpp slot keeps its own prompt cache, so the prefix is evaluated once and no
# generated reply overwrites it. Generated replies get slots 1..parallel and decode side by side.
PROBABILITY_SLOT = 0


class Lease:
    """A generation slot, held until llama.cpp is done with it rather than until its caller stops waiting: a call
    that timed out goes on decoding in its thread, and its slot handed out meanwhile would queue the next call
    behind it while another slot sits idle."""

    def __init__(self, free: list[int], slot: int) -> None:
        self._free, self._slot = free, slot
        self._lock = threading.Lock()
        self._started = self._returned = False

    def start(self) -> bool:
        """Called in llama.cpp's thread; False when the caller already gave the slot back."""
        with self._lock:
            self._started = not self._returned
            return self._started

    def give_back(self) -> None:
        with self._lock:
            self._return()

    def abandon(self) -> None:
        """The caller is done waiting: the slot goes back now unless llama.cpp is working in it (then at its end)."""
        with self._lock:
            if not self._started:
                self._return()

    def _return(self) -> None:  # under the lock; at most once
        if not self._returned:
            self._returned = True
            self._free.append(self._slot)
