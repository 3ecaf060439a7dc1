"""The gateway's gRPC channels to the Rules and Evaluator services, and their health for ``/readyz``."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from services.common.grpc_auth import aio_channel
from services.common.metering import metered_async
from services.common.pulvezar_proto.v1 import evaluator_pb2_grpc, rules_pb2_grpc
from services.gateway.problems import grpc_problem
from services.gateway.settings import GatewaySettings

T = TypeVar("T")


class Upstream:
    """One ``grpc.aio`` channel per service, opened lazily on the app's event loop."""

    def __init__(self, settings: GatewaySettings) -> None:
        self.settings = settings
        self._channels: dict[str, grpc.aio.Channel] = {}

    def channel(self, name: str) -> grpc.aio.Channel:
        ch = self._channels.get(name)
        if ch is None:
            address = self.settings.rules_address if name == "rules" else self.settings.evaluator_address
            token = self.settings.grpc_token.get_secret_value() if self.settings.grpc_token else None
            ch = self._channels[name] = aio_channel(address, token)  # the shared token, where set
        return ch

    @property
    def rules(self) -> rules_pb2_grpc.RulesServiceStub:
        return rules_pb2_grpc.RulesServiceStub(self.channel("rules"))

    @property
    def evaluator(self) -> evaluator_pb2_grpc.EvaluatorServiceStub:
        return evaluator_pb2_grpc.EvaluatorServiceStub(self.channel("evaluator"))

    async def call(
        self, method: Callable[..., Awaitable[T]], request: Any, rename: dict[str, str] | None = None
    ) -> T:
        """Call an RPC with the gateway's deadline; a failure becomes a problem (422, 503, 504, 502).
        The call is metered against the request's key (:mod:`services.common.metering`): refused with 429
        once the key's day of core-seconds is spent, else its seconds are charged after the request."""
        try:
            async with metered_async():
                return await method(request, timeout=self.settings.grpc_timeout_s)
        except grpc.aio.AioRpcError as e:
            raise grpc_problem(e, rename) from None

    async def health(self) -> dict[str, str]:
        """Each service's health status name (``SERVING``, ``NOT_SERVING``, ``UNAVAILABLE``, ...)."""

        async def check(name: str) -> str:
            stub = health_pb2_grpc.HealthStub(self.channel(name))
            try:
                r = await stub.Check(health_pb2.HealthCheckRequest(), timeout=self.settings.ready_timeout_s)
            except grpc.aio.AioRpcError as e:
                return e.code().name
            return str(health_pb2.HealthCheckResponse.ServingStatus.Name(r.status))

        names = ("rules", "evaluator")
        results = await asyncio.gather(*(check(n) for n in names))
        return dict(zip(names, results, strict=True))

    async def close(self) -> None:
        for ch in self._channels.values():
            await ch.close()
        self._channels.clear()
