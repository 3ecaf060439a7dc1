"""What the routers share: the caller, the upstream services and the settings as dependencies, stored
things' ids, the answer of a file to save (:func:`download`), and the routes whose endpoint only hands its
parameters to the service layer, declared from their path, model, summary and call
(:func:`add_call_route`, and the tables of :func:`add_call_routes` and :func:`add_post_routes`)."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Query, Request, Response, UploadFile
from pydantic import BaseModel

from services.gateway.problems import ProblemError
from services.gateway.security import Client, client
from services.gateway.services.plays import upstream
from services.gateway.settings import GatewaySettings
from services.gateway.uploads import content_disposition
from services.gateway.upstream import Upstream

#: the API key's client (401 without one)
Who = Annotated[Client, Depends(client)]
#: the Rules and Evaluator services
Up = Annotated[Upstream, Depends(upstream)]
#: a match of an analysis job, by its index in the job (the SGF and OGXM downloads' ``match``)
MatchIndex = Annotated[int, Query(ge=0, le=100_000, description="the match's index in the job")]


def settings(request: Request) -> GatewaySettings:
    """The app's settings."""
    return request.app.state.settings  # type: ignore[no-any-return]


async def read_upload(request: Request, file: UploadFile, what: str) -> bytes:
    """The uploaded ``file``'s bytes, at most the settings' ``max_upload_bytes`` (a 413 naming ``file``)."""
    limit: int = request.app.state.settings.max_upload_bytes
    data = await file.read(limit + 1)
    if len(data) > limit:
        raise too_large(what, limit)
    return data


def too_large(what: str, limit: int) -> ProblemError:
    """The 413 of an upload over ``limit`` bytes, naming the field ``file``."""
    return ProblemError(
        413,
        f"{what} may have at most {limit} bytes",
        kind="too-large",
        errors=[("file", f"too large (at most {limit} bytes)")],
    )


#: the app's settings (its limits: ``max_hint_ply``, ``max_positions``, ...)
Settings = Annotated[GatewaySettings, Depends(settings)]


def short_id(description: str | None = None, example: str | None = None) -> Any:
    """A path segment naming a stored thing: 1 to 32 letters and digits."""
    examples = [example] if example is not None else None
    return Path(
        min_length=1, max_length=32, pattern=r"^[A-Za-z0-9]+$", description=description, examples=examples
    )


def download(
    data: str | bytes, media_type: str, filename: str, headers: Mapping[str, str] | None = None
) -> Response:
    """A file to save: ``data`` of ``media_type``, named ``filename`` (``Content-Disposition``), with
    ``headers`` besides."""
    named = {"Content-Disposition": content_disposition(filename), **(headers or {})}
    return Response(data, media_type=media_type, headers=named)


def add_call_route(
    router: APIRouter,
    method: str,
    path: str,
    call: Callable[..., Awaitable[Any]],
    params: Mapping[str, Any],
    *,
    name: str,
    **route: Any,
) -> None:
    """Declare a route whose endpoint answers with ``await call(...)`` of its parameters, in their order.

    ``params`` are the endpoint's parameters as its signature would declare them (name: annotation, e.g.
    ``{"r": Players, "player_id": PlayerId}``); ``name`` is the endpoint's name (it makes the operation
    id); ``route`` are :meth:`~fastapi.APIRouter.add_api_route`'s other keywords (``response_model``,
    ``summary``, ...).  ``method="DELETE"`` answers an empty 204.
    """
    names = tuple(params)

    async def endpoint(**values: Any) -> Any:
        return await call(*(values[n] for n in names))

    endpoint.__signature__ = inspect.Signature(  # type: ignore[attr-defined]  # what FastAPI reads
        [inspect.Parameter(n, inspect.Parameter.KEYWORD_ONLY, annotation=a) for n, a in params.items()]
    )
    if method == "DELETE":
        route |= {"status_code": 204, "response_class": Response}
    router.add_api_route(path, endpoint, methods=[method], name=name, **route)


#: a route of :func:`add_call_routes`: method, path, endpoint name, response model, service call, summary
CallRoute = tuple[str, str, str, Any, Callable[..., Awaitable[Any]], str]


def add_call_routes(router: APIRouter, params: Mapping[str, Any], routes: Iterable[CallRoute]) -> None:
    """:func:`add_call_route` for each of ``routes``, all with the parameters ``params``."""
    for method, path, name, model, call, summary in routes:
        add_call_route(router, method, path, call, params, name=name, response_model=model, summary=summary)


#: a route of :func:`add_post_routes`: path, endpoint name, request body, response model, call, summary
PostRoute = tuple[str, str, type[BaseModel], Any, Callable[..., Awaitable[Any]], str]


def add_post_routes(router: APIRouter, params: Mapping[str, Any], routes: Iterable[PostRoute]) -> None:
    """``POST`` routes whose endpoint answers with ``await call(body, ...)``: the request body, then
    ``params``."""
    for path, name, body, model, call, summary in routes:
        with_body = {"body": body, **params}
        add_call_route(
            router, "POST", path, call, with_body, name=name, response_model=model, summary=summary
        )
