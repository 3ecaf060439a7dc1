"""Similar positions, the position library and the daily puzzles over real processes.

Redis, the durable store (an SQLite file, ``PULVEZAR_DATABASE_URL``), a gateway (uvicorn subprocess; no
Rules or Evaluator service: these routes need neither) and one rollout worker (Celery, a small untrained
net, tiny daily settings) run on free ports.  Each API key has its own archive: it is filled through
:meth:`services.store.archive.SqlArchive.add_match_positions` under the key's owner (as the analysis jobs
do) and the library through the REST API; hits are compared with :class:`pulvezar.archive.ArchiveIndex`
here.  The daily task runs in the worker (sent like the beat schedule sends it) and its puzzles are
served by the gateway; running it again changes nothing (write-once).  A second gateway on the same
store sees the same archive and the same puzzles.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
import numpy as np
import pytest

pytest.importorskip("celery")
redis = pytest.importorskip("redis")
pytest.importorskip("sqlalchemy")

from pulvezar import XGID, Position, PulvezarError, Rules  # noqa: E402
from pulvezar.archive.similar import ArchiveEntry, ArchiveIndex  # noqa: E402
from services.gateway.security import owner_of  # noqa: E402
from services.store.archive import DailyRecords, SqlArchive, library_entry, match_entry  # noqa: E402

if TYPE_CHECKING:
    from conftest import GatewayProcess

from procutil import wait_until  # noqa: E402
from rollout_workers import Worker  # noqa: E402

KEY = "archive-key"
OTHER_KEY = "other-archive-key"
OWNER = owner_of(KEY)
PROBLEM = "application/problem+json"
DAILY_ENV = {
    "PULVEZAR_DAILY_GAMES": "2",
    "PULVEZAR_DAILY_TRIALS": "36",
    "PULVEZAR_DAILY_TRUNCATE": "4",
    "PULVEZAR_DAILY_CUBE_TRIALS": "36",
    "PULVEZAR_DAILY_CUBE_TRUNCATE": "4",
    "PULVEZAR_DAILY_MAX_SCREENED": "6",
    "PULVEZAR_DAILY_SCREEN_PLY": "1",
    "PULVEZAR_DAILY_CUBE_SCREEN_PLY": "0",
    "PULVEZAR_DAILY_ON_START": "1",
}


def fields(r: httpx.Response, status: int = 422) -> list[str]:
    assert r.status_code == status, r.text
    assert r.headers["content-type"] == PROBLEM
    return [e["field"] for e in r.json().get("errors", [])]


@pytest.fixture(scope="module")
def redis_url(redis_server: str) -> str:
    return redis_server


@pytest.fixture(scope="module")
def r(redis_url: str) -> Any:
    return redis.Redis.from_url(redis_url, decode_responses=True)


def archive_gateway(
    gateway_process: type[GatewayProcess], redis_url: str, database_url: str
) -> GatewayProcess:
    """A gateway on the module's Redis and durable store; no Rules or Evaluator service: these routes need
    neither."""
    limits = {"rate_per_s": 1000, "burst": 1000}
    env = {
        "PULVEZAR_GATEWAY_REDIS_URL": redis_url,
        "PULVEZAR_GATEWAY_API_KEYS": json.dumps(
            {KEY: {"name": "archive", **limits}, OTHER_KEY: {"name": "other", **limits}}
        ),
        "PULVEZAR_DATABASE_URL": database_url,
    }
    return gateway_process(env, key=KEY)


@pytest.fixture(scope="module")
def database_url(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The durable store of this module: an SQLite file at the newest revision."""
    from services.store.db import upgrade

    url = f"sqlite:///{tmp_path_factory.mktemp('store') / 'pulvezar.db'}"
    upgrade(url)
    return url


@pytest.fixture(scope="module")
def gateway(
    gateway_process: type[GatewayProcess], redis_url: str, database_url: str
) -> Iterator[GatewayProcess]:
    g = archive_gateway(gateway_process, redis_url, database_url)
    yield g
    g.stop()


def game_positions(n: int, seed: int) -> list[tuple[Position, tuple[int, int], str]]:
    """Decisions along random-play games: (position, dice, play made)."""
    rng = np.random.default_rng(seed)
    rules = Rules.international()
    out = []
    p = Position.start()
    while len(out) < n:
        if rules.game_result(p) is not None:
            p = Position.start()
        dice = (int(rng.integers(1, 7)), int(rng.integers(1, 7)))
        plays = rules.legal_plays(p, dice)
        play = plays[int(rng.integers(len(plays)))]
        out.append((p, dice, play.notation))
        p = play.position.swap()
    return out


