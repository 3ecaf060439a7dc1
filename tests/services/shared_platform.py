"""One platform for the tests that drive the whole system: Redis, the durable store, two rollout workers,
the Rules and Evaluator services and the gateway, started once per test session (``shared_platform`` in
``conftest.py``) instead of once per module.

Used by ``test_durable_store.py``, ``test_e2e_platform.py``, ``test_e2e_analyses.py`` and
``test_rollout_jobs.py``.  The durable store is PostgreSQL when its binaries are installed (the drills of
``test_durable_store.py`` stop and start it), SQLite in the run directory otherwise.  Redis is a
``redis-server`` on a fixed port that a test may kill and start again empty.  The workers use a small
untrained net, chunks of 72 trials, 60 ms per evaluator call (a chunk truncated at a few half-moves takes
half a second or more: there is a middle of a chunk to kill a worker in) and a 5 s visibility timeout;
each writes its heartbeat file and serves /metrics.

Tests kill and restart parts of it; whatever a test breaks it leaves running again (Redis and PostgreSQL
are restarted by the drill that stops them, the gateway a drill kills is its own), and
:meth:`SharedPlatform.ready` gives the next test as many live workers as it asks for and empty queues.
Each module has its own API keys, so its job listings hold only its own jobs.
"""

from __future__ import annotations

import json
import signal
import subprocess
from pathlib import Path
from typing import Any

import httpx
import redis
from procutil import free_port, wait_until
from rollout_workers import Workers, idle

from services.jobs.kinds.batch import BatchRollouts
from services.jobs.kinds.rollout import Rollouts
from services.jobs.rollout_report import Chunk
from services.jobs.settings import RolloutSettings
from services.rollout.celery_app import make_app

CHUNK = 72
# a lost chunk comes back through its lease in the fair scheduler (LEASE_S); Celery's own redelivery after
# its visibility timeout is the backstop, longer than any test's wait, so tests see the scheduler at work
VISIBILITY_S = 60.0
LEASE_S = 3.0
TICK_S = 0.25
EVAL_DELAY_MS = 60
# every module's keys: {key: owner name}
API_KEYS = {
    "e2e-key": "e2e",
    "store-key-1": "store-key-1",
    "store-key-2": "store-key-2",
    "kinds-key": "kinds",
    "owners-a": "owners-a",  # test_job_owners.py: two keys, each with its own jobs
    "owners-b": "owners-b",
    "costs-key": "costs",  # test_job_costs.py
}


# a key that may see the platform's own jobs (test_durable_store.py)
OPERATOR_KEY = "operator-key"
# a key with small limits on unfinished work and a fair share of 3 (test_fair_shares.py)
LIMITED_KEY = "limited-key"
LIMITED = {"rate_per_s": 1000, "burst": 1000, "max_running_jobs": 2, "max_queued_trials": 400, "share": 3}


class RedisProcess:
    """A redis-server on a fixed port that a test may kill and start again: empty, or, with ``folder``,
    from the append-only file it keeps there (every write synced, as a careful deployment keeps it)."""

    def __init__(self, binary: str, folder: Path | None = None) -> None:
        self.binary = binary
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc: subprocess.Popen[bytes] | None = None
        self.persist = ["--appendonly", "no"]
        if folder is not None:
            self.persist = ["--dir", str(folder), "--appendonly", "yes", "--appendfsync", "always"]
        self.start()

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", *self.persist],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        client = redis.Redis.from_url(self.url)

        def up() -> bool:
            try:
                return bool(client.ping())
            except redis.exceptions.ConnectionError:
                assert self.proc is not None and self.proc.poll() is None, "redis-server exited"
                return False

        wait_until(up, 10, "redis-server")

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)


def small_model(path: Path, seed: int = 7) -> Path:
    """The ``model_file`` fixture's net (16 and 8 hidden units, torch seed 7), written to ``path``."""
    import torch

    from pulvezar.eval.evaluator import NetEvaluator
    from pulvezar.eval.nets import ValueNet

    torch.manual_seed(seed)
    NetEvaluator(ValueNet(16), ValueNet(8), device="cpu").save(path, run={"purpose": "service tests"})
    return path


