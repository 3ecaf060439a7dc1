"""Server-sent events: a job's or a game's stream, bounded and woken by notification.

Every stream of the gateway goes through :class:`Streams`:

- **a cap per key**: at most ``sse_max_streams_per_key`` open at once, across gateway replicas (a sorted
  set in Redis whose entries expire with the streams' lifetime, so a crashed gateway's slots come back);
  one more is a 429;
- **a lifetime**: a stream ends after ``sse_max_lifetime_s``; the client reconnects (``Last-Event-ID``);
- **wake-ups, not polling**: a stream reads its job or game again when Redis says it changed (keyspace
  notifications of the chunk, started, cancel and error keys that workers write; a ``PUBLISH`` on
  ``pulvezar:notify:<topic>`` after a game's events are stored), at most every ``sse_poll_s``, and
  otherwise only every ``sse_fallback_poll_s`` (a missed notification costs that much delay, never a hang);
- **a drain on shutdown**: on SIGTERM (:meth:`Streams.drain`) every open stream ends at once with a comment
  (the client reconnects to another replica with ``Last-Event-ID``) and new ones get 503, so a stopping
  gateway does not wait its whole grace period on streams.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import anyio
from fastapi import Request
from fastapi.responses import StreamingResponse

from services.common.jsonlog import log
from services.gateway.problems import ProblemError

logger = logging.getLogger("pulvezar.services.gateway")

NOTIFY = "pulvezar:notify:"
#: the keyspace events a stream wakes on: a job's chunk, started, cancel or error key written (``SET``)
KEYSPACE = tuple(f"__keyspace@*__:*:{part}" for part in ("chunk:*", "started", "cancel", "error"))
#: what the gateway asks Redis to notify: keyspace events (K) of string commands ($)
NOTIFY_FLAGS = "K$"

# one atomic claim of a stream slot: drop expired slots, refuse over the cap, add this one
_CLAIM = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[4])
redis.call('EXPIRE', KEYS[1], ARGV[5])
return 1
"""


def sse(event: str, data: Any, event_id: int | None = None) -> bytes:
    """One event in the ``text/event-stream`` format (compact JSON data)."""
    head = f"event: {event}\n" + (f"id: {event_id}\n" if event_id is not None else "")
    return (head + f"data: {json.dumps(data, default=str, separators=(',', ':'))}\n\n").encode()


def topic_of_key(key: str) -> str | None:
    """The job id of a job's Redis key ``<kind>:<job id>:<part>...`` (None: not one)."""
    parts = key.split(":")
    return parts[1] if len(parts) >= 3 else None


class Draining(Exception):
    """The gateway is stopping: a stream waiting for its next read ends (:meth:`Streams.drain`)."""


class Pace:
    """When a stream reads its job or game again: woken by a notification (no sooner than ``min_s``
    after the last read), else after ``fallback_s``; :class:`Draining` once the gateway stops."""

    def __init__(self, min_s: float, fallback_s: float) -> None:
        self.min_s, self.fallback_s = min_s, fallback_s
        self.event = asyncio.Event()
        self.loop = asyncio.get_running_loop()
        self.stopping = False
        self._last = time.monotonic()

    def notify(self) -> None:
        """Wake the stream (thread-safe)."""
        self.loop.call_soon_threadsafe(self.event.set)

    def stop(self) -> None:
        """End the stream at its next wait (thread-safe)."""
        self.stopping = True
        self.notify()

    @property
    def retry_ms(self) -> int:
        """The reconnection delay a client is told (``retry:``)."""
        return max(1000, int(self.min_s * 2000))

    async def wait(self, at_most_s: float | None = None) -> None:
        """Until notified (and ``min_s`` since the last wait returned), or ``fallback_s`` (or
        ``at_most_s``, when shorter) went by."""
        limit = self.fallback_s if at_most_s is None else min(self.fallback_s, at_most_s)
        if not self.stopping:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.event.wait(), limit)
        self.event.clear()
        if self.stopping:
            raise Draining
        pause = self.min_s - (time.monotonic() - self._last)
        if pause > 0:
            await asyncio.sleep(pause)
        self._last = time.monotonic()


