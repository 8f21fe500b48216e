"""How the settings reach the engine: every setting an engine config takes, under its own name."""

from __future__ import annotations

import urllib.parse
from dataclasses import MISSING, fields

import pytest
from ollama._client import _parse_host

from gavel.server.settings import DEFAULT_OLLAMA_MODEL, Settings, SettingsError, load_settings
from gavel.tools.common import Limits
from gavel.tools.engine.config import EngineConfig

# A value for each setting the engine configs share, none of them a default.
GIVEN = {
    "GAVEL_BACKEND": "ollama",
    "GAVEL_JUDGE_MODEL": "judge:1b",
    "GAVEL_GENERATOR_MODEL": "writer:1b",
    "GAVEL_OLLAMA_HOST": "http://10.0.0.2:11434",
    "GAVEL_OPENAI_BASE_URL": "http://10.0.0.3:8000/v1",
    "GAVEL_OPENAI_API_KEY": "sk-test",
    "GAVEL_MODEL_PATH": "/models/judge.gguf",
    "GAVEL_TIMEOUT_S": "30",
    "GAVEL_CALL_DEADLINE_S": "90",
    "GAVEL_MAX_CONCURRENCY": "3",
    "GAVEL_NUM_CTX": "4096",
    "GAVEL_TEMPERATURE": "0.1",
    "GAVEL_SAMPLE_TEMPERATURE": "0.5",
    "GAVEL_SEED": "7",
    "GAVEL_EMBEDDED_REPACK": "true",
    "GAVEL_STRATEGY": "joint",
    "GAVEL_READOUT": "generated",
    "GAVEL_USE_CALIBRATED_CUT": "true",
    "GAVEL_INJECTION_SCREEN": "model",
    "GAVEL_MAX_TEXT_CHARS": "1000",
    "GAVEL_MAX_SOURCES": "5",
    "GAVEL_MAX_CANDIDATES": "100",
    "GAVEL_MAX_BATCH": "4",
}


def test_the_engine_config_carries_every_setting_of_its_name_and_keeps_its_own_defaults() -> None:
    settings = load_settings(GIVEN)
    config = settings.engine_config()
    shared = [f.name for f in fields(EngineConfig) if f.name in Settings.model_fields]
    assert len(shared) == 19
    assert all(getattr(settings, name) != Settings.model_fields[name].default for name in shared)
    assert {name: getattr(config, name) for name in shared} == {name: getattr(settings, name) for name in shared}
    assert config.default_ollama_model == DEFAULT_OLLAMA_MODEL
    assert (config.top_k, config.top_p, config.candidate_readout) == (20, 0.9, "probability")
    assert config.backend == "ollama" and config.seed == 7 and config.call_deadline_s == 90


def test_the_limits_carry_every_limit_setting() -> None:
    settings = load_settings(GIVEN, {"max_samples": 3, "max_iterations": 5})
    assert settings.limits() == Limits(
        max_text_chars=1000,
        max_sources=5,
        max_candidates=100,
        max_batch=4,
        max_samples=3,
        max_iterations=5,
        call_deadline_s=90,
    )


def test_a_default_is_stated_once_in_the_settings_not_again_in_the_configs() -> None:
    for config in (EngineConfig, Limits):
        restated = [
            f.name
            for f in fields(config)
            if f.name in Settings.model_fields and (f.default is not MISSING or f.default_factory is not MISSING)
        ]
        assert restated == [], f"{config.__name__} restates the settings' defaults of {restated}"


@pytest.mark.parametrize(("raw", "layout"), [(None, "auto"), ("Auto", "auto"), ("true", True), ("off", False)])
def test_the_weights_layout_is_auto_unless_set(raw: str | None, layout: object) -> None:
    environ = {} if raw is None else {"GAVEL_EMBEDDED_REPACK": raw}
    assert load_settings(environ).engine_config().embedded_repack == layout


