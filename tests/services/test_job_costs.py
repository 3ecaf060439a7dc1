"""Cost-based admission: every job kind estimates its core-seconds before it is accepted, a key's plan
bounds them per job (422) and per UTC day (429 with Retry-After), both answers carrying
``estimate_core_s`` and ``limit_core_s``, and ``GET /v1/usage`` shows the key its spending.

The estimates are pure functions of a job's plan (tested without servers, for every kind of the
registry and the older stores); the admission goes through the session's shared platform
(``shared_platform.py``) and, for the daily budget, through the gateway's :class:`Guard` on its Redis.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from pulvezar.book.generate import BookSettings
from services.gateway.security import CostProblem, Guard, SharedLimits
from services.gateway.settings import ApiKey
from services.jobs.kinds import kinds
from services.jobs.kinds.analysis import Analyses
from services.jobs.kinds.batch import BatchRollouts
from services.jobs.kinds.book import book_cost
from services.jobs.kinds.rollout import Rollouts
from services.jobs.settings import RolloutSettings
from services.store.jobs import JobRecords

KEY = "costs-key"  # the shared platform's key of this module
START = "4HPwATDgc/ABMA"
DATA = Path(__file__).parent / "data"
#: each kind of the registry: a small job and a bigger one of the same shape
KIND_SIZES: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    "evaluation": ({"positions": [START] * 3, "ply": 1}, {"positions": [START] * 300, "ply": 1}),
    "rollout": ({"position": START, "trials": 1296}, {"position": START, "trials": 1296, "dice": [3, 1]}),
    "batch": (
        {"positions": [{"position": START}], "defaults": {"trials": 1296}},
        {"positions": [{"position": START}] * 3, "defaults": {"trials": 1296}},
    ),
    "analysis": (
        {"matches": [{"data": (DATA / "match1495872.txt").read_bytes()}], "level": "0ply"},
        {"matches": [{"data": (DATA / "charlot1-charlot2_7p_2025-11-08-2305.mat").read_bytes()}]},
    ),
    "book": ({"rolls": ["31"], "trials": 36, "ply": 0, "candidates": 2, "reply_ply": 0}, {"trials": 5184}),
    "daily": (
        {"date": "2024-02-29", "settings": {"games": 1, "trials": 36, "max_screened": 3, "screen_ply": 0}},
        {"date": "2024-02-29"},
    ),
    "deep": (
        {"position": START, "dice": [3, 1], "candidates": 2, "trials": 36, "ply": 1},
        {"position": START, "dice": [3, 1], "candidates": 4, "trials": 3600, "ply": 2},
    ),
}
#: the issue's job: by the code's own table about 10,000 core-hours
HUGE = {"position": START, "trials": 99_999, "ply": 2}


def stores(database: str) -> dict[str, Any]:
    """Stores for their estimates (on the module's database; no Redis or broker: nothing is submitted)."""
    settings, records = RolloutSettings(), JobRecords(database)
    return {
        "rollout": Rollouts(None, app=object(), settings=settings, records=records),
        "batch": BatchRollouts(None, app=object(), settings=settings, records=records),
        "analysis": Analyses(None, app=object(), settings=settings, records=records),
    }


# ---- the estimates, without servers ---------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(kinds()))
def test_every_kind_estimates_a_positive_cost_that_grows_with_the_job(
    name: str, module_database: str
) -> None:
    assert name in KIND_SIZES, f"kind {name!r} has no sizes here: add a small and a bigger job"
    store = kinds()[name](None, app=object(), settings=RolloutSettings(), records=JobRecords(module_database))
    small, big = (store.estimate(body) for body in KIND_SIZES[name])
    assert 0 < small < big


def test_rollouts_batches_analyses_and_books_estimate_their_cost(module_database: str) -> None:
    s = stores(module_database)
    rollouts = s["rollout"]
    one = rollouts.estimate({"position": START, "trials": 1296})
    assert 0 < one < rollouts.estimate({"position": START, "trials": 2592})
    assert one < rollouts.estimate({"position": START, "trials": 1296, "ply": 1})
    plays = rollouts.estimate({"position": START, "trials": 1296, "dice": [3, 1]})
    assert plays > 10 * one  # every legal play of 31 is a candidate
    batches = s["batch"]
    batch = batches.estimate({"positions": [{"position": START}] * 3, "defaults": {"trials": 1296}})
    assert batch == pytest.approx(3 * one)
    # the rollout: ~10,000 core-hours
    assert rollouts.estimate(HUGE) > 3.0e7
    match = {"data": (DATA / "charlot1-charlot2_7p_2025-11-08-2305.mat").read_bytes(), "format": "mat"}
    analyses = s["analysis"]
    cheap = analyses.estimate({"matches": [match], "level": "0ply"})
    costly = analyses.estimate({"matches": [match], "level": "2ply"})
    assert 0 < cheap < costly < analyses.estimate({"matches": [match, match], "level": "2ply"})
    one_roll = BookSettings(rolls=((3, 1),), trials=72, candidates=2, ply=0, reply_ply=0)
    two_rolls = BookSettings(rolls=((3, 1), (4, 2)), trials=72, candidates=2, ply=0, reply_ply=0)
    assert 0 < book_cost(one_roll) < book_cost(two_rolls)


# ---- the daily budget, in the gateway's Guard on Redis ------------------------------------------------


def test_the_daily_budget_refuses_with_the_estimate_and_limit_and_a_refund_gives_it_back(
    shared_platform: Any,
) -> None:
    limits = ApiKey(name="budget", daily_core_s=100.0, max_job_core_s=80.0)
    shared = SharedLimits.from_url(shared_platform.redis_url)
    shared.prefix = "pulvezar:test-costs"
    for key in shared.client.scan_iter("pulvezar:test-costs:*"):
        shared.client.delete(key)
    guard = Guard({"budget-secret": limits}, shared)
    with pytest.raises(CostProblem) as one:
        guard.charge("budget-secret", limits, 1, 0, 81.0)  # one job over the per-job bound
    assert one.value.status == 422 and one.value.extra == {"estimate_core_s": 81.0, "limit_core_s": 80.0}
    guard.charge("budget-secret", limits, 1, 0, 60.0)
    with pytest.raises(CostProblem) as day:
        guard.charge("budget-secret", limits, 1, 0, 50.0)
    assert day.value.status == 429 and int(day.value.headers["Retry-After"]) >= 1
    assert day.value.extra == {"estimate_core_s": 50.0, "limit_core_s": 100.0, "used_core_s": 60.0}
    assert guard.usage("budget-secret").core_s == pytest.approx(60.0)
    guard.refund("budget-secret", 1, 0, 60.0)
    guard.charge("budget-secret", limits, 1, 0, 50.0)  # room again
    assert guard.usage("budget-secret").core_s == pytest.approx(50.0)
    assert guard.usage("budget-secret").jobs == 1
    # what requests computed at once is charged as measured, past the limit (the work is done); once the
    # day is spent, such requests are refused (services/common/metering.py)
    guard.may_spend("budget-secret", limits)
    guard.spend("budget-secret", 49.5)
    guard.may_spend("budget-secret", limits)
    guard.spend("budget-secret", 0.75)
    assert guard.usage("budget-secret").core_s == pytest.approx(100.25)
    with pytest.raises(CostProblem) as spent:
        guard.may_spend("budget-secret", limits)
    assert spent.value.status == 429 and spent.value.extra["used_core_s"] == pytest.approx(100.25)
    assert "this request" in spent.value.detail


# ---- through the gateway ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def http(shared_platform: Any) -> Any:
    shared_platform.ready(2)
    with httpx.Client(base_url=shared_platform.base, headers={"X-API-Key": KEY}, timeout=60) as c:
        yield c


def test_a_99999_trial_2_ply_rollout_is_refused_with_its_estimate_and_the_limit(http: httpx.Client) -> None:
    before = http.get("/v1/usage").json()
    r = http.post("/v1/rollouts", json=HUGE)
    assert r.status_code == 422, r.text
    body = r.json()
    assert body["type"] == "urn:pulvezar:problem:job-too-costly" and body["errors"][0]["field"] == "request"
    assert body["estimate_core_s"] > 3.0e7 and body["limit_core_s"] == ApiKey().max_job_core_s
    after = http.get("/v1/usage").json()
    assert after["core_s"]["used"] == before["core_s"]["used"] and after["jobs"] == before["jobs"]


def test_usage_shows_what_each_submission_was_charged_analyses_included(
    http: httpx.Client, module_database: str
) -> None:
    usage = http.get("/v1/usage")
    assert usage.status_code == 200, usage.text
    before = usage.json()
    assert before["key"] == "costs" and before["core_s"]["limit"] == ApiKey().daily_core_s
    assert before["resets_at"].endswith("T00:00:00Z") and before["max_job_core_s"] == ApiKey().max_job_core_s
    match = DATA / "gnubg_roll_then_resign_1p.mat"
    r = http.post("/v1/analyses", json={"file": match.read_text(), "filename": match.name, "level": "0ply"})
    assert r.status_code == 202, r.text
    analysed = http.get("/v1/usage").json()
    assert analysed["jobs"]["used"] == before["jobs"]["used"] + 1
    assert analysed["core_s"]["used"] > before["core_s"]["used"]
    r = http.post("/v1/rollouts", json={"position": START, "trials": 36, "truncate": 2})
    assert r.status_code == 202, r.text
    rolled = http.get("/v1/usage").json()
    expected = stores(module_database)["rollout"].estimate({"position": START, "trials": 36, "truncate": 2})
    assert rolled["core_s"]["used"] - analysed["core_s"]["used"] == pytest.approx(expected, abs=1e-3)
    assert rolled["trials"]["used"] == analysed["trials"]["used"] + 36
    assert rolled["core_s"]["remaining"] == pytest.approx(
        rolled["core_s"]["limit"] - rolled["core_s"]["used"]
    )


def test_usage_is_in_the_openapi_schema() -> None:
    from services.gateway.app import create_app
    from services.gateway.settings import GatewaySettings

    schema = create_app(GatewaySettings(api_keys={"k": {}})).openapi()
    op = schema["paths"]["/v1/usage"]["get"]
    assert op["responses"]["200"]["content"]["application/json"]["schema"]["$ref"].endswith("/UsageReport")
