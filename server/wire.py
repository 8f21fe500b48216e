"""Answering the JSON-RPC frames the SDK cannot read.

The SDK's JSON reader (pydantic-core) refuses a string with a lone UTF-16 surrogate escape (`"\\ud800"`) and
nesting beyond about 200 levels. Over stdio the SDK then drops the line without a reply, so a client whose
request carried one waits forever; over Streamable HTTP it answers with `"id": null` and a parser message.
`diagnose` works out what was wrong with such a frame and which request it was, so the sender gets a JSON-RPC
error for its own id that names the problem: invalid params for a bad value inside `params`, invalid request
for a frame that is not a JSON-RPC request, a parse error for text that is not JSON at all. A request whose id
no request can have (1.5, true, [1], null), which the SDK takes for a notification, gets invalid request to id
null. Notifications and responses get no reply, as JSON-RPC has it. The stdio side is in `stdio_session`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Sized
from dataclasses import dataclass
from typing import Any, TypeVar

import anyio
import pydantic_core
from mcp_types import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    PARSE_ERROR,
    ErrorData,
    JSONRPCError,
    JSONRPCNotification,
    JSONRPCRequest,
    jsonrpc_message_adapter,
)
from pydantic import ValidationError
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from gavel.server.frame_scan import MAX_DEPTH, FrameScan
from gavel.server.logging import get_logger

log = get_logger("gavel.wire")

T = TypeVar("T", bound=Sized)
R = TypeVar("R")

_SURROGATE = re.compile("[\ud800-\udfff]")
_MAX_SHOWN = 60


@dataclass(frozen=True)
class Unreadable:
    """The error a frame's sender should get."""

    id: int | str | None
    code: int
    message: str

    def reply(self) -> JSONRPCError:
        try:
            return JSONRPCError(jsonrpc="2.0", id=self.id, error=ErrorData(code=self.code, message=self.message))
        except ValidationError:
            # An id the protocol cannot carry (a float, a 40-digit number): the error goes to id null.
            return JSONRPCError(jsonrpc="2.0", id=None, error=ErrorData(code=self.code, message=self.message))


def frame_of(error: Exception) -> str | None:
    """The raw line behind the SDK's stdio read error, when it is one (pydantic keeps the input)."""
    if not isinstance(error, ValidationError):
        return None
    for item in error.errors():
        if item.get("type") == "json_invalid" and isinstance(item.get("input"), str):
            return str(item["input"])
    for item in error.errors():
        # Valid JSON of the wrong shape: the whole parsed message is the input of a union member's own error
        # (loc: the member) or of a member's missing top-level field (loc: member, field).
        loc = item.get("loc", ())
        if len(loc) == 1 or (item.get("type") == "missing" and len(loc) == 2):
            return json.dumps(item.get("input"), default=str)
    return None


def diagnose(frame: str | bytes) -> Unreadable | None:
    """What the sender of `frame` (one JSON-RPC message the SDK could not read) should hear; None for a
    notification or a response, which get no reply."""
    text = frame.decode("utf-8", errors="replace") if isinstance(frame, bytes) else frame
    scan = FrameScan(text)
    parsed: Any = None
    broken: str | None = None
    try:
        parsed = json.loads(text)
    except RecursionError:
        pass
    except ValueError as exc:
        broken = exc.args[0] if exc.args else str(exc)
    header = parsed if isinstance(parsed, dict) else scan.header
    # A scan that stopped early may not have reached an id after a deep value: then the frame is answered (to
    # id null) rather than taken for a notification.
    complete = isinstance(parsed, dict) or not scan.stopped_early
    has_method = isinstance(header.get("method"), str)
    if not has_method and ("result" in header or "error" in header):
        return None  # a response to one of the server's requests
    if has_method and "id" not in header and complete:
        return None  # a notification
    raw_id = header.get("id")
    message_id = raw_id if _usable_id(raw_id) else None
    in_params = has_method and message_id is not None

    if scan.deep_path is not None:
        where = _path(scan.deep_path)
        depth = f"more than {MAX_DEPTH}" if scan.stopped_early else str(scan.max_depth)
        return Unreadable(
            message_id,
            INVALID_PARAMS if in_params and where.startswith("params") else INVALID_REQUEST,
            f"{where}: nested {depth} levels deep; the server reads JSON nested at most {MAX_DEPTH} levels deep, "
            "counting the JSON-RPC envelope; flatten the value",
        )
    if broken is not None:
        return Unreadable(message_id, PARSE_ERROR, f"Parse error: the message is not valid JSON ({broken})")
    surrogate = _surrogate(parsed)
    if surrogate is not None:
        where, char = surrogate
        return Unreadable(
            message_id,
            INVALID_PARAMS if in_params and where.startswith("params") else INVALID_REQUEST,
            f"{where}: the string holds a lone UTF-16 surrogate escape (\\u{ord(char):04x}), which is not a Unicode "
            "character; remove it, or send the complete surrogate pair",
        )
    if not isinstance(parsed, dict):
        return Unreadable(None, INVALID_REQUEST, "Invalid request: a JSON-RPC message is a JSON object")
    if "id" in parsed and message_id is None:
        return wrong_id(raw_id)
    return Unreadable(message_id, INVALID_REQUEST, "Invalid request: " + _shape_problems(parsed))