def test_a_layout_that_is_not_one_of_the_three_says_which_they_are() -> None:
    with pytest.raises(SettingsError, match=r"GAVEL_EMBEDDED_REPACK: .*must be auto .*, true .* or false"):
        load_settings({"GAVEL_EMBEDDED_REPACK": "maybe"})


@pytest.mark.parametrize("host", ["localhost:abc", "http://[::1", "ftp://host:1"])
def test_an_ollama_host_its_client_cannot_parse_is_refused_naming_the_variable(host: str) -> None:
    with pytest.raises(SettingsError, match=r"^OLLAMA_HOST: is not a host Ollama can be reached at"):
        load_settings({"OLLAMA_HOST": host})


def test_an_ollama_host_with_a_password_and_no_port_gets_ollamas_port_as_its_client_does() -> None:
    assert load_settings({"OLLAMA_HOST": "bob:hunter2@myhost"}).ollama_host == "http://bob:hunter2@myhost:11434"


@pytest.mark.parametrize(
    "host",
    [
        "example.com",
        "1.2.3.4",
        "example.com/path",
        "example.com:56789",
        "[::1]",
        "http://example.com",
        "https://ollama.example.com/",
        "https://bob:hunter2@ollama.example.com",
        "http://[0001:002:003:0004::1]",
        "https://[0001:002:003:0004::1]/path",
        "https://1.2.3.4:56789",
    ],
)
def test_an_ollama_host_reaches_the_host_port_and_scheme_ollamas_client_would(host: str) -> None:
    # A scheme with no port means that scheme's port to the client (a reverse proxy's 443), not 11434.
    ours = urllib.parse.urlsplit(load_settings({"OLLAMA_HOST": host}).ollama_host)
    theirs = urllib.parse.urlsplit(_parse_host(host))
    assert (ours.scheme, ours.hostname, ours.port) == (theirs.scheme, theirs.hostname, theirs.port)


def test_an_ollama_host_with_a_password_is_shown_with_it_masked() -> None:
    assert load_settings({"OLLAMA_HOST": "bob:hunter2@myhost"}).public_view()["ollama_host"] == (
        "http://bob:****@myhost:11434"
    )


def test_a_ledger_ttl_past_ten_years_is_refused_not_left_to_overflow_every_call() -> None:
    with pytest.raises(SettingsError, match=r"GAVEL_LEDGER_TTL_S: .*less than or equal to 315360000"):
        load_settings({"GAVEL_LEDGER_TTL_S": "inf"})


def test_a_model_name_of_spaces_is_unset() -> None:
    assert load_settings({"GAVEL_JUDGE_MODEL": "  "}).judge_model is None


def test_the_public_view_masks_a_password_in_any_url_setting() -> None:
    view = load_settings(
        {
            "GAVEL_OPENAI_BASE_URL": "http://bob:hunter2@10.0.0.3:8000/v1",
            "GAVEL_OLLAMA_HOST": "http://bob:hunter2@10.0.0.2:11434",
            "GAVEL_LEDGER_URL": "postgresql://bob@10.0.0.4/gavel?password=hunter2",
        }
    ).public_view()
    assert "hunter2" not in repr(view)
    assert view["openai_base_url"] == "http://bob:****@10.0.0.3:8000/v1"


@pytest.mark.parametrize(
    ("var", "raw", "shown"),
    [
        ("GAVEL_LEDGER_URL", "mysql://bob:hunter2@h/db?password=hunter2", "mysql://bob:****@h/db?password=****"),
        ("GAVEL_OPENAI_BASE_URL", "ftp://bob:hunter2@h/v1", "ftp://bob:****@h/v1"),
        ("OLLAMA_HOST", "bob:hunter2@h:abc", "http://bob:****@h:abc"),
    ],
)
def test_a_refused_url_setting_is_quoted_with_its_password_masked(var: str, raw: str, shown: str) -> None:
    with pytest.raises(SettingsError) as refused:
        load_settings({var: raw})
    assert "hunter2" not in str(refused.value)
    assert str(refused.value).startswith(f"{var}: ") and str(refused.value).endswith(f"(got {shown!r})")