def match_entries(match: str, decisions: list[tuple[Position, tuple[int, int], str]]) -> list[dict[str, Any]]:
    return [
        {
            "match": match,
            "game": 1 + i // 40,
            "move": 1 + i % 40,
            "position_id": p.position_id,
            "date": "2026-11-28",
            "play": play,
            "dice": list(dice),
        }
        for i, (p, dice, play) in enumerate(decisions)
    ]


# ---- the archive ------------------------------------------------------------------------------------


def test_add_match_positions_validates_before_writing(database_url: str) -> None:
    store = SqlArchive(database_url, "validating-owner")
    before = store.version()
    good = match_entries("bad-batch", game_positions(3, seed=1))
    bad = [*good[:1], {**good[1], "date": "2026-02-30"}, good[2]]
    with pytest.raises(PulvezarError) as err:
        store.add_match_positions(bad)
    assert err.value.field == "entries[1].date"
    with pytest.raises(PulvezarError) as err:
        store.add_match_positions([{**good[0], "colour": "red"}])
    assert err.value.field == "entries[0].colour"
    with pytest.raises(PulvezarError) as err:
        store.add_match_positions([{k: v for k, v in good[0].items() if k != "move"}])
    assert err.value.field == "entries[0].move"
    assert store.version() == before
    assert store.get_entry("match:bad-batch:1:1") is None


@pytest.fixture(scope="module")
def analysed_m1(database_url: str) -> tuple[list[tuple[Position, tuple[int, int], str]], list[Any], int]:
    """The 150 decisions of match ``m1`` in this key's archive (once per module, whichever test asks first):
    the decisions, their entries and how many the archive took."""
    decisions = game_positions(150, seed=5)
    entries = match_entries("m1", decisions)
    return decisions, entries, SqlArchive(database_url, OWNER).add_match_positions(entries)


def test_similar_positions_from_analysed_matches(analysed_m1: Any, gateway: GatewayProcess) -> None:
    decisions, entries, added = analysed_m1
    assert added == 150
    local = ArchiveIndex(match_entry(e) for e in entries)
    for q, _, _ in (decisions[10], decisions[99]):
        res = gateway.http.post("/v1/positions/similar", json={"position": q.position_id})
        assert res.status_code == 200, res.text
        body = res.json()
        assert body["position_id"] == q.position_id and body["archive_size"] >= 150
        want = local.query(q)
        assert [h["id"] for h in body["hits"]] == [h.entry.id for h in want]
        assert [h["percent"] for h in body["hits"]] == [h.percent for h in want]
        assert 1 <= len(body["hits"]) <= 12 and body["hits"][0]["percent"] == 100
        assert all(h["similarity"] >= 0.6 for h in body["hits"])
        top = body["hits"][0]
        assert top["source"] == "match" and top["match"] == "m1" and top["kind"] and top["play"] is not None
        assert top["game"] >= 1 and top["move"] >= 1 and top["date"] == "2026-11-28"
    # a lower threshold, a smaller limit, a rule-set filter and an exclusion
    q = decisions[42][0]
    res = gateway.http.post(
        "/v1/positions/similar", json={"position": q.position_id, "limit": 5, "min_similarity": 0.0}
    )
    assert [h["id"] for h in res.json()["hits"]] == [h.entry.id for h in local.query(q, 5, 0.0)]
    tavla = {"position": q.position_id, "rules": {"variant": "tavla"}, "min_similarity": 0.0}
    assert gateway.http.post("/v1/positions/similar", json=tavla).json()["hits"] == []
    first = local.query(q)[0].entry.id
    res = gateway.http.post("/v1/positions/similar", json={"position": q.position_id, "exclude": [first]})
    assert first not in [h["id"] for h in res.json()["hits"]]


def test_the_index_follows_the_archive(database_url: str, gateway: GatewayProcess) -> None:
    q = Position.from_points({6: 3, 5: 3, 4: 3, 3: 2, 2: 2, 1: 2}, {6: 2, 5: 2, 4: 2, 18: 1})
    body = {"position": q.position_id}
    before = [h["id"] for h in gateway.http.post("/v1/positions/similar", json=body).json()["hits"]]
    assert "match:late:1:1" not in before
    store = SqlArchive(database_url, OWNER)
    store.add_match_positions([{"match": "late", "game": 1, "move": 1, "position_id": q.position_id}])
    hits = gateway.http.post("/v1/positions/similar", json=body).json()["hits"]
    assert hits[0]["id"] == "match:late:1:1" and hits[0]["percent"] == 100
    assert store.delete_entry("match:late:1:1")
    after = [h["id"] for h in gateway.http.post("/v1/positions/similar", json=body).json()["hits"]]
    assert after == before