def wrong_id(raw_id: Any) -> Unreadable:
    """The error for a request whose id is neither a string nor a 64-bit integer (1.5, true, [1], null): as
    JSON-RPC has it, to id null, since the sender's own id cannot be written back."""
    shown = printable(json.dumps(raw_id))
    return Unreadable(
        None, INVALID_REQUEST, f"Invalid request: id: a request id is a string or a 64-bit integer, not {shown}"
    )


def stray_id(message: Any) -> Unreadable | None:
    """The error for a parsed frame the SDK took for a notification although it carries an id (of a type no
    request id has): it was meant as a request, and its sender waits for an answer."""
    if isinstance(message, dict) and "id" in message and isinstance(message.get("method"), str):
        return wrong_id(message["id"])
    return None


def _usable_id(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return -(2**63) <= value < 2**63
    return isinstance(value, str)


def _shape_problems(message: dict[str, Any]) -> str:
    try:
        JSONRPCRequest.model_validate(message, by_name=False)
    except ValidationError as exc:
        problems = []
        for item in exc.errors()[:3]:
            where = ".".join(str(p) for p in item["loc"]) or "the message"
            problems.append(f"{where}: {item['msg']}")
        return "; ".join(problems)
    return "not a JSON-RPC 2.0 request"


def _path(parts: list[str]) -> str:
    shown: list[str] = []
    for part in parts:
        if part == "[]":
            if shown and not shown[-1].endswith("[…]"):
                shown[-1] += "[…]"
            continue
        shown.append(part)
        if len(shown) == 4:
            break
    path = ".".join(shown) or "the message"
    return printable(path)


def printable(text: str) -> str:
    text = text.encode("utf-8", errors="backslashreplace").decode("utf-8")
    return text if len(text) <= _MAX_SHOWN else text[: _MAX_SHOWN - 1] + "…"


def _surrogate(value: Any) -> tuple[str, str] | None:
    """The path to the first string (key or value) holding a lone surrogate, and that surrogate."""
    for path, text in _strings(value):
        found = _SURROGATE.search(text)
        if found:
            return printable(path or "the message"), found.group()
    return None


def _strings(value: Any) -> Iterator[tuple[str, str]]:
    stack: list[tuple[str, Any]] = [("", value)]
    while stack:
        path, node = stack.pop()
        if isinstance(node, str):
            yield path, node
        elif isinstance(node, dict):
            for key, item in reversed(list(node.items())):
                child = f"{path}.{key}" if path else str(key)
                yield child, str(key)
                stack.append((child, item))
        elif isinstance(node, list):
            for index, item in reversed(list(enumerate(node))):
                stack.append((f"{path}[{index}]", item))


# -- Streamable HTTP --------------------------------------------------------------------------------------------


class AnswerUnreadableHttp:
    """ASGI middleware for the Streamable HTTP endpoint: a POSTed frame the SDK cannot read is answered here,
    HTTP 400 with the JSON-RPC error for the sender's own id (the SDK would answer id null with its parser's
    message, or, for a frame of the wrong shape, with pydantic's error text). Readable frames pass untouched;
    the body (already capped by the body-size middleware outside) is read once and replayed."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") != "POST":
            await self.app(scope, receive, send)
            return
        first = await receive()
        body = first.get("body", b"") if first["type"] == "http.request" else b""
        if first["type"] == "http.request" and not first.get("more_body", False) and body:
            unreadable = await off_loop(unreadable_body, body)
            if unreadable is not None:
                log.info("answered an unreadable request", id=unreadable.id, code=unreadable.code,
                         why=unreadable.message)  # fmt: skip
                payload = unreadable.reply().model_dump_json(by_alias=True, exclude_unset=True).encode()
                await send({"type": "http.response.start", "status": 400,
                            "headers": [(b"content-type", b"application/json"),
                                        (b"content-length", str(len(payload)).encode())]})  # fmt: skip
                await send({"type": "http.response.body", "body": payload})
                return
        await self.app(scope, replaying(first, receive), send)


def replaying(first: Message, receive: Receive) -> Receive:
    """A `receive` that gives `first`, the message already read to look at the body, and then reads on."""
    replayed = False

    async def replay() -> Message:
        nonlocal replayed
        if not replayed:
            replayed = True
            return first
        return await receive()

    return replay


def unreadable_body(body: bytes) -> Unreadable | None:
    try:
        message = pydantic_core.from_json(body)
        parsed = jsonrpc_message_adapter.validate_python(message, by_name=False)
    except ValueError:  # pydantic's ValidationError is a ValueError too
        return diagnose(body)
    return stray_id(message) if isinstance(parsed, JSONRPCNotification) else None


# Frames up to this size are read on the event loop; larger ones (up to the 4 MB body cap, or any stdio line) in
# a worker thread, so that a megabyte frame built to be slow to read does not hold every other client meanwhile.
INLINE_FRAME_BYTES = 64 * 1024


async def off_loop(function: Callable[[T], R], frame: T) -> R:
    """`function(frame)`, in a worker thread when the frame is large."""
    if len(frame) <= INLINE_FRAME_BYTES:
        return function(frame)
    return await anyio.to_thread.run_sync(function, frame)
