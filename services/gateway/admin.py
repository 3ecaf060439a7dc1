"""The gateway's admin port: ``/metrics`` and ``/livez``, answered by a thread, not the event loop.

A TCP probe, or a route on the HTTP port, cannot see an event loop that a CPU-bound call holds: the
socket still accepts. Here the event loop stamps a :class:`Heartbeat` every ``heartbeat_s``; ``/livez``,
served from its own thread, answers 503 once the stamp is older than ``stale_after_s``, so the kubelet
restarts a gateway whose loop is stuck. The port is the pod's, not the Service's or the Ingress's.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest


class Heartbeat:
    """The event loop's last sign of life (``time.monotonic``), stamped by :meth:`run`."""

    def __init__(self, every_s: float, stale_after_s: float) -> None:
        self.every_s = every_s
        self.stale_after_s = stale_after_s
        self.last: float | None = None  # None: the loop has not started beating yet

    async def run(self) -> None:
        """Stamp every ``every_s`` until cancelled (a task on the app's event loop)."""
        while True:
            self.last = time.monotonic()
            await asyncio.sleep(self.every_s)

    def age_s(self) -> float | None:
        return None if self.last is None else time.monotonic() - self.last

    def alive(self) -> bool:
        """False once the loop is ``stale_after_s`` late (or never beat)."""
        age = self.age_s()
        return age is not None and age <= self.stale_after_s


class AdminServer:
    """``/metrics`` (``registry``) and ``/livez`` (``heartbeat``) on ``host:port`` in a daemon thread."""

    def __init__(self, host: str, port: int, registry: CollectorRegistry, heartbeat: Heartbeat) -> None:
        handler = _handler(registry, heartbeat)
        self.httpd = ThreadingHTTPServer((host, port), handler)
        self.httpd.daemon_threads = True
        self.port = int(self.httpd.server_address[1])
        self._thread = threading.Thread(target=self.httpd.serve_forever, name="admin-http", daemon=True)

    def start(self) -> AdminServer:
        self._thread.start()
        return self

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def _handler(registry: CollectorRegistry, heartbeat: Heartbeat) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # http.server's name
            path = self.path.split("?", 1)[0]
            if path == "/metrics":
                self._send(200, generate_latest(registry), CONTENT_TYPE_LATEST)
            elif path == "/livez":
                age = heartbeat.age_s()
                alive = heartbeat.alive()
                body: dict[str, Any] = {
                    "status": "ok" if alive else "stuck",
                    "loop_age_s": None if age is None else round(age, 3),
                    "stale_after_s": heartbeat.stale_after_s,
                }
                self._send(200 if alive else 503, json.dumps(body).encode(), "application/json")
            else:
                self._send(404, b'{"status": "not found"}', "application/json")

        def _send(self, status: int, body: bytes, content_type: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:  # quiet: probes every 10 s
            return

    return Handler