def test_similar_bad_input(gateway: GatewayProcess) -> None:
    post = gateway.http.post
    assert fields(post("/v1/positions/similar", json={"position": "nonsense"})) == ["position"]
    assert fields(post("/v1/positions/similar", json={"position": "4HPwATDgc/ABMA", "limit": 13})) == [
        "limit"
    ]
    assert fields(
        post("/v1/positions/similar", json={"position": "4HPwATDgc/ABMA", "min_similarity": 2})
    ) == ["min_similarity"]
    bad_rules = {"position": "4HPwATDgc/ABMA", "rules": {"variant": "chess"}}
    assert fields(post("/v1/positions/similar", json=bad_rules)) == ["rules.variant"]
    assert fields(post("/v1/positions/similar", json={})) == ["position"]


def test_library_save_once_list_get_delete(
    gateway: GatewayProcess, gateway_process: type[GatewayProcess], redis_url: str, database_url: str
) -> None:
    http = gateway.http
    pos = Position.from_points({24: 2, 13: 5, 8: 3, 6: 4, 5: 1}, {24: 2, 13: 5, 8: 3, 6: 5})
    xgid = str(XGID.from_position(pos, dice=(6, 4), score=(1, 2), match_length=7))
    body = {
        "position": xgid, "name": "Slot play", "tags": ["opening", "slot"], "note": "5 point slotted",
        "play": "13/7  8/4",
    }  # fmt: skip
    res = http.post("/v1/library/positions", json=body)
    assert res.status_code == 201, res.text
    saved = res.json()
    assert saved["created"] and saved["id"].startswith("lib:") and saved["source"] == "library"
    assert saved["dice"] == [6, 4] and saved["match_id"] and saved["position_id"] == pos.position_id
    assert saved["tags"] == ["opening", "slot"] and saved["date"] and saved["kind"] == "opening"
    assert saved["play"] == "13/7 8/4"  # checked against the dice and written canonically
    assert res.headers["Location"] == f"/v1/library/positions/{saved['id']}"
    # the same position and match state: not saved twice
    again = http.post("/v1/library/positions", json={**body, "name": "Other name"})
    assert again.status_code == 200 and not again.json()["created"]
    assert again.json()["id"] == saved["id"] and again.json()["name"] == "Slot play"
    # the same position without a match state is another entry
    plain = http.post(
        "/v1/library/positions", json={"position": pos.position_id, "name": "plain", "date": "2026-01-02"}
    )
    assert plain.status_code == 201 and plain.json()["id"] != saved["id"] and plain.json()["match_id"] is None
    listed = http.get("/v1/library/positions").json()["positions"]
    assert {e["id"] for e in listed} >= {saved["id"], plain.json()["id"]}
    got = http.get(f"/v1/library/positions/{saved['id']}")
    assert got.status_code == 200 and got.json()["note"] == "5 point slotted"
    # the library is part of the archive: similar positions find it, and it can be left out
    sim = http.post("/v1/positions/similar", json={"position": pos.position_id}).json()["hits"]
    assert {saved["id"], plain.json()["id"]} <= {h["id"] for h in sim if h["percent"] == 100}
    assert next(h for h in sim if h["id"] == saved["id"])["name"] == "Slot play"
    # it survives a gateway restart (the archive is in the durable store)
    other = archive_gateway(gateway_process, redis_url, database_url)
    try:
        assert saved["id"] in {e["id"] for e in other.http.get("/v1/library/positions").json()["positions"]}
        sim2 = other.http.post("/v1/positions/similar", json={"position": pos.position_id}).json()["hits"]
        assert [h["id"] for h in sim2] == [h["id"] for h in sim]
    finally:
        other.stop()
    assert http.delete(f"/v1/library/positions/{saved['id']}").status_code == 204
    assert fields(http.get(f"/v1/library/positions/{saved['id']}"), 404) == ["entry_id"]
    assert fields(http.delete(f"/v1/library/positions/{saved['id']}"), 404) == ["entry_id"]
    assert fields(http.delete("/v1/library/positions/match:m1:1:1"), 404) == ["entry_id"]
    # matches are not the library's to delete
    assert SqlArchive(database_url, OWNER).get_entry("match:m1:1:1") is not None
    sim3 = http.post("/v1/positions/similar", json={"position": pos.position_id}).json()["hits"]
    assert saved["id"] not in {h["id"] for h in sim3}


