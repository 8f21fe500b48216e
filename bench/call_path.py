"""How many times one `judge_rag_answer` enters each of Gavel's files on its way from the boundary to the model.

A real server (boundary, ledger on a temporary SQLite file, tools, engine) is called through a real MCP client
in memory; the model is the scripted backend. A profile hook follows every Python call of the request and keeps,
per task, the chain of Gavel files that led to it: a task started in a task group continues the chain of the
code that started it (tasks copy their context), so the chain is the request's logical path, not the event
loop's stack.

- path: at each model call, the chain of files from the boundary to the backend, consecutive frames in one
  file counted as one entry. A file's figure is its most entries on any one model call's path; the must-show
  is that no file is entered more than twice.
- edges: the distinct cross-file calls (caller function to callee function) into each file during the whole
  request, whatever the number of model calls; it shows how many ways the request comes back into a file.

Usage: python -m bench.call_path [--readout probability|generated] [--json]
"""

from __future__ import annotations

import argparse
import contextvars
import json
import sys
import tempfile
import threading
from collections import Counter, defaultdict
from pathlib import Path
from types import FrameType
from typing import Any

import anyio

REPO = Path(__file__).resolve().parent.parent
GAVEL_DIRS = tuple(str(REPO / part) + "/" for part in ("server", "tools", "rubrics"))
ARGS: dict[str, Any] = {
    "question": "How tall is the Eiffel Tower?",
    "sources": [
        {"id": "doc1", "content": "The Eiffel Tower is 330 metres tall and stands in Paris."},
        {"id": "doc2", "content": "It was completed in 1889 for the World's Fair."},
    ],
}

# The innermost Gavel frame's chain of files and its function, per task (copied into the tasks it starts).
_HERE: contextvars.ContextVar[tuple[tuple[str, ...], str]] = contextvars.ContextVar("call_path", default=((), ""))


class Tracer:
    def __init__(self, model_code: Any) -> None:
        self.model_code = model_code
        self.active = False
        self.started: set[FrameType] = set()
        self.chains: dict[FrameType, tuple[tuple[str, ...], str]] = {}
        self.parents: dict[FrameType, tuple[tuple[str, ...], str]] = {}
        self.model_paths: list[tuple[str, ...]] = []
        self.edges: dict[str, set[tuple[str, str]]] = defaultdict(set)
        self.files: set[str] = set()

    def __call__(self, frame: FrameType, event: str, arg: Any) -> None:
        if not self.active or event not in ("call", "return"):
            return
        if event == "return":
            if frame in self.parents:
                _HERE.set(self.parents[frame])
            return
        if frame in self.started:  # a coroutine resumed: its chain is current again
            if frame in self.chains:
                _HERE.set(self.chains[frame])
            return
        self.started.add(frame)
        if frame.f_code is self.model_code:
            self.model_paths.append(_HERE.get()[0])
            return
        name = frame.f_code.co_filename
        if not name.startswith(GAVEL_DIRS) or frame.f_code.co_name == "<module>":
            return
        file = str(Path(name).relative_to(REPO))
        function = f"{file}:{frame.f_code.co_qualname}"
        self.files.add(file)
        parent = _HERE.get()
        chain = parent[0] if parent[0] and parent[0][-1] == file else (*parent[0], file)
        if not parent[0] or parent[0][-1] != file:
            self.edges[file].add((parent[1] or "(event loop)", function))
        self.parents[frame] = parent
        self.chains[frame] = (chain, function)
        _HERE.set(self.chains[frame])


def _backend(readout: str) -> Any:
    from bench.scripted import request_reply
    from tests.support.scripted import ScriptedBackend, yes_no

    def reply(request: Any) -> Any:
        return yes_no(0.9) if request.top_logprobs else request_reply(request)

    return ScriptedBackend(default=reply, probabilities=readout == "probability")


def _server(ledger: Path, readout: str) -> Any:
    """The real server over a temporary ledger, each call's judge built as the server builds it, over the
    scripted backend."""
    from gavel.server.app import build_server
    from gavel.server.settings import load_settings
    from gavel.tools.deps import ToolDeps
    from gavel.tools.engine.judge import Judge
    from gavel.tools.rubric_registry import RubricRegistry

    settings = load_settings({"GAVEL_LEDGER_PATH": str(ledger), "GAVEL_READOUT": readout})
    config, backend, registry = settings.engine_config(), _backend(readout), RubricRegistry.load()
    limiter = anyio.CapacityLimiter(config.max_concurrency)

    def deps(ctx: Any, progress: Any) -> ToolDeps:
        async def judge(**wiring: Any) -> Judge:
            return Judge(backend, config, limiter, **wiring)

        return ToolDeps(registry=registry, limits=settings.limits(), judge_factory=judge, progress=progress)

    return build_server(settings, registry, deps)


async def trace(readout: str) -> Tracer:
    import mcp

    from tests.support.scripted import ScriptedBackend

    tracer = Tracer(ScriptedBackend.chat.__code__)
    with tempfile.TemporaryDirectory() as folder:
        server = _server(Path(folder) / "ledger.db", readout)
        sys.setprofile(tracer)
        threading.setprofile(tracer)
        try:
            async with mcp.Client(server) as client:
                # A first call imports and warms up everything; the second, a ledger miss, is the one followed.
                await client.call_tool("judge_rag_answer", {**ARGS, "answer": "It is 330 metres tall [1]."})
                tracer.active = True
                result = await client.call_tool("judge_rag_answer", {**ARGS, "answer": "330 m, built in 1889 [2]."})
                tracer.active = False
        finally:
            sys.setprofile(None)
            threading.setprofile(None)  # type: ignore[arg-type]
    if result.is_error:
        raise SystemExit(f"the call failed: {result.content}")
    return tracer


def report(tracer: Tracer) -> dict[str, Any]:
    per_file: Counter[str] = Counter()
    longest: tuple[str, ...] = ()
    for path in tracer.model_paths:
        counts = Counter(path)
        for file, count in counts.items():
            per_file[file] = max(per_file[file], count)
        if len(path) > len(longest):
            longest = path
    return {
        "model_calls": len(tracer.model_paths),
        "files_touched": len(tracer.files),
        "path_max_entries": max(per_file.values(), default=0),
        "path_entries": dict(per_file.most_common()),
        "longest_path": list(longest),
        "edges_into": dict(sorted(((f, len(e)) for f, e in tracer.edges.items()), key=lambda item: -item[1])),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--readout", choices=("probability", "generated"), default="probability")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    from gavel.server.logging import configure_logging

    configure_logging("WARNING")  # stdout is this report's
    figures = report(anyio.run(trace, args.readout))
    if args.json:
        print(json.dumps(figures, indent=2))
        return
    print(f"readout {args.readout}: {figures['model_calls']} model calls, {figures['files_touched']} files touched")
    print(f"most entries into one file on a model call's path: {figures['path_max_entries']}")
    for file, count in figures["path_entries"].items():
        print(f"  {count}  {file}  (distinct entry edges over the request: {figures['edges_into'].get(file, 0)})")
    print("longest path: " + " -> ".join(figures["longest_path"]))


if __name__ == "__main__":
    main()
