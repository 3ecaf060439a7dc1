"""The gateway's admin port: ``/livez`` sees a stuck event loop (a TCP probe cannot), ``/metrics`` is
served there and, in production settings, neither it nor ``/docs`` is on the public port."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import httpx
import pytest
import uvicorn

from services.gateway.admin import AdminServer
from services.gateway.app import create_app
from services.gateway.settings import GatewaySettings

if TYPE_CHECKING:
    from conftest import GatewayProcess

KEY = "live-key"


class InProcessGateway:
    """The app under uvicorn on its own event loop in a thread (so the test can block that loop), with
    the admin server as ``python -m services.gateway`` starts it."""

    def __init__(self, settings: GatewaySettings) -> None:
        self.app = create_app(settings)
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.base = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.admin = AdminServer("127.0.0.1", 0, self.app.state.metrics.registry, self.app.state.heartbeat)
        self.admin_base = f"http://127.0.0.1:{self.admin.port}"
        self.admin.start()
        config = uvicorn.Config(self.app, log_config=None, access_log=False, lifespan="on")
        self.server = uvicorn.Server(config)
        self.server.install_signal_handlers = lambda: None  # type: ignore[method-assign]
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        self.loop.run_until_complete(self.server.serve(sockets=[self.sock]))

    def block_loop(self, seconds: float) -> None:
        """A synchronous call that holds the event loop (as a runaway parser would)."""
        self.loop.call_soon_threadsafe(time.sleep, seconds)

    def close(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=30)
        self.admin.close()
        self.sock.close()


def livez(base: str) -> int:
    return httpx.get(f"{base}/livez", timeout=5).status_code


def wait_for(predicate: Any, timeout_s: float) -> bool:
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.05)
    return False


@pytest.fixture(scope="module")
def gateway() -> Iterator[InProcessGateway]:
    settings = GatewaySettings(
        heartbeat_s=0.1, stale_after_s=1.0, redis_url=None, api_keys={}, metrics_port=0
    )
    gw = InProcessGateway(settings)
    try:
        assert wait_for(lambda: httpx.get(f"{gw.base}/healthz", timeout=5).status_code == 200, 30)
        yield gw
    finally:
        gw.close()


def test_livez_fails_while_the_event_loop_is_stuck_and_recovers(gateway: InProcessGateway) -> None:
    assert wait_for(lambda: livez(gateway.admin_base) == 200, 10)
    body = httpx.get(f"{gateway.admin_base}/livez", timeout=5).json()
    assert body["status"] == "ok" and body["stale_after_s"] == 1.0
    gateway.block_loop(6.0)
    # the public port still accepts connections (what a TCP probe checks), but answers nothing
    with socket.create_connection(("127.0.0.1", int(gateway.base.rsplit(":", 1)[1])), timeout=5):
        pass
    with pytest.raises(httpx.TimeoutException):
        httpx.get(f"{gateway.base}/healthz", timeout=0.5)
    # generous bounds: only a /livez that never notices (or never recovers) hits them
    assert wait_for(lambda: livez(gateway.admin_base) == 503, 5.5), "/livez did not see the stuck loop"
    stuck = httpx.get(f"{gateway.admin_base}/livez", timeout=5).json()
    assert stuck["status"] == "stuck" and stuck["loop_age_s"] > 1.0
    assert wait_for(lambda: livez(gateway.admin_base) == 200, 30), "/livez did not recover"
    assert httpx.get(f"{gateway.base}/healthz", timeout=5).status_code == 200


def test_livez_is_not_on_the_public_port(gateway: InProcessGateway) -> None:
    assert httpx.get(f"{gateway.base}/livez", timeout=5).status_code == 404
    assert httpx.get(f"{gateway.admin_base}/nothing", timeout=5).status_code == 404


def test_metrics_on_the_admin_port_only_in_production_settings(gateway_process: type[GatewayProcess]) -> None:
    env = {
        "PULVEZAR_GATEWAY_API_KEYS": json.dumps({KEY: {"name": "live"}}),
        "PULVEZAR_GATEWAY_PUBLIC_METRICS": "false",
        "PULVEZAR_GATEWAY_PUBLIC_DOCS": "false",
    }
    gw = gateway_process(env, key=KEY)  # --metrics-port 0: an admin port of its own
    try:
        admin = f"http://127.0.0.1:{gw.svc.metrics_port}"
        assert gw.svc.metrics_port != gw.svc.port
        assert gw.http.get("/healthz").status_code == 200
        for path in ("/metrics", "/docs", "/redoc", "/openapi.json"):
            assert gw.http.get(path).status_code == 404, path
        text = httpx.get(f"{admin}/metrics", timeout=5).text
        assert 'pulvezar_http_requests_total{method="GET",route="/healthz",status="200"}' in text
        assert wait_for(lambda: livez(admin) == 200, 10)
        assert httpx.get(f"{admin}/docs", timeout=5).status_code == 404
    finally:
        gw.stop()


def test_the_local_defaults_keep_metrics_and_docs_public(gateway_process: type[GatewayProcess]) -> None:
    gw = gateway_process({"PULVEZAR_GATEWAY_API_KEYS": json.dumps({KEY: {"name": "live"}})}, key=KEY)
    try:
        for path in ("/metrics", "/docs", "/openapi.json"):
            assert gw.http.get(path).status_code == 200, path
        assert livez(f"http://127.0.0.1:{gw.svc.metrics_port}") == 200
    finally:
        gw.stop()
