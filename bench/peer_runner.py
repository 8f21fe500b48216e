"""The peers' side of the comparison: RAGAS and DeepEval metrics, run in their own venv (`.venv-bench`).

Their dependency trees (langchain, openai, instructor, pandas, a click downgrade, three pytest plugins that
would load into the project's own test runs) stay out of the project's venv, so this module imports neither
gavel nor the test support: it only talks JSON lines with `bench.peers` in the project venv.

    .venv-bench/bin/python -m bench.peer_runner      (started by bench.peers, never by hand)

stdin, one JSON object a line:
    {"op": "init", "base_url": "http://127.0.0.1:PORT", "model": "...", "embed_model": "..."}
    {"op": "judge", "metric": "deepeval_faithfulness", "question": "...", "context": "...", "answer": "..."}
    {"op": "geval", "name": "...", "criteria": "...", "input": "...", "output": "..."}
stdout, one JSON object per command: {"ok": true, "score": 0.8, "reason": "...", "seconds": 12.3} or
{"ok": false, "error": "...", "error_type": "...", "seconds": ...}.

Everything the libraries print goes to stderr: fd 1 is the protocol channel.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import sys
import time
import traceback
from typing import Any

# Telemetry and hub access off before the libraries are imported; nothing may leave 127.0.0.1.
OFFLINE_ENV = {
    "DEEPEVAL_TELEMETRY_OPT_OUT": "YES",
    "DEEPEVAL_UPDATE_WARNING_OPT_OUT": "YES",
    "DEEPEVAL_GRPC_LOGGING": "NO",
    "ERROR_REPORTING": "NO",
    "RAGAS_DO_NOT_TRACK": "true",
    "DO_NOT_TRACK": "1",
    "ANONYMIZED_TELEMETRY": "False",
    "HF_HUB_OFFLINE": "1",
    "HF_DATASETS_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "LANGCHAIN_TRACING_V2": "false",
    "LANGSMITH_TRACING": "false",
    "POSTHOG_DISABLED": "1",
}

PEER_METRICS = (
    "ragas_faithfulness",
    "ragas_answer_relevancy",
    "deepeval_faithfulness",
    "deepeval_answer_relevancy",
)


class Peers:
    def __init__(self, base_url: str, model: str, embed_model: str) -> None:
        self.base_url = base_url
        self.model = model
        self.embed_model = embed_model
        self._deepeval_model: Any = None
        self._ragas: tuple[Any, Any] | None = None

    def deepeval_model(self) -> Any:
        if self._deepeval_model is None:
            from deepeval.models import OllamaModel

            self._deepeval_model = OllamaModel(model=self.model, base_url=self.base_url, temperature=0)
        return self._deepeval_model

    def ragas(self) -> tuple[Any, Any]:
        if self._ragas is None:
            from langchain_ollama import ChatOllama, OllamaEmbeddings
            from ragas.embeddings import LangchainEmbeddingsWrapper
            from ragas.llms import LangchainLLMWrapper

            llm = LangchainLLMWrapper(ChatOllama(model=self.model, base_url=self.base_url, temperature=0))
            embeddings = LangchainEmbeddingsWrapper(OllamaEmbeddings(model=self.embed_model, base_url=self.base_url))
            self._ragas = (llm, embeddings)
        return self._ragas

    async def judge(self, metric: str, question: str, context: str, answer: str) -> tuple[float, str | None]:
        if metric.startswith("deepeval_"):
            from deepeval.metrics import AnswerRelevancyMetric, FaithfulnessMetric
            from deepeval.test_case import LLMTestCase

            case = LLMTestCase(input=question, actual_output=answer, retrieval_context=[context])
            cls = FaithfulnessMetric if metric == "deepeval_faithfulness" else AnswerRelevancyMetric
            # The library's defaults (reason included, async mode): what a user of it gets.
            scorer = cls(model=self.deepeval_model())
            score = await scorer.a_measure(case, _show_indicator=False)
            return float(score), scorer.reason
        from ragas.dataset_schema import SingleTurnSample
        from ragas.metrics import AnswerRelevancy, Faithfulness

        llm, embeddings = self.ragas()
        sample = SingleTurnSample(user_input=question, response=answer, retrieved_contexts=[context])
        scorer = (
            Faithfulness(llm=llm) if metric == "ragas_faithfulness" else AnswerRelevancy(llm=llm, embeddings=embeddings)
        )
        return float(await scorer.single_turn_ascore(sample)), None

    async def geval(self, name: str, criteria: str, input_text: str, output: str) -> tuple[float, str | None]:
        from deepeval.metrics import GEval
        from deepeval.test_case import LLMTestCase, SingleTurnParams

        scorer = GEval(
            name=name,
            criteria=criteria,
            evaluation_params=[SingleTurnParams.INPUT, SingleTurnParams.ACTUAL_OUTPUT],
            model=self.deepeval_model(),
        )
        score = await scorer.a_measure(LLMTestCase(input=input_text, actual_output=output), _show_indicator=False)
        return float(score), scorer.reason


async def handle(peers: Peers | None, command: dict[str, Any]) -> tuple[Peers | None, dict[str, Any]]:
    op = command.get("op")
    started = time.perf_counter()
    if op == "init":
        peers = Peers(command["base_url"], command["model"], command["embed_model"])
        # Import the libraries now, so their import time is not charged to the first judged item.
        import deepeval.metrics  # noqa: F401
        import ragas.metrics  # noqa: F401

        versions = {}
        for name in ("deepeval", "ragas", "langchain_ollama", "langchain_community", "langchain_core", "ollama"):
            try:
                from importlib.metadata import version

                versions[name] = version(name.replace("_", "-"))
            except Exception as exc:  # noqa: BLE001 - a missing peer is reported, not fatal
                versions[name] = f"not installed ({type(exc).__name__})"
        return peers, {"ok": True, "versions": versions}
    if peers is None:
        return peers, {"ok": False, "error": "send init first", "error_type": "ProtocolError", "seconds": 0.0}
    try:
        if op == "judge":
            score, reason = await peers.judge(
                command["metric"], command["question"], command["context"], command["answer"]
            )
        elif op == "geval":
            score, reason = await peers.geval(command["name"], command["criteria"], command["input"], command["output"])
        else:
            return peers, {"ok": False, "error": f"unknown op {op!r}", "error_type": "ProtocolError", "seconds": 0.0}
    except Exception as exc:  # noqa: BLE001 - any library failure is this item's result, with its type and text
        sys.stderr.write(traceback.format_exc())
        return peers, {
            "ok": False,
            "error": f"{type(exc).__name__}: {str(exc)[:500]}",
            "error_type": type(exc).__name__,
            "seconds": round(time.perf_counter() - started, 3),
        }
    seconds = round(time.perf_counter() - started, 3)
    if math.isnan(score):
        # The library returned NaN instead of raising: a silent failure, reported as such.
        return peers, {"ok": False, "error": "the metric returned NaN", "error_type": "NaN", "seconds": seconds}
    return peers, {"ok": True, "score": score, "reason": (reason or "")[:500], "seconds": seconds}


def main() -> None:
    os.environ.update(OFFLINE_ENV)
    protocol = os.fdopen(os.dup(1), "w", encoding="utf-8", buffering=1)
    os.dup2(2, 1)  # anything the libraries print lands on stderr, never in the protocol
    sys.stdout = sys.stderr
    loop = asyncio.new_event_loop()
    peers: Peers | None = None
    for line in sys.stdin:
        if not line.strip():
            continue
        peers, reply = loop.run_until_complete(handle(peers, json.loads(line)))
        protocol.write(json.dumps(reply) + "\n")
    loop.close()


if __name__ == "__main__":
    main()
