"""Redis URLs, with Redis Sentinel as an option, for redis-py clients and for Celery alike.

Every ``*_REDIS_URL`` setting takes either a plain ``redis://host:port/db`` or a Sentinel URL::

    redis+sentinel://[:password@]host1:26379,host2:26379,host3:26379/<master name>[/<db>]

With Sentinel, clients ask the sentinels for the current primary and ask again after a failover:
:func:`connect` gives a ``redis.Redis`` on redis-py's Sentinel connection pool, and :func:`celery_broker`
the URL and transport options that kombu's Redis transport takes for the same (``sentinel://`` URLs with a
``master_name``).  A password in the URL is the primary's (``requirepass``); the sentinels are reached
without one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote

SENTINEL_SCHEME = "redis+sentinel://"


@dataclass(frozen=True)
class SentinelUrl:
    """A parsed ``redis+sentinel://`` URL."""

    sentinels: tuple[tuple[str, int], ...]
    master: str
    db: int = 0
    password: str | None = None


def is_sentinel(url: str) -> bool:
    return url.startswith(SENTINEL_SCHEME)


def parse_sentinel(url: str) -> SentinelUrl:
    """``redis+sentinel://[:pw@]h1:p1,h2:p2/master[/db]`` parsed; :class:`ValueError` naming what is wrong.

    >>> parse_sentinel("redis+sentinel://10.0.0.1:26379,10.0.0.2:26380/pulvezar/1")
    SentinelUrl(sentinels=(('10.0.0.1', 26379), ('10.0.0.2', 26380)), master='pulvezar', db=1, password=None)
    """
    if not is_sentinel(url):
        raise ValueError(f"a Sentinel URL starts with {SENTINEL_SCHEME}, got {url!r}")
    rest = url[len(SENTINEL_SCHEME) :]
    password = None
    if "@" in rest:
        auth, rest = rest.rsplit("@", 1)
        password = unquote(auth.split(":", 1)[1] if ":" in auth else auth) or None
    hosts, _, path = rest.partition("/")
    parts = [p for p in path.split("/") if p]
    if not parts:
        raise ValueError(f"a Sentinel URL names its primary: {SENTINEL_SCHEME}host:port,.../<master>[/<db>]")
    sentinels = []
    for h in hosts.split(","):
        host, _, port = h.strip().rpartition(":")
        if not host or not port.isdigit():
            raise ValueError(f"a sentinel is host:port, got {h!r}")
        sentinels.append((host.strip("[]"), int(port)))
    db = int(parts[1]) if len(parts) > 1 else 0
    return SentinelUrl(tuple(sentinels), parts[0], db, password)


def connect(url: str, **kwargs: Any) -> Any:
    """A ``redis.Redis`` for ``url`` (``kwargs`` as for ``redis.Redis.from_url``: ``decode_responses``,
    ``socket_timeout``, ...); through Sentinel for a ``redis+sentinel://`` URL."""

    import redis

    if not is_sentinel(url):
        return redis.Redis.from_url(url, **kwargs)
    from redis.sentinel import Sentinel

    s = parse_sentinel(url)
    timeouts: dict[str, Any] = {
        k: kwargs[k] for k in ("socket_timeout", "socket_connect_timeout") if k in kwargs
    }
    sentinel = Sentinel(list(s.sentinels), sentinel_kwargs=dict(timeouts), **timeouts)
    return sentinel.master_for(s.master, db=s.db, password=s.password, **kwargs)


def celery_broker(url: str) -> tuple[str, dict[str, Any]]:
    """``(url, transport options)`` for Celery's broker or result backend on ``url``."""
    if not is_sentinel(url):
        return url, {}
    s = parse_sentinel(url)
    auth = f":{s.password}@" if s.password else ""
    urls = ";".join(f"sentinel://{auth}{host}:{port}/{s.db}" for host, port in s.sentinels)
    return urls, {"master_name": s.master}
