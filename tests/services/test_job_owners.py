"""Every job has an owner: another key gets 404 on every job route, as for a job that does not exist.

Against the session's shared platform (``shared_platform.py``): key A submits one job of every kind
(rollout, cube rollout, batch rollout, analysis, and each kind of ``services.jobs.kinds``, books and daily
runs included); then every route of the app's OpenAPI schema with a ``{job_id}`` is called with key B
(404 each) and with key A (2xx).  A job route that :data:`JOBS_OF` does not cover fails the test, so a new
route or kind is covered once it is listed there.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from services.gateway.app import create_app
from services.gateway.settings import GatewaySettings
from services.jobs.kinds import kinds

A, B = "owners-a", "owners-b"  # the shared platform's keys of this module
START = "4HPwATDgc/ABMA"
QUICK = {"trials": 36, "truncate": 2, "ply": 0}
MATCH = Path(__file__).parent / "data" / "gnubg_roll_then_resign_1p.mat"
#: each kind's smallest job (its route's POST body)
KIND_BODIES: dict[str, dict[str, Any]] = {
    "evaluation": {"positions": [START, "jGfkASjg8wcBMA"], "ply": 0},
    "deep": {"position": START, "dice": [3, 1], "candidates": 2, "trials": 36, "ply": 0},
    "rollout": {"position": START, **QUICK},
    "batch": {"positions": [{"position": START}], **QUICK},
    "analysis": {"file": MATCH.read_text(), "filename": MATCH.name, "level": "0ply"},
    # the kinds' own smallest jobs (a daily run's cube rollouts at the default settings play 324 games out)
    "book": kinds()["book"].example(),
    "daily": kinds()["daily"].example(),
}
#: the jobs each job route prefix is called with (names of :func:`submitted`'s jobs)
JOBS_OF = {
    "/v1/rollouts": ("rollout", "cube"),
    "/v1/batch-rollouts": ("batch",),
    "/v1/analyses": ("analysis",),
    "/v1/jobs": ("rollout", "batch", "analysis", *(f"kind:{k}" for k in kinds())),
    **{f"/v1/{kind.route}": (f"kind:{name}",) for name, kind in kinds().items()},
}
#: what A may get besides a 2xx where a job's state does not allow the call (not an owner's refusal)
STATE_ANSWERS = {("post", "/v1/analyses/{job_id}/resume"): {409}}  # a finished job is not resumed


def job_routes() -> list[tuple[str, str]]:
    """``(method, path)`` of every route of the app that names a job."""
    app = create_app(GatewaySettings(api_keys={"k": {}}))
    return sorted(
        (method, path) for path, ops in app.openapi()["paths"].items() if "{job_id}" in path for method in ops
    )


def call(http: httpx.Client, method: str, url: str) -> int:
    """The status of one call (an event stream is closed after its headers)."""
    body = {"trials": 36} if url.endswith("/extend") else None
    with http.stream(method.upper(), url, json=body) as r:
        return r.status_code


def wait_ended(http: httpx.Client, href: str, timeout: float = 180) -> None:
    end = time.monotonic() + timeout
    while True:
        st = http.get(href).json()
        if st["state"] in ("done", "failed", "cancelled"):
            assert st["state"] == "done", st
            return
        assert time.monotonic() < end, f"{href} not done: {st}"
        time.sleep(0.3)


@pytest.fixture(scope="module")
def clients(shared_platform: Any) -> Any:
    shared_platform.ready(2)
    with (
        httpx.Client(base_url=shared_platform.base, headers={"X-API-Key": A}, timeout=60) as a,
        httpx.Client(base_url=shared_platform.base, headers={"X-API-Key": B}, timeout=60) as b,
    ):
        yield a, b


@pytest.fixture(scope="module")
def submitted(shared_platform: Any, clients: Any) -> dict[str, str]:
    """One job of every kind, of key A, ended; name -> id."""
    a, _ = clients
    posts: dict[str, tuple[str, Any]] = {
        "rollout": ("/v1/rollouts", {"position": START, **QUICK}),
        "cube": ("/v1/rollouts", {"position": START, "kind": "cube", **QUICK}),
        "batch": ("/v1/batch-rollouts", {"positions": [{"position": START}, {"position": START}], **QUICK}),
        "analysis": ("/v1/analyses", {"file": MATCH.read_text(), "filename": MATCH.name, "level": "0ply"}),
    }
    for name in kinds():
        assert name in KIND_BODIES, f"no job of kind {name!r} in KIND_BODIES: add its smallest job"
        posts[f"kind:{name}"] = (f"/v1/{kinds()[name].route}", KIND_BODIES[name])
    ids, hrefs = {}, {}
    for name, (path, body) in posts.items():
        r = a.post(path, json=body)
        assert r.status_code == 202, (name, r.text)
        ids[name], hrefs[name] = r.json()["id"], r.headers["Location"]
    for href in hrefs.values():
        wait_ended(a, href)
    return ids


def test_a_book_is_its_owners_and_the_same_settings_by_another_key_are_a_job_of_its_own(
    clients: Any, submitted: dict[str, str]
) -> None:
    """A book's rollouts are its own chunks (no batch job of anybody's); its id digests the owner too."""
    a, b = clients
    book = a.get(f"/v1/opening-book/jobs/{submitted['kind:book']}").json()
    assert book["state"] == "done" and book["rollout_job"] is None
    assert b.get(f"/v1/opening-book/jobs/{submitted['kind:book']}").status_code == 404
    mine = b.post("/v1/opening-book/jobs", json=KIND_BODIES["book"])
    assert mine.status_code == 202 and mine.json()["id"] != submitted["kind:book"]
    again = a.post("/v1/opening-book/jobs", json=KIND_BODIES["book"])
    assert again.json()["id"] == submitted["kind:book"]


def test_every_job_route_answers_404_to_a_key_that_does_not_own_the_job(
    clients: Any, submitted: dict[str, str]
) -> None:
    a, b = clients
    routes = job_routes()
    prefixes = {path.split("/{job_id}")[0] for _, path in routes}
    assert prefixes <= set(JOBS_OF), f"job routes not in JOBS_OF: {sorted(prefixes - set(JOBS_OF))}"
    assert len(routes) >= 20
    calls = [
        (method, path, path.replace("{job_id}", submitted[job]), job)
        for method, path in routes
        for job in JOBS_OF[path.split("/{job_id}")[0]]
    ]
    # B first (its cancels would end A's jobs): each one as for a job that does not exist
    refused = {(method, url): call(b, method, url) for method, _, url, _ in calls}
    allowed = {url_m: code for url_m, code in refused.items() if code != 404}
    assert not allowed, f"key B reached key A's jobs: {allowed}"
    # A: every route answers (deletes last: they remove the jobs)
    for method, path, url, job in sorted(calls, key=lambda c: c[0] == "delete"):
        code = call(a, method, url)
        assert 200 <= code < 300 or code in STATE_ANSWERS.get((method, path), ()), (method, url, job, code)


def test_platform_jobs_are_for_operator_keys_and_operators_see_no_other_keys_jobs(
    shared_platform: Any, clients: Any
) -> None:
    from shared_platform import OPERATOR_KEY

    a, _ = clients
    # a job the platform queued itself (no key: the durable store's NULL owner), as the services do
    platform_job = shared_platform.durable_store().submit({"position": START, **QUICK})
    mine = a.post("/v1/rollouts", json={"position": START, **QUICK}).json()["id"]
    with httpx.Client(base_url=shared_platform.base, headers={"X-API-Key": OPERATOR_KEY}, timeout=60) as op:
        assert op.get(f"/v1/rollouts/{platform_job}").status_code == 200
        assert op.get(f"/v1/rollouts/{mine}").status_code == 404
    assert a.get(f"/v1/rollouts/{platform_job}").status_code == 404
    assert a.get(f"/v1/rollouts/{mine}").status_code == 200
