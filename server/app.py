"""Build the MCP server: rubrics as resources, one prompt per tool, the tools (listed by `tool_listing`,
registered by `tool_registry`), and the evaluation ledger with its resources. Nothing here runs at import time;
`build_server` is called once the settings are read.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from string import Template
from typing import TYPE_CHECKING, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError
from mcp.server.mcpserver.prompts.base import Message, Prompt, PromptArgument
from mcp.server.mcpserver.resources import FunctionResource, TextResource
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS, InputRequiredResult

from gavel.server.boundary import BoundaryServer, DepsFactory
from gavel.server.settings import Settings
from gavel.server.tasks import TaskRuntime
from gavel.server.tasks_extension import TasksExtension
from gavel.tools.common import Limits
from gavel.tools.distribution import version
from gavel.tools.errors import UnknownRubric
from gavel.tools.ledger import RECENT_LIMIT
from gavel.tools.rubric_registry import RubricRegistry
from gavel.tools.rubrics import RUBRIC_SCHEMA_URI, Rubric

if TYPE_CHECKING:
    from gavel.tools.ledger import Ledger

ToolRegistrar = Callable[[MCPServer[Any], DepsFactory, Limits], None]

SERVER_NAME = "gavel"
# MCP prompts (prompts/list, prompts/get) and the server instructions: text for the client and the person,
# never sent to the judge, so not in the prompt-template hash (tools/prompts/ is the judge's).
MCP_PROMPTS_FILE = Path(__file__).with_name("mcp_prompts.toml")
RUBRIC_MIME = "application/json"
INDEX_URI = "rubric://index"
RECENT_URI = "evaluation://recent"
EVALUATION_TEMPLATE = "evaluation://{id}"
# Evaluation ids are hex (16 digits today); anything else cannot name a record.
_EVALUATION_ID_RE = re.compile(r"^[0-9a-f]{8,64}$")


@dataclass(frozen=True)
class PromptArgSpec:
    name: str
    description: str
    required: bool
    given: str
    absent: str


@dataclass(frozen=True)
class PromptSpec:
    name: str
    title: str
    description: str
    text: str
    arguments: tuple[PromptArgSpec, ...]

    def render(self, values: dict[str, str | None]) -> str:
        blocks: dict[str, str] = {}
        for arg in self.arguments:
            value = values.get(arg.name)
            if value is None or (not arg.required and not str(value).strip()):
                blocks[arg.name] = arg.absent
            else:
                # The user's value is inserted by substitution, which never re-scans what it inserts.
                blocks[arg.name] = Template(arg.given).safe_substitute(value=str(value))
        text = Template(self.text).safe_substitute(blocks)
        return re.sub(r"\n{3,}", "\n\n", text).strip() + "\n"


@dataclass(frozen=True)
class ServerText:
    instructions: str
    prompts: tuple[PromptSpec, ...]


def load_server_text(path: Path = MCP_PROMPTS_FILE) -> ServerText:
    """The instructions and prompt specs from the data file shipped beside this module."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    prompts = tuple(
        PromptSpec(
            name=p["name"],
            title=p["title"],
            description=p["description"],
            text=p["text"],
            arguments=tuple(
                PromptArgSpec(
                    name=a["name"],
                    description=a["description"],
                    required=bool(a["required"]),
                    given=a["given"],
                    absent=a.get("absent", ""),
                )
                for a in p.get("argument", [])
            ),
        )
        for p in data.get("prompt", [])
    )
    return ServerText(instructions=data["server"]["instructions"].strip(), prompts=prompts)


def _rubric_json(rubric: Rubric) -> str:
    return rubric.model_dump_json(indent=2)


def _rubric_schema_json() -> str:
    return json.dumps(Rubric.model_json_schema(), indent=2)


def _index_json(registry: RubricRegistry) -> str:
    entries = [{**r.summary(), "uri": f"rubric://{r.id}"} for r in registry.all()]
    index: dict[str, Any] = {"rubrics": entries}
    if registry.broken or registry.missing_dirs:
        # Files that did not load: a tool asking for one of these ids is refused with the same error.
        index["unloadable"] = [
            {"id": rubric_id, "file": error.path, "error": str(error)} for rubric_id, error in registry.broken.items()
        ] + [{"id": None, "file": error.path, "error": str(error)} for error in registry.missing_dirs]
    return json.dumps(index, indent=2)


