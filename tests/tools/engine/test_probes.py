"""The backend's probes (model digest, log-probabilities) are asked once per process, under the asking call's
deadline, and remembered even when they fail, until the backend answers a call again."""

from __future__ import annotations

import time

import anyio

from gavel.tools.engine import probes as probes_module
from gavel.tools.engine.backend import ModelInfo
from gavel.tools.engine.judge import Judge
from gavel.tools.engine.probes import Probes
from gavel.tools.engine.provider import BackendProvider
from tests.support.config import engine_config
from tests.support.deps import REGISTRY
from tests.support.ollama_server import OllamaTestServer
from tests.support.scripted import ScriptedBackend, yes_no

CONFIG = engine_config(timeout_s=5, call_deadline_s=0.5)


class Probed(ScriptedBackend):
    """Counts its probes; `silent` ones never answer."""

    def __init__(self, *, silent: bool = False, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.silent = silent
        self.info_asked = 0
        self.reads_asked = 0

    async def model_info(self, model: str | None = None) -> ModelInfo:
        self.info_asked += 1
        if self.silent:
            await anyio.sleep(60)
        return await super().model_info(model)

    async def reads_probabilities(self, model: str | None = None) -> bool:
        self.reads_asked += 1
        if self.silent:
            await anyio.sleep(60)
        return await super().reads_probabilities(model)


async def test_judges_of_one_process_ask_the_backend_once():
    backend, probes = Probed(probabilities=True), Probes()
    for _ in range(3):
        judge = Judge(backend, CONFIG, probes=probes)
        assert await judge.readout_kind() == "probability"
        assert (await judge.model_info()).digest == "sha256:scripted"
    assert (backend.info_asked, backend.reads_asked) == (1, 1)


async def test_an_ollama_digest_is_read_again_once_it_is_a_few_seconds_old(monkeypatch):
    backend, probes = Probed(probabilities=True), Probes()
    monkeypatch.setattr(backend, "name", "ollama")
    clock = [1000.0]
    monkeypatch.setattr(probes_module, "_now", lambda: clock[0])
    await probes.model_info(backend, None, within_s=1)
    await probes.model_info(backend, None, within_s=1)
    assert backend.info_asked == 1
    clock[0] += probes_module.DIGEST_RECHECK_S + 0.1
    await probes.model_info(backend, None, within_s=1)
    assert backend.info_asked == 2, "a model pulled again under its name must not keep the old digest"


async def test_concurrent_askers_wait_for_one_probe():
    backend, probes = Probed(probabilities=True), Probes()
    judge = Judge(backend, CONFIG, probes=probes)
    async with anyio.create_task_group() as tg:
        for _ in range(5):
            tg.start_soon(judge.model_info)
            tg.start_soon(Judge(backend, CONFIG, probes=probes).readout_kind)
    assert (backend.info_asked, backend.reads_asked) == (1, 1)


async def test_a_silent_probe_ends_at_the_deadline_and_stops_the_call():
    backend = Probed(silent=True, probabilities=True, default="{}")
    judge = Judge(backend, CONFIG)
    started = time.monotonic()
    assert await judge.readout_kind() == "generated"
    assert time.monotonic() - started < 1.0
    assert (await judge.model_info()).digest is None
    assert backend.info_asked == 0  # the call had stopped asking: its deadline had passed
    assert judge.saw_backend_failure


async def test_a_failed_probe_is_remembered_until_the_backend_answers_again():
    backend, probes = Probed(silent=True, probabilities=True, default=yes_no(0.9)), Probes()
    assert await Judge(backend, CONFIG, probes=probes).readout_kind() == "generated"
    started = time.monotonic()
    assert await Judge(backend, CONFIG, probes=probes).readout_kind() == "generated"
    # Asking again would wait out the 0.5 s deadline; the count is the check, the loose bound shows no wait.
    assert backend.reads_asked == 1 and time.monotonic() - started < 0.4
    # The backend is back and answers a call: the next call asks again.
    backend.silent = False
    rubric = REGISTRY.get("clinical-assessment")
    judge = Judge(backend, CONFIG, probes=probes)
    await judge.score_metrics(rubric=rubric, metrics=rubric.metrics[:1], subject="x")
    assert await Judge(backend, CONFIG, probes=probes).readout_kind() == "probability"
    assert backend.reads_asked == 2


async def test_a_setting_that_names_one_backend_is_not_probed_before_a_call() -> None:
    with OllamaTestServer(models=["m:latest"], fault="slow", slow_s=30.0) as silent:
        provider = BackendProvider(engine_config(backend="ollama", ollama_host=silent.url, judge_model="m:latest"))
        try:
            started = time.monotonic()
            judge = await provider.judge()
            assert await provider.would_use(client_can_sample=False) == "ollama"
            # Probing the silent server would take PROBE_TIMEOUT_S (3 s); importing the client takes most of a second.
            assert time.monotonic() - started < 2.5 and judge.backend.name == "ollama"
        finally:
            await provider.aclose()


async def test_an_asker_waiting_for_another_calls_silent_probe_stops_at_its_own_deadline() -> None:
    backend, probes = Probed(silent=True, probabilities=True), Probes()
    long_call = Judge(backend, engine_config(timeout_s=5, call_deadline_s=30), probes=probes)
    short_call = Judge(backend, CONFIG, probes=probes)
    started = time.monotonic()
    async with anyio.create_task_group() as tg:
        tg.start_soon(long_call.model_info)
        await anyio.sleep(0.05)  # the long call holds the probe
        assert (await short_call.model_info()).digest is None
        assert await short_call.readout_kind() == "generated"
        assert time.monotonic() - started < 1.0 and short_call.saw_backend_failure
        tg.cancel_scope.cancel()
    assert backend.info_asked == 1