class Streams:
    """The gateway's open event streams (one per app): slots per key, lifetimes, notifications."""

    def __init__(self, settings: Any) -> None:
        self.max_per_key: int = settings.sse_max_streams_per_key
        self.lifetime_s: float = settings.sse_max_lifetime_s
        self.min_s: float = settings.sse_poll_s
        self.fallback_s: float = settings.sse_fallback_poll_s
        self.keepalive_s: float = settings.sse_keepalive_s
        self.redis_url: str | None = settings.redis_url
        self._redis: Any = None
        self._claim: Any = None
        self._local: dict[str, set[str]] = {}  # slots without Redis: this replica's
        self._paces: dict[str, set[Pace]] = {}
        self._lock = threading.Lock()
        self._listener: threading.Thread | None = None
        self._pubsub: Any = None
        self._closed = False
        self._draining = False
        try:  # a game's stored events wake its streams on every replica
            from services.store.games import GameRecords
        except ImportError:  # no durable store installed: no games
            return
        GameRecords.notify = self.publish_game

    # ---- Redis ---------------------------------------------------------------------------------
    def _client(self) -> Any:
        if self._redis is None and self.redis_url:
            from services.common.redis_url import connect

            self._redis = connect(self.redis_url, socket_timeout=2.0, socket_connect_timeout=2.0)
            self._claim = self._redis.register_script(_CLAIM)
        return self._redis

    def publish(self, topic: str) -> None:
        """Tell every replica's streams of ``topic`` that it changed (thread-safe; best effort)."""
        client = self._client()
        if client is None:
            self._wake(topic)
            return
        try:
            client.publish(NOTIFY + topic, "1")
        except Exception as e:  # the fallback poll still finds the change
            log(logger, logging.WARNING, "stream notification not published", topic=topic, error=repr(e))

    def publish_game(self, game_id: str) -> None:
        """A game's new events are stored (:attr:`services.store.games.GameRecords.notify`)."""
        self.publish(f"game:{game_id}")

    def _ensure_listener(self) -> None:
        with self._lock:
            if self._listener is not None or self._client() is None or self._closed:
                return
            self._listener = threading.Thread(target=self._listen, name="sse-notifications", daemon=True)
            self._listener.start()

    def _listen(self) -> None:
        """Wake the streams of the topics Redis notifies, until :meth:`close` (reconnecting on errors)."""
        enabled = False
        while not self._closed:
            try:
                client = self._client()
                if not enabled:
                    enabled = _enable_keyspace_events(client)
                self._pubsub = client.pubsub(ignore_subscribe_messages=True)
                self._pubsub.psubscribe(NOTIFY + "*", *KEYSPACE)
                while not self._closed:
                    m = self._pubsub.get_message(timeout=1.0)
                    if m is None:
                        continue
                    channel = m["channel"].decode() if isinstance(m["channel"], bytes) else str(m["channel"])
                    if channel.startswith(NOTIFY):
                        self._wake(channel[len(NOTIFY) :])
                    else:
                        topic = topic_of_key(channel.split("__:", 1)[-1])
                        if topic is not None:
                            self._wake(topic)
            except Exception as e:
                if self._closed:  # set by close() from another thread
                    return  # type: ignore[unreachable]
                log(logger, logging.WARNING, "stream notifications lost; reconnecting", error=repr(e))
                time.sleep(1.0)

    def _wake(self, topic: str) -> None:
        with self._lock:
            paces = list(self._paces.get(topic, ()))
        for p in paces:
            p.notify()

    def drain(self) -> None:
        """End every open stream now and refuse new ones (thread- and signal-safe: the gateway's
        SIGTERM handler calls it before uvicorn's graceful shutdown waits for open responses)."""
        self._draining = True
        # no lock: a signal handler may interrupt the thread that holds it; list() of a dict's values and of
        # a set are single steps under the GIL, and only this (interrupted) thread changes them
        paces = [p for ps in list(self._paces.values()) for p in list(ps)]
        for p in paces:
            p.stop()

    def close(self) -> None:
        self._closed = True
        if self._pubsub is not None:
            with contextlib.suppress(Exception):
                self._pubsub.close()

    # ---- slots ---------------------------------------------------------------------------------
    def _take(self, owner: str, slot: str) -> bool:
        client = self._client()
        if client is None:
            with self._lock:
                held = self._local.setdefault(owner, set())
                if len(held) >= self.max_per_key:
                    return False
                held.add(slot)
                return True
        now = time.time()
        ttl = int(self.lifetime_s) + 60
        return bool(self._claim(keys=[_slots_key(owner)], args=[now, self.max_per_key, now + ttl, slot, ttl]))

    def _give_back(self, owner: str, slot: str) -> None:
        client = self._client()
        if client is None:
            with self._lock:
                self._local.get(owner, set()).discard(slot)
            return
        client.zrem(_slots_key(owner), slot)

    def open_count(self, owner: str) -> int:
        """The key's streams open now (for tests and metrics)."""
        client = self._client()
        if client is None:
            return len(self._local.get(owner, ()))
        return int(client.zcount(_slots_key(owner), time.time(), "+inf"))

    # ---- a stream ------------------------------------------------------------------------------
    async def open(
        self, owner: str | None, topic: str, make: Callable[[Pace], AsyncIterator[bytes]]
    ) -> StreamingResponse:
        """The response of a stream of ``topic`` made by ``make(pace)``, in one of ``owner``'s slots
        (a 429 when they are all taken), ended after the lifetime."""
        who, slot = owner or "", secrets.token_hex(8)
        if self._draining:
            raise ProblemError(503, "the gateway is stopping; reconnect", kind="unavailable",
                               headers={"Retry-After": "1"})  # fmt: skip
        try:
            taken = await asyncio.to_thread(self._take, who, slot)
        except Exception as e:
            log(logger, logging.WARNING, "stream slots unavailable", error=repr(e))
            raise ProblemError(503, "event streams are unavailable", kind="unavailable",
                               headers={"Retry-After": "1"}) from None  # fmt: skip
        if not taken:
            raise ProblemError(
                429, f"at most {self.max_per_key} event streams at once per key; close one first",
                kind="too-many-streams", headers={"Retry-After": str(max(1, int(self.fallback_s)))},
                errors=[("streams", f"{self.max_per_key} open")],
            )  # fmt: skip
        self._ensure_listener()
        # without Redis nothing notifies a job's progress (a store in the process, as tests have): poll
        pace = Pace(self.min_s, self.fallback_s if self.redis_url else self.min_s)
        with self._lock:
            self._paces.setdefault(topic, set()).add(pace)
        if self._draining:  # drained (another thread) while this one was being opened
            pace.stop()  # type: ignore[unreachable]
        return sse_response(self._bounded(make(pace), who, slot, topic, pace))

    async def _bounded(
        self, stream: AsyncIterator[bytes], owner: str, slot: str, topic: str, pace: Pace
    ) -> AsyncIterator[bytes]:
        deadline = time.monotonic() + self.lifetime_s
        it = stream.__aiter__()
        try:
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    yield b": the stream's lifetime is over; reconnect with Last-Event-ID\n\n"
                    return
                try:
                    chunk = await asyncio.wait_for(it.__anext__(), left)
                except StopAsyncIteration:
                    return
                except Draining:
                    yield b": the gateway is stopping; reconnect with Last-Event-ID\n\n"
                    return
                except TimeoutError:
                    continue
                yield chunk
        finally:
            with anyio.CancelScope(shield=True):
                with contextlib.suppress(Exception):
                    await it.aclose()  # type: ignore[attr-defined]
                with self._lock:
                    paces = self._paces.get(topic)
                    if paces is not None:
                        paces.discard(pace)
                        if not paces:
                            del self._paces[topic]
                try:
                    await asyncio.to_thread(self._give_back, owner, slot)
                except Exception as e:  # the slot expires with the lifetime anyway
                    log(logger, logging.WARNING, "stream slot not given back", error=repr(e))


