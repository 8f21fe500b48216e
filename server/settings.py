"""Gavel's settings: one frozen object, read once in `main` from the environment and CLI flags.

The environment variable names are part of Gavel's interface (clients' config files carry them).
"""

from __future__ import annotations

import urllib.parse
from collections.abc import Mapping
from dataclasses import fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SecretStr,
    ValidationError,
    ValidatorFunctionWrapHandler,
    field_validator,
)

from gavel.tools.common import Limits
from gavel.tools.engine.config import EngineConfig
from gavel.tools.engine.layout import Layout
from gavel.tools.ledger import LedgerStatus
from gavel.tools.urls import redact_url

if TYPE_CHECKING:
    from gavel.tools.ledger import Ledger

BackendName = Literal["auto", "openai", "ollama", "embedded", "sampling"]

DEFAULT_OLLAMA_MODEL = "qwen2.5:7b-instruct"


class SettingsError(ValueError):
    """A setting has a bad value; the message names the variable."""


class Settings(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    backend: BackendName = "auto"
    judge_model: str | None = None
    generator_model: str | None = None
    ollama_host: str = "http://127.0.0.1:11434"
    # An OpenAI-compatible server (vLLM, llama-server, LM Studio...): its API root, e.g. http://host:8000/v1.
    openai_base_url: str | None = None
    openai_api_key: SecretStr | None = None
    model_path: Path | None = None
    timeout_s: float = Field(default=120.0, gt=0, le=3600)
    call_deadline_s: float = Field(default=600.0, gt=0, le=86400)
    max_concurrency: int = Field(default=2, ge=1, le=256)
    rubrics_dir: Path | None = None
    # None: the user's data directory; "off": no ledger (no record, no cache).
    ledger_path: str | None = None
    # postgresql://...: the ledger in PostgreSQL, shared by every instance given the same URL (wins over
    # ledger_path unless that is "off").
    ledger_url: SecretStr | None = None
    # How long a stored judgment serves identical requests; 0 never serves from the ledger (still records).
    # At most ten years: "never expire" as a huge number would overflow the ledger's date arithmetic on every call.
    ledger_ttl_s: float = Field(default=7 * 24 * 3600, ge=0, le=10 * 365 * 24 * 3600)
    # False: the ledger keeps only a hash of each request, not its text (results are still stored in full).
    ledger_store_inputs: bool = True
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = "INFO"
    auth_token: SecretStr | None = None
    num_ctx: int = Field(default=8192, ge=512, le=131072)
    # True: llama.cpp repacks the embedded model's Q4_K weights into its interleaved CPU layout; auto: the layout
    # measured faster for this CPU's vendor (engine/layout.py).
    embedded_repack: Layout = "auto"
    temperature: float = Field(default=0.0, ge=0, le=2)
    sample_temperature: float = Field(default=0.7, ge=0, le=2)
    seed: int = 42
    strategy: Literal["per_metric", "joint"] = "per_metric"
    readout: Literal["probability", "generated"] = "probability"
    use_calibrated_cut: bool = False
    # model: also ask the judge model whether the judged text speaks to its grader (engine/screen.py); off by
    # default: one more model call per judged text, and on injections written by others it adds little at a cut
    # that keeps false flags under 1 % (bench/README.md, "Injection, model-read").
    injection_screen: Literal["off", "model"] = "off"
    max_text_chars: int = Field(default=200_000, ge=1)
    max_sources: int = Field(default=50, ge=1)
    max_candidates: int = Field(default=10_000, ge=1)
    max_batch: int = Field(default=20, ge=1)
    max_samples: int = Field(default=9, ge=1, le=9)
    max_iterations: int = Field(default=20, ge=0, le=100)

    @field_validator("auth_token", mode="before")
    @classmethod
    def _blank_token_is_no_token(cls, value: Any) -> Any:
        # A token of spaces would pass for "a token is set" (and open a non-loopback bind) while no client
        # could ever send it: HTTP strips the header value's surrounding whitespace.
        raw = value.get_secret_value() if isinstance(value, SecretStr) else value
        if isinstance(raw, str):
            raw = raw.strip()
            return raw or None
        return value

    @field_validator("judge_model", "generator_model", mode="before")
    @classmethod
    def _blank_model_is_no_model(cls, value: Any) -> Any:
        # A name of spaces would be sent as the model's name ("run `ollama pull `"): it means unset, as an empty one.
        return (value.strip() or None) if isinstance(value, str) else value

    @field_validator("ollama_host")
    @classmethod
    def _ollama_host(cls, value: str) -> str:
        # Checked here, once: a host Ollama's client cannot parse failed every call as an internal error.
        try:
            parts = urllib.parse.urlsplit(value)
            port = parts.port
        except ValueError as exc:
            raise ValueError(f"is not a host Ollama can be reached at ({exc}); give host, host:port or a URL") from None
        if parts.scheme not in ("http", "https") or not parts.hostname or port is None:
            raise ValueError("is not a host Ollama can be reached at; give host, host:port or an http:// URL")
        return value

    @field_validator("embedded_repack", mode="wrap")
    @classmethod
    def _layout(cls, value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        if isinstance(value, str) and value.strip().lower() == "auto":
            return "auto"
        try:
            return handler(value)  # pydantic's own reading of a boolean
        except ValidationError:
            raise ValueError(
                "must be auto (the layout measured faster for this CPU), true (repacked) or false (plain)"
            ) from None

    @field_validator("openai_base_url")
    @classmethod
    def _openai_url(cls, value: str | None) -> str | None:
        if value is None:
            return None
        value = value.strip().rstrip("/")
        if not value.startswith(("http://", "https://")):
            raise ValueError("must be an http:// or https:// URL, the API root (usually ending in /v1)")
        return value

    @field_validator("ledger_url")
    @classmethod
    def _ledger_url(cls, value: SecretStr | None) -> SecretStr | None:
        if value is not None and not value.get_secret_value().startswith(("postgresql://", "postgres://")):
            raise ValueError("must be a PostgreSQL URL: postgresql://user:password@host:5432/dbname")
        return value

    def engine_config(self) -> EngineConfig:
        return EngineConfig(**self._carried(EngineConfig), default_ollama_model=DEFAULT_OLLAMA_MODEL)

    def limits(self) -> Limits:
        return Limits(**self._carried(Limits))

    def _carried(self, config: type[EngineConfig | Limits]) -> dict[str, Any]:
        """The settings a config dataclass takes under the same name; its other fields keep their defaults."""
        return {f.name: getattr(self, f.name) for f in fields(config) if f.name in type(self).model_fields}

    def ledger_off(self) -> bool:
        return self.ledger_path is not None and self.ledger_path.strip().lower() == LEDGER_OFF

    def ledger_file(self) -> Path | None:
        """Where the SQLite ledger lives; None when GAVEL_LEDGER_PATH is 'off' or the ledger is in PostgreSQL."""
        if self.ledger_off() or self.ledger_url is not None:
            return None
        return Path(self.ledger_path or default_ledger_path()).expanduser()

    def make_ledger(self) -> Ledger | None:
        """The evaluation ledger these settings describe (not opened yet); None when it is off."""
        if self.ledger_off():
            return None
        from gavel.server.logging import structlog_ready
        from gavel.tools.ledger import Ledger
        from gavel.tools.ledger.store import PostgresStore

        structlog_ready()  # the ledger's code logs through structlog

        if self.ledger_url is not None:
            store = PostgresStore(self.ledger_url.get_secret_value())
            return Ledger(store=store, ttl_s=self.ledger_ttl_s, store_inputs=self.ledger_store_inputs)
        path = self.ledger_file()
        if path is None:
            return None
        return Ledger(path, ttl_s=self.ledger_ttl_s, store_inputs=self.ledger_store_inputs)

    def ledger_status(self) -> LedgerStatus:
        ledger = self.make_ledger()
        if ledger is None:
            return LedgerStatus(None, "off")
        try:
            return ledger.status()
        finally:
            ledger.close()

    def public_view(self) -> dict[str, Any]:
        """Every setting, with the secret masked: what `gavel config` prints."""
        view = self.model_dump(mode="json")
        for name in (*SECRET_SETTINGS, *URL_SETTINGS):
            value = getattr(self, name)
            view[name] = _shown(name, value) if value else None
        return view


# setting name -> environment variable (the documented interface)
ENV_VARS: dict[str, str] = {
    "backend": "GAVEL_BACKEND",
    "judge_model": "GAVEL_JUDGE_MODEL",
    "generator_model": "GAVEL_GENERATOR_MODEL",
    "model_path": "GAVEL_MODEL_PATH",
    "timeout_s": "GAVEL_TIMEOUT_S",
    "call_deadline_s": "GAVEL_CALL_DEADLINE_S",
    "max_concurrency": "GAVEL_MAX_CONCURRENCY",
    "rubrics_dir": "GAVEL_RUBRICS_DIR",
    "ledger_path": "GAVEL_LEDGER_PATH",
    "ledger_url": "GAVEL_LEDGER_URL",
    "ledger_ttl_s": "GAVEL_LEDGER_TTL_S",
    "ledger_store_inputs": "GAVEL_LEDGER_STORE_INPUTS",
    "log_level": "GAVEL_LOG_LEVEL",
    "auth_token": "GAVEL_AUTH_TOKEN",
    "num_ctx": "GAVEL_NUM_CTX",
    "embedded_repack": "GAVEL_EMBEDDED_REPACK",
    "temperature": "GAVEL_TEMPERATURE",
    "sample_temperature": "GAVEL_SAMPLE_TEMPERATURE",
    "seed": "GAVEL_SEED",
    "strategy": "GAVEL_STRATEGY",
    "readout": "GAVEL_READOUT",
    "use_calibrated_cut": "GAVEL_USE_CALIBRATED_CUT",
    "injection_screen": "GAVEL_INJECTION_SCREEN",
    "ollama_host": "GAVEL_OLLAMA_HOST",
    "openai_base_url": "GAVEL_OPENAI_BASE_URL",
    "openai_api_key": "GAVEL_OPENAI_API_KEY",
    "max_text_chars": "GAVEL_MAX_TEXT_CHARS",
    "max_sources": "GAVEL_MAX_SOURCES",
    "max_candidates": "GAVEL_MAX_CANDIDATES",
    "max_batch": "GAVEL_MAX_BATCH",
}


LEDGER_OFF = "off"


def default_ledger_path() -> str:
    import platformdirs  # here: a start only needs it when it opens the ledger

    return str(Path(platformdirs.user_data_dir("gavel")) / "ledger.sqlite3")


def load_settings(environ: Mapping[str, str], overrides: Mapping[str, Any] | None = None) -> Settings:
    """Build the settings from an environment mapping, then apply CLI overrides (which win)."""
    values: dict[str, Any] = {}
    for name, var in ENV_VARS.items():
        raw = environ.get(var)
        if raw is not None and raw != "":
            values[name] = raw.upper() if name == "log_level" else raw
    # Ollama users already have OLLAMA_HOST; ours wins when both are set.
    host = environ.get("GAVEL_OLLAMA_HOST") or environ.get("OLLAMA_HOST")
    if host:
        values["ollama_host"] = _normalize_host(host)
    for name, value in (overrides or {}).items():
        if value is not None:
            values[name] = value
    try:
        return Settings.model_validate(values)
    except ValidationError as exc:
        item = exc.errors()[0]
        name = str(item["loc"][0]) if item["loc"] else "?"
        var = ENV_VARS.get(name, name)
        if name == "ollama_host" and not environ.get("GAVEL_OLLAMA_HOST") and environ.get("OLLAMA_HOST"):
            var = "OLLAMA_HOST"
        message = item["msg"].removeprefix("Value error, ")
        raise SettingsError(f"{var}: {message} (got {_shown(name, item.get('input'))!r})") from None


# The secrets, shown as ****, and the settings whose URL may carry a password (a proxy's user:password@ in either
# backend's address, libpq's ?password=), shown masked: by `gavel config` and in a refusal alike.
SECRET_SETTINGS = ("auth_token", "openai_api_key")
URL_SETTINGS = ("ollama_host", "openai_base_url", "ledger_url")


def _shown(name: str, value: Any) -> Any:
    """A setting's value fit to be shown (`public_view`, a refusal's message): a URL's password masked, a secret
    replaced."""
    if isinstance(value, SecretStr):
        value = value.get_secret_value()
    if name in URL_SETTINGS and isinstance(value, str):
        return redact_url(value)
    return "****" if name in SECRET_SETTINGS else value


def _normalize_host(host: str) -> str:
    """Accept what Ollama's client accepts (`ollama._client._parse_host`): 'host', 'host:port' or a URL, each with
    or without 'user:password@'. A host with no port gets the port that client gives it: a bare host Ollama's,
    11434, but an http:// or https:// URL its scheme's, 80 or 443, as a server behind a reverse proxy is reached.
    The port is looked for after the credentials, whose ':' is not one, as the client's URL parser does."""
    host = host.strip().rstrip("/")
    scheme, slashes, rest = host.partition("://")
    if not slashes:
        scheme, rest = "http", host
    default_port = {"http": 80, "https": 443}.get(scheme, 11434) if slashes else 11434
    authority, slash, path = rest.partition("/")
    credentials, at, hostport = authority.rpartition("@")
    if ":" not in hostport.rsplit("]", 1)[-1]:
        hostport += f":{default_port}"
    return f"{scheme}://{credentials}{at}{hostport}{slash}{path}"
