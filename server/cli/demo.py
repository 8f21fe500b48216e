"""`gavel demo`: start `gavel serve` over stdio and call every tool through a real MCP client session.

This is a command-line program for a person, not the stdio server, so it writes to its own stdout.
Inputs live in demo_data.toml beside this file.
"""

from __future__ import annotations

import json
import os
import sys
import time
import tomllib
from pathlib import Path
from typing import Any

import anyio
import mcp
from mcp.client.stdio import StdioServerParameters, stdio_client

from gavel.server.settings import Settings

DATA_FILE = Path(__file__).with_name("demo_data.toml")
CALL_TIMEOUT_S = 1800.0


def _out(text: str = "") -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def _server_params(settings: Settings) -> StdioServerParameters:
    env = dict(os.environ)
    # The demo exercises the embedded default model unless the user chose a backend explicitly.
    env.setdefault("GAVEL_BACKEND", "embedded" if settings.backend == "auto" else settings.backend)
    env.setdefault("GAVEL_LOG_LEVEL", "WARNING")
    # A revision on 2 CPU cores can take minutes; the demo should show results, not timeouts.
    env.setdefault("GAVEL_TIMEOUT_S", "900")
    return StdioServerParameters(command=sys.executable, args=["-m", "gavel.server", "serve"], env=env)


def rubrics_line(uris: list[str]) -> str:
    """The rubrics among the listed resources (not the index, nor the evaluation ledger's resources)."""
    ids = [uri.removeprefix("rubric://") for uri in uris if uri.startswith("rubric://") and uri != "rubric://index"]
    return f"Rubrics: {', '.join(ids)} (each readable as rubric://ID)"


async def _call(client: mcp.Client, title: str, tool: str, arguments: dict[str, Any]) -> dict[str, Any] | None:
    _out(f"\n=== {title}  ({tool}) ===")
    started = time.perf_counter()

    async def progress(value: float, total: float | None, message: str | None) -> None:
        _out(f"  … {message or value}")

    result = await client.call_tool(tool, arguments, read_timeout_seconds=CALL_TIMEOUT_S, progress_callback=progress)
    elapsed = time.perf_counter() - started
    text = "\n".join(getattr(block, "text", "") for block in result.content)
    if result.is_error:
        _out(f"ERROR: {text}")
        return None
    _out(text)
    _out(f"  ({elapsed:.1f} s)")
    return result.structured_content


async def run_demo(settings: Settings) -> int:
    data = tomllib.loads(DATA_FILE.read_text(encoding="utf-8"))
    params = _server_params(settings)
    _out(f"Starting `gavel serve` over stdio (backend: {params.env['GAVEL_BACKEND'] if params.env else '?'}).")
    _out("The embedded model runs on the CPU: each judgment takes seconds to a minute.")
    failures = 0
    with open(os.devnull, "w") as quiet:  # noqa: ASYNC230 - opened once, before the session
        errlog = sys.stderr if settings.log_level == "DEBUG" else quiet
        async with mcp.Client(stdio_client(params, errlog=errlog)) as client:
            tools = await client.list_tools()
            _out("Tools: " + ", ".join(t.name for t in tools.tools))
            resources = await client.list_resources()
            _out(rubrics_line([str(r.uri) for r in resources.resources]))

            ev = data["evaluate"]
            results = [
                await _call(client, "1. Judge a vague clinical assessment", "evaluate_assessment",
                            {"assessment": ev["assessment"], "source": ev["source"]}),
                await _call(client, "2. Refine it until every metric passes (or the budget ends)", "refine_until_pass",
                            {"draft": ev["assessment"], "source": ev["source"], "task": ev["task"],
                             "max_iterations": ev["max_iterations"]}),
            ]  # fmt: skip
            refined = results[-1]
            if refined is not None:
                # The refined text checked sentence by sentence against the transcript, as a RAG answer against
                # its passage: a rewrite that passes the rubric must still say only what the patient said.
                results.append(
                    await _call(client, "2b. Check the refined text against the transcript", "judge_rag_answer",
                                {"question": ev["question"], "answer": refined["final_text"],
                                 "sources": [{"id": "transcript", "content": ev["source"]}]})
                )  # fmt: skip
            rag = data["rag"]
            for label, answer in (("faithful, cited", rag["faithful"]), ("contradicting", rag["contradicting"])):
                results.append(
                    await _call(client, f"3. Judge a RAG answer ({label})", "judge_rag_answer",
                                {"question": rag["question"], "answer": answer, "sources": rag["sources"]})
                )  # fmt: skip
            cand = data["candidates"]
            results.append(
                await _call(client, "4. Pick 3 focus tracks with diversity (deterministic)", "score_candidates",
                            {"candidates": cand["tracks"], "weights": cand["weights"],
                             "diversity_targets": cand["diversity_targets"], "top_k": cand["top_k"]})
            )  # fmt: skip
            ideas = data["ideas"]
            results.append(
                await _call(client, "5. Judge three ideas with the idea-quality rubric", "score_candidates",
                            {"candidates": ideas["items"], "rubric": "idea-quality", "top_k": ideas["top_k"]})
            )  # fmt: skip
            failures = sum(1 for r in results if r is None)
    _out(f"\nDone: {len(results) - failures} of {len(results)} calls returned results.")
    if failures:
        _out("Some calls failed; run with GAVEL_LOG_LEVEL=DEBUG to see the server's log.")
    return 1 if failures else 0


def main(settings: Settings) -> int:
    return anyio.run(run_demo, settings)


def dump(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)
