"""The job kinds of ``services/jobs/kinds``: a kind in one file, run end to end by the platform.

The first kind, evaluation jobs (``POST /v1/evaluations``), goes through the session's shared platform
(``shared_platform.py``: Redis, the durable store, two Celery workers, the Rules and Evaluator services,
the gateway): its numbers must be the same bits as the library's evaluation of the same chunks here, its
errors 422s naming the field, its listing and durable copy those of every job.  The registry and the
request checking are tested without servers.
"""

from __future__ import annotations

import time
import typing
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import pytest
from procutil import wait_until
from pydantic import ValidationError

from services.common.schemas import (
    MAX_BATCH_POSITIONS,
    MAX_PLAYS,
    MAX_ROLLOUT_PLY,
    MAX_SEED,
    MAX_TRIALS,
    MAX_TRUNCATE,
    BatchRequest,
    RolloutRequest,
)
from services.jobs.errors import InvalidJob
from services.jobs.kind import JobKind, checked, field_of
from services.jobs.kinds import kinds
from services.jobs.kinds.batch import BatchRollouts
from services.jobs.kinds.evaluations import CHUNK, Evaluations
from services.jobs.kinds.rollout import Rollouts

KEY = "kinds-key"  # the shared platform's key of this module
START = "4HPwATDgc/ABMA"
POSITIONS = [
    START,
    "jGfkASjg8wcBMA",
    "4PPgASTgc/ABMA",
    "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10",
    "sNvBAQDg2+ABMA",
    "2G7gATDgc+ADMA",
    "jM/BATCwOwMGLA",
]


# ---- the registry and the request, without servers ------------------------------------------------


def test_the_registry_finds_the_kinds_of_the_package() -> None:
    found = kinds()
    assert found["evaluation"] is Evaluations
    assert Evaluations.namespace == "evaluation" and Evaluations.kinds == ("evaluation",)
    assert all(issubclass(k, JobKind) and k.route and k.Request and k.Report for k in found.values())


def kind_types(kind: type[JobKind]) -> tuple[Any, ...]:
    """The ``JobKind[Request, Chunk, Record, Report]`` that ``kind`` (or a kind it extends) names; () for
    a bare ``JobKind``."""
    for cls in kind.__mro__:
        for base in getattr(cls, "__orig_bases__", ()):
            if typing.get_origin(base) is JobKind:
                return typing.get_args(base)
    return ()


def test_every_kind_of_the_package_names_its_types() -> None:
    """JobKind is generic in its request, chunk, record and report types (mypy --strict checks each
    kind's overrides against them): every kind of the package names all four, none ``Any``, and its
    request type is its ``Request`` (one of a union's, for the rollout kinds' shared code)."""
    own = {n: k for n, k in kinds().items() if k.__module__.startswith("services.jobs.kinds.")}
    assert {"rollout", "batch", "evaluation", "deep", "analysis"} <= set(own)
    for name, kind in own.items():
        types = kind_types(kind)
        assert len(types) == 4 and Any not in types, name
        assert kind.Request in (typing.get_args(types[0]) or (types[0],)), name


def test_a_kind_name_longer_than_the_store_allows_is_refused() -> None:
    with pytest.raises(TypeError, match="16 characters"):
        type("TooLong", (JobKind,), {"name": "x" * 17})


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"positions": []}, "positions"),
        ({"positions": [START, "zz"]}, "positions[1]"),
        ({"positions": [START, 3]}, "positions[1]"),
        ({"positions": [START], "ply": 3}, "ply"),
        ({"positions": [START], "rules": "chess"}, "rules.variant"),
        (
            {"positions": [START], "rules": {"variant": "international", "hit_and_stop": True}},
            "rules.hit_and_stop",
        ),
        ({"positions": [START], "priority": "urgent"}, "priority"),
        ({"positions": [START], "trials": 5}, "trials"),
        (["not", "an", "object"], "request"),
    ],
)
def test_bad_requests_name_their_field(body: Any, field: str) -> None:
    with pytest.raises(InvalidJob) as e:
        checked(Evaluations.Request, body)
    assert e.value.field == field


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"trials": MAX_TRIALS + 1}, "trials"),
        ({"truncate": MAX_TRUNCATE + 1}, "truncate"),
        ({"ply": MAX_ROLLOUT_PLY + 1}, "ply"),
        ({"seed": MAX_SEED + 1}, "seed"),
        ({"dice": [3, 1], "plays": ["8/5 6/5"] * (MAX_PLAYS + 1)}, "plays"),
    ],
)
def test_a_rollouts_limits_are_the_same_in_the_public_body_and_the_kinds_request(
    change: dict[str, Any], field: str
) -> None:
    """Each limit is set once (services.common.schemas): the gateway's body and the kind refuse the same
    value, naming the same field; one less is accepted by both."""
    body = {"position": START, "trials": 36, **change}
    with pytest.raises(ValidationError) as e:
        RolloutRequest.model_validate(body)
    assert field_of(e.value.errors()[0]["loc"]).split("[")[0] == field
    with pytest.raises(InvalidJob) as job:
        checked(Rollouts.Request, body)
    assert job.value.field.split("[")[0] == field
    key, value = next(iter(change.items())) if "plays" not in change else ("plays", ["8/5 6/5"])
    ok = {**body, key: value - 1 if isinstance(value, int) else value}
    RolloutRequest.model_validate(ok)
    checked(Rollouts.Request, ok)


