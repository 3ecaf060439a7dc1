"""Rollout jobs on a real Redis and real Celery workers (subprocesses on free ports).

The workers (the session's shared platform, ``shared_platform.py``) use a small untrained net written to
a temporary model file, chunks of 72 trials and an artificial 60 ms per evaluator call, so that a chunk
takes about a second and a worker can be killed in the middle of one.  Every finished job is compared bit
for bit with :func:`pulvezar.rollouts.chunks.rollout_chunked` run here, in the test process.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("celery")
redis = pytest.importorskip("redis")

from pulvezar import Position  # noqa: E402
from pulvezar.eval.evaluator import NetEvaluator  # noqa: E402
from pulvezar.rollouts.chunks import plan_chunks, rollout_chunked, rollout_plays_chunked  # noqa: E402
from pulvezar.rollouts.stats import RolloutResult  # noqa: E402
from services.jobs.errors import InvalidJob, JobNotFound, JobStateError  # noqa: E402
from services.jobs.kinds.rollout import Rollouts  # noqa: E402
from services.jobs.rollout_items import normalise_item  # noqa: E402
from services.jobs.rollout_models import RolloutReport  # noqa: E402
from services.jobs.rollout_report import encode_values  # noqa: E402
from services.jobs.settings import BATCH_QUEUE, INTERACTIVE_QUEUE  # noqa: E402

START = "4HPwATDgc/ABMA"

from procutil import wait_until  # noqa: E402
from rollout_workers import Worker, Workers, idle  # noqa: E402
from shared_platform import CHUNK, batches, chunks_of  # noqa: E402

# ---- Redis and workers: the session's shared platform (shared_platform.py) ------------------


@pytest.fixture(scope="module")
def redis_url(shared_platform: Any) -> str:
    return str(shared_platform.redis_url)


@pytest.fixture(scope="module")
def settings(shared_platform: Any) -> dict[str, str]:
    """The workers' environment (and the store's settings)."""
    return dict(shared_platform.env)


@pytest.fixture(scope="module")
def workers(shared_platform: Any) -> Workers:
    return shared_platform.workers  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def store(shared_platform: Any) -> Rollouts:
    """Redis only: the library's Rollouts without a database behind it."""
    return shared_platform.store  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def model_file(shared_platform: Any) -> Path:
    """The workers' net."""
    return shared_platform.model  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def local(model_file: Path) -> NetEvaluator:
    """The workers' net, in this process."""
    return NetEvaluator.load(model_file, device="cpu")


@contextlib.contextmanager
def worker_threads() -> Iterator[None]:
    """Torch with the workers' thread count: a float32 matmul's last bit depends on it."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)  # PULVEZAR_ROLLOUT_TORCH_THREADS
    try:
        yield
    finally:
        torch.set_num_threads(before)


@pytest.fixture
def two_workers(shared_platform: Any) -> Workers:
    return shared_platform.ready(2)  # type: ignore[no-any-return]


def queues_empty(store: Rollouts) -> bool:
    return idle(store.redis)


def wait_state(store: Rollouts, job_id: str, states: tuple[str, ...], timeout: float = 60) -> dict[str, Any]:
    def reached() -> dict[str, Any] | None:
        s = store.status(job_id)
        assert s["state"] != "failed", s["error"]
        return s if s["state"] in states else None

    result: dict[str, Any] = wait_until(reached, timeout, f"job {job_id} to be {states}", every=0.1)
    return result


def chunked_here(local: NetEvaluator, trials: int, **options: Any) -> RolloutResult:
    """rollout_chunked of the start position in this process, with the workers' torch threads."""
    with worker_threads():
        return rollout_chunked(
            Position.from_position_id(START), trials, chunk_size=CHUNK, evaluator=local, **options
        )


def assert_equals_chunked(
    store: Rollouts,
    job_id: str,
    local: NetEvaluator,
    trials: int,
    *,
    want: RolloutResult | None = None,
    **options: Any,
) -> None:
    """The job's values equal rollout_chunked's exactly (the same trials, the same bits); ``want`` is
    :func:`chunked_here` made already (while the workers ran the job)."""
    got = store.rollout_results(job_id)[0][0]
    if want is None:
        want = chunked_here(local, trials, **options)
    np.testing.assert_array_equal(got.trials_run, np.arange(trials))
    np.testing.assert_array_equal(got.values, want.values)  # bit for bit, not approximately
    assert got.equity == want.equity


