"""Cube-decision rollouts as jobs: the job store, a real Celery worker on a real Redis, the gateway.

The worker (a subprocess, one pool process) runs a small untrained net from a temporary model file
in chunks of 36 trials; the job's no double / double-take values, DP and decision must equal
:func:`pulvezar.rollouts.rollout_cube` run here, in the test process, with the same seed and trials.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("celery")
redis = pytest.importorskip("redis")

from procutil import wait_until  # noqa: E402
from rollout_workers import Worker  # noqa: E402

from pulvezar import Position  # noqa: E402
from pulvezar.cube.decision import NO_CUBE, CubeState  # noqa: E402
from pulvezar.eval.evaluator import NetEvaluator  # noqa: E402
from pulvezar.rollouts import rollout_cube  # noqa: E402
from services.jobs.errors import InvalidJob  # noqa: E402
from services.jobs.kinds.batch import BatchRollouts  # noqa: E402
from services.jobs.kinds.rollout import Rollouts  # noqa: E402
from services.jobs.rollout_models import RolloutReport  # noqa: E402
from services.jobs.settings import RolloutSettings  # noqa: E402
from services.rollout.celery_app import make_app  # noqa: E402
from services.store.jobs import JobRecords  # noqa: E402

CHUNK = 36
#: a middle game position (the player on roll a little ahead) and a race
MIDDLE = Position.from_points(
    {24: 1, 13: 4, 8: 3, 6: 5, 5: 2}, {24: 2, 13: 4, 8: 2, 6: 4, 4: 2, 3: 1}
).position_id
RACE = Position.from_points({6: 3, 5: 3, 4: 3, 8: 2, 9: 2}, {6: 4, 5: 3, 3: 3, 10: 2, 11: 1}).position_id


@pytest.fixture(scope="module")
def model_seed() -> int:
    return 11


@pytest.fixture(scope="module")
def env(redis_server: str, model_file: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return {
        "PULVEZAR_ROLLOUT_REDIS_URL": redis_server,
        "PULVEZAR_ROLLOUT_MODEL_PATH": str(model_file),
        "PULVEZAR_ROLLOUT_CHUNK_SIZE": str(CHUNK),
        "PULVEZAR_ROLLOUT_METRICS_DIR": str(tmp_path_factory.mktemp("metrics")),
        "PULVEZAR_ROLLOUT_TORCH_THREADS": "1",
        "PULVEZAR_ROLLOUT_DEVICE": "cpu",
    }


@pytest.fixture(scope="module")
def worker(env: dict[str, str]) -> Iterator[Worker]:
    """One worker, once it logs 'worker ready'."""
    w = Worker(env, "worker", metrics_port=-1)
    try:
        yield w.ready(60)
    finally:
        w.stop()


@pytest.fixture(scope="module")
def store(redis_server: str, module_database: str) -> Rollouts:
    s = RolloutSettings(redis_url=redis_server, chunk_size=CHUNK)
    client = redis.Redis.from_url(redis_server, decode_responses=True)
    return Rollouts(client, app=make_app(s), settings=s, records=JobRecords(module_database))


def batches(store: Rollouts) -> BatchRollouts:
    """The batch rollout kind's store on ``store``'s Redis, broker, settings and durable store."""
    return BatchRollouts(store.redis, app=store.app, settings=store.settings, records=store.records)


@pytest.fixture(scope="module")
def local(model_file: Path) -> NetEvaluator:
    """The worker's net, in this process."""
    return NetEvaluator.load(model_file, device="cpu")


def wait_done(store: Rollouts, job_id: str, timeout: float = 120) -> dict[str, Any]:
    def done() -> dict[str, Any] | None:
        s = store.status(job_id)
        assert s["state"] not in ("failed", "cancelled"), s
        return store.result(job_id) if s["state"] == "done" else None

    result: dict[str, Any] = wait_until(done, timeout, f"job {job_id}", every=0.1)
    return result


def test_invalid_cube_jobs_are_refused_with_the_field(store: Rollouts) -> None:
    base = {"kind": "cube", "position": MIDDLE, "trials": 36}
    cases: list[tuple[dict[str, Any], str]] = [
        ({**base, "kind": "cubes"}, "kind"),
        ({**base, "dice": [3, 1]}, "dice"),
        ({**base, "position": "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10"}, "position"),
        ({**base, "rules": "tavla"}, "rules"),
        ({**base, "cube": {"value": 3}}, "cube.value"),
        ({**base, "cube": {"owner": "me"}}, "cube.owner"),
        ({**base, "cube": {"match_length": 5, "score": 5}}, "cube.score"),
        ({**base, "cube": {"jacoby": True, "match_length": 5}}, "cube.jacoby"),
        ({**base, "trials": 0}, "trials"),
    ]
    for params, field in cases:
        with pytest.raises(InvalidJob) as e:
            store.submit(params)
        assert e.value.field == field, (params, e.value)
    with pytest.raises(InvalidJob) as e:
        batches(store).submit(
            {"positions": [{"position": MIDDLE}, {"position": RACE, "plays": ["8/5 6/5"]}], "defaults": base}
        )
    assert e.value.field == "positions[1].plays"


def _library(local: NetEvaluator, state: CubeState, trials: int, seed: int, truncate: int | None) -> Any:
    return rollout_cube(state, trials=trials, seed=seed, truncate=truncate, evaluator=local)