def check_library_changes(http: httpx.Client) -> None:
    """PATCH a saved position's name, tags and note; search the library by name, tag, note, date and ID,
    filter by rule set, and page through it with a cursor (issue 29)."""
    made = []
    for i, q in enumerate(game_positions(12, seed=29)[:6]):
        body = {
            "position": q[0].position_id,
            "name": f"zq{i} study",
            "tags": ["zqtag"],
            "date": f"2026-03-0{i + 1}",
        }
        if i == 5:
            body["rules"] = {"variant": "tavla"}
        res = http.post("/v1/library/positions", json=body)
        assert res.status_code in (200, 201), res.text
        made.append(res.json())
    changed = http.patch(
        f"/v1/library/positions/{made[0]['id']}", json={"name": "zq renamed", "note": "bear-in"}
    )
    assert changed.status_code == 200, changed.text
    assert (changed.json()["name"], changed.json()["note"], changed.json()["tags"]) == (
        "zq renamed",
        "bear-in",
        ["zqtag"],
    )
    assert http.get(f"/v1/library/positions/{made[0]['id']}").json()["name"] == "zq renamed"
    retagged = http.patch(
        f"/v1/library/positions/{made[1]['id']}", json={"tags": ["zqprime"], "note": ""}
    ).json()
    assert retagged["tags"] == ["zqprime"] and retagged["note"] is None and retagged["name"] == "zq1 study"

    def ids(**params: Any) -> list[str]:
        return [e["id"] for e in http.get("/v1/library/positions", params=params).json()["positions"]]

    assert ids(q="bear-IN") == [made[0]["id"]]  # the note, any case
    assert ids(q="zqprime") == [made[1]["id"]]  # a tag
    assert ids(q="2026-03-03") == [made[2]["id"]]  # the date
    assert ids(q=made[3]["position_id"]) == [made[3]["id"]]  # the Position ID
    assert ids(q="zq", rules="tavla") == [made[5]["id"]]
    assert made[5]["id"] not in ids(q="zq", rules="international")
    pages, cursor = [], None
    while True:
        page = http.get(
            "/v1/library/positions", params={"q": "zq", "limit": 2, **({"cursor": cursor} if cursor else {})}
        ).json()
        pages.append([e["id"] for e in page["positions"]])
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert [len(p) for p in pages] == [2, 2, 2] and [i for p in pages for i in p] == ids(q="zq")
    assert fields(http.get("/v1/library/positions", params={"cursor": "nope"})) == ["cursor"]
    assert fields(http.patch(f"/v1/library/positions/{made[0]['id']}", json={"name": ""})) == ["name"]
    assert fields(http.patch("/v1/library/positions/lib:0000000000000000", json={"name": "x"}), 404) == [
        "entry_id"
    ]
    for e in made:
        assert http.delete(f"/v1/library/positions/{e['id']}").status_code == 204


def test_library_changes_search_and_pages(gateway: GatewayProcess) -> None:
    check_library_changes(gateway.http)


def test_archives_are_per_key(analysed_m1: Any, gateway: GatewayProcess) -> None:
    """Another key sees neither the analysed matches nor the library of this one."""
    other = httpx.Client(base_url=gateway.base, headers={"X-API-Key": OTHER_KEY}, timeout=60)
    try:
        q = game_positions(150, seed=5)[10][0]
        mine = gateway.http.post("/v1/positions/similar", json={"position": q.position_id}).json()
        assert mine["hits"] and mine["archive_size"] >= 150
        theirs = other.post("/v1/positions/similar", json={"position": q.position_id})
        assert theirs.status_code == 200, theirs.text
        assert theirs.json()["hits"] == [] and theirs.json()["archive_size"] == 0
        saved = gateway.http.post("/v1/library/positions", json={"position": q.position_id, "name": "mine"})
        assert saved.status_code in (200, 201)
        entry = saved.json()["id"]
        assert entry not in {e["id"] for e in other.get("/v1/library/positions").json()["positions"]}
        assert fields(other.get(f"/v1/library/positions/{entry}"), 404) == ["entry_id"]
        assert fields(other.delete(f"/v1/library/positions/{entry}"), 404) == ["entry_id"]
        assert gateway.http.get(f"/v1/library/positions/{entry}").status_code == 200
        # the same position saved by the other key is its own entry
        res = other.post("/v1/library/positions", json={"position": q.position_id, "name": "theirs"})
        assert res.status_code == 201 and res.json()["name"] == "theirs"
        assert gateway.http.get(f"/v1/library/positions/{entry}").json()["name"] == "mine"
        assert gateway.http.delete(f"/v1/library/positions/{entry}").status_code == 204
        assert other.get(f"/v1/library/positions/{entry}").status_code == 200
    finally:
        other.close()