def started_on(worker: Worker, job_id: str, timeout: float = 30) -> dict[str, Any]:
    return worker.wait_log(
        lambda e: e.get("msg") == "chunk started" and e.get("job") == job_id, timeout, f"a chunk of {job_id}"
    )


# ---- the tests -------------------------------------------------------------------


def declared(report: dict[str, Any] | None) -> dict[str, Any]:
    """The store's report through its declared model: every key declared, none lost or added."""
    assert report is not None
    out: dict[str, Any] = RolloutReport.model_validate(report).model_dump(mode="json", exclude_unset=True)
    return out


def test_chunk_plan_is_a_fixed_grid() -> None:
    assert plan_chunks(144, 72) == [(0, 72), (72, 72)]
    assert plan_chunks(100, 72, first_trial=150) == [(150, 66), (216, 34)]
    with pytest.raises(ValueError):
        plan_chunks(100, 50)


def test_invalid_jobs_are_refused_with_the_field(store: Rollouts) -> None:
    cases: list[tuple[dict[str, Any], str]] = [
        ({"position": START}, "trials"),
        ({"trials": 72}, "position"),
        (
            {"position": START, "xgid": "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10", "trials": 72},
            "position",
        ),
        ({"position": "not an id", "trials": 72}, "position"),
        ({"position": START, "trials": 0}, "trials"),
        ({"position": START, "trials": True}, "trials"),
        ({"position": START, "trials": 72, "dice": [7, 1]}, "dice"),
        ({"position": START, "trials": 72, "plays": ["8/5 6/5"]}, "plays"),
        ({"position": START, "trials": 72, "dice": [3, 1], "plays": ["24/18"]}, "plays[0]"),
        ({"position": START, "trials": 72, "truncate": -1}, "truncate"),
        ({"position": START, "trials": 72, "seed": -3}, "seed"),
        ({"position": START, "trials": 72, "rules": "chouette"}, "rules.variant"),  # the codec's field
        ({"position": START, "trials": 72, "ply": 3}, "ply"),
        ({"position": START, "trials": 72, "ply": True}, "ply"),
        ({"position": START, "trials": 72, "luck": "cheap"}, "luck"),
        ({"position": START, "trials": 72, "cubeful": "yes"}, "cubeful"),
        ({"position": START, "trials": 72, "cubeful": True, "rules": "tavla"}, "cubeful"),
        ({"position": START, "trials": 72, "cube": {"value": 2}}, "cube"),
        ({"position": START, "trials": 72, "cubeful": True, "cube": {"value": 3}}, "cube.value"),
        ({"position": START, "trials": 72, "cubeful": True, "cube": {"owner": "me"}}, "cube.owner"),
        (
            {"position": START, "trials": 72, "cubeful": True, "cube": {"match_length": 5, "score": 5}},
            "cube.score",
        ),
        ({"position": START, "trials": 72, "cubeful": True, "cube": {"crawford": True}}, "cube.crawford"),
        ({"position": START, "trials": 72, "cubeful": True, "cube": {"size": 2}}, "cube.size"),
    ]
    for params, field in cases:
        with pytest.raises(InvalidJob) as e:
            store.submit(params)
        assert e.value.field == field, (params, e.value)
    with pytest.raises(InvalidJob, match="priority"):
        store.submit({**{"position": START, "trials": 72}, "priority": "urgent"})
    with pytest.raises(InvalidJob) as e:
        batches(store).submit(
            {
                "positions": [{"position": START}, {"position": START, "dice": "99"}],
                "defaults": {"trials": 72},
            }
        )
    assert e.value.field == "positions[1].dice"
    with pytest.raises(JobNotFound):
        store.status("nope")
    assert queues_empty(store)


def test_rollout_job_runs_with_progress_and_eta_and_equals_rollout_chunked(
    two_workers: Workers, store: Rollouts, local: NetEvaluator
) -> None:
    opts = {"seed": 11, "truncate": 4}
    job = store.submit({"position": START, "trials": 216, **opts})
    seen = []
    deadline = time.monotonic() + 60
    while True:
        s = store.status(job)
        seen.append(s)
        if s["state"] in ("done", "failed"):
            break
        assert time.monotonic() < deadline, "job did not finish"
        time.sleep(0.02)
    assert s["state"] == "done" and s["progress"] == 1.0 and s["trials_done"] == s["trials_total"] == 216
    assert s["chunks_total"] == 3 and s["eta_s"] == 0.0
    progress = [x["progress"] for x in seen]
    assert progress == sorted(progress)
    middle = [x for x in seen if 0 < x["progress"] < 1]
    assert middle, "no partial progress was seen"
    assert all(x["state"] == "running" and x["eta_s"] > 0 for x in middle)
    assert all(x["results"][0]["trials"] == x["trials_done"] for x in middle)
    assert all(isinstance(x["results"][0]["equity"], float) for x in middle)
    assert_equals_chunked(store, job, local, 216, **opts)
    result = store.result(job)
    assert result is not None and result["results"][0]["trials"] == 216
    assert result["results"][0]["equity"] == pytest.approx(store.rollout_results(job)[0][0].equity, abs=1e-8)
    assert sum(w.metric("pulvezar_rollout_chunks_total", outcome="done") for w in two_workers.running) >= 3
    assert any(w.metric("pulvezar_rollout_chunk_seconds_count") for w in two_workers.running)
    assert two_workers.running[0].metric("pulvezar_rollout_queue_depth", queue=BATCH_QUEUE) == 0


