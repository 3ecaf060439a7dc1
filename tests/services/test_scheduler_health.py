"""The scheduler (Celery beat) container's health check: its broker answers PING (docker/healthcheck.py)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_scheduler_is_healthy_only_with_its_broker(redis_server: str) -> None:
    script = ROOT / "docker" / "healthcheck.py"
    spec = importlib.util.spec_from_file_location("pulvezar_healthcheck", script)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.broker_ok(redis_server)
    assert not module.broker_ok("redis://127.0.0.1:9/0")  # nothing listens on the discard port

    def run(url: str) -> int:
        env = {"PULVEZAR_SERVICE": "scheduler", "PULVEZAR_ROLLOUT_REDIS_URL": url, "PATH": "/usr/bin:/bin"}
        return subprocess.run([sys.executable, str(script)], env=env, timeout=30).returncode

    assert run(redis_server) == 0
    assert run("redis://127.0.0.1:9/0") == 1
