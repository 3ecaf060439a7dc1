"""The FastAPI application: ``create_app(settings)``.

Middleware, outermost first: request metrics, IDs and access logs; CORS; request body limits (413).
Every ``/v1`` route depends on :func:`services.gateway.security.client` (API key, rate limit).
``/healthz``, ``/readyz``, ``/metrics``, ``/docs`` and ``/openapi.json`` are open; production turns the last
three off (``public_metrics``, ``public_docs``) and serves ``/metrics`` and ``/livez`` on the admin port
(:mod:`services.gateway.admin`), whose liveness the event loop's heartbeat drives.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI, Request
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import JSONResponse, Response
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Histogram,
    PlatformCollector,
    ProcessCollector,
    generate_latest,
)
from pydantic import BaseModel
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

import pulvezar
from services.common.jsonlog import log
from services.common.owners import owner_of
from services.common.redis_memory import RedisMemoryCollector
from services.common.sandbox import shared_pool
from services.gateway import idempotency, problems, webapp
from services.gateway.admin import Heartbeat
from services.gateway.durable import state_url
from services.gateway.jobs import Jobs, JobStoreLike, store_from_url
from services.gateway.problems import Problem
from services.gateway.routers import (
    analyses,
    anki,
    cards,
    cube,
    daily,
    exercises,
    games,
    job_lists,
    kinds,
    lessons,
    matches,
    met,
    nets,
    ogxm,
    players,
    plays,
    positions,
    rollouts,
    similar,
    usage,
)
from services.gateway.routers import book as opening_book
from services.gateway.security import Guard, SharedLimits
from services.gateway.services.analyses import open_analyses
from services.gateway.services.deps import close_dependencies, open_dependencies
from services.gateway.settings import GatewaySettings
from services.gateway.sse import Streams
from services.gateway.uploads import ParseFailures
from services.gateway.upstream import Upstream

logger = logging.getLogger("pulvezar.gateway")
access_logger = logging.getLogger("pulvezar.gateway.access")

UPLOAD_PREFIX = "/v1/matches"
#: routes whose bodies carry match files: limited by ``max_upload_bytes`` (+ framing), not ``max_body_bytes``
UPLOAD_PREFIXES = (UPLOAD_PREFIX, "/v1/analyses")


class Metrics:
    """The app's own registry (several apps in one process, as in tests, do not collide)."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        ProcessCollector(registry=self.registry)
        PlatformCollector(registry=self.registry)
        self.requests = Counter(
            "pulvezar_http_requests",
            "HTTP requests, by method, route template and status",
            ["method", "route", "status"],
            registry=self.registry,
        )
        self.latency = Histogram(
            "pulvezar_http_request_duration_seconds",
            "HTTP request latency (to the end of the body), by method and route template",
            ["method", "route"],
            buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30),
            registry=self.registry,
        )
        self.engine_seconds = Counter(
            "pulvezar_gateway_engine_seconds",
            "seconds of the engine's services spent on requests answered at once (charged as core-seconds)",
            ["client"],
            registry=self.registry,
        )
        self.rate_limited = Counter(
            "pulvezar_gateway_rate_limited",
            "requests refused by a key's rate limit",
            ["client"],
            registry=self.registry,
        )