def test_deeper_and_cubeful_jobs_equal_the_library_chunk_by_chunk(
    two_workers: Workers, store: Rollouts, local: NetEvaluator
) -> None:
    """A 1-ply job (cut into runs of trials) and cubeful jobs (a match cube; candidate plays with every
    play valued in the luck) against the library on the grid, bit for bit."""
    from pulvezar.cubeful.janowski import Cube
    from pulvezar.rollouts import rollout
    from pulvezar.search.hint import searcher

    after_31 = "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10"
    cube = {"value": 2, "owner": "player", "match_length": 7, "score": 2, "opponent_score": 4}
    from services.jobs.rollout_items import trial_seconds

    ply_opts = {"seed": 12, "truncate": 2, "ply": 1, "variance_reduction": False}  # 21x less work
    cost = trial_seconds(ply_opts)
    quick = Rollouts(  # chunks of 24 of these trials: the grid chunk is cut into three runs
        store.redis,
        app=store.app,
        settings=store.settings.model_copy(update={"chunk_seconds": 24 * cost}),
        records=store.records,
    )
    deep = quick.submit({"position": START, "trials": CHUNK, **ply_opts})
    assert [(c.first, c.trials) for c in chunks_of(quick, deep)] == [(0, 24), (24, 24), (48, 24)]
    cubeful = batches(store).submit(
        {
            "positions": [
                {"position": START, "cube": cube},
                {"xgid": after_31, "plays": ["8/5 6/5", "24/23 13/10"], "luck": "full"},  # centred money
            ],
            "defaults": {"trials": 2 * CHUNK, "truncate": 2, "seed": 13, "cubeful": True},
            "priority": "interactive",
        }
    )
    with worker_threads():
        # chunk by chunk, each with an empty search cache (as a worker runs them)
        parts = []
        for first, n in plan_chunks(CHUNK, CHUNK):
            searcher(local).cache.clear()
            parts.append(
                rollout(
                    Position.from_position_id(START), trials=n, first_trial=first, evaluator=local, **ply_opts
                )
            )
        want_deep = RolloutResult.merge(parts)
        want_cube = rollout_chunked(
            Position.from_position_id(START),
            2 * CHUNK,
            chunk_size=CHUNK,
            evaluator=local,
            seed=13,
            truncate=2,
            cubeful=True,
            cube=Cube(2, "player", (5, 3)),
        )
        want_plays = rollout_plays_chunked(
            Position.from_xgid(after_31),
            (3, 1),
            [Position.from_position_id(p["position_id"]) for p in store.spec(cubeful)["items"][1]["plays"]],
            2 * CHUNK,
            chunk_size=CHUNK,
            evaluator=local,
            seed=13,
            truncate=2,
            cubeful=True,
            luck="full",
        )
    wait_state(store, cubeful, ("done",))
    got = store.rollout_results(cubeful)
    for g, w in zip([got[0][0], *got[1]], [want_cube, *want_plays], strict=True):
        assert g.cubeful is not None and w.cubeful is not None
        np.testing.assert_array_equal(g.values, w.values)
        np.testing.assert_array_equal(g.cubeful, w.cubeful)
    result = store.result(cubeful)
    assert result is not None and declared(result) == result
    first, second = result["results"]
    assert first["cubeful"] is True and first["cube"]["match_length"] == 7
    assert first["cubeful_equity"] == pytest.approx(want_cube.cubeful_equity, abs=1e-8)
    assert first["cubeful_se"] == pytest.approx(want_cube.cubeful_noise, abs=1e-8)
    cands = second["candidates"]
    assert [c["cubeful_equity"] for c in cands] == pytest.approx(
        [w.cubeful_equity for w in want_plays], abs=1e-8
    )
    assert sum(c["cubeful_difference"] == 0.0 for c in cands) == 1
    assert all("cubeful_difference_se" in c for c in cands)
    wait_state(store, deep, ("done",), timeout=90)
    got_deep = store.rollout_results(deep)[0][0]
    np.testing.assert_array_equal(got_deep.values, want_deep.values)
    assert declared(store.status(deep)) == store.status(deep)
    status = store.status(deep)["results"][0]
    assert status["ply"] == 1 and status["cubeful"] is False and "cubeful_equity" not in status


