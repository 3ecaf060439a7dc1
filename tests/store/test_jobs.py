"""JobRecords on SQLite and on PostgreSQL: jobs, write-once chunks, states, owner lists, delete, expire."""

from __future__ import annotations

import time

import pytest
from sqlalchemy import func, select, update

from services.store.db import session
from services.store.jobs import JobRecords, decode_cursor, encode_cursor
from services.store.models import Job, JobBlob, JobChunk


def rows(url: str, model: type, job_id: str) -> int:
    with session(url) as s:
        return int(s.scalar(select(func.count()).select_from(model).where(model.job_id == job_id)) or 0)


def test_create_and_get(store_url: str) -> None:
    jobs = JobRecords(store_url)
    spec = {"position": "4HPwATDgc/ABMA", "trials": 1296, "nested": {"dice": [3, 1]}}
    jobs.create(
        "r1", "rollout", spec, owner="k1", priority="interactive", chunk_list=[(0, 0, 648), (0, 648, 648)],
        created=1_000.5, blobs={"upload": b"\x00\x01match"},
    )  # fmt: skip
    row = jobs.get("r1")
    assert row is not None
    assert (row.id, row.kind, row.owner, row.priority, row.state) == (
        "r1",
        "rollout",
        "k1",
        "interactive",
        "queued",
    )
    assert row.spec == spec and row.chunk_list == [[0, 0, 648], [0, 648, 648]]
    assert row.created_at == 1_000.5 and row.finished_at is None and row.error is None
    assert row.updated_at >= row.created_at
    assert jobs.blob("r1", "upload") == b"\x00\x01match" and jobs.blob_names("r1") == ["upload"]
    assert jobs.blob("r1", "other") is None
    assert jobs.get("nope") is None
    assert jobs.count() == 1 and jobs.count("k1") == 1 and jobs.count("k2") == 0
    jobs.put_blob("r1", "upload", b"new")  # a blob is replaced
    jobs.put_blob("r1", "result.json", b"{}")
    assert jobs.blob("r1", "upload") == b"new" and jobs.blob_names("r1") == ["result.json", "upload"]
    assert row.summary()["id"] == "r1" and row.summary()["created"] == 1_000.5


def test_chunks_are_write_once(store_url: str) -> None:
    jobs = JobRecords(store_url)
    jobs.create("r1", "rollout", {}, owner="k1")
    assert jobs.add_chunks("r1", {}) == 0
    assert jobs.add_chunks("r1", {0: {"sum": [0.5]}, 1: {"sum": [0.25]}}) == 2
    assert jobs.get("r1").state == "running"  # type: ignore[union-attr]  # the first chunk starts it
    # a redelivered chunk with other numbers changes nothing; only chunk 2 is new
    assert jobs.add_chunks("r1", {1: {"sum": [9.0]}, 2: {"sum": [0.125]}}) == 1
    assert jobs.add_chunks("r1", {0: {"sum": [9.0]}}) == 0
    assert jobs.chunks("r1") == {0: {"sum": [0.5]}, 1: {"sum": [0.25]}, 2: {"sum": [0.125]}}
    assert jobs.chunk_numbers("r1") == {0, 1, 2}
    assert rows(store_url, JobChunk, "r1") == 3
    assert jobs.chunks("other") == {}


def test_states(store_url: str) -> None:
    jobs = JobRecords(store_url)
    jobs.create("a", "analysis", {}, owner="k1")
    jobs.set_state("a", "running")
    a = jobs.get("a")
    assert a is not None and a.state == "running" and a.finished_at is None
    before = time.time()
    jobs.set_state("a", "done")
    a = jobs.get("a")
    assert a is not None and a.state == "done" and a.finished_at is not None and a.finished_at >= before - 1
    # a final state is kept: neither another final state nor running changes it
    jobs.set_state("a", "failed", error="late")
    jobs.set_state("a", "running")
    a2 = jobs.get("a")
    assert a2 is not None and (a2.state, a2.error, a2.finished_at) == ("done", None, a.finished_at)

    jobs.create("b", "rollout", {})
    jobs.set_state("b", "failed", error="worker lost")
    b = jobs.get("b")
    assert b is not None and (b.state, b.error) == ("failed", "worker lost") and b.finished_at is not None
    # extend: a finished job runs again with more chunks
    jobs.reopen("b", [(0, 0, 10), (0, 10, 10)])
    b = jobs.get("b")
    assert b is not None and (b.state, b.finished_at, b.chunk_list) == (
        "running",
        None,
        [[0, 0, 10], [0, 10, 10]],
    )
    assert [j.id for j in jobs.unfinished()] == ["b"]
    assert jobs.unfinished(kinds=["analysis"]) == []


