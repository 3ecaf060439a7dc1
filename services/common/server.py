"""The life of a grpc.aio service: health, reflection, metrics, signals, graceful shutdown, and the
shared token (:mod:`services.common.grpc_auth`) when ``PULVEZAR_GRPC_TOKEN`` is set.

Handlers are wrapped with :func:`rpc`, which counts and times every call, checks
the deadline first, and turns :class:`RpcAbort` (and stray library errors) into
gRPC status codes; unexpected exceptions become INTERNAL and are logged.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import signal
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_health.v1.health import aio as health_aio
from grpc_reflection.v1alpha import reflection

from pulvezar import PulvezarError
from services.common import metrics
from services.common.errors import BadArgument, RpcAbort
from services.common.grpc_auth import TokenAuthInterceptor
from services.common.jsonlog import log
from services.common.settings import ServiceSettings

logger = logging.getLogger("pulvezar.services")

Req = TypeVar("Req")
Resp = TypeVar("Resp")
Handler = Callable[[Any, Req, grpc.aio.ServicerContext[Any, Any]], Awaitable[Resp]]


def check_deadline(context: grpc.aio.ServicerContext[Any, Any], what: str = "the request") -> None:
    """Raise DEADLINE_EXCEEDED when the caller's deadline has passed."""
    remaining = context.time_remaining()
    if remaining is not None and remaining <= 0:
        raise RpcAbort(grpc.StatusCode.DEADLINE_EXCEEDED, f"deadline exceeded before {what} finished")


def rpc(service: str) -> Callable[[Handler[Req, Resp]], Handler[Req, Resp]]:
    """Instrument a servicer method: metrics, deadline check, status mapping, a debug log line."""

    def decorate(fn: Handler[Req, Resp]) -> Handler[Req, Resp]:
        method = fn.__name__
        latency = metrics.LATENCY.labels(service, method)

        @functools.wraps(fn)
        async def handler(self: Any, request: Req, context: grpc.aio.ServicerContext[Any, Any]) -> Resp:
            start = time.perf_counter()
            code = grpc.StatusCode.OK
            try:
                check_deadline(context)
                return await fn(self, request, context)
            except RpcAbort as e:
                code = e.code
                status = e.status()
                log(logger, logging.DEBUG, "rpc failed", method=method, code=code.name, error=e.message)
                await context.abort(status.code, status.details, status.trailing_metadata)
            except PulvezarError as e:  # a library error no parser mapped: still the caller's fault
                code = grpc.StatusCode.INVALID_ARGUMENT
                status = BadArgument(e.field or "request", str(e)).status()
                await context.abort(status.code, status.details, status.trailing_metadata)
            except asyncio.CancelledError:
                code = grpc.StatusCode.CANCELLED
                raise
            except Exception:
                code = grpc.StatusCode.INTERNAL
                logger.exception("rpc %s failed", method, extra={"fields": {"method": method}})
                await context.abort(grpc.StatusCode.INTERNAL, f"internal error in {method}")
            finally:
                elapsed = time.perf_counter() - start
                metrics.REQUESTS.labels(service, method, code.name).inc()
                latency.observe(elapsed)
                log(logger, logging.DEBUG, "rpc", method=method, code=code.name, ms=round(elapsed * 1e3, 3))
            raise AssertionError("unreachable")  # context.abort always raises

        return handler

    return decorate


async def serve(
    name: str,
    settings: ServiceSettings,
    add_services: Callable[[grpc.aio.Server], Sequence[str]],
    warm: Callable[[], Awaitable[None]],
    stop: Callable[[], Awaitable[None]] | None = None,
) -> int:
    """Run a service until SIGTERM or SIGINT; returns the process exit code.

    ``add_services`` registers the servicers and returns their full names. The
    health service says NOT_SERVING until ``warm`` has finished, then SERVING,
    and NOT_SERVING again while shutting down; new RPCs are refused from then
    on and in-flight ones get ``grace_period_s`` to finish.
    """
    token = settings.grpc_token.get_secret_value() if settings.grpc_token else ""
    interceptors = [TokenAuthInterceptor(token)] if token else []
    server = grpc.aio.server(options=[("grpc.so_reuseport", 0)], interceptors=interceptors)
    health = health_aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health, server)
    names = list(add_services(server))
    reflection.enable_server_reflection(
        [*names, health_pb2.DESCRIPTOR.services_by_name["Health"].full_name, reflection.SERVICE_NAME], server
    )
    for n in ("", *names):
        await health.set(n, health_pb2.HealthCheckResponse.NOT_SERVING)
    port = server.add_insecure_port(f"{settings.host}:{settings.port}")
    if port == 0:
        log(logger, logging.ERROR, "cannot bind", host=settings.host, port=settings.port)
        return 1
    served = metrics.serve_metrics(settings.metrics_port, settings.host)
    await server.start()
    log(
        logger,
        logging.INFO,
        "listening",
        host=settings.host,
        port=port,
        metrics_port=served[1] if served else None,
        services=names,
        grpc_auth="token" if token else "none",
    )

    loop = asyncio.get_running_loop()
    stopping = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stopping.set)

    async def warm_up() -> None:
        t0 = time.perf_counter()
        await warm()
        for n in ("", *names):
            await health.set(n, health_pb2.HealthCheckResponse.SERVING)
        log(logger, logging.INFO, "serving", warm_s=round(time.perf_counter() - t0, 3))

    warming = asyncio.create_task(warm_up())

    def on_warm(task: asyncio.Task[None]) -> None:
        if not task.cancelled() and task.exception() is not None:
            stopping.set()  # a service that cannot warm up exits (with 1)

    warming.add_done_callback(on_warm)
    await stopping.wait()
    exit_code = 0
    if not warming.done():
        warming.cancel()
    elif not warming.cancelled() and warming.exception() is not None:
        logger.error("warm-up failed", exc_info=warming.exception())
        exit_code = 1

    log(logger, logging.INFO, "shutting down", grace_s=settings.grace_period_s)
    await health.enter_graceful_shutdown()
    await server.stop(settings.grace_period_s)
    if stop is not None:
        await stop()
    if served:
        served[0].shutdown()  # type: ignore[attr-defined]
    log(logger, logging.INFO, "stopped", exit_code=exit_code)
    return exit_code
