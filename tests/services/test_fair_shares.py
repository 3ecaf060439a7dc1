"""The fair scheduler (services/jobs/scheduler.py): its Lua scripts on a real Redis, then real workers.

The first tests drive :class:`FairScheduler` directly, with a recorder in place of the Celery app (what
is sent, in which order); the last one floods the shared platform's two workers with 50 jobs of one key
and measures how long another key's job waits for its first chunk.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

redis = pytest.importorskip("redis")

from procutil import wait_until  # noqa: E402
from shared_platform import CHUNK, LIMITED, LIMITED_KEY  # noqa: E402

from services.common.owners import owner_of  # noqa: E402
from services.jobs.scheduler import FairScheduler  # noqa: E402

START = "4HPwATDgc/ABMA"


class Recorder:
    """Stands in for the Celery app: records ``send_task`` calls."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, list[Any], str]] = []

    def send_task(self, name: str, args: list[Any], queue: str) -> None:
        self.sent.append((name, list(args), queue))


@pytest.fixture
def r(redis_server: str) -> Iterator[Any]:
    client = redis.Redis.from_url(redis_server, decode_responses=True)
    client.flushdb()
    yield client
    client.flushdb()


def scheduler(r: Any, lease_s: float = 30.0) -> tuple[FairScheduler, Recorder]:
    app = Recorder()
    return FairScheduler(r, app, lease_s=lease_s), app


def add(s: FairScheduler, job: str, numbers: Any, owner: str | None, priority: str = "batch") -> None:
    s.add(
        job,
        numbers,
        task="t",
        prefix=["kind"],
        queue=f"q.{priority}",
        priority=priority,
        owner=owner,
        cancel_key=f"x:{job}:cancel",
        ttl_s=600,
    )


def run_one(s: FairScheduler, app: Recorder) -> tuple[str, int]:
    """Feed (one slot free), then end the chunk sent: ``(job, n)``."""
    before = len(app.sent)
    s.feed()
    assert len(app.sent) == before + 1, "one chunk sent for the one free slot"
    _name, args, _queue = app.sent[-1]
    job, n = args[-2], args[-1]
    s.release(job, n)
    return job, n


def test_owners_take_turns_and_a_flood_does_not_delay_another_owner(r: Any) -> None:
    s, app = scheduler(r)
    s.register("w1", 1, 60)
    for i in range(50):
        add(s, f"a{i:02d}", range(2), "flooder")
    add(s, "b", range(3), "other")
    assert s.backlog() == {"interactive": 0, "batch": 103}
    order = [run_one(s, app) for _ in range(8)]
    assert s.backlog() == {"interactive": 0, "batch": 95}
    # the flooder's jobs first come first served among themselves; the other owner every second chunk
    assert order == [("a00", 0), ("b", 0), ("a00", 1), ("b", 1), ("a01", 0), ("b", 2), ("a01", 1), ("a02", 0)]
    name, args, queue = app.sent[0]
    assert (name, args, queue) == ("t", ["kind", "a00", 0], "q.batch")


def test_shares_weight_the_turns(r: Any) -> None:
    s, app = scheduler(r)
    s.register("w1", 1, 60)
    s.set_share("big", 3)
    add(s, "big", range(10), "big")
    add(s, "small", range(10), "small")
    owners = [run_one(s, app)[0] for _ in range(8)]
    assert owners == ["big", "big", "big", "small", "big", "big", "big", "small"]
    with pytest.raises(ValueError):
        s.set_share("big", 0)


def test_interactive_chunks_go_before_batch_ones(r: Any) -> None:
    s, app = scheduler(r)
    s.register("w1", 1, 60)
    add(s, "batch", range(3), "a")
    assert run_one(s, app) == ("batch", 0)
    add(s, "live", range(2), "b", priority="interactive")
    assert [run_one(s, app) for _ in range(4)] == [("live", 0), ("live", 1), ("batch", 1), ("batch", 2)]
    assert app.sent[1][2] == "q.interactive"