def test_archive_in_the_durable_store(
    gateway_process: type[GatewayProcess], redis_url: str, database_url: str
) -> None:
    """The archive lives in the database and survives a new gateway."""
    decisions = game_positions(20, seed=21)
    SqlArchive(database_url, OWNER).add_match_positions(match_entries("db", decisions))
    q = decisions[4][0]
    g = archive_gateway(gateway_process, redis_url, database_url)
    try:
        saved = g.http.post("/v1/library/positions", json={"position": q.position_id, "name": "in the db"})
        assert saved.status_code == 201, saved.text
        entry = saved.json()["id"]
        hits = g.http.post("/v1/positions/similar", json={"position": q.position_id}).json()["hits"]
        assert {entry, "match:db:1:5"} <= {h["id"] for h in hits if h["percent"] == 100}
        before = [h["id"] for h in hits]
        check_library_changes(g.http)  # the same in the durable store
    finally:
        g.stop()
    assert SqlArchive(database_url, OWNER).get_entry(entry) is not None
    g = archive_gateway(gateway_process, redis_url, database_url)
    try:
        assert entry in {e["id"] for e in g.http.get("/v1/library/positions").json()["positions"]}
        hits = g.http.post("/v1/positions/similar", json={"position": q.position_id}).json()["hits"]
        assert [h["id"] for h in hits] == before
        other = g.http.post(
            "/v1/positions/similar", json={"position": q.position_id}, headers={"X-API-Key": OTHER_KEY}
        ).json()["hits"]
        assert not {entry, "match:db:1:5"} & {h["id"] for h in other}
    finally:
        g.stop()


def test_library_bad_input(gateway: GatewayProcess) -> None:
    post = gateway.http.post
    ok = {"position": "4HPwATDgc/ABMA", "name": "x"}
    assert fields(post("/v1/library/positions", json={**ok, "position": "zzz"})) == ["position"]
    assert fields(post("/v1/library/positions", json={**ok, "date": "2026-13-01"})) == ["date"]
    assert fields(post("/v1/library/positions", json={"position": "4HPwATDgc/ABMA"})) == ["name"]
    assert fields(post("/v1/library/positions", json={**ok, "tags": ["t"] * 21})) == ["tags"]
    assert fields(post("/v1/library/positions", json={**ok, "dice": [7, 1]})) == ["dice[0]"]
    assert fields(post("/v1/library/positions", json={**ok, "dice": [3, 1], "play": "24/18"})) == ["play"]
    assert fields(post("/v1/library/positions", json={**ok, "dice": [3, 1], "play": "hello"})) == ["play"]
    assert fields(
        post(
            "/v1/library/positions", json={**ok, "rules": {"variant": "international", "hit_and_stop": True}}
        )
    )


def test_library_save_carries_an_own_player(gateway: GatewayProcess) -> None:
    """A save names the player who saved it: one of the key's players, never another key's."""
    other = httpx.Client(base_url=gateway.base, headers={"X-API-Key": OTHER_KEY}, timeout=60)
    try:
        mine = gateway.http.post("/v1/players", json={"name": "Saver"}).json()["id"]
        theirs = other.post("/v1/players", json={"name": "Not yours"}).json()["id"]
        body = {"position": game_positions(3, seed=41)[2][0].position_id, "name": "with a player"}
        post = gateway.http.post
        assert fields(other.post("/v1/library/positions", json={**body, "player": mine})) == ["player"]
        assert fields(post("/v1/library/positions", json={**body, "player": "x" * 33})) == ["player"]
        res = post("/v1/library/positions", json={**body, "player": mine})
        assert res.status_code == 201, res.text
        assert res.json()["player"] == mine
        assert gateway.http.get(f"/v1/library/positions/{res.json()['id']}").json()["player"] == mine
        assert fields(post("/v1/library/positions", json={**body, "player": theirs})) == ["player"]
        plain = post("/v1/library/positions", json={"position": "4HPwATDgc/ABMA", "name": "nobody"})
        assert plain.json()["player"] is None
        assert gateway.http.delete(f"/v1/library/positions/{res.json()['id']}").status_code == 204
    finally:
        other.close()