def test_a_batch_has_at_most_the_schemas_positions_on_both_sides() -> None:
    many = [{"position": START}] * (MAX_BATCH_POSITIONS + 1)
    with pytest.raises(ValidationError) as e:
        BatchRequest.model_validate({"positions": many, "trials": 36})
    assert field_of(e.value.errors()[0]["loc"]) == "positions"
    with pytest.raises(InvalidJob) as job:
        checked(BatchRollouts.Request, {"positions": many, "defaults": {"trials": 36}})
    assert job.value.field == "positions"
    BatchRequest.model_validate({"positions": many[1:], "trials": 36})
    checked(BatchRollouts.Request, {"positions": many[1:], "defaults": {"trials": 36}})


def test_a_typed_request_is_taken_as_it_is_and_a_dict_is_validated() -> None:
    """The gateway validates at the edge once: an instance of the kind's model is not validated again."""
    request = checked(Evaluations.Request, {"positions": [START], "ply": 1})
    assert checked(Evaluations.Request, request) is request
    again = checked(Evaluations.Request, {"positions": [START], "ply": 1})
    assert again == request and again is not request


def test_a_rollout_over_the_chunk_cap_names_trials_and_its_extension_more_trials(
    redis_server: str, module_database: str
) -> None:
    """The cap is the kind's (JobKind.chunk_limit); its 422 names what makes a rollout's chunks, as the
    public API always did: ``trials`` on submission, ``more_trials`` on extend; nothing is recorded."""
    import redis

    from services.jobs.settings import RolloutSettings
    from services.store.jobs import JobRecords

    client = redis.Redis.from_url(redis_server)
    settings = RolloutSettings(redis_url=redis_server, chunk_size=36, max_chunks=2)
    store = Rollouts(client, settings=settings, records=JobRecords(module_database))
    before = set(client.keys("*"))
    with pytest.raises(InvalidJob) as e:
        store.submit({"position": START, "trials": 108})
    assert e.value.field == "trials" and "at most 2" in str(e.value)
    assert set(client.keys("*")) == before
    job_id = store.submit({"position": START, "trials": 36})
    with pytest.raises(InvalidJob) as e:
        store.extend(job_id, {"more_trials": 72})
    assert e.value.field == "more_trials"
    assert len(store.spec(job_id)["chunks"]) == 1
    assert store.extend(job_id, {"more_trials": 36}) == 1


def test_field_paths() -> None:
    assert field_of(("positions", 3, "id")) == "positions[3].id"
    assert field_of(()) == "request"


def test_chunks_are_consecutive_positions_fewer_the_deeper() -> None:
    positions = [START] * 10
    for ply in (0, 1, 2):
        _fields, chunks = Evaluations.plan(
            None, checked(Evaluations.Request, {"positions": positions, "ply": ply})
        )  # type: ignore[arg-type]
        assert [c[0] for c in chunks] == list(range(0, 10, CHUNK[ply]))
        assert sum(c[1] for c in chunks) == 10 and all(0 < c[1] <= CHUNK[ply] for c in chunks)


def test_the_report_places_each_chunk_and_waits_for_the_rest() -> None:
    spec = {"positions": [START] * 3, "ply": 0}
    record = {
        "first": 1,
        "position_ids": [START, START],
        "probabilities": [[0.5, 0.1, 0, 0.1, 0]] * 2,
        "equity": [0.0, 0.0],
    }
    report = Evaluations.report(spec, [None, record, {"error": "chunk 2 failed"}])
    assert report["evaluated"] == 2
    assert report["results"][0] is None and report["results"][1]["probabilities"]["win"] == 0.5


# ---- through the platform -------------------------------------------------------------------------


@pytest.fixture
def platform(shared_platform: Any) -> Any:
    shared_platform.ready(2)
    return shared_platform


def evaluate_here(model: Path, positions: list[str], ply: int, prune: bool = True) -> np.ndarray:
    """The library's evaluation of the job's chunks, one batch a chunk (as the workers run them), with the
    workers' torch thread count (``prune``: the job's pruning, the default a request gets)."""
    import torch

    from pulvezar.eval.evaluator import NetEvaluator

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        local = NetEvaluator.load(model, device="cpu")
        spec = {"positions": positions, "ply": ply, "rules": {"variant": "international"}, "prune": prune}
        out = [
            Evaluations.compute(spec, [first, min(CHUNK[ply], len(positions) - first)], local)[
                "probabilities"
            ]
            for first in range(0, len(positions), CHUNK[ply])
        ]
    finally:
        torch.set_num_threads(before)
    return np.concatenate([np.asarray(p) for p in out])


