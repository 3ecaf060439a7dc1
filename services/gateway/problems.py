"""Errors as RFC 9457 ``application/problem+json``: ``type``, ``title``, ``status``, ``detail``, ``errors``.

``errors`` is a list of ``{"field": ..., "reason": ...}`` naming the request field at fault, as a path into
the JSON body or the name of a path/query parameter (``dice[1]``, ``positions[2]``, ``rules.variant``,
``position_id``). Library errors (:class:`pulvezar.PulvezarError`, with ``.field``) and gRPC
INVALID_ARGUMENT (with ``google.rpc.BadRequest`` field violations) become 422 the same way.
"""

from __future__ import annotations

import logging
import math
import re
from collections.abc import Iterable, Sequence
from http import HTTPStatus
from typing import Any

import grpc
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from google.rpc import error_details_pb2
from grpc_status import rpc_status
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

from pulvezar import PulvezarError

logger = logging.getLogger("pulvezar.gateway")

MEDIA_TYPE = "application/problem+json"
_TITLES = {
    "invalid-input": "Invalid input",
    "unauthorized": "Missing or invalid API key",
    "rate-limited": "Rate limit exceeded",
    "quota-exceeded": "Daily quota exceeded",
    "too-many-jobs": "Too many unfinished jobs",
    "too-many-trials": "Too many queued trials",
    "too-large": "Request too large",
    "not-found": "Not found",
    "forbidden": "Not allowed for this key",
}
_KINDS = {404: "not-found", 405: "method-not-allowed", 413: "too-large"}
_LOCATIONS = ("body", "query", "path", "header", "cookie")


class FieldError(BaseModel):
    field: str = Field(
        description="the field, as the request named it (body fields by their path, e.g. matches[0].file)"
    )
    reason: str = Field(description="what is wrong with it")


class Problem(BaseModel):
    """RFC 9457 problem details."""

    type: str = Field("about:blank", description="a URN naming the kind of problem")
    title: str = Field(description="the HTTP status's phrase")
    status: int = Field(description="the HTTP status")
    detail: str | None = Field(None, description="what went wrong, in words")
    errors: list[FieldError] | None = Field(None, description="the fields at fault, each with the reason")


