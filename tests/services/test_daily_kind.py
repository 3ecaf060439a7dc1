"""The ``daily`` kind's request, without servers: a client's run names a date up to today, its settings are
bounded, and its chunks are every daily puzzle (the platform's run, stored insert-once, is tested through a
worker in ``test_daily_similar.py``; the workers' bits in ``test_every_kind.py``)."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from services.jobs.errors import InvalidJob
from services.jobs.kinds.daily import DailyParams, DailyRuns, job_id_of
from services.jobs.settings import RolloutSettings
from services.store.jobs import JobRecords


@pytest.fixture
def kind(module_database: str) -> DailyRuns:
    """The kind's store on the module's database; no Redis or broker (nothing here gets that far)."""
    return DailyRuns(None, app=object(), settings=RolloutSettings(), records=JobRecords(module_database))


@pytest.mark.parametrize(
    ("body", "field", "words"),
    [
        ({"date": "2026-13-01"}, "date", "invalid date"),
        ({"date": "yesterday"}, "date", "YYYY-MM-DD"),
        ({}, "date", "required"),
        ({"date": "2024-02-29", "settings": {"games": 0}}, "settings.games", "greater than"),
        ({"date": "2024-02-29", "settings": {"trials": 10**6}}, "settings.trials", "less than"),
        ({"date": "2024-02-29", "store": True}, "store", "not permitted"),
    ],
)
def test_bad_requests_name_the_field(kind: DailyRuns, body: dict[str, Any], field: str, words: str) -> None:
    with pytest.raises(InvalidJob) as e:
        kind.submit(body, owner="someone")
    assert e.value.field == field and words in str(e.value), str(e.value)


def test_a_clients_run_cannot_ask_for_a_future_puzzle(kind: DailyRuns) -> None:
    tomorrow = (dt.datetime.now(dt.UTC).date() + dt.timedelta(days=1)).isoformat()
    with pytest.raises(InvalidJob) as e:
        kind.submit({"date": tomorrow}, owner="someone")
    assert e.value.field == "date" and "up to today" in str(e.value)


def test_every_daily_puzzle_is_a_chunk_and_more_work_costs_more(kind: DailyRuns) -> None:
    from pulvezar.archive.daily import DailySettings, daily_kinds

    store = kind
    assert store.plan(DailyRuns.Request.model_validate({"date": "2024-02-29"}))[1] == [
        list(c) for c in daily_kinds()
    ]
    small = store.estimate(DailyRuns.example())
    assert 0 < small < store.estimate({"date": "2024-02-29"})
    assert DailyParams().library() == DailySettings()  # the request's defaults are the library's
    assert job_id_of("2024-02-29") == "daily-2024-02-29"