def wait_for(c: httpx.Client, href: str, states: tuple[str, ...], timeout: float = 60) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        job: dict[str, Any] = c.get(href).json()
        if job["state"] in states:
            return job
        assert time.monotonic() < deadline, f"not {states} within {timeout} s: {job}"
        time.sleep(0.1)


def test_an_evaluation_job_gives_the_librarys_numbers(platform: Any) -> None:
    positions = POSITIONS * 2  # 14 positions: 4 chunks of 2-ply
    with httpx.Client(base_url=platform.base, headers={"X-API-Key": KEY}, timeout=30) as c:
        r = c.post("/v1/evaluations", json={"positions": positions, "ply": 2, "priority": "interactive"})
        assert r.status_code == 202, r.text
        href = r.headers["Location"]
        job_id = r.json()["id"]
        assert href == f"/v1/evaluations/{job_id}" and r.json()["chunks_total"] == 4
        done = wait_for(c, href, ("done", "failed"))
        assert done["state"] == "done" and done["progress"] == 1 and done["eta_s"] == 0
        result = c.get(f"{href}/result")
        assert result.status_code == 200

        # the listing is the durable store's view: the worker that stored the last chunk marks the job
        # done there just after the chunk reached Redis (which GET reads), or the reconciler does
        def listed() -> list[tuple[str, str, str]]:
            jobs = c.get("/v1/jobs", params={"kind": "evaluation"}).json()["jobs"]
            return [(j["id"], j["href"], j["state"]) for j in jobs]

        wait_until(lambda: listed() == [(job_id, href, "done")], 20, "the listing's done", every=0.1)

    report = result.json()["report"]
    assert report["ply"] == 2 and report["evaluated"] == len(positions)
    got = np.array(
        [
            [
                e["probabilities"][k]
                for k in ("win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon")
            ]
            for e in report["results"]
        ]
    )
    np.testing.assert_array_equal(got, evaluate_here(platform.model, positions, 2))
    assert report["results"][3]["position_id"] == START  # the XGID of the starting position
    # the durable store has the job done, with every chunk
    records = platform.durable_store().records
    assert records.get(job_id).state == "done"
    assert records.chunk_numbers(job_id) == {0, 1, 2, 3}


def test_an_evaluation_job_prunes_unless_told_not_to(platform: Any) -> None:
    got = {}
    with httpx.Client(base_url=platform.base, headers={"X-API-Key": KEY}, timeout=30) as c:
        for prune in (True, False):
            body = {"positions": POSITIONS, "ply": 1, "priority": "interactive", "prune": prune}
            r = c.post("/v1/evaluations", json=body)
            assert r.status_code == 202, r.text
            assert wait_for(c, r.headers["Location"], ("done", "failed"))["state"] == "done"
            results = c.get(f"{r.headers['Location']}/result").json()["report"]["results"]
            got[prune] = np.array([list(e["probabilities"].values()) for e in results])
            np.testing.assert_array_equal(got[prune], evaluate_here(platform.model, POSITIONS, 1, prune))
    assert not np.array_equal(got[True], got[False])  # pruning changes some of these 1-ply values


def test_bad_input_is_a_422_naming_the_field_and_nothing_is_queued(platform: Any) -> None:
    with httpx.Client(base_url=platform.base, headers={"X-API-Key": KEY}, timeout=30) as c:
        r = c.post("/v1/evaluations", json={"positions": [START, "nonsense"], "ply": 1})
        assert r.status_code == 422
        assert [e["field"] for e in r.json()["errors"]] == ["positions[1]"], r.json()
        r = c.post("/v1/evaluations", json={"positions": [START], "ply": 9})
        assert r.status_code == 422 and r.json()["errors"][0]["field"] == "ply"
        assert c.get("/v1/evaluations/000000000000000000000000").status_code == 404
    assert platform.queues_empty()


def test_cancel_then_remove(platform: Any) -> None:
    positions = POSITIONS * 12  # 84 positions at 2-ply: 21 chunks, seconds of work for two workers
    with httpx.Client(base_url=platform.base, headers={"X-API-Key": KEY}, timeout=30) as c:
        r = c.post("/v1/evaluations", json={"positions": positions, "ply": 2})
        href = r.headers["Location"]
        early = c.get(f"{href}/result")
        assert early.status_code == 409 and early.json()["errors"][0]["field"] == "job_id"
        cancelled = c.delete(href)
        assert cancelled.status_code == 200 and cancelled.json()["state"] == "cancelled"
        platform.ready(2)  # the queued chunks are skipped
        after = c.get(href).json()
        assert after["state"] == "cancelled" and after["chunks_done"] < after["chunks_total"]
        assert c.get(f"{href}/result").status_code == 409
        assert c.delete(href).status_code == 204
        assert c.get(href).status_code == 404