# ---- daily puzzles ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def model_seed() -> int:
    return 11


def as_served(puzzle: dict[str, Any]) -> dict[str, Any]:
    """A stored puzzle as the gateway serves it: with the provenance of the net that made it (its
    settings' ``model_sha256``, named by the model files this pulvezar lists)."""
    from services.jobs.provenance import engine_of

    sha = puzzle["settings"].get("model_sha256")
    return {**puzzle, "provenance": engine_of({"model_sha256": sha} if sha else None).model_dump()}


def test_daily_bad_input_and_not_yet(gateway: GatewayProcess) -> None:
    get = gateway.http.get
    assert fields(get("/v1/daily/2026-13-01")) == ["date"]
    assert fields(get("/v1/daily/yesterday")) == ["date"]
    assert fields(get("/v1/daily/2031-01-01"), 404) == ["date"]
    assert fields(get("/v1/daily/2031-01-01", params={"rules": "tavla", "kind": "cube"})) == ["kind"]
    assert fields(get("/v1/daily/2031-01-01", params={"rules": "tavla+hit_and_stop"})) == ["rules"]
    assert fields(get("/v1/daily/today", params={"kind": "opening"})) == ["kind"]


def test_daily_task_through_a_worker_then_served(
    r: Any, gateway: GatewayProcess, redis_url: str, model_file: Path, tmp_path: Path, database_url: str
) -> None:
    import datetime as dt

    from services.jobs.broker import DAILY_TASK
    from services.jobs.kinds.daily import DailyRuns, job_id_of
    from services.jobs.settings import BACKGROUND_QUEUE, BATCH_QUEUE, RolloutSettings
    from services.rollout.celery_app import make_app
    from services.rollout.daily_tasks import DailyTaskSettings, produce, submit
    from services.store.jobs import JobRecords

    env = {
        **DAILY_ENV,
        "PULVEZAR_ROLLOUT_REDIS_URL": redis_url,
        "PULVEZAR_ROLLOUT_MODEL_PATH": str(model_file),
        "PULVEZAR_ROLLOUT_DEVICE": "cpu",
        "PULVEZAR_ROLLOUT_TORCH_THREADS": "1",
        "PULVEZAR_ROLLOUT_METRICS_DIR": str(tmp_path / "metrics"),
        "PULVEZAR_DATABASE_URL": database_url,
    }
    heartbeat, log_file = tmp_path / "worker.heartbeat", tmp_path / "worker.log"
    worker = Worker(
        env,
        "worker",
        metrics_port=-1,
        heartbeat=heartbeat,
        log_file=log_file,
        queues=f"{BACKGROUND_QUEUE},{BATCH_QUEUE}",  # the beat's task, then the daily kind's chunks
    )
    try:
        worker.ready()
        app = make_app(RolloutSettings(redis_url=redis_url))
        entry = app.conf.beat_schedule["daily-puzzles"]
        assert entry["task"] == DAILY_TASK and entry["options"]["queue"] == BACKGROUND_QUEUE
        today = dt.datetime.now(dt.UTC).date()
        dates = [today.isoformat(), (today + dt.timedelta(days=1)).isoformat()]
        combos = [("international", "position"), ("tavla", "position"), ("international", "cube")]
        keys = [(d, rules, kind) for d in dates for rules, kind in combos]
        daily = DailyRecords(database_url)
        # PULVEZAR_DAILY_ON_START: the worker asked for today's puzzles itself, not tomorrow's
        wait_until(lambda: all(daily.get(*k) for k in keys[:3]), 240, "today's puzzles", every=0.5)
        assert not any(daily.get(*k) for k in keys[3:])
        app.send_task(DAILY_TASK, queue=BACKGROUND_QUEUE)  # as beat sends it: today and tomorrow
        wait_until(lambda: all(daily.get(*k) for k in keys), 240, "the daily puzzles", every=0.5)
        # each date's run is one job of the daily kind, the platform's own (no owner), in the durable store
        runs = JobRecords(database_url)
        wait_until(lambda: len(runs.list(None, kinds=["daily"], states=["done"])[0]) == 2, 60, "daily jobs")
        assert {row.id for row in runs.list(None, kinds=["daily"])[0]} == {job_id_of(d) for d in dates}
        assert all(runs.get(job_id_of(d)).owner is None for d in dates)
        # PULVEZAR_DAILY_ON_START also sent the recheck: every puzzle is the worker's own net's, nothing to do
        wait_until(lambda: "daily rechecks" in log_file.read_text(), 60, "the recheck at start", every=0.5)
    finally:
        worker.stop()
    stored = {k: daily.get(*k) for k in keys}
    assert runs.unfinished(kinds=["daily"]) == []
    job_keys = tuple(f"daily:{job_id_of(d)}:" for d in dates)  # the runs' own keys (their chunk records)
    assert not [k for k in r.keys("daily:*") if not k.startswith(job_keys)]  # no other copy in Redis
    for d in dates:
        for rules, kind in combos:
            res = gateway.http.get(f"/v1/daily/{d}", params={"rules": rules, "kind": kind})
            assert res.status_code == 200, res.text
            body = res.json()
            # made by the worker's net: no recheck by the served (default) net
            want = as_served(stored[(d, rules, kind)])
            assert body == {**want, "recheck": None}
            assert (body["date"], body["rules"], body["kind"]) == (d, rules, kind)
            assert body["settings"]["trials"] == 36 and body["reason"]["de"]
            if kind == "position":
                assert body["dice"] and body["answer"]["play"] is not None
            else:
                assert body["dice"] is None and body["match_length"] == 7
                assert {"nd", "dt", "dp", "action"} <= set(body["answer"])
    res = gateway.http.get("/v1/daily/today", params={"rules": "tavla"})
    assert res.status_code == 200 and res.json()["date"] == dates[0] and res.json()["rules"] == "tavla"
    assert res.json() == gateway.http.get(f"/v1/daily/{dates[0]}", params={"rules": "tavla"}).json()

    # again: nothing is recomputed or changed (write-once); the date's run is the same job, not a second
    class NoEvaluator:
        def evaluate_boards(self, boards: Any) -> Any:
            raise AssertionError("nothing should be evaluated")

    outcomes = produce(daily, NoEvaluator(), dates[0], DailyTaskSettings())
    assert set(outcomes.values()) == {"exists"}
    assert {k: daily.get(*k) for k in keys} == stored
    s = RolloutSettings(redis_url=redis_url)
    kind = DailyRuns(r, app=make_app(s), settings=s, records=runs)
    assert submit(kind, dates[0]) == {dates[0]: job_id_of(dates[0])}  # the date's done job
    assert len(runs.list(None, kinds=["daily"])[0]) == 2
    r.flushdb()  # Redis lost the jobs: the durable store still knows the date's run
    assert kind.submit_daily(dates[1]) == job_id_of(dates[1])
    fresh = "2030-06-01"  # a date without puzzles: the same job however often it is submitted
    assert kind.submit_daily(fresh) == kind.submit_daily(fresh) == job_id_of(fresh)
    assert runs.get(job_id_of(fresh)).spec["chunks"] == [[rules, k] for rules, k in combos]
    assert runs.get(job_id_of(fresh)).owner is None and kind.spec(job_id_of(fresh))["platform"] is True
    assert kind.cancel(job_id_of(fresh)) and kind.delete(job_id_of(fresh))


