"""``make run``: deploy/local/run.py brings the platform up on ports the test chooses and stops cleanly.

One start (``first_run``) serves the first two tests: the first checks what is up and where, the second posts
jobs to it, stops it with Ctrl-C in the middle of one and starts it again on the same run directory (the
daily puzzles off at that start, the parse's cap at 120 s); the third analyses issue 45's 100-match stream
on that restarted platform (one start fewer in the suite; its own start when run alone).
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.bench_platform import free_ports

ROOT = Path(__file__).resolve().parents[2]
RUN = ROOT / "deploy" / "local" / "run.py"

grpc = pytest.importorskip("grpc")
health_pb2 = pytest.importorskip("grpc_health.v1.health_pb2")
health_pb2_grpc = pytest.importorskip("grpc_health.v1.health_pb2_grpc")
psutil = pytest.importorskip("psutil")


def serving(address: str) -> bool:
    with grpc.insecure_channel(address) as channel:
        reply = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=5)
    return bool(reply.status == health_pb2.HealthCheckResponse.SERVING)


# ---- a newcomer's first minutes: no waiting behind background work, Ctrl-C loses nothing ----------------


class Platform:
    """``run.py`` on the given ports and run directory; :meth:`up` waits for "pulvezar is up"."""

    def __init__(self, run_dir: Path, ports: list[int], env: dict[str, str] | None = None) -> None:
        redis_port, rules_port, evaluator_port, gateway_port = ports
        cmd = [sys.executable, str(RUN), "--run-dir", str(run_dir), "--device", "cpu", "--any-ports"]
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
        """SIGINT, as Ctrl-C sends it; the exit code.  Every process it started must be gone."""
        children = psutil.Process(self.proc.pid).children(recursive=True)
        self.proc.send_signal(signal.SIGINT)
        try:
            code = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            pytest.fail(f"did not stop within {timeout} s of SIGINT:\n{''.join(self.output)}")
        _gone, alive = psutil.wait_procs(children, timeout=2)
        for child in alive:
            child.kill()
        assert not alive, f"stray processes: {alive}"
        return code

    def kill(self) -> None:
        if self.proc.poll() is None:
            for child in psutil.Process(self.proc.pid).children(recursive=True):
                child.kill()
            self.proc.kill()
            self.proc.wait()


EXPECTED = {"redis", "rules", "evaluator"}
if (ROOT / "services" / "rollout" / "celery_app.py").exists():
    EXPECTED |= {"rollout", "background"}
if (ROOT / "services" / "gateway" / "__main__.py").exists() or (
    ROOT / "services" / "gateway" / "app.py"
).exists():
    EXPECTED.add("gateway")


@pytest.fixture(scope="module")
def first_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Platform, Path, list[int]]]:
    """One ``make run`` start shared by the module's tests (a start-up takes most of a minute on a small
    machine): its run directory and ports.  The second test stops it in the middle of a job; when that
    test did not run, it is stopped here, and must stop as cleanly."""
    run_dir = tmp_path_factory.mktemp("run")
    ports = free_ports(4)
    platform = Platform(run_dir, ports).up()
    try:
        yield platform, run_dir, ports
        if platform.proc.poll() is None:
            assert platform.ctrl_c() == 0, "".join(platform.output)
    finally:
        platform.kill()


#: the restart's settings: the daily puzzles off, so the worker is the batch's; the parse's wall-clock cap
#: (20 s) raised, the 100-match upload is parsed on a loaded CI machine
RESTART_ENV = {"PULVEZAR_DAILY_ON_START": "0", "PULVEZAR_GATEWAY_PARSE_TIMEOUT_S": "120"}


@pytest.fixture(scope="module")
def restarts() -> Iterator[list[Platform]]:
    """The platforms started again during the module, kept up for the batch test; each is stopped here
    with Ctrl-C, which must exit 0 with no stray process."""
    kept: list[Platform] = []
    try:
        yield kept
        for p in kept:
            if p.proc.poll() is None:
                assert p.ctrl_c() == 0, "".join(p.output)
    finally:
        for p in kept:
            p.kill()


@pytest.fixture
def restarted(restarts: list[Platform], tmp_path_factory: pytest.TempPathFactory) -> Platform:
    """The rollout test's restarted platform when it is still up, else a start of its own."""
    if restarts and restarts[-1].proc.poll() is None:
        return restarts[-1]
    platform = Platform(tmp_path_factory.mktemp("run"), free_ports(4), env=RESTART_ENV)
    restarts.append(platform)
    return platform.up()


