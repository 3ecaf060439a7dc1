"""The whole platform as real processes, driven only through the REST API.

Redis, the durable store, the Rules and Evaluator services, two rollout workers and the gateway run as
subprocesses on free ports (the session's shared platform, ``shared_platform.py``).  A rollout job is
submitted with ``POST /v1/rollouts`` and watched with ``GET``; one worker is SIGKILLed (main process and
pool) in the middle of the job, which must still finish with the same numbers as an uninterrupted
:func:`pulvezar.rollouts.chunks.rollout_chunked` run here.  A second job is cancelled with ``DELETE`` and
must stop.  The workers use a small untrained net, chunks of 72 trials and 60 ms per evaluator call (a
chunk truncated at 8 half-moves takes half a second or more), so that there is a middle of a chunk to kill
a worker in; each writes its heartbeat file (the container health check), which stops when it is killed.
"""

from __future__ import annotations

import importlib.util
import json
import signal
import socket
import time
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import pytest

pytest.importorskip("celery")
pytest.importorskip("redis")

from pulvezar import Position
from pulvezar.eval.evaluator import NetEvaluator
from pulvezar.rollouts.chunks import rollout_chunked
from services.rollout.celery_app import HEARTBEAT_INTERVAL_S

ROOT = Path(__file__).resolve().parents[2]
START = "4HPwATDgc/ABMA"
KEY = "e2e-key"  # the shared platform's key of the e2e modules

from procutil import wait_until  # noqa: E402
from rollout_workers import Worker  # noqa: E402
from shared_platform import CHUNK  # noqa: E402

pytestmark = [pytest.mark.slow]


def load_healthcheck() -> Any:
    spec = importlib.util.spec_from_file_location("pulvezar_healthcheck", ROOT / "docker" / "healthcheck.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def platform(shared_platform: Any) -> Any:
    """The session's platform (``shared_platform.py``) with two live workers and empty queues."""
    shared_platform.ready(2)
    return shared_platform


def rollout_here(model: Path, trials: int, **options: Any) -> Any:
    """The uninterrupted run in this process, with the workers' torch thread count (a float32 matmul's
    last bit depends on it)."""
    import torch

    local = NetEvaluator.load(model, device="cpu")
    before = torch.get_num_threads()
    torch.set_num_threads(1)  # PULVEZAR_ROLLOUT_TORCH_THREADS
    try:
        return rollout_chunked(
            Position.from_position_id(START), trials, chunk_size=CHUNK, evaluator=local, **options
        )
    finally:
        torch.set_num_threads(before)


def test_worker_killed_mid_job_through_the_api(platform: Any) -> None:
    opts = {"seed": 17, "truncate": 8}  # 8 evaluator calls of 60 ms or more per chunk
    trials = 4 * CHUNK
    with httpx.Client(base_url=platform.base, headers={"X-API-Key": KEY}, timeout=30) as c:
        assert c.get("/readyz").json()["jobs"] == "configured"
        r = c.post("/v1/rollouts", json={"position": START, "trials": trials, **opts})
        assert r.status_code == 202, r.text
        href = r.headers["Location"]
        job_id = r.json()["id"]
        assert r.json()["trials_total"] == trials

        # the victim: the first worker seen starting a chunk of this job
        workers = list(platform.workers.running)

        def first_start() -> tuple[Worker, dict[str, Any]] | None:
            for w in workers:
                for e in list(w.logs):
                    if e.get("msg") == "chunk started" and e.get("job") == job_id:
                        return w, e
            return None

        victim, lost = wait_until(first_start, 30, "a chunk of the job to start")
        survivor = next(w for w in workers if w is not victim)
        time.sleep(0.2)  # in the middle of its chunk (half a second at least)
        before_kill = c.get(href).json()
        assert before_kill["state"] in ("queued", "running") and before_kill["trials_done"] < trials
        victim.kill()
        lost_key = f"job:{job_id}:chunk:{lost['chunk']}"
        assert not platform.store.redis.exists(lost_key), "the chunk finished before the kill"
        killed_at = time.time()
        beat_at_kill = victim.heartbeat.stat().st_mtime

        seen = [before_kill]
        deadline = time.monotonic() + 60
        while True:
            s = c.get(href).json()
            seen.append(s)
            assert s["state"] != "failed", s
            if s["state"] == "done":
                break
            assert time.monotonic() < deadline, f"job not done within 60 s: {s}"
            time.sleep(0.1)

    progress = [x["progress"] for x in seen]
    assert progress == sorted(progress) and progress[-1] == 1
    assert any(0 < p < 1 for p in progress), "no partial progress was seen"
    assert s["trials_done"] == trials and s["chunks_done"] == s["chunks_total"] == 4
    assert victim.proc.returncode == -signal.SIGKILL

    want = rollout_here(platform.model, trials, **opts)
    # the REST result (rounded to 9 digits by the store) and the stored values, bit for bit
    got = s["results"][0]
    assert got["trials"] == trials
    assert got["equity"] == round(want.equity, 9)
    assert got["probabilities"] == [round(float(p), 9) for p in want.probabilities]
    stored = platform.store.rollout_results(job_id)[0][0]
    np.testing.assert_array_equal(stored.trials_run, np.arange(trials))
    np.testing.assert_array_equal(stored.values, want.values)
    # the chunk that was running in the killed worker was computed again, by the other one
    record = json.loads(platform.store.redis.get(lost_key))
    assert record["worker"] != f"{socket.gethostname()}:{lost['pid']}"

    # health: the killed worker's heartbeat stopped, the survivor's goes on (docker/healthcheck.py)
    wait_until(lambda: time.time() - killed_at > HEARTBEAT_INTERVAL_S + 1, 10, "a missed heartbeat")
    assert victim.heartbeat.stat().st_mtime == beat_at_kill
    assert time.time() - survivor.heartbeat.stat().st_mtime < HEARTBEAT_INTERVAL_S + 5
    healthcheck = load_healthcheck()
    assert healthcheck.heartbeat_ok(survivor.heartbeat, HEARTBEAT_INTERVAL_S + 5)
    assert not healthcheck.heartbeat_ok(victim.heartbeat, HEARTBEAT_INTERVAL_S + 0.5)


def test_cancelled_job_stops(platform: Any) -> None:
    chunks = 20
    with httpx.Client(base_url=platform.base, headers={"X-API-Key": KEY}, timeout=30) as c:
        r = c.post(
            "/v1/rollouts",
            json={"position": START, "trials": chunks * CHUNK, "truncate": 4, "priority": "batch"},
        )
        assert r.status_code == 202, r.text
        href = r.headers["Location"]
        wait_until(lambda: c.get(href).json()["chunks_done"] >= 1, 40, "a first chunk", every=0.1)
        r = c.delete(href)
        assert r.status_code == 200 and r.json()["state"] == "cancelled", r.text
        assert c.get(href).json()["state"] == "cancelled"  # a second DELETE would remove it
        wait_until(platform.queues_empty, 30, "the remaining chunks to be skipped", every=0.1)
        time.sleep(1.5)  # a chunk running at cancel time stops at its next evaluator call
        done = c.get(href).json()["chunks_done"]
        assert done < chunks
        time.sleep(1.0)
        final = c.get(href).json()
        assert final["state"] == "cancelled" and final["chunks_done"] == done, final
        assert c.post(f"{href}/extend", json={"trials": CHUNK}).status_code == 409
