"""Plain configuration values the engine needs; built by the server from its settings."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pydantic import SecretStr

from gavel.tools.engine.layout import Layout


@dataclass(frozen=True)
class EngineConfig:
    """What the engine is configured with. The server's `Settings` holds the defaults of every field it carries
    (server/settings.py, `Settings.engine_config`); only the fields no setting reaches have defaults here."""

    backend: str
    judge_model: str | None
    generator_model: str | None
    ollama_host: str
    model_path: Path | None
    # An OpenAI-compatible server's API root (".../v1"); None: the `openai` backend is not configured.
    openai_base_url: str | None
    openai_api_key: SecretStr | None
    timeout_s: float
    max_concurrency: int
    num_ctx: int
    # The embedded backend: let llama.cpp repack the weights into its interleaved CPU layout, or auto (see Settings).
    embedded_repack: Layout
    temperature: float
    sample_temperature: float  # with samples > 1: at 0.0 each seed would give the same greedy reply
    seed: int
    default_ollama_model: str
    # per_metric: one call per metric, shared prefix first (prompt-cache friendly); joint: one call for all.
    strategy: str
    # probability: read scores from token probabilities where the backend returns them (else generated);
    # generated: always parse a written reply (for a model whose probabilities are not to be trusted).
    readout: str
    # GAVEL_USE_CALIBRATED_CUT: decide probability readouts at the cut the judge's calibration found best (where
    # one exists for its key) instead of Gavel's fixed default; the result says which cut decided.
    use_calibrated_cut: bool
    # Bound on all the model work of one tool call (a Judge serves one call), queueing for the limiter included.
    call_deadline_s: float
    # GAVEL_INJECTION_SCREEN: "model" asks the judge model whether the judged text speaks to its grader
    # (engine/screen.py), beside the deterministic detector; "off" leaves the detector alone.
    injection_screen: str
    top_k: int = 20
    top_p: float = 0.9
    # For generation, not for judging (a first version from the task, reports' narrative, score_candidates'
    # explanations): see ChatRequest.repeat_penalty.
    generate_repeat_penalty: float = 1.15
    # refine_until_pass's rewrites of a previous version: a lighter penalty keeps the transcript's own words, where
    # 1.15 pushed the writer into paraphrases and added clauses (bench/README.md, "The writer's repeat penalty").
    # Its retries too: asked again at 1.15 after a copy, two essays ran on to the token limit.
    revise_repeat_penalty: float = 1.1
    # score_candidates' judged criteria, read as Yes/No probabilities where the backend allows: with the rubric's
    # own yes/no questions (idea-quality), the embedded default put bench/ideas.py's concrete ideas over the weak
    # ones in 0.76 of the pairs, against 0.66 generated, in a fraction of the time.
    candidate_readout: str = "probability"