def _assert_same(report: dict[str, Any], want: Any) -> None:
    assert report["kind"] == "cube" and report["trials"] == want.no_double.trials
    assert report["action"] == want.action and report["double"] == want.double
    assert report["response"] == want.response
    assert report["nd"] == pytest.approx(want.nd, abs=1e-9)
    assert report["nd_se"] == pytest.approx(want.nd_se, abs=1e-9)
    if want.dt is None:
        assert report["dt"] is None and report["dp"] is None
    else:
        assert report["dt"] == pytest.approx(want.dt, abs=1e-9)
        assert report["dp"] == want.dp
        assert report["noise"] == pytest.approx(want.noise, abs=1e-9)
    for k, v in want.costs.items():
        assert report["costs"][k] == pytest.approx(v, abs=1e-9)


def test_cube_job_equals_the_library(worker: Any, store: Rollouts, local: NetEvaluator) -> None:
    """Money (centred, Jacoby and beaver) and a match score with the cube owned: chunks of 36 trials
    run by the worker, merged by the store, equal one in-process rollout_cube call."""
    money = store.submit(
        {
            "kind": "cube",
            "position": MIDDLE,
            "trials": 72,
            "seed": 5,
            "truncate": 6,
            "cube": {"jacoby": True, "beaver": True},
        }
    )
    match = batches(store).submit(
        {
            "positions": [
                {"position": MIDDLE, "cube": {"match_length": 7, "score": 2, "opponent_score": 4}},
                {"position": RACE, "cube": {"value": 2, "owner": "opponent", "match_length": 7, "score": 3}},
            ],
            "defaults": {"kind": "cube", "trials": 72, "seed": 9, "truncate": 8},
        }
    )
    assert len(store.spec(money)["chunks"]) == 2 and len(store.spec(match)["chunks"]) == 4
    mid = Position.from_position_id(MIDDLE)
    states = [
        CubeState(mid, match_length=7, score=(2, 4)),
        CubeState(Position.from_position_id(RACE), 2, "opponent", 7, (3, 0)),
    ]
    # the library's, made here while the worker runs the jobs
    want = _library(local, CubeState(mid, jacoby=True, beaver=True), 72, 5, 6)
    wants = [_library(local, state, 72, 9, 8) for state in states]
    got_money = wait_done(store, money)
    got_match = wait_done(store, match)
    for job, got in ((money, got_money), (match, got_match)):  # the declared report, key for key
        for report in (got, store.status(job)):
            assert RolloutReport.model_validate(report).model_dump(mode="json", exclude_unset=True) == report

    assert want.dt is not None  # both branches are rolled out
    (report,) = got_money["results"]
    _assert_same(report, want)
    assert "mwc" not in report
    # the merged chunk values, bit for bit: a board's value does not depend on its batch
    nd, dt = store.rollout_results(money)[0]
    assert want.double_take is not None
    np.testing.assert_array_equal(nd.cubeful, want.no_double.cubeful)
    np.testing.assert_array_equal(dt.cubeful, want.double_take.cubeful)
    np.testing.assert_array_equal(nd.values, want.no_double.values)

    for report, want in zip(got_match["results"], wants, strict=True):
        _assert_same(report, want)
        assert report["mwc"]["nd"] == pytest.approx(want.mwc_nd, abs=1e-9)
    assert got_match["results"][1]["action"] == NO_CUBE  # the opponent owns it: nothing to decide
    assert got_match["results"][1]["dt"] is None


def test_cube_rollout_through_the_gateway(worker: Any, store: Rollouts, local: NetEvaluator) -> None:
    from fastapi.testclient import TestClient

    from services.gateway.app import create_app
    from services.gateway.settings import GatewaySettings

    settings = GatewaySettings(
        api_keys={"k1": {"name": "cube tests", "rate_per_s": 1000, "burst": 1000}},
        rules_address="127.0.0.1:9",
        evaluator_address="127.0.0.1:9",
        ready_timeout_s=0.2,
    )
    with TestClient(create_app(settings, job_store=store), headers={"X-API-Key": "k1"}) as client:
        bad = client.post(
            "/v1/rollouts", json={"kind": "cube", "position": MIDDLE, "trials": 36, "dice": [3, 1]}
        )
        assert bad.status_code == 422, bad.text
        assert bad.headers["content-type"].startswith("application/problem+json")
        assert "dice" in bad.text
        tavla = {"kind": "cube", "position": MIDDLE, "trials": 36, "rules": {"variant": "tavla"}}
        bad = client.post("/v1/rollouts", json=tavla)
        assert bad.status_code == 422 and "rules" in bad.text, bad.text

        body = {
            "kind": "cube",
            "position": MIDDLE,
            "trials": 72,
            "seed": 3,
            "truncate": 4,
            "cube": {"value": 2},
        }
        r = client.post("/v1/rollouts", json=body)
        assert r.status_code == 202, r.text
        href = r.headers["Location"]
        state = CubeState(Position.from_position_id(MIDDLE), cube_value=2)
        want = _library(local, state, 72, 3, 4)  # while the worker runs the job

        def finished() -> dict[str, Any] | None:
            job: dict[str, Any] = client.get(href).json()
            assert job["state"] not in ("failed", "cancelled"), job
            return job if job["state"] == "done" else None

        job = wait_until(finished, 120, "the gateway's cube job", every=0.2)
    (report,) = job["results"]
    assert report["cube"]["value"] == 2
    _assert_same(report, want)