class HttpMiddleware(ABC):
    """An ASGI middleware of HTTP requests (:meth:`http`); other scopes (lifespan) pass through untouched."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            await self.http(scope, receive, send)
        else:
            await self.app(scope, receive, send)

    @abstractmethod
    async def http(self, scope: Scope, receive: Receive, send: Send) -> None: ...


class MetricsMiddleware(HttpMiddleware):
    """Counts and times each request by its route template, sets ``X-Request-ID`` and logs one line."""

    def __init__(self, app: ASGIApp, metrics: Metrics) -> None:
        super().__init__(app)
        self.metrics = metrics

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        start = time.perf_counter()
        status = 500
        request_id = next(
            (v.decode("latin-1") for k, v in scope.get("headers", []) if k == b"x-request-id"), None
        )
        request_id = request_id[:64] if request_id else uuid.uuid4().hex

        async def send_wrapper(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message.setdefault("headers", [])
                message["headers"] = [*message["headers"], (b"x-request-id", request_id.encode("latin-1"))]
            await send(message)

        try:
            await self.app(scope, receive, send_wrapper)
        finally:
            route = scope.get("route")
            template = getattr(route, "path", None) or "<unmatched>"
            elapsed = time.perf_counter() - start
            method = scope["method"]
            self.metrics.requests.labels(method, template, str(status)).inc()
            self.metrics.latency.labels(method, template).observe(elapsed)
            state = scope.get("state") or {}
            log(
                access_logger,
                logging.ERROR if status == 500 else logging.WARNING if status >= 500 else logging.INFO,
                "request",
                method=method,
                route=template,
                status=status,
                ms=round(elapsed * 1e3, 2),
                client=state.get("client"),
                request_id=request_id,
            )


class BodyLimitMiddleware(HttpMiddleware):
    """413 for bodies over the limit: by ``Content-Length`` at once, else while the body streams in."""

    def __init__(self, app: ASGIApp, limit: int, upload_limit: int) -> None:
        super().__init__(app)
        self.limit = limit
        self.upload_limit = upload_limit

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        upload = scope["path"].startswith(UPLOAD_PREFIXES)
        # multipart framing adds a little to the file itself
        limit = self.upload_limit + 64 * 1024 if upload else self.limit
        length = next((v for k, v in scope.get("headers", []) if k == b"content-length"), None)
        if length is not None:
            try:
                declared = int(length)
            except ValueError:
                declared = -1
            if declared < 0:
                await problems.problem_response(400, "invalid Content-Length header")(scope, receive, send)
                return
            if declared > limit:
                await self._too_large(limit)(scope, receive, send)
                return
        seen = 0

        async def limited() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    raise HTTPException(413, f"the request body may have at most {limit} bytes")
            return message

        await self.app(scope, limited, send)

    @staticmethod
    def _too_large(limit: int) -> Response:
        return problems.problem_response(
            413, f"the request body may have at most {limit} bytes", kind="too-large"
        )


class Health(BaseModel):
    status: str


class Readiness(BaseModel):
    status: str
    services: dict[str, str]
    jobs: str


def _lifespan(s: GatewaySettings, job_store: JobStoreLike | None) -> Callable[[FastAPI], Any]:
    """The app's start and stop: the job store, the fair shares, the dependencies of the routes
    (:mod:`services.gateway.services.deps`, made once), the heartbeat; at the end everything closed."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        database = state_url(app.state)  # required: no URL, no start (StoreRequired)
        store = job_store
        if store is None and s.redis_url:
            try:
                store = store_from_url(s.redis_url, database)
            except Exception:  # the rollout endpoints answer 503; the rest works
                logger.exception("no job store")
        app.state.jobs = Jobs(store)
        shares = {owner_of(secret): key.share for secret, key in s.api_keys.items()}
        try:  # the keys' fair-share weights (a Redis that is down now keeps the ones it had)
            await asyncio.to_thread(app.state.jobs.set_shares, shares)
        except Exception as e:
            log(logger, logging.WARNING, "fair shares not set", error=repr(e))
        log(
            logger,
            logging.INFO,
            "gateway ready",
            rules=s.rules_address,
            evaluator=s.evaluator_address,
            jobs=store is not None,
            keys=len(s.api_keys),
        )
        open_dependencies(app)  # the store's records and the bots' evaluator, once (services/deps.py)
        open_analyses(app.state)  # the analysis jobs' store, over the job store above
        beating = asyncio.create_task(app.state.heartbeat.run())
        yield
        beating.cancel()
        app.state.streams.close()
        await app.state.upstream.close()
        close_dependencies(app)

    return lifespan


def _include_routers(app: FastAPI) -> None:
    routers = (
        positions,
        plays,
        cube,
        met,
        matches,
        job_lists,
        rollouts,
        analyses,
        opening_book,
        games,
        players,
        cards,
        anki,  # GET /v1/players/{id}/cards.apkg
        lessons,
        exercises,
        nets,  # GET /v1/models
        ogxm,  # GET /v1/analyses/{id}/analysis.ogxm, POST /v1/ogxm/verify
    )
    for r in routers:
        app.include_router(r.router)
    # daily puzzles; similar positions and the library; the job kinds of services.jobs.kinds
    for extra in (daily.router, *similar.routers, kinds.router):
        app.include_router(extra)