def test_candidates_cut_into_short_chunks_give_the_librarys_bits(
    two_workers: Workers, store: Rollouts, local: NetEvaluator
) -> None:
    """Candidate plays that would not fit a chunk's time together are cut by candidates, and a candidate
    too slow alone by runs of trials (here 24 trials of one candidate a chunk: chunk_seconds small); the
    job equals rollout_plays_chunked of all of them at once on the grid, its trials count once per run,
    and it can be extended."""
    from services.jobs.rollout_items import chunk_cut, trial_seconds

    after_31 = "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10"
    plays = ["8/5 6/5", "24/23 13/10", "13/9"]
    opts = {"seed": 14, "truncate": 3}
    per_trial = trial_seconds({"truncate": 3, "ply": 0})
    quick = Rollouts(
        store.redis,
        app=store.app,
        settings=store.settings.model_copy(update={"chunk_seconds": 24 * per_trial}),
        records=store.records,
    )
    job = quick.submit({"xgid": after_31, "plays": plays, "trials": 2 * CHUNK, **opts})
    chunks = chunks_of(quick, job)
    runs = [(first, 24) for first in range(0, 2 * CHUNK, 24)]
    assert [(c.first, c.trials, c.candidates) for c in chunks] == [
        (first, n, (k, k + 1)) for first, n in runs for k in range(3)
    ]
    item = quick.spec(job)["items"][0]
    assert chunk_cut(item, CHUNK, 3.0) == (CHUNK, None)  # the platform's default: all three in one chunk
    with worker_threads():
        want = rollout_plays_chunked(
            Position.from_xgid(after_31),
            (3, 1),
            [Position.from_position_id(p["position_id"]) for p in item["plays"]],
            3 * CHUNK,
            chunk_size=CHUNK,
            evaluator=local,
            **opts,
        )
    wait_state(quick, job, ("done",))
    s = quick.status(job)
    n = len(chunks)
    assert (
        s["trials_done"] == s["trials_total"] == 2 * CHUNK and s["chunks_total"] == n and s["progress"] == 1
    )
    records = [json.loads(quick.redis.get(f"job:{job}:chunk:{k}")) for k in range(n)]
    assert [r["candidates"] for r in records] == [[0, 1], [1, 2], [2, 3]] * len(runs)
    quick.extend(job, {"more_trials": CHUNK})  # the new range is cut the same way
    assert [(c.first, c.candidates) for c in chunks_of(quick, job)[n:]] == [
        (first, (k, k + 1)) for first in range(2 * CHUNK, 3 * CHUNK, 24) for k in range(3)
    ]
    wait_state(quick, job, ("done",))
    got = quick.rollout_results(job)[0]
    assert len(got) == 3
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g.values, w.values)
    assert [c["trials"] for c in quick.status(job)["results"][0]["candidates"]] == [3 * CHUNK] * 3


def test_batch_job_returns_results_per_position(
    two_workers: Workers, store: Rollouts, local: NetEvaluator
) -> None:
    after_31 = "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10"
    job = batches(store).submit(
        {
            "positions": [
                {"position": START, "seed": 5},
                {"xgid": after_31, "plays": ["8/5 6/5", "24/23 13/10"]},
            ],
            "defaults": {"trials": 72, "truncate": 2, "seed": 9},
        }
    )
    plays = store.spec(job)["items"][1]["plays"]
    with worker_threads():  # while the workers run the job
        want = rollout_chunked(
            Position.from_position_id(START), 72, chunk_size=CHUNK, evaluator=local, seed=5, truncate=2
        )
        want_plays = rollout_plays_chunked(
            Position.from_xgid(after_31),
            (3, 1),
            [Position.from_position_id(p["position_id"]) for p in plays],
            72,
            chunk_size=CHUNK,
            evaluator=local,
            seed=9,
            truncate=2,
        )
    wait_state(store, job, ("done",))
    result = store.result(job)
    assert result is not None and result["kind"] == "batch" and result["priority"] == "batch"
    assert declared(result) == result and declared(store.status(job)) == store.status(job)
    first, second = result["results"]
    assert first["position_id"] == START and first["trials"] == 72 and "candidates" not in first
    assert second["dice"] == [3, 1] and [c["play"] for c in second["candidates"]] == [
        "8/5 6/5",
        "24/23 13/10",
    ]
    assert sum(c["difference"] == 0.0 for c in second["candidates"]) == 1
    got = store.rollout_results(job)
    np.testing.assert_array_equal(got[0][0].values, want.values)
    for g, w in zip(got[1], want_plays, strict=True):
        np.testing.assert_array_equal(g.values, w.values)


