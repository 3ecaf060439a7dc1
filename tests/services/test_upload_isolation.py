"""Uploaded files are read in parser processes with CPU, memory and wall-clock limits
(:mod:`services.common.sandbox`, :mod:`services.gateway.uploads`): a reader that runs away costs a
parser process, the client gets a 422 naming ``file``, and the gateway keeps answering meanwhile.

The hostile ``.mat`` of issue 40 (a play ``1/11/11/.../11x`` that made the old play pattern backtrack
for hours) goes through a real gateway process; and because the library's readers are fixed, a
deliberately endless reader (:func:`endless_read`, pointed at by the routes' targets) keeps the
isolation itself tested.  No wall-time asserts: the timeouts below are ones only a hang reaches.
"""

from __future__ import annotations

import asyncio
import json
import re
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from procutil import run_coroutine

from services.common.sandbox import (
    ParseBusy,
    ParsePool,
    ParseRejected,
    ParseSettings,
    ParseTooLarge,
    ParseTooSlow,
    isolated,
)
from services.gateway.app import create_app
from services.gateway.settings import GatewaySettings
from services.jobs import analysis_files
from services.jobs.analysis_files import AnalysisJobSettings, plan_job
from services.jobs.errors import InvalidJob

KEY = "upload-key"
# a catastrophic pattern: CPython's re holds the GIL the whole time, as the old .mat play pattern did
BACKTRACK = (r"(a+)+$", "a" * 64 + "!")


def endless_read(*_: Any) -> Any:
    """A reader that never ends (what a parser bug looks like), for the routes' targets."""
    return re.fullmatch(*BACKTRACK)


def hostile_mat(segments: int = 40) -> bytes:
    """Issue 40's 60-byte-class .mat: one game whose play is ``1/11/11/.../11x``."""
    play = "1/" + "/".join(["11"] * segments) + "x"
    return f" 1 point match\n\n Game 1\n Alice : 0                  Bob : 0\n  1) 31: {play}\n".encode()


def small_pool(**limits: Any) -> ParsePool:
    return ParsePool(ParseSettings(**{"workers": 1, "queue": 4, "cpu_s": 1, "timeout_s": 60, **limits}))


# ---- the pool itself ---------------------------------------------------------------------------------
def test_a_runaway_parse_is_stopped_and_the_pool_goes_on() -> None:
    pool = small_pool()
    try:
        assert pool.run("builtins:len", b"abc") == 3
        with pytest.raises(ParseTooSlow, match="took too long"):
            pool.run("re:fullmatch", *BACKTRACK)  # the CPU limit, far below the 60 s wall clock
        with pytest.raises(ParseTooLarge, match="too large when read"):
            pool.run("builtins:bytearray", 1 << 40)
        assert pool.killed == 2  # both processes replaced ...
        assert pool.run("builtins:len", b"abcd") == 4  # ... and the pool still reads
        with pytest.raises(ParseRejected, match="invalid literal"):  # the target's own error
            pool.run("builtins:int", "x")
        assert pool.killed == 2  # a rejected file does not cost the process
        assert pool.failures == {"too_slow": 1, "too_large": 1, "rejected": 1}  # the gateway's /metrics
    finally:
        pool.close()


def test_a_warmed_pool_starts_its_processes_once() -> None:
    pool = small_pool(workers=2)
    try:
        assert pool.warm() == 2 and pool.warm() == 0  # both started, none more
        assert pool.run("builtins:len", b"ab") == 2  # an idle, started process serves it
        assert pool.warm() == 0
    finally:
        pool.close()


def test_a_parse_past_its_wall_clock_is_killed_and_one_more_is_refused_meanwhile() -> None:
    pool = small_pool(queue=1, cpu_s=600, timeout_s=2)
    try:
        failures: list[BaseException] = []

        def asleep() -> None:  # no CPU spent: only the wall clock stops it
            try:
                pool.run("time:sleep", 600)
            except ParseTooSlow as e:
                failures.append(e)

        busy = threading.Thread(target=asleep)
        busy.start()
        try:
            while pool._slots._value:  # until the first parse holds the only slot
                time.sleep(0.01)
            with pytest.raises(ParseBusy):
                pool.run("builtins:len", b"")
        finally:
            busy.join(120)
        assert not busy.is_alive() and len(failures) == 1 and pool.killed == 1
        assert pool.run("builtins:len", b"ab") == 2
    finally:
        pool.close()


def test_analysis_files_are_read_in_the_pool(monkeypatch: pytest.MonkeyPatch) -> None:
    """The analysis submissions' reader (plan_job -> read_match) goes through the pool of an isolated
    block: a reader that never ends is a 422-bound InvalidJob naming the entry's file."""
    pool = small_pool()
    limits = AnalysisJobSettings()  # type: ignore[call-arg]
    entry = {"data": b"anything", "format": "mat", "filename": "a.mat"}
    try:
        with isolated(pool):
            with pytest.raises(InvalidJob, match=r"not a readable \.mat file") as bad:
                plan_job([{**entry, "data": b"\x00junk"}], "0ply", None, True, limits)
            assert bad.value.field == "file"
            monkeypatch.setattr(analysis_files, "SUMMARY_TARGET", f"{__name__}:endless_read")
            with pytest.raises(InvalidJob, match="took too long") as slow:
                plan_job([entry, entry], "0ply", None, False, limits)
            assert slow.value.field == "matches[0].file"
    finally:
        pool.close()