class ProblemError(Exception):
    """Answer with a problem document; ``kind`` becomes ``type`` (``urn:pulvezar:problem:<kind>``)."""

    def __init__(
        self,
        status: int,
        detail: str,
        *,
        kind: str | None = None,
        title: str | None = None,
        errors: Sequence[tuple[str, str]] = (),
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail
        self.kind = kind
        self.title = title
        self.errors = list(errors)
        self.headers = headers or {}


def invalid(field: str, reason: str) -> ProblemError:
    """A 422 naming one field."""
    return ProblemError(422, f"{field}: {reason}", kind="invalid-input", errors=[(field, reason)])


def problem_response(
    status: int,
    detail: str | None = None,
    *,
    kind: str | None = None,
    title: str | None = None,
    errors: Iterable[tuple[str, str]] = (),
    headers: dict[str, str] | None = None,
) -> JSONResponse:
    body: dict[str, Any] = {
        "type": f"urn:pulvezar:problem:{kind}" if kind else "about:blank",
        "title": title or _TITLES.get(kind or "") or _phrase(status),
        "status": status,
    }
    if detail:
        body["detail"] = detail
    errs = [{"field": f, "reason": r} for f, r in errors]
    if errs:
        body["errors"] = errs
    return JSONResponse(body, status_code=status, headers=headers, media_type=MEDIA_TYPE)


def _phrase(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Error"


def field_path(loc: Sequence[int | str]) -> str:
    """``("body", "positions", 2, "id")`` -> ``positions[2].id``; path and query names as they are."""
    parts = list(loc)
    if parts and parts[0] in _LOCATIONS:
        parts = parts[1:]
    out = ""
    for p in parts:
        if isinstance(p, int):
            out += f"[{p}]"
        elif str(p).startswith(("function-", "literal[")):  # pydantic's union-member labels
            continue
        else:
            out += f".{p}" if out else str(p)
    return out or ("body" if loc and loc[0] == "body" else "request")


_GRPC_POSITION = re.compile(r"^(positions?(?:\[\d+\])?)\.(?:position_id|xgid|board)(?:\..*)?$")


def grpc_field(field: str, rename: dict[str, str] | None = None) -> str:
    """A gRPC request field path as the REST request names it (``position.xgid`` -> ``position``)."""
    m = _GRPC_POSITION.match(field)
    if m:
        field = m.group(1)
    if rename:
        head, sep, rest = field.partition(".")
        if head in rename:
            field = rename[head] + sep + rest
    return field


def grpc_problem(err: grpc.aio.AioRpcError, rename: dict[str, str] | None = None) -> ProblemError:
    """The answer to a failed gRPC call: 422 with the fields for INVALID_ARGUMENT, 5xx otherwise."""
    code = err.code()
    message = err.details() or code.name
    if code == grpc.StatusCode.INVALID_ARGUMENT:
        fields: list[tuple[str, str]] = []
        status = rpc_status.from_call(err)
        if status is not None:
            for detail in status.details:
                bad = error_details_pb2.BadRequest()
                if detail.Unpack(bad):
                    fields += [(grpc_field(v.field, rename), v.description) for v in bad.field_violations]
        if fields:
            message = "; ".join(f"{f}: {r}" for f, r in fields)
        return ProblemError(422, message, kind="invalid-input", errors=fields or [("request", message)])
    if code == grpc.StatusCode.DEADLINE_EXCEEDED:
        return ProblemError(504, message, kind="upstream-timeout")
    if code in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.RESOURCE_EXHAUSTED):
        return ProblemError(503, message, kind="upstream-unavailable", headers={"Retry-After": "1"})
    if code == grpc.StatusCode.NOT_FOUND:
        return ProblemError(404, message, kind="not-found")
    return ProblemError(502, f"{code.name}: {message}", kind="upstream-error")


def install(app: FastAPI) -> None:
    """Register the handlers that turn every error into problem+json."""

    @app.exception_handler(ProblemError)
    async def _problem(request: Request, exc: ProblemError) -> JSONResponse:
        return problem_response(
            exc.status, exc.detail, kind=exc.kind, title=exc.title, errors=exc.errors, headers=exc.headers
        )

    @app.exception_handler(RequestValidationError)
    async def _validation(request: Request, exc: RequestValidationError) -> JSONResponse:
        errors = [
            (field_path(e.get("loc", ())), str(e.get("msg", "invalid")).removeprefix("Value error, "))
            for e in exc.errors()
        ]  # a validator's ValueError reads as its own words, as the job kinds' errors do
        detail = "; ".join(f"{f}: {r}" for f, r in errors) or "the request is not valid"
        return problem_response(422, detail, kind="invalid-input", errors=errors)

    @app.exception_handler(PulvezarError)
    async def _library(request: Request, exc: PulvezarError) -> JSONResponse:
        field = exc.field or "request"
        return problem_response(422, str(exc), kind="invalid-input", errors=[(field, str(exc))])

    @app.exception_handler(grpc.aio.AioRpcError)
    async def _grpc(request: Request, exc: grpc.aio.AioRpcError) -> JSONResponse:
        p = grpc_problem(exc)
        return await _problem(request, p)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        headers = dict(exc.headers or {})
        detail = str(exc.detail) if exc.detail else None
        return problem_response(exc.status_code, detail, kind=_KINDS.get(exc.status_code), headers=headers)

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
        logger.exception("unhandled error", extra={"fields": {"path": request.url.path}})
        return problem_response(500, "internal error", kind="internal")


def retry_after(seconds: float) -> dict[str, str]:
    return {"Retry-After": str(max(1, math.ceil(seconds)))}
