"""Prometheus metrics of the gRPC services, served on their own HTTP port (``/metrics``)."""

from __future__ import annotations

from prometheus_client import Counter, Histogram, start_http_server

REQUESTS = Counter(
    "pulvezar_grpc_requests",
    "gRPC requests handled, by service, method and status code",
    ["service", "method", "code"],
)
LATENCY = Histogram(
    "pulvezar_grpc_request_duration_seconds",
    "gRPC request latency, by service and method",
    ["service", "method"],
    buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10),
)


def serve_metrics(port: int, host: str) -> tuple[object, int] | None:
    """Start the /metrics HTTP server in a thread; returns (server, bound port), or None when off."""
    if port < 0:
        return None
    server, _thread = start_http_server(port, addr=host)
    return server, int(server.server_port)