def _slots_key(owner: str) -> str:
    import hashlib

    return "pulvezar:streams:" + hashlib.sha256(owner.encode()).hexdigest()[:24]


def _enable_keyspace_events(client: Any) -> bool:
    """Ask Redis for the keyspace events of string commands, keeping what it has; False when it refuses
    (a managed Redis without CONFIG: streams then wake on the fallback poll and published events)."""
    try:
        raw = client.config_get("notify-keyspace-events").get("notify-keyspace-events", "")
        have = raw.decode() if isinstance(raw, bytes) else str(raw)
        if "K" in have and ("$" in have or "A" in have):
            return True
        client.config_set("notify-keyspace-events", "".join(sorted(set(have + NOTIFY_FLAGS))))
        return True
    except Exception as e:
        log(logger, logging.WARNING, "keyspace notifications not enabled", error=repr(e))
        return False


def streams(request: Request) -> Streams:
    """The app's :class:`Streams`."""
    s: Streams = request.app.state.streams
    return s


async def job_events(
    status: dict[str, Any],
    poll: Callable[[], Awaitable[dict[str, Any]]],
    view: Callable[[dict[str, Any]], dict[str, Any]],
    final: Callable[[dict[str, Any]], Awaitable[tuple[str, dict[str, Any]] | None]],
    pace: Pace,
    keepalive_s: float,
) -> AsyncIterator[bytes]:
    """The stream of a job from its first ``status``: ``view`` renders a status as the event's job,
    ``final`` gives the last event (name and data) once the job has ended, else ``None``; ``poll``
    fetches the next status when ``pace`` says so.  A comment line keeps an idle stream open every
    ``keepalive_s``; a store error ends the stream with an ``error`` event."""
    yield f"retry: {pace.retry_ms}\n\n".encode()
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
        await pace.wait(keepalive_s)
        try:
            status = await poll()
        except ProblemError as e:
            yield sse("error", {"status": e.status, "detail": e.detail})
            return


def sse_response(stream: AsyncIterator[bytes]) -> StreamingResponse:
    """An event stream as the response (no caching, no proxy buffering)."""
    return StreamingResponse(
        stream,
        media_type="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )
