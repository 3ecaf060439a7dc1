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
        expected |= {"rollout", "background"}
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


# ---- a newcomer's first minutes: no waiting behind background work, Ctrl-C loses nothing ----------------


class Platform:
    """``run.py`` on the given ports and run directory; :meth:`up` waits for "pulvezar is up"."""

    def __init__(self, run_dir: Path, ports: list[int], env: dict[str, str] | None = None) -> None:
        redis_port, rules_port, evaluator_port, gateway_port = ports
        cmd = [sys.executable, str(RUN), "--run-dir", str(run_dir), "--device", "cpu"]
        cmd += ["--redis-port", str(redis_port), "--rules-port", str(rules_port)]
        cmd += ["--evaluator-port", str(evaluator_port), "--gateway-port", str(gateway_port)]
        self.url = f"http://127.0.0.1:{gateway_port}"
        self.proc = subprocess.Popen(
            cmd,
            cwd=ROOT,
            env={**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})},
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        self.output: list[str] = []
        self.is_up = threading.Event()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.output.append(line)
            if line.startswith("pulvezar is up"):
                self.is_up.set()
        self.is_up.set()

    def up(self, timeout: float = 240) -> Platform:
        if not self.is_up.wait(timeout) or self.proc.poll() is not None:
            pytest.fail(f"not up within {timeout} s:\n{''.join(self.output)}")
        return self

    def call(self, method: str, path: str, body: object = None) -> dict[str, object]:
        import json

        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.url + path, data=data, method=method)
        req.add_header("X-API-Key", "local-dev-key")
        req.add_header("content-type", "application/json")
        with urllib.request.urlopen(req, timeout=30) as r:
            return dict(json.loads(r.read()))

    def ctrl_c(self, timeout: float = 40) -> int:
        self.proc.send_signal(signal.SIGINT)
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            pytest.fail(f"did not stop within {timeout} s of SIGINT:\n{''.join(self.output)}")

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def wait_done(platform: Platform, href: str, timeout: float) -> dict[str, object]:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        status = platform.call("GET", href)
        if status["state"] in ("done", "failed", "cancelled"):
            return status
        time.sleep(0.25)
    pytest.fail(f"{href} not done within {timeout} s: {status}")


@pytest.mark.slow
def test_a_rollout_right_after_start_does_not_wait_and_ctrl_c_loses_nothing(tmp_path: Path) -> None:
    """Issue 14's newcomer path: a 144-trial rollout posted as soon as ``make run`` is up finishes within
    60 s although the daily puzzles start at the same time (they run on the background worker); Ctrl-C in
    the middle of a job stops everything with exit code 0, and the next ``make run`` on the same run
    directory finishes that job with the library's numbers.  Issue 15: the finished jobs of the first
    run are listed by the second (the durable store, SQLite in the run directory)."""
    from pulvezar import Position
    from pulvezar.eval.evaluator import default_evaluator
    from pulvezar.rollouts.chunks import rollout_chunked

    ports = free_ports(4)
    first = Platform(tmp_path, ports).up()
    try:
        job = first.call("POST", "/v1/rollouts", {"position": "sGfwATDgc/ABMA", "trials": 144, "seed": 3})
        first_href = str(job["href"])
        status = wait_done(first, first_href, 60)
        assert status["state"] == "done", status
        first_results = status["results"]
        logs = (tmp_path / "logs" / "background.log").read_text()
        assert "daily puzzles requested at start" in logs  # the background work did start meanwhile

        # a longer job, stopped in its middle
        body = {"position": "4HPwATDgc/ABMA", "trials": 288, "seed": 9}
        job = first.call("POST", "/v1/rollouts", body)
        href = str(job["href"])
        end = time.monotonic() + 120
        while first.call("GET", href).get("trials_done", 0) == 0:  # type: ignore[operator]
            assert time.monotonic() < end, first.call("GET", href)
            time.sleep(0.25)
        assert first.call("GET", href)["state"] != "done"
        assert first.ctrl_c() == 0, "".join(first.output)
    finally:
        first.kill()

    second = Platform(tmp_path, ports).up()
    try:
        status = wait_done(second, href, 240)
        listed = second.call("GET", "/v1/rollouts")["jobs"]
        assert isinstance(listed, list)
        assert [(j["href"], j["state"]) for j in listed] == [(href, "done"), (first_href, "done")]
        assert second.call("GET", first_href)["results"] == first_results
        assert second.ctrl_c() == 0, "".join(second.output)
    finally:
        second.kill()
    assert status["state"] == "done", status
    want = rollout_chunked(
        Position.from_position_id("4HPwATDgc/ABMA"), 288, chunk_size=72, seed=9, evaluator=default_evaluator()
    )
    results = status["results"]
    assert isinstance(results, list) and results[0]["trials"] == 288
    assert results[0]["equity"] == pytest.approx(want.equity, abs=1e-9)
