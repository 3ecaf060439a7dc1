"""The image's HEALTHCHECK: is the service in this container healthy? Exit 0 when it is, 1 when not.

The service is ``PULVEZAR_SERVICE`` or, by default, the first argument of ``pulvezar-service`` (PID 1):
rules and evaluator answer the gRPC health check with SERVING on their port; the gateway answers 200 on
``/readyz``; a rollout worker answers ``celery inspect ping``. Anything else counts as healthy.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path


def service() -> str:
    if os.environ.get("PULVEZAR_SERVICE"):
        return os.environ["PULVEZAR_SERVICE"]
    try:
        argv = Path("/proc/1/cmdline").read_bytes().split(b"\0")
    except OSError:
        return ""
    args = [a.decode(errors="replace") for a in argv if a]
    for i, arg in enumerate(args):
        if arg.endswith("pulvezar-service"):
            return args[i + 1] if i + 1 < len(args) else "rules"
        if arg.startswith("services."):
            return arg.split(".")[1]
    return ""


def grpc_ok(port: str) -> bool:
    import grpc
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        try:
            reply = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=3)
        except grpc.RpcError:
            return False
    return bool(reply.status == health_pb2.HealthCheckResponse.SERVING)


def main() -> int:
    name = service()
    env = os.environ.get
    if name == "rules":
        ok = grpc_ok(env("PULVEZAR_RULES_PORT", "50051"))
    elif name == "evaluator":
        ok = grpc_ok(env("PULVEZAR_EVALUATOR_PORT", "50052"))
    elif name == "gateway":
        url = (
            f"http://127.0.0.1:{env('PULVEZAR_GATEWAY_PORT', '8000')}{env('PULVEZAR_HEALTH_PATH', '/readyz')}"
        )
        try:
            with urllib.request.urlopen(url, timeout=3) as r:
                ok = 200 <= r.status < 300
        except OSError:
            ok = False
    elif name == "rollout":
        node = f"rollout@{env('HOSTNAME', socket.gethostname())}"
        cmd = ["celery", "-A", "services.rollout.celery_app", "inspect", "ping", "-d", node, "--timeout", "3"]
        try:
            done = subprocess.run(cmd, capture_output=True, text=True, timeout=20)
            ok = done.returncode == 0 and "pong" in done.stdout
        except (OSError, subprocess.TimeoutExpired):
            ok = False
    else:
        ok = True
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
