"""The drill's client, run inside the client node's namespace (``deploy/cluster/drill.py`` starts it).

``submit``: the drill's jobs through the gateway's REST API; ``watch``: polls them until every one has
ended (or the time is up), writing one JSON line of states per poll, then their final reports; ``stored``:
the rollout jobs' stored values (the job store on Redis and the durable store, as the gateway reads
them), for the bit-for-bit comparison with the library.  Requests go to the gateway's address only, and
every loop is bounded in count and time.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import httpx

JOB_PATHS = {"rollout": "/v1/rollouts", "batch": "/v1/batch-rollouts", "analysis": "/v1/analyses"}


def submit(base: str, key: str, work: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    with httpx.Client(base_url=base, headers={"X-API-Key": key}, timeout=30) as c:
        for name, body in work.items():
            kind = body.pop("_kind")
            for _attempt in range(20):  # the gateway may still be starting: bounded retries
                try:
                    r = c.post(JOB_PATHS[kind], json=body)
                    break
                except httpx.TransportError:
                    time.sleep(0.5)
            else:
                raise SystemExit(f"{name}: the gateway did not answer")
            if r.status_code != 202:
                raise SystemExit(f"{name}: {r.status_code} {r.text}")
            out[name] = {"kind": kind, "id": r.json()["id"], "href": r.headers["Location"], "at": time.time()}
    return out


def watch(base: str, key: str, jobs: dict[str, Any], log: Path, limit_s: float) -> dict[str, Any]:
    """Poll until every job has ended; the final reports.  Transport errors (the gateway restarting)
    and 5xx answers are recorded and retried, up to ``limit_s`` seconds."""
    end = time.monotonic() + limit_s
    final: dict[str, Any] = {}
    errors = 0
    with httpx.Client(base_url=base, headers={"X-API-Key": key}, timeout=10) as c, log.open("a") as f:
        while len(final) < len(jobs) and time.monotonic() < end:
            line: dict[str, Any] = {"t": time.time()}
            for name, job in jobs.items():
                if name in final:
                    continue
                try:
                    r = c.get(job["href"], params={"games": "false"} if job["kind"] == "analysis" else None)
                except httpx.TransportError as e:
                    errors += 1
                    line[name] = f"unreachable: {type(e).__name__}"
                    continue
                if r.status_code != 200:
                    errors += 1
                    line[name] = f"http {r.status_code}"
                    continue
                s = r.json()
                line[name] = {k: s.get(k) for k in ("state", "progress", "chunks_done", "games_done")}
                if s["state"] in ("done", "failed", "cancelled"):
                    full = c.get(job["href"]) if job["kind"] == "analysis" else r
                    final[name] = full.json()
            f.write(json.dumps(line) + "\n")
            f.flush()
            time.sleep(0.5)
    return {"final": final, "poll_errors": errors, "timed_out": len(final) < len(jobs)}


def stored(redis_url: str, database_url: str, jobs: dict[str, Any]) -> dict[str, Any]:
    """What the stores hold of the jobs: the rollout and batch jobs' values (per item, per candidate, as
    lists), the chunks per node, and every chunk's record without its values (job, n, worker, times)."""
    from services.common.redis_url import connect
    from services.jobs.kinds.analysis import Analyses
    from services.jobs.kinds.rollout import Rollouts
    from services.jobs.settings import RolloutSettings
    from services.store.jobs import JobRecords

    settings = RolloutSettings(redis_url=redis_url)
    client = connect(redis_url, decode_responses=True)
    records = JobRecords(database_url)
    rollouts = Rollouts(client, settings=settings, records=records)
    analyses = Analyses(client, app=rollouts.app, settings=settings, records=records)
    out: dict[str, Any] = {"records": []}
    for name, job in jobs.items():
        store: Any = analyses if job["kind"] == "analysis" else rollouts
        if job["kind"] in ("rollout", "batch"):
            out[name] = [[r.values.tolist() for r in item] for item in rollouts.rollout_results(job["id"])]
        count = store.chunk_count(job["id"], store.spec(job["id"]))
        found = store.records_of(job["id"], list(range(count)))
        if len(found) < count:  # the rest from the durable store
            found = {**records.chunks(job["id"]), **found}
        workers: dict[str, int] = {}
        for n, record in sorted(found.items()):
            node = str(record.get("worker", "?")).split(":")[0]
            workers[node] = workers.get(node, 0) + 1
            fields = ("worker", "started", "finished", "seconds")
            out["records"].append({"job": name, "n": n, **{k: record.get(k) for k in fields}})
        out[f"{name}.workers"] = workers
        out[f"{name}.chunks"] = count
    return out


