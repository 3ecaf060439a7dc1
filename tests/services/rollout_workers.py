"""Real Celery rollout workers for the tests: ``python -m services.rollout.worker`` as subprocesses.

Each worker runs one pool process in its own process group (so a test can SIGKILL the whole worker at
once), with its JSON log lines collected and its Prometheus metrics on a free port (or off).
"""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
import urllib.request
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Any

from procutil import ON_TIMEOUT, explain_timeout, log_entry, wait_until

ROOT = Path(__file__).resolve().parents[2]
#: the workers started and not yet stopped: a failing test prints their stacks (conftest.py)
LIVE: weakref.WeakSet[Worker] = weakref.WeakSet()


def module_worker_env(
    database: str, redis_url: str, model_file: Path, tmp: Any, **extra: str
) -> dict[str, str]:
    """A module's rollout workers' environment on CPU, one torch thread, a 0.25 s tick, with the metrics
    and heartbeat under ``tmp`` (a ``pytest.TempPathFactory``); ``extra`` adds or overrides variables."""
    return {
        "PULVEZAR_DATABASE_URL": database,
        "PULVEZAR_ROLLOUT_REDIS_URL": redis_url,
        "PULVEZAR_ROLLOUT_MODEL_PATH": str(model_file),
        "PULVEZAR_ROLLOUT_DEVICE": "cpu",
        "PULVEZAR_ROLLOUT_TORCH_THREADS": "1",
        "PULVEZAR_ROLLOUT_TICK_S": "0.25",
        "PULVEZAR_ROLLOUT_METRICS_DIR": str(tmp.mktemp("metrics")),
        "PULVEZAR_ROLLOUT_HEARTBEAT_FILE": str(tmp.mktemp("hb") / "worker.heartbeat"),
        **extra,
    }


class Worker:
    """One worker; ``env`` holds its ``PULVEZAR_ROLLOUT_*`` settings (``METRICS_DIR`` is required).

    ``metrics_port`` -1 turns /metrics off; ``heartbeat`` is its own heartbeat file (which :meth:`ready`
    then waits for too); ``log_file`` gets a copy of its stderr.
    """

    def __init__(
        self,
        env: dict[str, str],
        name: str,
        *,
        metrics_port: int = 0,
        heartbeat: Path | None = None,
        log_file: Path | None = None,
        queues: str | None = None,
    ) -> None:
        own = {"PULVEZAR_ROLLOUT_METRICS_DIR": str(Path(env["PULVEZAR_ROLLOUT_METRICS_DIR"]) / name)}
        if heartbeat is not None:
            own["PULVEZAR_ROLLOUT_HEARTBEAT_FILE"] = str(heartbeat)
        args = ["--metrics-port", str(metrics_port), "--concurrency", "1"]
        if queues is not None:
            args += ["--queues", queues]
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "services.rollout.worker", *args],
            cwd=ROOT,
            env={**os.environ, **env, **own},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        self.name = name
        self.heartbeat = heartbeat
        self.logs: list[dict[str, Any]] = []
        self._lines: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.metrics_port = -1
        threading.Thread(target=self._read, args=(log_file,), daemon=True).start()
        LIVE.add(self)

    def _read(self, log_file: Path | None) -> None:
        assert self.proc.stderr is not None
        log = log_file.open("w", buffering=1) if log_file else None  # line-buffered; closed at EOF
        try:
            for line in self.proc.stderr:
                if log:
                    log.write(line)
                entry = log_entry(line)
                self.logs.append(entry)
                self._lines.put(entry)
        finally:
            if log:
                log.close()
            self._lines.put(None)

    def wait_log(self, match: Callable[[dict[str, Any]], bool], timeout: float, what: str) -> dict[str, Any]:
        """The first log entry from now on for which ``match`` holds; fails after ``timeout`` seconds."""
        end = time.monotonic() + timeout
        while True:
            try:
                entry = self._lines.get(timeout=max(0.0, end - time.monotonic()))
            except queue.Empty:
                explain_timeout()
                raise AssertionError(
                    f"{self.name}: no {what} within {timeout}s; logs: {self.logs[-20:]}"
                ) from None
            if entry is None:
                raise AssertionError(f"{self.name} exited before {what}; logs: {self.logs[-20:]}")
            if match(entry):
                return entry

    def ready(self, timeout: float = 90) -> Worker:
        """Once it has logged 'worker ready' and, with a heartbeat file, written that file."""
        entry = self.wait_log(lambda e: e.get("msg") == "worker ready", timeout, "'worker ready'")
        self.metrics_port = int(entry["metrics_port"])
        if self.heartbeat is not None:
            beat = self.heartbeat

            def beating() -> bool:
                assert self.proc.poll() is None, f"{self.name} exited; logs: {self.logs[-20:]}"
                return beat.exists()

            wait_until(beating, timeout, f"{self.name}'s heartbeat", every=0.1)
        return self

    def metric(self, name: str, **labels: str) -> float:
        """The sum of the samples of ``name`` with these labels on the worker's /metrics."""
        with urllib.request.urlopen(f"http://127.0.0.1:{self.metrics_port}/metrics", timeout=5) as r:
            body = r.read().decode()
        total = 0.0
        for line in body.splitlines():
            named = line.startswith((name + "{", name + " "))
            if named and all(f'{k}="{v}"' in line for k, v in labels.items()):
                total += float(line.rsplit(" ", 1)[1])
        return total

    def tail(self, n: int = 25) -> list[dict[str, Any]]:
        """The last ``n`` log entries, shortened to what a failure message needs."""
        return [{k: e[k] for k in ("msg", "line", "chunk", "error") if k in e} for e in self.logs[-n:]]

    def stacks(self, wait: float = 2.0) -> list[str]:
        """Every thread's Python stack in each of the worker's processes (SIGUSR2 to its process group:
        :mod:`services.rollout.worker`), as the stderr lines they printed within ``wait`` seconds."""
        if self.proc.poll() is not None:
            return []
        start = len(self.logs)
        os.killpg(self.proc.pid, signal.SIGUSR2)
        time.sleep(wait)
        return [str(e.get("line", e.get("msg", ""))) for e in self.logs[start:]]

    def kill(self) -> None:
        """SIGKILL the whole worker (main process and pool) at once."""
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(10)

    def signal_stop(self) -> None:
        """SIGTERM to the whole worker (a warm shutdown), without waiting for it."""
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)

    def stop(self) -> None:
        self.signal_stop()
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:
            self.kill()