def test_daily_served_by_another_gateway_when_redis_lost_everything(
    r: Any, gateway_process: type[GatewayProcess], redis_url: str, database_url: str
) -> None:
    import datetime as dt

    today = dt.datetime.now(dt.UTC).date().isoformat()
    served = DailyRecords(database_url).get(today, "tavla", "position")
    assert served is not None, "made by the worker test above"
    r.flushdb()  # Redis restarted empty: the puzzles are in the durable store only
    g = archive_gateway(gateway_process, redis_url, database_url)
    try:
        res = g.http.get("/v1/daily/today", params={"rules": "tavla"})
        assert res.status_code == 200, res.text
        assert res.json() == {**as_served(served), "recheck": None}
    finally:
        g.stop()


def test_daily_recheck_by_another_net_written_once_and_served(
    r: Any, gateway: GatewayProcess, gateway_process: type[GatewayProcess], redis_url: str, database_url: str,
    model_file: Path,
) -> None:  # fmt: skip
    """Today's puzzles (the worker's small net made them) judged again by the default net, the one the
    gateway serves: each recheck is stored once, running again computes nothing, and the puzzle response
    carries it while the puzzle stays as served."""
    import dataclasses
    import datetime as dt

    from pulvezar.archive.daily import recheck
    from pulvezar.eval.evaluator import NetEvaluator, default_evaluator
    from services.rollout.daily_tasks import recheck_all, recheck_lock, recheck_one

    today = dt.datetime.now(dt.UTC).date().isoformat()
    combos = [("international", "position"), ("tavla", "position"), ("international", "cube")]
    daily = DailyRecords(database_url)
    served = {c: daily.get(today, *c) for c in combos}
    assert all(served.values()), "made by the worker test above"
    assert set(recheck_all(r, daily, NetEvaluator.load(model_file), today).values()) == {"same-net"}
    ev = default_evaluator()
    sha = ev.info.sha256
    assert recheck_all(r, daily, ev, today) == {f"{today}:{rules}:{kind}": "stored" for rules, kind in combos}
    for c in combos:
        rec = daily.get_recheck(today, *c, sha)
        assert rec is not None
        expected = recheck(served[c], ev).as_dict()  # the library's, in this process
        assert {**rec, "checked_at": None} == {**expected, "checked_at": None}
        assert daily.get(today, *c) == served[c]  # the puzzle is untouched

    class NoWork:
        """The default net's name and digest, and nothing to evaluate with."""

        def __init__(self, info: Any) -> None:
            self.info = info

        def __getattr__(self, name: str) -> Any:
            raise AssertionError(f"nothing should be evaluated ({name})")

    assert set(recheck_all(r, daily, NoWork(ev.info), today).values()) == {"exists"}
    assert recheck_one(r, daily, today, "tavla", "position", NoWork(ev.info)) == "exists"
    other = dataclasses.replace(ev.info, sha256="c" * 64)  # another net, while a worker holds the lock
    r.set(recheck_lock(today, "tavla", "position", other.sha256), "w", ex=60)
    assert recheck_one(r, daily, today, "tavla", "position", NoWork(other)) == "busy"

    def check(body: dict[str, Any], c: tuple[str, str]) -> None:
        rec = daily.get_recheck(today, *c, sha)
        assert rec is not None
        puzzle = served[c]
        assert puzzle is not None
        new = rec["answer"]["action"] if c[1] == "cube" else rec["answer"]["play"]
        old = puzzle["answer"]["action"] if c[1] == "cube" else puzzle["answer"]["play"]
        assert body["recheck"] == {
            "model": ev.info.name, "model_sha256": sha, "answer": new, "agrees": new == old,
            "checked_at": rec["checked_at"], "values": rec["answer"],
        }  # fmt: skip
        assert {k: v for k, v in body.items() if k != "recheck"} == as_served(puzzle)  # the puzzle as served

    for c in combos:
        res = gateway.http.get(f"/v1/daily/{today}", params={"rules": c[0], "kind": c[1]})
        assert res.status_code == 200, res.text
        check(res.json(), c)
    g = archive_gateway(gateway_process, redis_url, database_url)
    try:
        res = g.http.get("/v1/daily/today", params={"rules": "tavla"})
        assert res.status_code == 200, res.text
        check(res.json(), ("tavla", "position"))
    finally:
        g.stop()