def test_cancel_stops_the_job(two_workers: Workers, store: Rollouts) -> None:
    job = store.submit({**{"position": START, "trials": 20 * CHUNK, "truncate": 12}, "priority": "batch"})
    wait_until(lambda: store.status(job)["chunks_done"] >= 1, 30, "a first chunk")

    def starts() -> int:
        logs = [e for w in two_workers.running for e in list(w.logs)]
        return sum(e.get("msg") == "chunk started" and e.get("job") == job for e in logs)

    # cancelled just after a chunk started (it runs for 12 evaluator calls of 60 ms or more), not when
    # both workers are between chunks
    seen = starts()
    wait_until(lambda: starts() > seen, 30, "another chunk to start", every=0.01)
    assert store.cancel(job) is True
    assert store.cancel(job) is False  # already cancelled
    s = wait_state(store, job, ("cancelled",))
    wait_until(lambda: queues_empty(store), 30, "the remaining chunks to be skipped")

    def stopped() -> list[dict[str, Any]]:
        return [e for w in two_workers.running for e in w.logs if e.get("msg") == "chunk cancelled"]

    # a chunk running at cancel time stops at its next evaluator call (seconds on a loaded machine)
    wait_until(lambda: any(e.get("job") == job for e in stopped()), 30, "a chunk to stop in the middle")
    done = store.status(job)["chunks_done"]
    assert done < 20
    time.sleep(1.0)
    final = store.status(job)
    assert final["chunks_done"] == done and final["state"] == "cancelled" and final["eta_s"] is None
    assert store.result(job) is None
    with pytest.raises(JobStateError):
        store.extend(job, {"more_trials": 72})
    # the fair scheduler sends chunks only as workers free up and drops a cancelled job's unsent ones:
    # besides the finished chunks, only those out at cancel time (one per worker) were ever started
    assert starts() <= done + 2
    assert not store.scheduler.leases() and store.redis.llen(BATCH_QUEUE) == 0
    assert s["results"][0]["trials"] <= final["results"][0]["trials"]


def test_extend_continues_the_trial_numbers(
    two_workers: Workers, store: Rollouts, local: NetEvaluator
) -> None:
    opts = {"seed": 3, "truncate": 3}
    job = store.submit({"position": START, "trials": 144, **opts})
    wait_state(store, job, ("done",))
    before = store.rollout_results(job)[0][0]
    store.extend(job, {"more_trials": 2 * CHUNK})
    s = store.status(job)
    assert s["state"] in ("queued", "running") and s["trials_total"] == 288 and s["trials_done"] >= 144
    assert store.result(job) is None
    want = chunked_here(local, 288, **opts)  # while the workers run the new chunks
    wait_state(store, job, ("done",))
    after = store.rollout_results(job)[0][0]
    np.testing.assert_array_equal(after.values[:144], before.values)
    assert_equals_chunked(store, job, local, 288, want=want)  # = one uninterrupted run of 288 trials
    assert [(c.first, c.trials) for c in chunks_of(store, job)] == plan_chunks(288, CHUNK)


@contextlib.contextmanager
def held(hold: Path) -> Iterator[Callable[[int], None]]:
    """The workers' evaluator calls wait while the file ``hold`` exists (``PULVEZAR_ROLLOUT_EVAL_HOLD_PATH``);
    yields ``inside(pid)``, which returns once pool process ``pid`` waits inside a chunk's work (before
    its record can be written).  The hold is lifted on leaving; a killed process's marker is removed."""
    hold.touch()
    try:

        def inside(pid: int) -> None:
            marker = hold.with_name(f"{hold.name}.{pid}")
            wait_until(marker.exists, 60, f"pool process {pid} held inside a chunk", every=0.01)

        yield inside
    finally:
        hold.unlink(missing_ok=True)
        for marker in hold.parent.glob(f"{hold.name}.*"):
            marker.unlink(missing_ok=True)