def _add_rubric_resources(server: MCPServer, registry: RubricRegistry) -> None:
    # The tools take an inline rubric as an object and validate it when the call arrives; its schema is
    # published once here rather than repeated in every tool's inputSchema; generated when read, not at start.
    server.add_resource(
        FunctionResource(
            uri=RUBRIC_SCHEMA_URI,
            name="rubric-schema",
            title="Inline rubric schema",
            description="The JSON schema of a rubric, as the tools' custom_rubric argument takes it.",
            mime_type="application/schema+json",
            fn=_rubric_schema_json,
        )
    )
    server.add_resource(
        TextResource(
            uri=INDEX_URI,
            name="rubric-index",
            title="Rubric index",
            description="Every loaded rubric: id, version, title, metric ids and scale; and under 'unloadable', "
            "each rubric file that could not be loaded, with its error.",
            mime_type=RUBRIC_MIME,
            text=_index_json(registry),
        )
    )
    for rubric in registry.all():
        server.add_resource(
            TextResource(
                uri=f"rubric://{rubric.id}",
                name=rubric.id,
                title=f"{rubric.title} (v{rubric.version})",
                description=rubric.description,
                mime_type=RUBRIC_MIME,
                text=_rubric_json(rubric),
            )
        )

    # Every loaded id is also a concrete resource above (those are matched first); the template makes
    # the scheme discoverable and turns an unknown id into an error that lists the known ones.
    @server.resource(
        "rubric://{id}",
        name="rubric",
        title="Rubric by id",
        description="One rubric as JSON: its metrics, score anchors, scale and thresholds. Ids: see rubric://index.",
        mime_type=RUBRIC_MIME,
    )
    def rubric_by_id(id: str) -> str:
        try:
            return _rubric_json(registry.get(id))
        except UnknownRubric as exc:
            raise ResourceNotFoundError(str(exc)) from None


def _usable(ledger: Ledger | None) -> Ledger:
    if ledger is None:
        raise ResourceError(
            "the evaluation ledger is off (GAVEL_LEDGER_PATH=off); set it to a file path to keep judgments"
        )
    if ledger.failure is not None:
        raise ResourceError(f"the evaluation ledger at {ledger.path} is unavailable: {ledger.failure}")
    return ledger


def recent_lines(rows: list[dict[str, Any]]) -> str:
    """One line per evaluation: id, time (UTC), tool (marked when served from the ledger), headline."""
    lines = [
        f"{row['evaluation_id']}  {row['created_at']}  {row['tool']}{' (cached)' if row['cached'] else ''}  "
        f"{row['headline']}"
        for row in rows
    ]
    return "\n".join(lines) + "\n" if lines else "no evaluations recorded yet\n"


def _recorded(tool: str, result: dict[str, Any]) -> list[str]:
    # A judgment recorded (or served: that is a row too), or a calibration that judged items now, each recorded.
    judged_now = tool == "calibrate_judge" and result.get("n", 0) > result.get("from_cache", 0)
    return [RECENT_URI] if result.get("evaluation_id") or judged_now else []


def _add_ledger_resources(server: BoundaryServer) -> None:
    server.changed_by.append(_recorded)

    # The ledger is looked up at each read, as the tools do at each call: whatever `server.ledger` is now.
    @server.resource(
        RECENT_URI,
        name="recent-evaluations",
        title="Recent evaluations",
        description=f"The latest {RECENT_LIMIT} judgments, newest first, one line each: evaluation id, time (UTC), "
        "tool, and the headline result. Read one in full as evaluation://{id}.",
        mime_type="text/plain",
    )
    async def recent_evaluations() -> str:
        store = _usable(server.ledger)
        rows = await store.arecent(RECENT_LIMIT)
        _usable(store)  # reading may have found the file unusable
        return recent_lines(rows)

    @server.resource(
        EVALUATION_TEMPLATE,
        name="evaluation",
        title="An evaluation by id",
        description="One recorded judgment as JSON: the tool, time, duration, the request (or only its hash), the "
        "full result, provenance (backend, model, digest, rubric version, prompt template hash), usage, whether it "
        "was served from the ledger, and the ids of its items (batch answers, refinement iterations). The id is "
        "a result's evaluation_id; see evaluation://recent.",
        mime_type="application/json",
    )
    async def evaluation_by_id(id: str) -> str:
        store = _usable(server.ledger)
        record = await store.aget(id) if _EVALUATION_ID_RE.match(id) else None
        _usable(store)
        if record is None:
            raise ResourceNotFoundError(f"no evaluation {id!r} in the ledger; see {RECENT_URI} for the latest ids")
        return json.dumps(record, indent=2, ensure_ascii=False)