class SharedPlatform:
    """The running platform; :meth:`close` stops it."""

    def __init__(self, tmp: Path, redis_binary: str, start_service: Any, service_process: Any) -> None:
        from postgres import Postgres, bindir

        from services.store import db

        self.tmp = tmp
        self.model = small_model(tmp / "small.pt")
        self.hold = tmp / "hold"  # while it exists, the workers' evaluator calls wait (kill drills)
        self.pg: Any = None
        self.redis: RedisProcess | None = None
        self.workers: Workers | None = None
        self.started: list[Any] = []
        try:
            if bindir() is not None:
                self.pg = Postgres()
                self.database = self.pg.url
            else:
                self.database = f"sqlite:///{tmp / 'pulvezar.db'}"  # as `make run` has it
            db.upgrade(self.database)
            self.redis = RedisProcess(redis_binary)
            self.redis_url = self.redis.url
            keys: dict[str, dict[str, Any]] = {
                k: {"name": name, "rate_per_s": 1000, "burst": 1000} for k, name in API_KEYS.items()
            }
            keys[LIMITED_KEY] = {"name": "limited", **LIMITED}
            keys[OPERATOR_KEY] = {"name": "operator", "rate_per_s": 1000, "burst": 1000, "operator": True}
            self.env = {
                "PULVEZAR_DATABASE_URL": self.database,
                "PULVEZAR_ROLLOUT_REDIS_URL": self.redis_url,
                "PULVEZAR_ROLLOUT_MODEL_PATH": str(self.model),
                "PULVEZAR_ROLLOUT_DEVICE": "cpu",
                "PULVEZAR_ROLLOUT_CHUNK_SIZE": str(CHUNK),
                "PULVEZAR_ROLLOUT_EVAL_DELAY_MS": str(EVAL_DELAY_MS),
                "PULVEZAR_ROLLOUT_EVAL_HOLD_PATH": str(self.hold),
                "PULVEZAR_ROLLOUT_VISIBILITY_TIMEOUT_S": str(VISIBILITY_S),
                "PULVEZAR_ROLLOUT_RESTORE_INTERVAL_S": "0.5",
                "PULVEZAR_ROLLOUT_LEASE_S": str(LEASE_S),
                "PULVEZAR_ROLLOUT_TICK_S": str(TICK_S),
                "PULVEZAR_ROLLOUT_WORKER_TTL_S": "3",
                "PULVEZAR_ROLLOUT_TORCH_THREADS": "1",
                "PULVEZAR_ROLLOUT_METRICS_DIR": str(tmp / "metrics"),
                "PULVEZAR_GATEWAY_REDIS_URL": self.redis_url,
                "PULVEZAR_GATEWAY_API_KEYS": json.dumps(keys),
            }
            # the workers start while the gRPC services do (the machine is small; start-up is torch imports)
            self.workers = Workers(self.env, heartbeats=tmp)
            starting = self.workers.launch(2)
            self.rules = start_service("services.rules")
            self.started.append(self.rules)
            self.evaluator = start_service(
                "services.evaluator", "--device", "cpu", "--model-path", str(self.model)
            )
            self.started.append(self.evaluator)
            self.gateway = self.start_gateway(service_process)
            self.started.append(self.gateway)
            self.base = f"http://127.0.0.1:{self.gateway.port}"
            gateway = self.gateway

            def ready() -> bool:
                assert gateway.proc.poll() is None, f"gateway exited; logs: {gateway.logs}"
                try:
                    return httpx.get(f"{self.base}/readyz", timeout=2).status_code == 200
                except httpx.TransportError:
                    return False

            wait_until(ready, 30, "the gateway's /readyz", every=0.1)
            self.workers.join(starting)
            self.store = self.durable_store()
        except BaseException:
            self.close()
            raise

    def start_gateway(self, service_process: Any) -> Any:
        """A gateway on the platform's Rules and Evaluator services (one more, for a test that kills it)."""
        return service_process(
            "services.gateway",
            "--rules",
            self.rules.address,
            "--evaluator",
            self.evaluator.address,
            env=self.env,
        )

    def durable_store(self) -> Rollouts:
        """A Rollouts on the platform's Redis, broker and durable store (as the gateway has it)."""
        from services.store.jobs import JobRecords

        settings = RolloutSettings(
            redis_url=self.redis_url, chunk_size=CHUNK, visibility_timeout_s=VISIBILITY_S, lease_s=LEASE_S
        )
        return Rollouts(
            redis.Redis.from_url(self.redis_url, decode_responses=True),
            app=make_app(settings),
            settings=settings,
            records=JobRecords(self.database),
        )

    def queues_empty(self) -> bool:
        """Nothing in the Celery queues, nothing pending or sent in the fair scheduler."""
        return idle(self.store.redis)

    def ready(self, workers: int = 2) -> Workers:
        """At least ``workers`` live workers and empty queues (what earlier tests queued has run or been
        skipped); the pool."""
        assert self.workers is not None
        assert self.gateway.proc.poll() is None, f"the gateway exited; logs: {self.gateway.logs[-20:]}"
        self.workers.ensure(workers)
        wait_until(self.queues_empty, 60, "empty queues before the test", every=0.1)
        return self.workers

    def close(self) -> None:
        """Stop everything (again: nothing more)."""
        workers, started, rds, pg = self.workers, self.started, self.redis, self.pg
        self.workers, self.started, self.redis, self.pg = None, [], None, None
        try:
            for svc in started:  # all at once: the services' shutdowns overlap the workers'
                svc.signal_stop()
            if workers is not None:
                workers.stop_all()
            for svc in reversed(started):
                svc.terminate()
        finally:
            if rds is not None:
                rds.kill()
            if pg is not None:
                pg.close()


def batches(store: Rollouts) -> BatchRollouts:
    """The batch rollout kind's store on ``store``'s Redis, broker, settings and durable store."""
    return BatchRollouts(store.redis, app=store.app, settings=store.settings, records=store.records)


def chunks_of(store: Rollouts, job_id: str) -> list[Chunk]:
    """A rollout job's chunks, in order (its spec's chunk list)."""
    return [Chunk.of(n, c) for n, c in enumerate(store.spec(job_id)["chunks"])]