def test_list_newest_first_with_filters_and_cursors(store_url: str) -> None:
    jobs = JobRecords(store_url)
    kinds = ["rollout", "analysis", "batch"]
    expected = []
    for i in range(23):
        created = 1_000.0 + i // 3  # three jobs per second: ties broken by id
        job_id = f"j{i:02d}"
        jobs.create(job_id, kinds[i % 3], {"i": i}, owner="alice", created=created)
        expected.append((created, job_id))
        if i % 4 == 0:
            jobs.set_state(job_id, "done")
    jobs.create("other", "rollout", {}, owner="bob", created=5_000.0)
    jobs.create("anon", "rollout", {}, owner=None, created=5_000.0)
    expected.sort(reverse=True)

    seen: list[str] = []
    cursor = None
    pages = 0
    while True:
        page, cursor = jobs.list("alice", limit=5, cursor=cursor)
        pages += 1
        seen.extend(j.id for j in page)
        assert all(j.owner == "alice" for j in page)
        if cursor is None:
            break
    assert pages == 5 and len(seen) == len(set(seen)) == 23  # no duplicates, no gaps
    assert seen == [job_id for _, job_id in expected]  # newest first, by id within a second

    page, cursor = jobs.list("alice", limit=23)
    assert len(page) == 23 and cursor is None
    page, cursor = jobs.list("alice", kinds=["analysis"], limit=100)
    assert {j.kind for j in page} == {"analysis"} and len(page) == 8
    done, _ = jobs.list("alice", states=["done"], limit=100)
    assert sorted(j.id for j in done) == [f"j{i:02d}" for i in range(0, 23, 4)]
    both, _ = jobs.list("alice", kinds=["rollout"], states=["queued"], limit=100)
    assert {(j.kind, j.state) for j in both} == {("rollout", "queued")}
    assert len(both) == len([i for i in range(23) if i % 3 == 0 and i % 4 != 0])
    # paging a filtered list
    first, cur = jobs.list("alice", kinds=["batch"], limit=3)
    rest, cur2 = jobs.list("alice", kinds=["batch"], limit=100, cursor=cur)
    assert cur2 is None and len(first) + len(rest) == 7 and not {j.id for j in first} & {j.id for j in rest}
    assert [j.id for j in jobs.list("bob")[0]] == ["other"]
    assert [j.id for j in jobs.list(None)[0]] == ["anon"]
    assert jobs.list("nobody") == ([], None)

    for bad in ("!!!", "abc", encode_cursor(1.0, "x")[:-3] + "###", ""):
        with pytest.raises(ValueError):
            jobs.list("alice", cursor=bad)
    assert decode_cursor(encode_cursor(1_001.0, "j05")) == (1_001.0, "j05")


def test_delete_takes_chunks_and_blobs(store_url: str) -> None:
    jobs = JobRecords(store_url)
    jobs.create("a", "analysis", {}, owner="k1", blobs={"upload": b"x", "result.json": b"{}"})
    jobs.add_chunks("a", {0: {"r": 1}, 1: {"r": 2}})
    jobs.create("b", "analysis", {}, owner="k1", blobs={"upload": b"y"})
    jobs.add_chunks("b", {0: {"r": 3}})
    assert jobs.delete("a") is True
    assert jobs.get("a") is None and jobs.chunks("a") == {} and jobs.blob_names("a") == []
    assert rows(store_url, JobChunk, "a") == 0 and rows(store_url, JobBlob, "a") == 0
    assert jobs.delete("a") is False
    assert (
        jobs.get("b") is not None and jobs.chunks("b") == {0: {"r": 3}} and jobs.blob("b", "upload") == b"y"
    )


def test_expire_removes_old_finished_jobs(store_url: str) -> None:
    jobs = JobRecords(store_url)
    for job_id in ("old-done", "old-failed", "new-done", "old-running"):
        jobs.create(job_id, "rollout", {}, owner="k1", blobs={"b": b"1"})
        jobs.add_chunks(job_id, {0: {"r": 0}})
    jobs.set_state("old-done", "done")
    jobs.set_state("old-failed", "failed", error="x")
    jobs.set_state("new-done", "done")
    long_ago = time.time() - 10 * 86_400
    with session(store_url) as s:
        s.execute(update(Job).where(Job.id.in_(["old-done", "old-failed"])).values(finished_at=long_ago))
        s.execute(update(Job).where(Job.id == "old-running").values(created_at=long_ago, updated_at=long_ago))
    assert jobs.expire(older_than_s=86_400) == 2
    assert jobs.get("old-done") is None and jobs.get("old-failed") is None
    assert rows(store_url, JobChunk, "old-done") == 0 and rows(store_url, JobBlob, "old-failed") == 0
    assert {j.id for j in jobs.list("k1", limit=10)[0]} == {"new-done", "old-running"}  # unfinished stay
    assert jobs.expire(older_than_s=86_400) == 0


def test_a_job_completes_when_its_last_chunk_is_stored(store_url: str) -> None:
    """``complete_if_done`` counts the stored chunks against the chunk list's length (read in SQL)."""
    records = JobRecords(store_url)
    records.create("c", "rollout", {}, chunk_list=[[0, 0, 72], [0, 72, 72], [0, 144, 72]])
    records.add_chunks("c", {0: {"v": 0}, 1: {"v": 1}})
    assert not records.complete_if_done("c") and records.get("c").state == "running"  # type: ignore[union-attr]
    records.add_chunks("c", {2: {"v": 2}})
    assert records.complete_if_done("c")
    row = records.get("c")
    assert row is not None and row.state == "done" and row.finished_at is not None
    assert records.complete_if_done("c")  # done stays done
    records.create("empty", "rollout", {}, chunk_list=[])
    assert records.complete_if_done("empty")  # nothing to do: done at once
    records.create("daily-1", "daily", {})  # no chunk list at all (JSON null): never done by chunks
    records.add_chunks("daily-1", {0: {"v": 0}})
    assert not records.complete_if_done("daily-1") and records.get("daily-1").state == "running"  # type: ignore[union-attr]
    assert not records.complete_if_done("nobody")
    records.set_state("daily-1", "failed", "x")
    assert not records.complete_if_done("daily-1")
