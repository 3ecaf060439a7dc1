"""A request's synchronous engine time, metered: how the gateway costs what it computes at once rather than
queueing as a job (a job is costed by its estimate before it is accepted: services/gateway/security.py).

The gateway opens a :class:`Meter` for each request of a key (:func:`open_meter`, in its ``client``
dependency). Every call to the engine's services made while serving that request runs inside
:func:`metered`: the gateway's own RPCs (:class:`services.gateway.upstream.Upstream`) and the bots'
(:class:`services.common.remote_evaluator.GrpcEvaluator`), from the request's task or from its threads (a
context variable, copied into threads with the same meter). :func:`metered` first asks the meter whether the
key may still spend (once per request: the day's core-seconds not used up), then adds the call's wall time.
Outside a request (the workers, the command line) there is no meter and :func:`metered` does nothing.

Wall time counts as core-seconds: the services compute one request on one core, so it is an upper bound (a
busy service's queueing counts too), and it is what the key held of the platform.

>>> m = open_meter(lambda: None)
>>> with metered():
...     pass
>>> m.calls, m.core_s >= 0
(1, True)
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from contextvars import ContextVar
from typing import Any


class Meter:
    """One request's engine calls and their seconds; ``allow()`` raises when the key may not spend."""

    def __init__(self, allow: Callable[[], None]) -> None:
        self._allow = allow
        self._allowed = False
        self._lock = threading.Lock()
        self.core_s = 0.0
        self.calls = 0

    @property
    def checked(self) -> bool:
        return self._allowed

    def check(self) -> None:
        """Ask ``allow`` once per request (a refusal is asked again: the next call raises too)."""
        if not self._allowed:
            self._allow()
            self._allowed = True

    def add(self, seconds: float) -> None:
        with self._lock:  # the request's threads add at once (a bot's search and its explanation)
            self.core_s += seconds
            self.calls += 1


_current: ContextVar[Meter | None] = ContextVar("pulvezar_meter", default=None)


def open_meter(allow: Callable[[], None]) -> Meter:
    """A new meter for the current request (its task, and the threads it starts from now on)."""
    meter = Meter(allow)
    _current.set(meter)
    return meter


@asynccontextmanager
async def metered_async() -> AsyncIterator[None]:
    """:func:`metered` for the event loop: the meter's check (a Redis call where the replicas share the
    quotas) runs in a thread, so a slow Redis never stalls the loop."""
    meter = _current.get()
    if meter is None:
        yield
        return
    if not meter.checked:
        await asyncio.to_thread(meter.check)
    start = time.perf_counter()
    try:
        yield
    finally:
        meter.add(time.perf_counter() - start)


@contextmanager
def metered() -> Iterator[None]:
    """Around one engine call: refused before it starts when the key may not spend, else timed."""
    meter = _current.get()
    if meter is None:
        yield
        return
    meter.check()
    start = time.perf_counter()
    try:
        yield
    finally:
        meter.add(time.perf_counter() - start)


class MeteredStub:
    """A gRPC stub whose every call runs inside :func:`metered` (the bots' evaluator client's)."""

    def __init__(self, stub: Any) -> None:
        self._stub = stub

    def __getattr__(self, name: str) -> Any:
        method = getattr(self._stub, name)

        def call(*args: Any, **kwargs: Any) -> Any:
            with metered():
                return method(*args, **kwargs)

        return call