def killed_inside_a_chunk(
    store: Rollouts, hold: Path, job_id: str, started: dict[str, Any], kill: Callable[[], None]
) -> None:
    """Holds the workers until the pool process that logged ``started`` waits inside a chunk of ``job_id``
    (its record not written: the job is not done), kills it (``kill``), then lets the others go on."""
    with held(hold) as inside:
        inside(int(started["pid"]))
        assert store.status(job_id)["chunks_done"] < 6
        kill()


def test_pool_process_killed_mid_chunk_is_redelivered(
    shared_platform: Any, two_workers: Workers, store: Rollouts, local: NetEvaluator
) -> None:
    opts = {"seed": 21, "truncate": 4}
    victim = two_workers.running[0]
    job = store.submit({"position": START, "trials": 6 * CHUNK, **opts})
    started = started_on(victim, job)
    pid = int(started["pid"])
    # the pool process is killed while it provably runs a chunk; the worker's main process lives on
    killed_inside_a_chunk(store, shared_platform.hold, job, started, lambda: os.kill(pid, signal.SIGKILL))
    want = chunked_here(local, 6 * CHUNK, **opts)  # while the job goes on
    wait_state(store, job, ("done",), timeout=60)
    assert_equals_chunked(store, job, local, 6 * CHUNK, want=want)
    assert victim.proc.poll() is None
    # a task was running in the lost process, so the main process reports it (read when logged)
    victim.wait_log(
        lambda e: "WorkerLostError" in json.dumps(e) or "SIGKILL" in json.dumps(e),
        60,
        "the lost pool process",
    )
    # the drill leaves the worker whole for the next test: its new pool process is up (Celery starts
    # another until one comes up in time, which takes a while on a loaded machine: its torch import)
    victim.wait_log(
        lambda e: str(e.get("msg")).startswith("evaluator chosen") and e.get("pid") != pid,
        120,
        "a new pool process",
    )


def test_worker_killed_mid_job_gives_the_same_numbers(
    shared_platform: Any, two_workers: Workers, store: Rollouts, local: NetEvaluator
) -> None:
    opts = {"seed": 22, "truncate": 4}
    victim, survivor = two_workers.running[:2]
    duplicates = survivor.metric("pulvezar_rollout_chunks_total", outcome="duplicate")
    job = store.submit({"position": START, "trials": 6 * CHUNK, **opts})
    started = started_on(victim, job)
    # main process and pool at once, while the pool process is held inside a chunk (so its record is not
    # written): the chunk's lease expires and the scheduler resends it
    killed_inside_a_chunk(store, shared_platform.hold, job, started, victim.kill)
    want = chunked_here(local, 6 * CHUNK, **opts)  # meanwhile
    s = wait_state(store, job, ("done",), timeout=60)
    assert s["chunks_done"] == 6
    assert_equals_chunked(store, job, local, 6 * CHUNK, want=want)
    wait_until(lambda: queues_empty(store), 10, "empty queues")
    # the lost chunk came back once, into its own queue only: no redelivery found a record
    assert survivor.metric("pulvezar_rollout_chunks_total", outcome="duplicate") == duplicates


def test_restarting_all_workers_mid_job_gives_the_same_numbers(
    two_workers: Workers, store: Rollouts, local: NetEvaluator
) -> None:
    opts = {"seed": 23, "truncate": 4}
    job = store.submit({"position": START, "trials": 6 * CHUNK, **opts})
    for w in two_workers.running:
        started_on(w, job)
    time.sleep(0.3)
    for w in two_workers.running:
        w.kill()
    s = store.status(job)
    assert s["state"] == "running" and s["chunks_done"] < 6
    starting = two_workers.launch(2)
    try:
        want = chunked_here(local, 6 * CHUNK, **opts)  # while the new workers start
    finally:
        two_workers.join(starting)
    wait_state(store, job, ("done",), timeout=60)
    assert_equals_chunked(store, job, local, 6 * CHUNK, want=want)


