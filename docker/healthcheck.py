"""The image's HEALTHCHECK: is the service in this container healthy? Exit 0 when it is, 1 when not.

The service is ``PULVEZAR_SERVICE`` or, by default, the first argument of ``pulvezar-service`` (PID 1):
rules and evaluator answer the gRPC health check with SERVING on their port; the gateway answers 200 on
``/readyz``; a rollout worker's heartbeat file (``PULVEZAR_ROLLOUT_HEARTBEAT_FILE``, default
``$TMPDIR/pulvezar-rollout.heartbeat``, written every 5 s by its main process's event loop; see
``services/rollout/celery_app.py``) is younger than ``PULVEZAR_ROLLOUT_HEARTBEAT_MAX_AGE_S`` (30 s); the
scheduler (Celery beat) reaches its broker (``PULVEZAR_ROLLOUT_REDIS_URL`` answers PING), without which it
can queue nothing.  Anything else counts as healthy.

The worker check reads one file: no Celery start-up and no broadcast through Redis per probe (``celery
inspect ping`` cost seconds of CPU on a busy pod, and needed the node name to match).
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
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


def heartbeat_ok(path: Path, max_age_s: float) -> bool:
    """The rollout worker's heartbeat file exists and was written within ``max_age_s`` seconds."""
    try:
        age = time.time() - path.stat().st_mtime
    except OSError:
        return False
    return age <= max_age_s


def broker_ok(url: str) -> bool:
    """The scheduler's Redis answers PING within 3 s (through the sentinels for a ``redis+sentinel://``)."""
    import redis

    try:
        from services.common.redis_url import connect
    except ImportError:  # run from a checkout, not the image (PYTHONPATH=/app there)
        sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
        from services.common.redis_url import connect

    try:
        return bool(connect(url, socket_timeout=3, socket_connect_timeout=3).ping())
    except (redis.exceptions.RedisError, OSError):
        return False


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
        ok = heartbeat_ok(
            Path(
                env("PULVEZAR_ROLLOUT_HEARTBEAT_FILE")
                or Path(tempfile.gettempdir()) / "pulvezar-rollout.heartbeat"
            ),
            float(env("PULVEZAR_ROLLOUT_HEARTBEAT_MAX_AGE_S", "30")),
        )
    elif name == "scheduler":
        ok = broker_ok(env("PULVEZAR_ROLLOUT_REDIS_URL", "redis://127.0.0.1:6379/0"))
    else:
        ok = True
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
