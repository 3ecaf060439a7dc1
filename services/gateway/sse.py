"""Server-sent events of a job: poll its status, send ``progress`` while it changes, then one final event."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from fastapi.responses import StreamingResponse

from services.gateway.problems import ProblemError


def sse(event: str, data: Any, event_id: int | None = None) -> bytes:
    """One event in the ``text/event-stream`` format (compact JSON data)."""
    head = f"event: {event}\n" + (f"id: {event_id}\n" if event_id is not None else "")
    return (head + f"data: {json.dumps(data, default=str, separators=(',', ':'))}\n\n").encode()


async def job_events(
    status: dict[str, Any],
    poll: Callable[[], Awaitable[dict[str, Any]]],
    view: Callable[[dict[str, Any]], dict[str, Any]],
    final: Callable[[dict[str, Any]], Awaitable[tuple[str, dict[str, Any]] | None]],
    poll_s: float,
    keepalive_s: float,
) -> AsyncIterator[bytes]:
    """The stream of a job from its first ``status``: ``view`` renders a status as the event's job,
    ``final`` gives the last event (name and data) once the job has ended, else ``None``; ``poll``
    fetches the next status every ``poll_s``.  A comment line keeps an idle stream open every
    ``keepalive_s``; a store error ends the stream with an ``error`` event."""
    yield f"retry: {int(poll_s * 2000)}\n\n".encode()
    last: str | None = None
    n = 0
    quiet_since = time.monotonic()
    while True:
        job = view(status)
        end = await final(job)
        if end is not None:
            yield sse(end[0], end[1], n)
            return
        text = json.dumps(job, sort_keys=True, default=str)
        if text != last:
            last = text
            yield sse("progress", job, n)
            n += 1
            quiet_since = time.monotonic()
        elif time.monotonic() - quiet_since >= keepalive_s:
            yield b": keep-alive\n\n"
            quiet_since = time.monotonic()
        await asyncio.sleep(poll_s)
        try:
            status = await poll()
        except ProblemError as e:
            yield sse("error", {"status": e.status, "detail": e.detail})
            return


def sse_response(stream: AsyncIterator[bytes]) -> StreamingResponse:
    """A job's event stream as the response (no caching, no proxy buffering)."""
    return StreamingResponse(
        stream,
        media_type="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )
