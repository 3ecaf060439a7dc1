"""Retention: finished jobs past their age, or past an owner's number of stored jobs, are removed."""

from __future__ import annotations

import time
from pathlib import Path

from services.store import db
from services.store.jobs import JobRecords


def test_expire_by_age_and_by_count_per_owner(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'r.db'}"
    db.upgrade(url)
    r = JobRecords(url)
    now = time.time()
    for i in range(5):
        r.create(f"a{i}", "rollout", {}, owner="alice", created=now + i)
        r.set_state(f"a{i}", "done")
    r.create("a5", "rollout", {}, owner="alice", created=now + 5)  # running: never removed
    r.create("b0", "rollout", {}, owner="bob", created=now)
    r.set_state("b0", "done")
    assert r.expire(3600) == 0  # all young
    assert r.expire(3600, max_per_owner=3) == 3  # alice has 6: her 3 oldest finished go
    assert [j.id for j in r.list("alice")[0]] == ["a5", "a4", "a3"]
    assert r.expire(-1) == 3  # every finished job is older than "-1 s ago"
    assert [j.id for j in r.list("alice")[0]] == ["a5"] and r.list("bob")[0] == []