def _make_prompt_fn(spec: PromptSpec) -> Callable[..., str]:
    names = {a.name for a in spec.arguments}

    def render(**arguments: Any) -> str:
        return spec.render({k: (None if v is None else str(v)) for k, v in arguments.items() if k in names})

    return render


class _DataPrompt(Prompt):
    """A prompt rendered from data. A missing required argument is the caller's error (invalid params),
    named in the reply, rather than the SDK's generic internal error."""

    async def render(
        self, arguments: dict[str, Any] | None, context: Context[Any, Any]
    ) -> list[Message] | InputRequiredResult:
        given = {k for k, v in (arguments or {}).items() if v is not None and str(v).strip()}
        missing = [a.name for a in self.arguments or [] if a.required and a.name not in given]
        if missing:
            known = ", ".join(a.name for a in self.arguments or [])
            raise MCPError(
                code=INVALID_PARAMS,
                message=f"prompt {self.name!r} needs the argument(s) {', '.join(missing)}; its arguments are: {known}",
            )
        return await super().render(arguments, context)


def _add_prompts(server: MCPServer, prompts: tuple[PromptSpec, ...]) -> None:
    for spec in prompts:
        server.add_prompt(
            _DataPrompt(
                name=spec.name,
                title=spec.title,
                description=spec.description,
                arguments=[
                    PromptArgument(name=a.name, description=a.description, required=a.required) for a in spec.arguments
                ],
                fn=_make_prompt_fn(spec),
            )
        )


Lifespan = Callable[[MCPServer[Any]], AbstractAsyncContextManager[Any]]


def _with_tasks(tasks: TaskRuntime, lifespan: Lifespan | None) -> Lifespan:
    """`lifespan`, inside the task group where the server's MCP tasks run while it serves."""

    @asynccontextmanager
    async def run(app: MCPServer[Any]) -> AsyncIterator[Any]:
        async with tasks.running():
            if lifespan is None:
                yield {}
            else:
                async with lifespan(app) as state:
                    yield state

    return run


def build_server(
    settings: Settings,
    registry: RubricRegistry,
    deps_factory: DepsFactory,
    *,
    lifespan: Lifespan | None = None,
    register_tools: ToolRegistrar | None = None,
    ledger: Ledger | None = None,
) -> BoundaryServer:
    """The Gavel MCP server, with resources, prompts and tools registered; not yet running.

    `register_tools` defaults to `gavel.server.tool_listing.register_later`: Gavel's tools, listed from the stored
    listing and registered at their first use (tests pass their own).
    `ledger` defaults to the one the settings describe (GAVEL_LEDGER_PATH; none when 'off'); it is opened
    at the first judgment, so building a server never touches the file.
    `lifespan` runs around each MCP session's server loop (once per process on stdio and streamable HTTP,
    once per connection on SSE), so process-wide clean-up belongs in the transports' `on_shutdown` instead.
    """
    if register_tools is None:
        from gavel.server.tool_listing import register_later

        register_tools = register_later
    from gavel.server.calibration_mcp import add_calibration_resources

    text = load_server_text()
    # Long calls run as MCP tasks for clients that opt in; the tasks are kept where the server's ledger is then.
    tasks = TaskRuntime(lambda: server.ledger)
    server = BoundaryServer(
        SERVER_NAME,
        title="Gavel",
        description="A judge for agents: rubric scoring, self-refinement, RAG verdicts and candidate selection.",
        instructions=text.instructions,
        version=version(),
        log_level=settings.log_level,
        lifespan=_with_tasks(tasks, lifespan),
        extensions=[TasksExtension(tasks)],
    )
    _add_rubric_resources(server, registry)
    if ledger is not None:
        server.ledger = ledger
    elif settings.ledger_url is not None:
        server.ledger = settings.make_ledger()  # made now, so a missing PostgreSQL driver is said at start
    else:
        server.ledger = settings.make_ledger  # made at its first use: a start imports no ledger code
    _add_ledger_resources(server)
    add_calibration_resources(server)
    _add_prompts(server, text.prompts)
    register_tools(server, deps_factory, settings.limits())
    return server
