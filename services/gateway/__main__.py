"""``python -m services.gateway [--host H] [--port N] [--rules ADDR] [--evaluator ADDR] [--redis-url URL]``.

Binds the port itself (0: any free one) and the admin port (``--metrics-port``: ``/metrics`` and ``/livez``
from a thread, :mod:`services.gateway.admin`), logs ``listening`` with both, then serves with uvicorn
until SIGTERM/SIGINT (in-flight requests get ``grace_period_s``).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import signal
import socket
import sys
import threading
from collections.abc import Callable, Iterator
from types import FrameType

import uvicorn

from services.common import jsonlog
from services.common.jsonlog import log
from services.common.sandbox import shared_pool
from services.common.settings import cli_overrides
from services.gateway.admin import AdminServer
from services.gateway.app import create_app
from services.gateway.settings import GatewaySettings
from services.store.db import StoreRequired, required_url

logger = logging.getLogger("pulvezar.gateway")


class Server(uvicorn.Server):
    """uvicorn re-raises SIGTERM after its graceful shutdown (exit status -15); this one exits 0, and
    ends the open event streams first (``on_exit``), which uvicorn would otherwise wait out."""

    on_exit: Callable[[], None] | None = None

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        if self.on_exit is not None:
            self.on_exit()
        super().handle_exit(sig, frame)

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        sigs = (signal.SIGTERM, signal.SIGINT)
        previous = {s: signal.signal(s, self.handle_exit) for s in sigs}
        try:
            yield
        finally:
            for s, handler in previous.items():
                signal.signal(s, handler)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m services.gateway", description=__doc__)
    parser.add_argument("--host")
    parser.add_argument("--port", type=int, help="HTTP port (0: any free port); env PULVEZAR_GATEWAY_PORT")
    parser.add_argument(
        "--metrics-port",
        type=int,
        help="admin port: /metrics, /livez (0: any free, -1: none); env PULVEZAR_GATEWAY_METRICS_PORT",
    )
    parser.add_argument("--rules", dest="rules_address", help="Rules service host:port")
    parser.add_argument("--evaluator", dest="evaluator_address", help="Evaluator service host:port")
    parser.add_argument("--redis-url", help="the rollout job store")
    parser.add_argument(
        "--grace-period", dest="grace_period_s", type=float, help="seconds for in-flight requests"
    )
    args = vars(parser.parse_args(argv))
    settings = GatewaySettings(**cli_overrides(**args))
    jsonlog.configure("gateway", settings.log_level)
    try:  # the lifespan checks it too (an app served otherwise); here it is one line, not a traceback
        required_url("the gateway")
    except StoreRequired as e:
        log(logger, logging.ERROR, "cannot start", error=str(e))
        return 1

    family = socket.AF_INET6 if ":" in settings.host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((settings.host, settings.port))
    except OSError as e:
        log(logger, logging.ERROR, "cannot bind", host=settings.host, port=settings.port, error=str(e))
        return 1
    sock.listen(2048)
    port = sock.getsockname()[1]
    app = create_app(settings)
    admin = None
    if settings.metrics_port >= 0:
        try:
            admin = AdminServer(
                settings.host, settings.metrics_port, app.state.metrics.registry, app.state.heartbeat
            )
        except OSError as e:
            log(
                logger,
                logging.ERROR,
                "cannot bind",
                host=settings.host,
                port=settings.metrics_port,
                error=str(e),
            )
            return 1
        admin.start()
    config = uvicorn.Config(
        app,
        log_config=None,
        access_log=False,
        lifespan="on",
        timeout_graceful_shutdown=int(settings.grace_period_s) or None,
        server_header=False,
        proxy_headers=False,
    )
    pool = shared_pool()
    if pool.settings.warm:  # PULVEZAR_GATEWAY_PARSE_WARM: the first upload waits for no process start
        threading.Thread(target=pool.warm, name="parse-warm", daemon=True).start()
    server = Server(config)
    server.on_exit = app.state.streams.drain
    metrics_port = admin.port if admin else port if settings.public_metrics else None
    log(logger, logging.INFO, "listening", host=settings.host, port=port, metrics_port=metrics_port)
    try:
        asyncio.run(server.serve(sockets=[sock]))
    finally:
        if admin is not None:
            admin.close()
    log(logger, logging.INFO, "stopped", exit_code=0)
    return 0


if __name__ == "__main__":
    sys.exit(main())
