"""A shared token between the gRPC services and their clients (``PULVEZAR_GRPC_TOKEN``).

Servers started with a token reject every call that lacks ``authorization: Bearer <token>`` metadata
with UNAUTHENTICATED (the health service stays open for probes); clients add the metadata to every
call. Without a token (local runs, tests) nothing is checked or sent.
"""

from __future__ import annotations

import hmac
import os
from collections.abc import Awaitable, Callable
from typing import Any

import grpc

GRPC_TOKEN_ENV = "PULVEZAR_GRPC_TOKEN"
OPEN_PREFIXES = ("/grpc.health.v1.Health/",)


def env_token() -> str | None:
    """The token of this process's environment (``None`` when unset or empty)."""
    return os.environ.get(GRPC_TOKEN_ENV) or None


def bearer(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


def _deny(handler: grpc.RpcMethodHandler[Any, Any]) -> grpc.RpcMethodHandler[Any, Any]:
    """A handler of the same shape as ``handler`` that aborts with UNAUTHENTICATED."""
    message = f"a valid `authorization: Bearer <token>` is required ({GRPC_TOKEN_ENV})"

    async def unary(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
        await context.abort(grpc.StatusCode.UNAUTHENTICATED, message)

    async def streaming(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
        await context.abort(grpc.StatusCode.UNAUTHENTICATED, message)
        yield  # type: ignore[unreachable]  # pragma: no cover - an async generator that never yields

    des, ser = handler.request_deserializer, handler.response_serializer
    if handler.request_streaming and handler.response_streaming:
        return grpc.stream_stream_rpc_method_handler(streaming, des, ser)
    if handler.request_streaming:
        return grpc.stream_unary_rpc_method_handler(unary, des, ser)
    if handler.response_streaming:
        return grpc.unary_stream_rpc_method_handler(streaming, des, ser)
    return grpc.unary_unary_rpc_method_handler(unary, des, ser)


class TokenAuthInterceptor(grpc.aio.ServerInterceptor):
    """Lets through calls carrying ``authorization: Bearer <token>`` (constant-time compare) and the
    health service's; every other call ends UNAUTHENTICATED before its handler runs."""

    def __init__(self, token: str) -> None:
        if not token:
            raise ValueError("an empty gRPC token would accept everyone")
        self._expected = f"Bearer {token}".encode()

    def allowed(self, metadata: Any) -> bool:
        for key, value in metadata or ():
            if key == "authorization":
                got = value.encode() if isinstance(value, str) else bytes(value)
                return hmac.compare_digest(got, self._expected)
        return False

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler[Any, Any] | None]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler[Any, Any] | None:
        handler = await continuation(handler_call_details)
        method = handler_call_details.method
        if handler is None or method.startswith(OPEN_PREFIXES):
            return handler
        if self.allowed(handler_call_details.invocation_metadata):
            return handler
        return _deny(handler)


def _with_token(details: Any, token: str) -> Any:
    """``details`` (a grpc.aio ClientCallDetails) with the bearer metadata added."""
    return details._replace(metadata=grpc.aio.Metadata(*(details.metadata or ()), *bearer(token)))


class _SyncToken(
    grpc.UnaryUnaryClientInterceptor,
    grpc.UnaryStreamClientInterceptor,
    grpc.StreamUnaryClientInterceptor,
    grpc.StreamStreamClientInterceptor,
):
    def __init__(self, token: str) -> None:
        self.token = token

    def intercept_unary_unary(self, continuation: Any, client_call_details: Any, request: Any) -> Any:
        return continuation(_CallDetails.of(client_call_details, self.token), request)

    def intercept_unary_stream(self, continuation: Any, client_call_details: Any, request: Any) -> Any:
        return continuation(_CallDetails.of(client_call_details, self.token), request)

    def intercept_stream_unary(
        self, continuation: Any, client_call_details: Any, request_iterator: Any
    ) -> Any:
        return continuation(_CallDetails.of(client_call_details, self.token), request_iterator)

    def intercept_stream_stream(
        self, continuation: Any, client_call_details: Any, request_iterator: Any
    ) -> Any:
        return continuation(_CallDetails.of(client_call_details, self.token), request_iterator)


class _CallDetails(grpc.ClientCallDetails):
    """A sync ClientCallDetails with the bearer metadata (grpc's own type is not a namedtuple)."""

    def __init__(
        self, method: str, timeout: Any, metadata: Any, credentials: Any, wfr: Any, comp: Any
    ) -> None:
        self.method = method
        self.timeout = timeout
        self.metadata = metadata
        self.credentials = credentials
        self.wait_for_ready = wfr
        self.compression = comp

    @classmethod
    def of(cls, d: Any, token: str) -> _CallDetails:
        metadata = [*(d.metadata or ()), *bearer(token)]
        return cls(d.method, d.timeout, metadata, d.credentials, d.wait_for_ready, d.compression)


class _AioToken:
    """Adds the bearer token to a call's metadata; one subclass per kind of call (grpc.aio files an
    interceptor under the first kind it is)."""

    def __init__(self, token: str) -> None:
        self.token = token

    async def _call(self, continuation: Any, details: Any, request: Any) -> Any:
        return await continuation(_with_token(details, self.token), request)

    intercept_unary_unary = intercept_unary_stream = intercept_stream_unary = intercept_stream_stream = _call


class _AioUnaryUnary(_AioToken, grpc.aio.UnaryUnaryClientInterceptor):
    pass


class _AioUnaryStream(_AioToken, grpc.aio.UnaryStreamClientInterceptor):
    pass


class _AioStreamUnary(_AioToken, grpc.aio.StreamUnaryClientInterceptor):
    pass


class _AioStreamStream(_AioToken, grpc.aio.StreamStreamClientInterceptor):
    pass


def sync_channel(target: str, token: str | None) -> grpc.Channel:
    """A blocking channel to ``target`` whose calls carry ``token`` (none without one)."""
    channel = grpc.insecure_channel(target)
    return grpc.intercept_channel(channel, _SyncToken(token)) if token else channel


def aio_channel(target: str, token: str | None) -> grpc.aio.Channel:
    """A ``grpc.aio`` channel to ``target`` whose calls carry ``token`` (none without one)."""
    if not token:
        return grpc.aio.insecure_channel(target)
    kinds = (_AioUnaryUnary, _AioUnaryStream, _AioStreamUnary, _AioStreamStream)
    return grpc.aio.insecure_channel(target, interceptors=[k(token) for k in kinds])