def test_chunks_are_sent_only_for_free_slots_of_live_workers(r: Any) -> None:
    s, _app = scheduler(r)
    add(s, "j", range(10), "a")
    assert s.feed() == [] and s.capacity() == 0  # no worker: nothing goes out
    s.register("w1", 2, 60)
    assert [x.n for x in s.feed()] == [0, 1]
    assert s.feed() == [] and s.leases() == 2  # both slots busy
    s.release("j", 0)
    assert [x.n for x in s.feed()] == [2]
    s.register("w2", 1, 0.3)  # a worker that stops beating
    assert [x.n for x in s.feed()] == [3]
    for n in (1, 2, 3):
        s.release("j", n)
    time.sleep(0.5)
    assert [x.n for x in s.feed()] == [4, 5]  # w2's slot is gone with it
    assert s.capacity() == 2 and s.pending("j") == 4
    s.unregister("w1")
    s.release("j", 4)
    assert s.feed() == []


def test_a_lost_chunk_comes_back_first_when_its_lease_expires(r: Any) -> None:
    s, _app = scheduler(r, lease_s=2.0)
    s.register("w1", 1, 60)
    add(s, "j", range(5), "a")
    assert [x.n for x in s.feed()] == [0]
    for _ in range(5):  # renewed by its (living) worker: not sent again
        time.sleep(0.1)
        assert s.renew("j", 0)
        assert s.feed() == []
    time.sleep(2.5)  # its worker is gone: no renewal
    assert [x.n for x in s.feed()] == [0]  # sent again, before chunk 1
    s.release("j", 0)
    assert [x.n for x in s.feed()] == [1]
    s.release("j", 1)
    assert not s.renew("j", 1)  # a released lease is not renewed back into existence


def test_cancelled_and_deleted_jobs_send_nothing_more(r: Any) -> None:
    s, app = scheduler(r)
    s.register("w1", 1, 60)
    add(s, "c", range(5), "a")
    add(s, "d", range(5), "a")
    add(s, "k", range(2), "b")
    assert run_one(s, app) == ("c", 0)
    r.set("x:c:cancel", "1")
    s.forget("d")
    assert [run_one(s, app) for _ in range(2)] == [("k", 0), ("k", 1)]
    assert s.feed() == [] and r.llen("sched:rr:batch") == 0  # nothing left anywhere


def test_added_chunks_extend_the_range_or_run_first(r: Any) -> None:
    s, app = scheduler(r)
    s.register("w1", 1, 60)
    add(s, "j", range(3), "a")
    assert [run_one(s, app) for _ in range(2)] == [("j", 0), ("j", 1)]
    add(s, "j", range(3, 5), None)  # an extension: the range grows
    add(s, "j", [0], None)  # a chunk to run again (its record was lost): first
    assert s.pending("j") == 4
    assert [run_one(s, app)[1] for _ in range(4)] == [0, 2, 3, 4]
    assert s.feed() == [] and s.knows("j")
    add(s, "j", [7, 9], None)  # after draining: listed again
    assert [run_one(s, app)[1] for _ in range(2)] == [7, 9]
    assert json.loads(r.hget("sched:job:j", "prefix")) == ["kind"] and r.hget("sched:job:j", "owner") == "a"


# ---- real workers ------------------------------------------------------------------------------------


def test_a_flooding_key_delays_another_keys_first_chunk_by_about_one_chunk(shared_platform: Any) -> None:
    """50 jobs of one key, then one of another, on the shared platform's two workers: the second key's
    chunk starts at the next free slot, not after the flood (first come, first served would make it wait
    for all 100 of the flood's chunks)."""
    shared_platform.ready(2)
    store = shared_platform.store
    item = {"position": START, "trials": 2 * CHUNK, "truncate": 8}
    flood = [
        store.submit({**item, "seed": 500 + i, "priority": "batch"}, owner="fair-flooder") for i in range(50)
    ]
    wait_until(lambda: store.status(flood[0])["chunks_done"] >= 1, 60, "the flood to run")
    submitted = time.time()
    other = store.submit({**item, "trials": CHUNK, "seed": 7}, owner="fair-other")
    wait_until(lambda: store.status(other)["state"] == "done", 60, "the other key's job")
    waited = json.loads(store.redis.get(f"job:{other}:chunk:0"))["started"] - submitted
    seconds = [
        json.loads(raw)["seconds"]
        for job in flood
        for raw in store.redis.mget([f"job:{job}:chunk:0", f"job:{job}:chunk:1"])
        if raw is not None
    ]
    done = sum(store.status(job)["state"] == "done" for job in flood)
    for job in flood:
        store.cancel(job)
    wait_until(shared_platform.queues_empty, 60, "the cancelled flood to drain", every=0.1)
    print(f"fair shares: waited {waited:.2f} s, longest flood chunk {max(seconds):.2f} s, flood done {done}")
    assert done < 40, "the other key's job overtook the flood"
    # at most one chunk of the flood ran to its end first (plus a second of slack for a loaded machine)
    assert waited <= max(seconds) + 1.0, (waited, max(seconds))