# ---- a gateway in this process, its reader endless ---------------------------------------------------
@pytest.fixture
def app(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    from services.gateway.services import matches  # the parser target lives in the service layer

    monkeypatch.setattr(matches, "READ_TARGET", f"{__name__}:endless_read")
    gateway = create_app(
        GatewaySettings(
            api_keys={KEY: {"name": "uploads", "rate_per_s": 1000, "burst": 1000}},
            rules_address="127.0.0.1:9",
            evaluator_address="127.0.0.1:9",
        )  # type: ignore[call-arg]
    )
    gateway.state.parse_pool = small_pool(queue=1, cpu_s=2)
    yield gateway
    gateway.state.parse_pool.close()


def test_the_gateway_answers_while_a_reader_runs_away(app: Any) -> None:
    """While an upload's reader spins in its parser process, /healthz and a light route answer; the
    upload is a 422 naming ``file``; one more upload beyond the queue is a 503 with Retry-After."""

    async def scenario() -> None:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(
            transport=transport, base_url="http://gw", headers={"X-API-Key": KEY}
        ) as c:
            upload = asyncio.create_task(c.post("/v1/matches", files={"file": ("a.mat", b"anything")}))
            while app.state.parse_pool._slots._value:  # until the parse holds the queue's only slot
                await asyncio.sleep(0.01)
            extra = await asyncio.wait_for(c.post("/v1/matches", files={"file": ("b.mat", b"x")}), 30)
            answered = [(extra.status_code, upload.done())]
            for path in ("/healthz", "/v1/matches"):  # the list: from the module's durable store
                r = await asyncio.wait_for(c.get(path), 30)  # a stalled loop would not answer at all
                answered.append((r.status_code, upload.done()))
            slow = await asyncio.wait_for(upload, 120)
            metrics = (await c.get("/metrics")).text
        # an operator sees both: pulvezar_gateway_parse_failures_total{reason}
        assert 'pulvezar_gateway_parse_failures_total{reason="too_slow"} 1.0' in metrics
        assert 'pulvezar_gateway_parse_failures_total{reason="busy"} 1.0' in metrics
        assert answered == [(503, False), (200, False), (200, False)]  # all before the upload's answer
        assert extra.status_code == 503 and extra.headers["Retry-After"], extra.text
        assert slow.status_code == 422, slow.text
        assert slow.json()["errors"] == [{"field": "file", "reason": "the file took too long to read"}]

    run_coroutine(scenario())


# ---- issue 40's hostile .mat through a gateway process -----------------------------------------------
@pytest.fixture(scope="module")
def gateway(gateway_process: Any, redis_server: str) -> Iterator[Any]:
    env = {
        "PULVEZAR_GATEWAY_API_KEYS": json.dumps(
            {KEY: {"name": "uploads", "rate_per_s": 1000, "burst": 1000}}
        ),
        "PULVEZAR_GATEWAY_REDIS_URL": redis_server,
        "PULVEZAR_GATEWAY_PARSE_CPU_S": "2",
        "PULVEZAR_GATEWAY_PARSE_TIMEOUT_S": "30",
    }
    gw = gateway_process(env, key=KEY, timeout_s=300)
    yield gw
    gw.stop()


@pytest.mark.parametrize("route", ["/v1/matches", "/v1/analyses"])
def test_the_hostile_mat_is_a_422_and_the_gateway_answers_meanwhile(gateway: Any, route: str) -> None:
    files = {"file": ("hostile.mat", hostile_mat())}
    answer: list[httpx.Response] = []
    upload = threading.Thread(target=lambda: answer.append(gateway.http.post(route, files=files)))
    upload.start()
    try:
        # a gateway whose loop a reader holds would not answer within the minutes the old pattern took
        assert httpx.get(f"{gateway.base}/healthz", timeout=30).status_code == 200
    finally:
        upload.join(300)
    assert answer and answer[0].status_code == 422, answer and answer[0].text
    assert [e["field"] for e in answer[0].json()["errors"]] == ["file"]
    assert httpx.get(f"{gateway.base}/healthz", timeout=30).status_code == 200


def test_analysis_files_read_ahead_are_not_read_again() -> None:
    """The gateway reads a submission's files in the pool first (its own threads); the store's plan, in a
    thread of the same block, takes those results instead of reading again."""
    from services.gateway.uploads import read_ahead

    pool = small_pool()
    limits = AnalysisJobSettings()  # type: ignore[call-arg]
    good = (Path(__file__).parent / "data" / "gnubg_roll_then_resign_1p.mat").read_bytes()
    junk = {"data": b"\x00junk", "format": "sgf"}
    matches: list[dict[str, Any]] = [{"data": good, "filename": "a.mat"}, junk]

    async def scenario() -> None:
        with isolated(pool) as iso:
            await read_ahead(iso, matches, False, limits)
            assert len(iso.ahead) == 2
            with pytest.raises(InvalidJob) as bad:
                await asyncio.to_thread(plan_job, matches, "0ply", None, False, limits)
            assert bad.value.field == "matches[1].file"
            assert not iso.ahead  # both taken, neither read twice
            await read_ahead(iso, matches[:1], True, limits)
            plan = await asyncio.to_thread(plan_job, matches[:1], "0ply", None, True, limits)
            assert plan[3][0]["players"] and not iso.ahead

    try:
        run_coroutine(scenario())
    finally:
        pool.close()