def live_stacks() -> str:
    """Every live worker's thread stacks (for a wait that timed out)."""
    out = []
    for worker in list(LIVE):
        logs = [json.dumps(e) for e in worker.logs[-40:]]
        lines = worker.stacks()
        if lines:
            out.append(f"---- worker {worker.name}: last logs\n" + "\n".join(logs))
            out.append(f"---- worker {worker.name}: stacks (SIGUSR2)\n" + "\n".join(lines))
    return "\n".join(out)


ON_TIMEOUT.append(live_stacks)


class Workers:
    """The running workers of a test module (or of the shared platform); tests kill and restart them.

    With ``heartbeats`` (a folder) each worker writes its heartbeat file there, ``<name>.heartbeat``.
    """

    def __init__(self, env: dict[str, str], heartbeats: Path | None = None) -> None:
        self.env = env
        self.heartbeats = heartbeats
        self.count = 0
        self.running: list[Worker] = []

    def launch(self, n: int = 1) -> list[Worker]:
        """``n`` more workers started (not waited for: :meth:`join` them)."""
        new = []
        for _ in range(n):
            self.count += 1
            name = f"worker{self.count}"
            beat = self.heartbeats / f"{name}.heartbeat" if self.heartbeats is not None else None
            new.append(Worker(self.env, name, heartbeat=beat))
        return new

    def join(self, new: list[Worker]) -> list[Worker]:
        """Launched workers, once ready, among the running ones."""
        try:
            for w in new:
                w.ready()
        except BaseException:
            for w in new:
                w.kill()
            raise
        self.running += new
        return new

    def start(self, n: int = 1) -> list[Worker]:
        """``n`` more workers, started together (their imports overlap) and ready."""
        return self.join(self.launch(n))

    def ensure(self, n: int) -> list[Worker]:
        """At least ``n`` live workers; the live ones."""
        self.running = [w for w in self.running if w.proc.poll() is None]
        if len(self.running) < n:
            self.start(n - len(self.running))
        return self.running

    def stop_all(self) -> None:
        """Every running worker stopped, all at once (their warm shutdowns overlap)."""
        for w in self.running:
            w.signal_stop()
        for w in self.running:
            w.stop()


#: what is pending somewhere: the Celery queues and the fair scheduler's turn lists
PENDING_LISTS = ("rollouts.interactive", "rollouts.batch", "sched:rr:interactive", "sched:rr:batch")


def idle(r: Any) -> bool:
    """Nothing in the Celery queues, nothing pending in the fair scheduler and no chunk out (leased)."""
    return all(r.llen(q) == 0 for q in PENDING_LISTS) and not r.zcard("sched:leases")


def scheduler_state(r: Any) -> dict[str, Any]:
    """The fair scheduler's keys with their contents, the Celery queues' lengths and Redis's clock: what a
    failure message needs when chunks stop flowing."""
    out: dict[str, Any] = {}
    try:
        for key in sorted(r.scan_iter("sched:*")):
            kind = r.type(key)
            kind = kind.decode() if isinstance(kind, bytes) else kind
            if kind == "hash":
                out[str(key)] = r.hgetall(key)
            elif kind == "list":
                out[str(key)] = r.lrange(key, 0, 20)
            elif kind == "zset":
                out[str(key)] = r.zrange(key, 0, 20, withscores=True)
            elif kind == "set":
                out[str(key)] = r.smembers(key)
        out["queues"] = {q: r.llen(q) for q in ("rollouts.interactive", "rollouts.batch")}
        out["unacked"] = r.hlen("unacked")
        out["time"] = r.time()
    except Exception as e:  # Redis away: say so
        out["error"] = repr(e)
    return out