def test_interactive_chunks_run_before_queued_batch_chunks(two_workers: Workers, store: Rollouts) -> None:
    batch = batches(store).submit(
        {"positions": [{"position": START, "seed": 31}], "defaults": {"trials": 8 * CHUNK, "truncate": 4}}
    )
    for w in two_workers.running:
        started_on(w, batch)
    submitted = time.time()
    job = store.submit({"position": START, "trials": 2 * CHUNK, "truncate": 4, "seed": 32})
    wait_state(store, job, ("done",))
    b = store.status(batch)
    assert b["state"] == "running" and b["chunks_done"] <= 4
    store.cancel(batch)
    records = [json.loads(store.redis.get(f"job:{job}:chunk:{n}")) for n in range(2)]
    last_interactive_start = max(r["started"] for r in records)
    batch_records = [
        json.loads(v) for v in store.redis.mget([f"job:{batch}:chunk:{n}" for n in range(8)]) if v is not None
    ]
    # no batch chunk was taken from the queue after the interactive job arrived, until both of its
    # chunks had started (0.2 s of slack for a chunk taken just before the submission)
    late = [r for r in batch_records if submitted + 0.2 < r["started"] < last_interactive_start]
    assert not late
    wait_until(lambda: queues_empty(store), 30, "the cancelled batch to drain")


def test_the_gateways_parameters_are_accepted(two_workers: Workers, store: Rollouts) -> None:
    rules = {"variant": "international", "hit_and_stop": False, "must_bear_off": False}
    common = {"rules": rules, "trials": 36, "ply": 0, "seed": 1, "variance_reduction": True, "truncate": 2}
    assert normalise_item({"position": START, **common, "truncate": None})["truncate"] is None
    job = batches(store).submit(
        {"positions": [{"position": START, **common, "label": "opening"}, {"position": START, **common}]}
    )
    s = store.status(job)
    assert s["positions"] == 2 and s["results"][0]["label"] == "opening" and "label" not in s["results"][1]
    with pytest.raises(InvalidJob) as e:
        store.submit({"position": START, **common, "ply": 3})
    assert e.value.field == "ply"
    cube = {  # the gateway's CubeInput, dumped
        "value": 2,
        "owner": "player",
        "match_length": 7,
        "score": 2,
        "opponent_score": 4,
        "crawford": False,
        "jacoby": False,
        "beaver": False,
    }
    item = normalise_item({"position": START, **common, "ply": 2, "cubeful": True, "cube": cube})
    assert item["ply"] == 2 and item["cubeful"] is True and item["cube"] == cube
    assert normalise_item({"position": START, **common, "cubeful": False, "cube": None})["cube"] is None
    wait_state(store, job, ("done",))
    assert [r["trials"] for r in store.status(job)["results"]] == [36, 36]


@pytest.fixture(scope="module")
def evaluator_service(model_file: Path, start: Callable[..., Any]) -> Iterator[Any]:
    """An Evaluator service with the workers' model (on CPU), for the workers that are given one."""
    evaluator = start("services.evaluator", "--model-path", str(model_file), "--device", "cpu")
    yield evaluator
    evaluator.terminate()


@pytest.mark.parametrize("mode", ["service", "auto"])
def test_worker_evaluator_paths(
    mode: str,
    settings: dict[str, str],
    store: Rollouts,
    local: NetEvaluator,
    evaluator_service: Any,
    workers: Workers,
) -> None:
    """A worker given the Evaluator service: ``service`` sends every board there (packed); ``auto`` sees
    a CPU service with the worker's own model and evaluates in process.  The log and the metrics say
    which, and a job's numbers are the library's either way."""
    evaluator = evaluator_service
    packed_before = evaluator.metric("pulvezar_grpc_requests_total", method="EvaluatePacked", code="OK")
    info_before = evaluator.metric("pulvezar_grpc_requests_total", method="ModelInfo", code="OK")
    for w in workers.running:  # only the worker under test may take this job
        w.signal_stop()
    for w in workers.running:
        w.stop()
    env = {
        **settings,
        "PULVEZAR_ROLLOUT_EVALUATOR": f"grpc://{evaluator.address}",
        "PULVEZAR_ROLLOUT_EVALUATOR_MODE": mode,
    }
    remote = Workers(env)
    try:
        (worker,) = remote.start(1)
        chosen = wait_until(
            lambda: next((e for e in worker.logs if str(e.get("msg")).startswith("evaluator chosen")), None),
            60,
            "the worker's 'evaluator chosen' log line",
        )
        path = "service" if mode == "service" else "inprocess"
        assert chosen["path"] == path, chosen
        if mode == "auto":
            assert chosen["service_device"] == "cpu" and "nothing to gain" in chosen["reason"]
            assert chosen["model"] == local.info.sha256  # type: ignore[union-attr]
        assert worker.metric("pulvezar_rollout_evaluator_processes", path=path) == 1
        opts = {"seed": 41, "truncate": 3}
        job = store.submit({"position": START, "trials": 2 * CHUNK, **opts})
        want = chunked_here(local, 2 * CHUNK, **opts)  # while the worker runs the job
        wait_state(store, job, ("done",))
        got = store.rollout_results(job)[0][0]
        np.testing.assert_array_equal(got.trials_run, want.trials_run)
        np.testing.assert_array_equal(got.values, want.values)  # the C forward pass: batch-independent
        # this worker's calls (the service is the module's: the other mode's calls are counted too)
        packed = evaluator.metric("pulvezar_grpc_requests_total", method="EvaluatePacked", code="OK")
        assert (packed > packed_before) == (mode == "service")
        info = evaluator.metric("pulvezar_grpc_requests_total", method="ModelInfo", code="OK")
        assert info - info_before == (1 if mode == "auto" else 0)
    finally:
        remote.stop_all()


