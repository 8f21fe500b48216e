"""Which llama.cpp slot each embedded call asks for: probability checks share one slot (one prompt cache for
their shared prefix), generated replies get slots of their own so two of them decode side by side.

llama.cpp itself is replaced by a recorder of the request bodies (the model seam); the real server honours
`id_slot` (llama.cpp's server API).
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import anyio

from gavel.tools.engine.backend import ChatMessage, ChatRequest
from gavel.tools.engine.embedded import EmbeddedBackend
from gavel.tools.engine.slots import PROBABILITY_SLOT
from gavel.tools.errors import BackendTimeout

REPLY = {"choices": [{"message": {"content": "Yes"}, "finish_reason": "stop"}]}


class _Recorder:
    """Answers every call; generated calls wait until two are in flight, to hold both generation slots."""

    def __init__(self) -> None:
        self.bodies: list[dict[str, Any]] = []
        self.both_in_flight = threading.Barrier(2, timeout=5)

    def handle_chat_completions(self, body: dict[str, Any]) -> dict[str, Any]:
        self.bodies.append(body)
        if "logprobs" not in body:
            self.both_in_flight.wait()
        return REPLY


def _backend(parallel: int, *, screen_slot: bool = False) -> tuple[EmbeddedBackend, _Recorder]:
    backend = EmbeddedBackend(Path("/nonexistent.gguf"), parallel=parallel, screen_slot=screen_slot)
    recorder = _Recorder()
    backend._server = recorder
    return backend, recorder


def _request(*, probability: bool) -> ChatRequest:
    return ChatRequest(messages=(ChatMessage("user", "Is it supported?"),), top_logprobs=20 if probability else None)


async def test_probability_checks_share_slot_0_and_generated_replies_take_the_other_slots() -> None:
    backend, recorder = _backend(parallel=2)
    assert backend.slots == 4  # checks, two generations, checks apart
    async with anyio.create_task_group() as tg:
        tg.start_soon(backend.chat, _request(probability=False))
        tg.start_soon(backend.chat, _request(probability=False))
    await backend.chat(_request(probability=True))
    await backend.chat(_request(probability=True))
    generated = sorted(b["id_slot"] for b in recorder.bodies[:2])
    assert generated == [1, 2]
    assert [b["id_slot"] for b in recorder.bodies[2:]] == [PROBABILITY_SLOT, PROBABILITY_SLOT]
    assert sorted(backend._free_slots) == [1, 2]  # given back after each call


async def test_the_injection_screen_has_a_slot_of_its_own_beside_the_checks_and_the_generations() -> None:
    backend, recorder = _backend(parallel=2, screen_slot=True)
    assert backend.slots == 5
    screen = ChatRequest(messages=(ChatMessage("user", "Speaks to its grader?"),), top_logprobs=20, purpose="screen")
    await backend.chat(screen)
    await backend.chat(_request(probability=True))
    assert [b["id_slot"] for b in recorder.bodies] == [4, PROBABILITY_SLOT]
    assert sorted(backend._free_slots) == [1, 2]  # the screen's slot is never handed to a generation


async def test_a_check_apart_from_the_shared_prefix_has_a_slot_of_its_own() -> None:
    backend, recorder = _backend(parallel=2)
    apart = ChatRequest(messages=(ChatMessage("user", "States everything?"),), top_logprobs=20, purpose="apart")
    await backend.chat(_request(probability=True))
    await backend.chat(apart)
    await backend.chat(_request(probability=True))
    assert [b["id_slot"] for b in recorder.bodies] == [PROBABILITY_SLOT, 3, PROBABILITY_SLOT]
    assert sorted(backend._free_slots) == [1, 2]  # never handed to a generation


async def test_one_slot_leaves_the_choice_to_llama_cpp() -> None:
    backend, recorder = _backend(parallel=1)
    recorder.both_in_flight = threading.Barrier(1)
    await backend.chat(_request(probability=True))
    await backend.chat(_request(probability=False))
    assert backend.slots == 1 and all("id_slot" not in b for b in recorder.bodies)


async def test_a_timed_out_generation_keeps_its_slot_until_llama_cpp_is_done_with_it() -> None:
    backend, recorder = _backend(parallel=2)
    backend.timeout_s = 0.2
    release = threading.Event()
    first = True

    def handle(body: dict[str, Any]) -> dict[str, Any]:
        nonlocal first
        recorder.bodies.append(body)
        if first:  # the first generation outlives its caller's timeout
            first = False
            release.wait(timeout=5)
        return REPLY

    recorder.handle_chat_completions = handle  # type: ignore[method-assign]
    try:
        await backend.chat(_request(probability=False))
    except BackendTimeout:
        pass
    else:
        raise AssertionError("the first call should have timed out")
    await backend.chat(_request(probability=False))
    assert recorder.bodies[1]["id_slot"] != recorder.bodies[0]["id_slot"]  # not queued behind the busy slot
    release.set()
    for _ in range(100):  # llama.cpp's thread gives the slot back when it finishes
        if sorted(backend._free_slots) == [1, 2]:
            break
        await anyio.sleep(0.02)
    assert sorted(backend._free_slots) == [1, 2]