def test_a_keys_limits_on_unfinished_work_and_its_share_through_the_gateway(shared_platform: Any) -> None:
    """The gateway refuses a key's job beyond its unfinished jobs or queued trials (429 naming the limit,
    nothing recorded), accepts again once a job ends, and gives the scheduler the key's share."""
    shared_platform.ready(2)
    owner = owner_of(LIMITED_KEY)
    assert shared_platform.store.redis.hget("sched:share", owner) == str(LIMITED["share"])
    body = {"position": START, "trials": 3 * CHUNK, "truncate": 30, "priority": "batch"}
    with httpx.Client(base_url=shared_platform.base, headers={"X-API-Key": LIMITED_KEY}, timeout=30) as c:
        first = c.post("/v1/rollouts", json={**body, "trials": 4 * CHUNK})
        assert first.status_code == 202, first.text
        over = c.post("/v1/rollouts", json=body)  # 288 + 216 trials > 400
        assert over.status_code == 429 and over.json()["type"].endswith("too-many-trials"), over.text
        assert "400" in over.json()["detail"] and over.headers["Retry-After"]
        second = c.post("/v1/rollouts", json={**body, "trials": CHUNK})
        assert second.status_code == 202, second.text
        third = c.post("/v1/rollouts", json={**body, "trials": CHUNK})  # a third unfinished job
        assert third.status_code == 429 and third.json()["type"].endswith("too-many-jobs"), third.text
        listed = c.get("/v1/jobs").json()
        assert len([j for j in listed["jobs"] if j["kind"] == "rollout"]) == 2  # nothing recorded
        assert c.delete(f"/v1/rollouts/{first.json()['id']}").status_code in (200, 202, 204)
        again = c.post("/v1/rollouts", json={**body, "trials": CHUNK})
        assert again.status_code == 202, again.text
        for job in (second, again):
            c.delete(f"/v1/rollouts/{job.json()['id']}")
    wait_until(shared_platform.queues_empty, 60, "the cancelled jobs to drain", every=0.1)


def test_chunks_are_cut_to_about_a_chunks_time() -> None:
    """The estimate behind chunks of a few seconds: 25 ms a whole 0-ply trial of one candidate, the
    truncated share of a game, 0.3 s a half-move at 1 ply with variance reduction and 15 ms without;
    candidates are grouped first, and a candidate or position too slow alone is cut into shorter runs
    of trials."""
    from services.jobs.rollout_items import chunk_cut

    plays = [{"play": f"p{i}", "position_id": f"x{i}"} for i in range(16)]
    whole = {"plays": plays, "truncate": None, "ply": 0}
    one_each = [(i, i + 1) for i in range(16)]
    assert chunk_cut(whole, 72, 3.0) == (72, one_each)  # 1.8 s a candidate
    assert chunk_cut({**whole, "truncate": 10}, 72, 3.0) == (72, [(0, 10), (10, 16)])  # 0.3 s each
    assert chunk_cut({**whole, "plays": plays[:3], "truncate": 10}, 72, 3.0) == (72, None)
    assert chunk_cut({**whole, "truncate": 4, "ply": 1}, 72, 3.0) == (2, one_each)  # 1.2 s a trial
    assert chunk_cut({**whole, "ply": 1}, 72, 3.0) == (1, one_each)  # 18 s: one trial, no less
    plain = {**whole, "ply": 1, "truncate": 4, "variance_reduction": False}
    assert chunk_cut(plain, 72, 3.0) == (50, one_each)  # 60 ms a trial
    assert chunk_cut({**whole, "plays": None}, 72, 3.0) == (72, None)
    assert chunk_cut({**plain, "plays": None}, 72, 3.0) == (50, None)
    assert chunk_cut({**whole, "kind": "cube"}, 72, 3.0) == (60, None)  # two lines: 50 ms a trial
    assert chunk_cut({**whole, "kind": "cube", "truncate": 6}, 72, 3.0) == (72, None)