def test_an_archive_kept_in_redis_before_0003_moves_into_a_keys_archive(
    r: Any, redis_url: str, database_url: str
) -> None:
    """``python -m services.store import-archive``: the deployment-wide Redis archive of older versions
    becomes one key's archive in the database (an upgrade loses nothing)."""
    from services.store.__main__ import main

    legacy = [match_entry(e) for e in match_entries("legacy", game_positions(12, seed=31))]
    lib = library_entry(ArchiveEntry("lib:x", Position.start().position_id, "library", name="old favourite"))
    old = {e.id: json.dumps(e.as_dict()) for e in [*legacy, lib]}
    r.hset("archive:entries", mapping=old)  # as versions before 0003 kept it
    assert main(["import-archive", "--url", database_url, "--redis", redis_url, "--key", KEY]) == 0
    mine = SqlArchive(database_url, OWNER)
    _, index = mine.load_index()
    assert set(old) <= {e.id for e in index.entries}
    stored = mine.get_entry(lib.id)
    assert stored == lib and stored.name == "old favourite"
    assert mine.get_entry("match:legacy:1:5") == legacy[4]
    assert main(["import-archive", "--url", database_url, "--redis", redis_url, "--owner", "x" * 32]) == 0
    assert SqlArchive(database_url, "x" * 32).get_entry(lib.id) == lib
    with pytest.raises(SystemExit) as exit_:  # whose archive? argparse refuses
        main(["import-archive", "--url", database_url, "--redis", redis_url])
    assert exit_.value.code == 2
