"""Redis's memory against its ``maxmemory``, for Prometheus: with ``noeviction`` a full Redis refuses
writes (new jobs get 503s), so an alert fires well before (docs/store.md, "Redis memory").

Gauges, read at each scrape (``INFO memory``, one round trip with a short timeout):
``pulvezar_redis_memory_used_bytes``, ``pulvezar_redis_memory_max_bytes`` (0: no limit) and
``pulvezar_redis_memory_used_ratio`` (used / max; 1 when there is no limit, so an unbounded Redis alerts
too), ``pulvezar_redis_up`` (0 when Redis did not answer).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector


def memory(client: Any) -> tuple[int, int]:
    """``(used_memory, maxmemory)`` in bytes of the Redis behind ``client``."""
    info = client.info("memory")
    return int(info["used_memory"]), int(info.get("maxmemory", 0) or 0)


def used_ratio(used: int, limit: int) -> float:
    """The share of ``maxmemory`` in use; 1.0 without a limit (``noeviction`` with no limit is a
    Redis that grows until the machine kills it: alert on it)."""
    return used / limit if limit > 0 else 1.0


class RedisMemoryCollector(Collector):
    """The gauges above for the Redis at ``url``."""

    def __init__(self, url: str) -> None:
        self.url = url
        self._client: Any = None

    def collect(self) -> Iterator[GaugeMetricFamily]:
        up = GaugeMetricFamily("pulvezar_redis_up", "whether Redis answered the scrape's INFO")
        try:
            if self._client is None:
                from services.common.redis_url import connect

                self._client = connect(self.url, socket_timeout=1.0, socket_connect_timeout=1.0)
            used, limit = memory(self._client)
        except Exception:
            up.add_metric([], 0)
            yield up
            return
        up.add_metric([], 1)
        yield up
        yield GaugeMetricFamily("pulvezar_redis_memory_used_bytes", "Redis used_memory", value=used)
        yield GaugeMetricFamily("pulvezar_redis_memory_max_bytes", "Redis maxmemory (0: none)", value=limit)
        yield GaugeMetricFamily(
            "pulvezar_redis_memory_used_ratio", "used_memory / maxmemory (1 without a limit)",
            value=used_ratio(used, limit),
        )  # fmt: skip