def _health_routes(app: FastAPI, metrics: Metrics, s: GatewaySettings) -> None:
    """``/healthz``, ``/readyz`` and, where public, ``/metrics``."""

    @app.get("/healthz", tags=["health"], summary="Liveness: the process answers")
    async def healthz() -> Health:
        return Health(status="ok")

    @app.get(
        "/readyz",
        tags=["health"],
        summary="Readiness: the Rules and Evaluator services are SERVING",
        responses={503: {"model": Readiness, "description": "not ready"}},
    )
    async def readyz(request: Request) -> Any:
        services = await request.app.state.upstream.health()
        jobs = "configured" if request.app.state.jobs.store is not None else "not configured"
        ready = all(v == "SERVING" for v in services.values())
        body = Readiness(status="ready" if ready else "not ready", services=services, jobs=jobs)
        return JSONResponse(body.model_dump(), status_code=200 if ready else 503)

    async def prometheus() -> Response:
        return Response(generate_latest(metrics.registry), media_type=CONTENT_TYPE_LATEST)

    if s.public_metrics:  # else on the admin port only (services/gateway/admin.py)
        route = app.get("/metrics", tags=["health"], summary="Prometheus metrics", response_class=Response)
        route(prometheus)


def create_app(
    settings: GatewaySettings | None = None,
    *,
    job_store: JobStoreLike | None = None,
    upstream: Upstream | None = None,
) -> FastAPI:
    """The gateway; ``job_store`` replaces the one ``settings.redis_url`` would make (tests)."""
    s = settings or GatewaySettings()
    metrics = Metrics()

    common: dict[int | str, dict[str, Any]] = {
        401: {"model": Problem, "description": "no API key, or an unknown one"},
        422: {"model": Problem, "description": "invalid input; `errors` names the fields"},
        429: {"model": Problem, "description": "over the key's rate limit or daily quota (see Retry-After)"},
    }
    app = FastAPI(
        title="pulvezar",
        version=pulvezar.__version__,
        summary="Backgammon and Tavla analysis: positions, plays, evaluation, hints, cube decisions, "
        "resignations, match equity, match files, rollouts",
        description="Send your API key in the `X-API-Key` header. Errors are RFC 9457 problem details "
        "(`application/problem+json`) naming the field at fault.",
        lifespan=_lifespan(s, job_store),
        responses=common,
        docs_url="/docs" if s.public_docs else None,  # production: none of the three (public_docs)
        redoc_url="/redoc" if s.public_docs else None,
        openapi_url="/openapi.json" if s.public_docs else None,
    )
    app.state.settings = s
    app.state.metrics = metrics
    app.state.heartbeat = Heartbeat(s.heartbeat_s, s.stale_after_s)
    app.state.guard = Guard(s.api_keys, SharedLimits.from_url(s.redis_url) if s.redis_url else None)
    app.state.upstream = upstream or Upstream(s)
    app.state.jobs = Jobs(job_store)
    app.state.streams = Streams(s)
    # uploads whose read failed in the parser processes, by reason (services/gateway/uploads.py)
    metrics.registry.register(ParseFailures(lambda: getattr(app.state, "parse_pool", None) or shared_pool()))
    if s.redis_url:  # Redis's memory against its maxmemory, for the alert (docs/store.md)
        metrics.registry.register(RedisMemoryCollector(s.redis_url))

    problems.install(app)
    idempotency.install(app)
    usage.install(app)  # GET /v1/usage; refusals on cost carry their estimate and limit
    _include_routers(app)
    webapp.install(app)  # the web client at /, its files at /web

    _health_routes(app, metrics, s)

    app.add_middleware(BodyLimitMiddleware, limit=s.max_body_bytes, upload_limit=s.max_upload_bytes)
    if s.cors_origins:
        app.add_middleware(
            CORSMiddleware,
            allow_origins=s.cors_origins,
            allow_methods=["GET", "POST", "DELETE", "OPTIONS"],
            allow_headers=["X-API-Key", "Content-Type", "Last-Event-ID", "X-Request-ID"],
            expose_headers=["Location", "Retry-After", "X-Request-ID"],
            max_age=600,
        )
    app.add_middleware(MetricsMiddleware, metrics=metrics)
    return app
