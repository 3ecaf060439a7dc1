"""``make run``: deploy/local/run.py brings the platform up on ports the test chooses and stops cleanly."""

from __future__ import annotations

import os
import queue
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RUN = ROOT / "deploy" / "local" / "run.py"

grpc = pytest.importorskip("grpc")
health_pb2 = pytest.importorskip("grpc_health.v1.health_pb2")
health_pb2_grpc = pytest.importorskip("grpc_health.v1.health_pb2_grpc")
psutil = pytest.importorskip("psutil")


def free_ports(n: int) -> list[int]:
    socks = [socket.socket() for _ in range(n)]
    try:
        for s in socks:
            s.bind(("127.0.0.1", 0))
        return [int(s.getsockname()[1]) for s in socks]
    finally:
        for s in socks:
            s.close()


def serving(address: str) -> bool:
    with grpc.insecure_channel(address) as channel:
        reply = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=5)
    return bool(reply.status == health_pb2.HealthCheckResponse.SERVING)


@pytest.mark.slow
def test_make_run_starts_everything_and_stops_cleanly(tmp_path: Path) -> None:
    redis_port, rules_port, evaluator_port, gateway_port = free_ports(4)
    expected = {"redis", "rules", "evaluator"}
    if (ROOT / "services" / "rollout" / "celery_app.py").exists():
        expected.add("rollout")
    gateway = ROOT / "services" / "gateway"
    if (gateway / "__main__.py").exists() or (gateway / "app.py").exists():
        expected.add("gateway")

    cmd = [sys.executable, str(RUN), "--run-dir", str(tmp_path)]
    cmd += ["--redis-port", str(redis_port), "--rules-port", str(rules_port)]
    cmd += ["--evaluator-port", str(evaluator_port), "--gateway-port", str(gateway_port), "--device", "cpu"]
    proc = subprocess.Popen(
        cmd,
        cwd=ROOT,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    lines: queue.Queue[str | None] = queue.Queue()
    output: list[str] = []

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            output.append(line)
            lines.put(line)
        lines.put(None)

    threading.Thread(target=read, daemon=True).start()
    children: list[psutil.Process] = []
    try:
        up: dict[str, str] = {}
        end = time.monotonic() + 240
        while True:
            try:
                line = lines.get(timeout=max(0.1, end - time.monotonic()))
            except queue.Empty:
                pytest.fail(f"not up within 240 s:\n{''.join(output)}")
            if line is None:
                pytest.fail(f"run.py exited with {proc.wait()} before it was up:\n{''.join(output)}")
            if line.startswith("pulvezar is up"):
                break
            name, _, rest = line.partition(" ")
            if name in expected:
                up[name] = rest.strip()
        assert set(up) == expected, output

        # Every service listens where it was told to and says so.
        assert up["redis"] == f"redis://127.0.0.1:{redis_port}/0"
        assert up["rules"].startswith(f"grpc://127.0.0.1:{rules_port}")
        assert up["evaluator"].startswith(f"grpc://127.0.0.1:{evaluator_port}")
        assert serving(f"127.0.0.1:{rules_port}")
        assert serving(f"127.0.0.1:{evaluator_port}")
        with socket.create_connection(("127.0.0.1", redis_port), timeout=5) as s:
            s.sendall(b"PING\r\n")
            assert s.recv(16).startswith(b"+PONG")
        if "gateway" in expected:
            assert (
                up["gateway"] == f"http://localhost:{gateway_port}  API key local-dev-key (header X-API-Key)"
            )
            with urllib.request.urlopen(f"http://127.0.0.1:{gateway_port}/readyz", timeout=5) as r:
                assert r.status == 200

        children = psutil.Process(proc.pid).children(recursive=True)
        assert len(children) >= len(expected)

        proc.send_signal(signal.SIGINT)
        try:
            code = proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            pytest.fail(f"did not stop within 20 s of SIGINT:\n{''.join(output)}")
        assert code == 0, "".join(output)
        _gone, alive = psutil.wait_procs(children, timeout=2)
        assert not alive, f"stray processes: {alive}"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for child in children:
            if child.is_running():
                child.kill()