@pytest.mark.slow
def test_make_run_starts_everything(first_run: tuple[Platform, Path, list[int]]) -> None:
    """Every service is up, listens where it was told to and says so (stopping with Ctrl-C: exit code 0
    and no stray process, checked by the next test, in the middle of a job, or by ``first_run``)."""
    platform, _run_dir, (redis_port, rules_port, evaluator_port, gateway_port) = first_run
    output = "".join(platform.output)
    up: dict[str, str] = {}
    for line in platform.output:
        if line.startswith("pulvezar is up"):
            break
        name, _, rest = line.partition(" ")
        if name in EXPECTED:
            up[name] = rest.strip()
    assert set(up) == EXPECTED, output

    assert up["redis"] == f"redis://127.0.0.1:{redis_port}/0"
    assert up["rules"].startswith(f"grpc://127.0.0.1:{rules_port}")
    assert up["evaluator"].startswith(f"grpc://127.0.0.1:{evaluator_port}")
    assert serving(f"127.0.0.1:{rules_port}")
    assert serving(f"127.0.0.1:{evaluator_port}")
    with socket.create_connection(("127.0.0.1", redis_port), timeout=5) as s:
        s.sendall(b"PING\r\n")
        assert s.recv(16).startswith(b"+PONG")
    if "gateway" in EXPECTED:
        assert up["gateway"] == f"http://localhost:{gateway_port}  API key local-dev-key (header X-API-Key)"
        with urllib.request.urlopen(f"http://127.0.0.1:{gateway_port}/readyz", timeout=5) as r:
            assert r.status == 200
    assert len(psutil.Process(platform.proc.pid).children(recursive=True)) >= len(EXPECTED)


def wait_done(platform: Platform, href: str, timeout: float) -> dict[str, object]:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        status = platform.call("GET", href)
        if status["state"] in ("done", "failed", "cancelled"):
            return status
        time.sleep(0.25)
    pytest.fail(f"{href} not done within {timeout} s: {status}")


@pytest.mark.slow
def test_a_rollout_right_after_start_does_not_wait_and_ctrl_c_loses_nothing(
    first_run: tuple[Platform, Path, list[int]], restarts: list[Platform]
) -> None:
    """Issue 14's newcomer path: a 144-trial rollout posted as soon as ``make run`` is up finishes within
    60 s although the daily puzzles start at the same time (they run on the background worker); Ctrl-C in
    the middle of a job stops everything with exit code 0, and the next ``make run`` on the same run
    directory finishes that job with the library's numbers.  Issue 15: the finished jobs of the first
    run are listed by the second (the durable store, SQLite in the run directory)."""
    from pulvezar import Position
    from pulvezar.eval.evaluator import default_evaluator
    from pulvezar.rollouts.chunks import rollout_chunked

    first, tmp_path, ports = first_run
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
        assert first.ctrl_c() == 0, "".join(first.output)  # and no stray process
    finally:
        first.kill()

    second = Platform(tmp_path, ports, env=RESTART_ENV)
    restarts.append(second)  # stopped (Ctrl-C, exit code 0, no stray process) after the batch test
    second.up()
    # the library's numbers, made here while the platform's worker finishes the job (both take seconds)
    want = rollout_chunked(
        Position.from_position_id("4HPwATDgc/ABMA"),
        288,
        chunk_size=72,
        seed=9,
        evaluator=default_evaluator(),
    )
    status = wait_done(second, href, 240)
    listed = second.call("GET", "/v1/rollouts")["jobs"]
    assert isinstance(listed, list)
    assert [(j["href"], j["state"]) for j in listed] == [(href, "done"), (first_href, "done")]
    assert second.call("GET", first_href)["results"] == first_results
    assert status["state"] == "done", status
    results = status["results"]
    assert isinstance(results, list) and results[0]["trials"] == 288
    assert results[0]["equity"] == pytest.approx(want.equity, abs=1e-9)


@pytest.mark.slow
def test_a_stream_of_100_matches_on_the_restarted_platform(restarted: Platform) -> None:
    """Issue 45's batch of 100 matches at 0 ply through ``make run`` (tests/deploy/test_make_run_batch.py)."""
    pytest.importorskip("zstandard")
    pytest.importorskip("ogxm")
    from test_make_run_batch import check_stream_of_100

    check_stream_of_100(restarted)
