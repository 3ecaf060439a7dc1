"""The durable store is required (docs/store.md, "The store is required"): the gateway, a rollout worker and
celery beat started without ``PULVEZAR_DATABASE_URL`` refuse to start, and say which variable is missing.
Each runs as a real process; none needs Redis to refuse."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
VARIABLE = "PULVEZAR_DATABASE_URL"


def run_without_store(*cmd: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != VARIABLE}
    # a Redis nobody listens on: a process that went on would fail later, not refuse now
    env["PULVEZAR_ROLLOUT_REDIS_URL"] = env["PULVEZAR_GATEWAY_REDIS_URL"] = "redis://127.0.0.1:9/0"
    return subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)


def test_the_gateway_refuses_to_start_without_a_store() -> None:
    out = run_without_store(sys.executable, "-m", "services.gateway", "--host", "127.0.0.1", "--port", "0")
    assert out.returncode == 1
    assert f"the gateway needs the durable store: set {VARIABLE}" in out.stderr, out.stderr[-3000:]
    assert "Traceback" not in out.stderr  # one line before uvicorn starts, not its startup failure


def test_a_rollout_worker_refuses_to_start_without_a_store() -> None:
    out = run_without_store(sys.executable, "-m", "services.rollout.worker", "--pool", "solo")
    assert out.returncode == 1
    assert out.stderr.strip().endswith(
        f"a rollout worker needs the durable store: set {VARIABLE} "
        "(`make run` sets an SQLite file; see docs/store.md)"
    ), out.stderr
    assert "Traceback" not in out.stderr


@pytest.mark.parametrize("command", ["worker", "beat"])
def test_celery_itself_refuses_to_start_without_a_store(command: str, tmp_path: Path) -> None:
    """``celery -A services.rollout.celery_app worker|beat`` (compose's and k8s's scheduler runs beat so)."""
    celery = Path(sys.executable).with_name("celery")
    if not celery.exists():
        pytest.skip("no celery command (install the services extra: make setup)")
    extra = ["--schedule", str(tmp_path / "schedule")] if command == "beat" else ["--pool", "solo"]
    out = run_without_store(str(celery), "-A", "services.rollout.celery_app", command, *extra)
    assert out.returncode != 0
    who = "celery beat" if command == "beat" else "a rollout worker"
    assert f"{who} needs the durable store: set {VARIABLE}" in out.stderr, out.stderr[-3000:]