def test_chunk_task_is_write_once_and_fails_the_job_after_its_retries(
    store: Rollouts, redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The task (every kind's chunk task, ``[kind, job_id, n]``) run here, in this process (``apply``),
    against the test Redis, with no worker."""
    from services.rollout import kind_tasks, tasks

    monkeypatch.setattr(tasks, "_redis", redis.Redis.from_url(redis_url))
    job = store.submit({**{"position": START, "trials": 2 * CHUNK, "truncate": 1}, "priority": "batch"})
    for q in (INTERACTIVE_QUEUE, BATCH_QUEUE):  # nobody else may run them
        store.redis.delete(q)
    now = time.time()
    record = {"item": 0, "first": 0, "trials": CHUNK, "seconds": 0.5, "started": now - 0.5, "finished": now}
    fake = json.dumps({**record, **encode_values(np.full((1, CHUNK, 5), 0.25))})
    store.redis.set(f"job:{job}:chunk:0", fake)
    assert kind_tasks.run_kind_chunk.apply(args=["rollout", job, 0]).get() == "duplicate"
    assert store.redis.get(f"job:{job}:chunk:0") == fake  # untouched

    def broken() -> Any:
        raise RuntimeError("no evaluator today")

    monkeypatch.setattr(tasks, "evaluator", broken)
    assert kind_tasks.run_kind_chunk.apply(args=["rollout", job, 1]).get(propagate=False) == "failed"
    s = store.status(job)
    assert s["state"] == "failed" and "no evaluator today" in s["error"] and s["eta_s"] is None
    assert store.result(job) is None and store.cancel(job) is False
    assert kind_tasks.run_kind_chunk.apply(args=["rollout", "no-such-job", 0]).get() == "gone"


def test_items_stored_before_luck_existed_keep_the_full_luck() -> None:
    """A job accepted before the screened luck resumes with the estimator its first chunks used."""
    from services.jobs.rollout_items import Item

    old = {"seed": 1, "variance_reduction": True, "truncate": None, "rules": {"variant": "international"}}
    old["position_id"] = START
    assert Item.of(old).options(None)["luck"] == "full"
    assert Item.of({**old, "luck": "screened"}).options(None)["luck"] == "screened"
    assert Item.of(old).ply == 0 and Item.of(old).cube is None  # and 0-ply, cubeless


def test_a_job_written_before_rollouts_were_a_kind_is_read_and_run(
    two_workers: Workers, store: Rollouts
) -> None:
    """The rollout store kept a job's chunk list in its own Redis list (``job:{id}:chunks``) and the spec
    without ``chunks``: such a job, live in Redis at an upgrade, is read, run to its end and deleted."""
    job = store.submit({"position": START, "trials": 2 * CHUNK, "truncate": 2, "seed": 5})
    wait_state(store, job, ("done",))
    want = store.result(job)
    spec = store.spec(job)
    old = store.submit({"position": START, "trials": 2 * CHUNK, "truncate": 2, "seed": 5})
    store.cancel(old)  # its own chunks skipped; its keys rewritten below as the older store wrote them
    wait_until(lambda: queues_empty(store), 30, "the cancelled job's chunks skipped")
    store.redis.delete(*(store.key(old, p) for p in ("cancel", "started", "chunk:0", "chunk:1")))
    store.redis.set(
        store.spec_key(old), json.dumps({k: v for k, v in spec.items() if k != "chunks"} | {"id": old})
    )
    store.redis.rpush(f"job:{old}:chunks", *(json.dumps(c) for c in spec["chunks"]))
    assert store.status(old)["chunks_total"] == 2 and store.status(old)["state"] == "queued"
    assert store.resume(old) == 2
    wait_state(store, old, ("done",))
    got = store.result(old)
    assert got is not None and want is not None and got["results"] == want["results"]
    assert store.delete(old) and not store.redis.exists(f"job:{old}:chunks")