def durable(base: str, key: str, jobs: dict[str, Any], phase: str, limit_s: float) -> dict[str, Any]:
    """What a client reads back of what the platform keeps (before: it also uploads a match and saves a
    library position, and waits for today's daily puzzle): uploads, the archive behind similar
    positions, the library, the daily puzzle, the served opening book, the job listings (its own and,
    as an operator key, the platform's) and the jobs' reports.  Compared before and after Redis is
    emptied, it must not change."""
    import hashlib

    out: dict[str, Any] = {}
    end = time.monotonic() + limit_s
    with httpx.Client(base_url=base, headers={"X-API-Key": key}, timeout=30) as c:

        def get(path: str, **kw: Any) -> httpx.Response:
            while True:  # bounded: the gateway may be reconnecting to a new primary
                try:
                    r = c.request(kw.pop("method", "GET"), path, **kw)
                    if r.status_code < 500 or time.monotonic() > end:
                        return r
                except httpx.TransportError:
                    if time.monotonic() > end:
                        raise
                time.sleep(0.5)

        if phase == "before":
            match = (
                Path(__file__).resolve().parents[2] / "tests" / "formats" / "data" / "test.mat"
            ).read_bytes()
            r = get("/v1/matches", method="POST", files={"file": ("test.mat", match)})
            assert r.status_code == 200, r.text
            r = get(
                "/v1/library/positions", method="POST", json={"position": "4HPwATDgc/ABMA", "name": "start"}
            )
            assert r.status_code in (200, 201), r.text
            while get("/v1/daily/today").status_code == 404 and time.monotonic() < end:
                time.sleep(1)
            # the gateway's own call to the evaluator service on its host (gw -> ev)
            r = get("/v1/evaluate", method="POST", json={"positions": ["4HPwATDgc/ABMA", "sGfwATDgc/ABMA"]})
            out["evaluate"] = (
                [e["equity"] for e in r.json()["evaluations"]] if r.status_code == 200 else r.text
            )
        out["uploads"] = [m["id"] for m in get("/v1/matches").json()["matches"]]
        similar = get("/v1/positions/similar", method="POST", json={"position": "4HPwATDgc/ABMA"}).json()
        out["similar"] = sorted(h["id"] for h in similar["hits"])
        out["library"] = sorted(e["id"] for e in get("/v1/library/positions").json()["positions"])
        daily = get("/v1/daily/today")
        out["daily"] = daily.json() if daily.status_code == 200 else daily.status_code
        book = get("/v1/opening-book")
        out["book"] = (
            hashlib.sha256(book.content).hexdigest() if book.status_code == 200 else book.status_code
        )
        out["jobs"] = [(j["id"], j["kind"], j["state"]) for j in get("/v1/jobs").json()["jobs"]]
        platform = get("/v1/jobs", params={"scope": "platform"}).json()["jobs"]
        out["platform jobs"] = [(j["id"], j["kind"], j["state"]) for j in platform]
        out["reports"] = {name: get(f"{job['href']}/result").json() for name, job in jobs.items()}
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("command", choices=["submit", "watch", "stored", "durable"])
    p.add_argument("--phase", choices=["before", "after"], default="before")
    p.add_argument("--base", default="")
    p.add_argument("--key", default="")
    p.add_argument("--jobs", type=Path, help="JSON: what to submit (submit) or the submitted jobs")
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--log", type=Path)
    p.add_argument("--limit-s", type=float, default=420)
    p.add_argument("--redis-url", default="")
    p.add_argument("--database-url", default="")
    a = p.parse_args(argv)
    given = json.loads(a.jobs.read_text())
    if a.command == "submit":
        result = submit(a.base, a.key, given)
    elif a.command == "watch":
        result = watch(a.base, a.key, given, a.log, a.limit_s)
    elif a.command == "durable":
        result = durable(a.base, a.key, given, a.phase, a.limit_s)
    else:
        result = stored(a.redis_url, a.database_url, given)
    tmp = a.out.with_suffix(".tmp")
    tmp.write_text(json.dumps(result))
    tmp.replace(a.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
