"""Uploaded match files in the durable store (SQLite and PostgreSQL): kept per API key, the same file
once, listed newest first with a cursor, read back, deleted, expired; and the ``/v1/matches`` routes on a
gateway (in process: these routes need no other service; a gateway always has the store)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from services.gateway.app import create_app
from services.gateway.settings import GatewaySettings
from services.store.db import session
from services.store.matches import MatchUploads
from services.store.models import MatchUpload

DATA = Path(__file__).resolve().parents[1] / "formats" / "data"
KEY, OTHER = "uploads-key-1", "uploads-key-2"
SUMMARY = {"players": ["a", "b"], "length": 7, "games": 3, "decisions": 100}


def test_put_once_per_owner_list_delete(store_url: str) -> None:
    up = MatchUploads(store_url)
    data = (DATA / "7point.mat").read_bytes()
    row, created = up.put("k1", data, "mat", "7point.mat", SUMMARY)
    assert created and row.owner == "k1" and row.format == "mat" and row.summary == SUMMARY
    again, created2 = up.put("k1", data, "mat", "renamed.mat", SUMMARY)
    assert not created2 and again == row and again.filename == "7point.mat"  # the first upload stays
    theirs, created3 = up.put("k2", data, "mat", None, SUMMARY)
    assert created3 and theirs.id != row.id
    assert up.get("k1", row.id) == row and up.get("k2", row.id) is None and up.get("k1", theirs.id) is None
    assert up.data("k1", row.id) == data and up.data("k2", row.id) is None
    # newest first, a page at a time
    for i in range(4):
        up.put("k1", data + b"\n" * (i + 1), "mat", f"{i}.mat", SUMMARY)
    seen, cursor = [], None
    while True:
        rows, cursor = up.list("k1", limit=2, cursor=cursor)
        seen += rows
        if cursor is None:
            break
    times = [r.created_at for r in seen]
    assert len(seen) == 5 and times == sorted(times, reverse=True)
    assert [r.id for r in up.list("k2")[0]] == [theirs.id]
    with pytest.raises(ValueError):
        up.list("k1", cursor="garbage")
    assert not up.delete("k2", row.id) and up.delete("k1", row.id) and not up.delete("k1", row.id)
    assert up.count("k1") == 4 and up.count() == 5


def test_expire_by_age_and_per_owner(store_url: str) -> None:
    up = MatchUploads(store_url)
    ids = [up.put("k1", b"file %d" % i, "mat", None, SUMMARY)[0].id for i in range(5)]
    old = up.put("k2", b"old", "mat", None, SUMMARY)[0].id
    with session(store_url) as s:
        s.get(MatchUpload, old).created_at = time.time() - 10 * 86400  # type: ignore[union-attr]
        for n, i in enumerate(ids):
            s.get(MatchUpload, i).created_at = time.time() - 100 + n  # type: ignore[union-attr]
    assert up.expire(5 * 86400, max_per_owner=3) == 3  # the old one, and k1's two oldest
    assert up.count("k2") == 0 and [r.id for r in up.list("k1")[0]] == ids[:1:-1]


@pytest.fixture
def gateway(store_url: str) -> Iterator[TestClient]:
    limits = {"rate_per_s": 1000, "burst": 1000}
    settings = GatewaySettings(
        api_keys={KEY: {"name": "one", **limits}, OTHER: {"name": "two", **limits}},
        rules_address="127.0.0.1:9",
        evaluator_address="127.0.0.1:9",
        ready_timeout_s=0.2,
    )  # type: ignore[call-arg]
    app = create_app(settings)
    app.state.database_url = store_url
    with TestClient(app, headers={"X-API-Key": KEY}) as c:
        yield c


def test_upload_routes(gateway: TestClient) -> None:
    data = (DATA / "7point.sgf").read_bytes()
    r = gateway.post("/v1/matches", files={"file": ("7point.sgf", data)})
    assert r.status_code == 200, r.text
    body = r.json()
    uid = body["id"]
    assert uid and r.headers["Location"] == f"/v1/matches/{uid}" and body["format"] == "sgf"
    again = gateway.post("/v1/matches", files={"file": ("copy.sgf", data)})
    assert again.json()["id"] == uid  # the same file is the same upload
    mat = gateway.post("/v1/matches", files={"file": ("7point.mat", (DATA / "7point.mat").read_bytes())})
    listed = gateway.get("/v1/matches").json()
    assert [m["id"] for m in listed["matches"]] == [mat.json()["id"], uid] and listed["next_cursor"] is None
    first = listed["matches"][1]
    assert first["filename"] == "7point.sgf" and first["length"] == body["length"]
    assert first["games"] == len(body["games"]) and first["decisions"] == len(body["decisions"])
    assert first["href"] == f"/v1/matches/{uid}"
    page = gateway.get("/v1/matches", params={"limit": 1}).json()
    assert len(page["matches"]) == 1 and page["next_cursor"]
    rest = gateway.get("/v1/matches", params={"limit": 1, "cursor": page["next_cursor"]}).json()
    assert [m["id"] for m in rest["matches"]] == [uid]
    got = gateway.get(f"/v1/matches/{uid}")
    assert got.status_code == 200 and got.json() == body
    raw = gateway.get(f"/v1/matches/{uid}/file")
    assert raw.status_code == 200 and raw.content == data
    assert "7point.sgf" in raw.headers["content-disposition"]
    # another key sees none of it
    other = {"X-API-Key": OTHER}
    assert gateway.get("/v1/matches", headers=other).json()["matches"] == []
    for path in (f"/v1/matches/{uid}", f"/v1/matches/{uid}/file"):
        res = gateway.get(path, headers=other)
        assert res.status_code == 404 and res.json()["errors"][0]["field"] == "match_id"
    assert gateway.delete(f"/v1/matches/{uid}", headers=other).status_code == 404
    # bad input
    bad = gateway.get("/v1/matches", params={"cursor": "nonsense"})
    assert bad.status_code == 422 and bad.json()["errors"][0]["field"] == "cursor"
    assert gateway.get("/v1/matches", params={"limit": 0}).status_code == 422
    assert gateway.post("/v1/matches", files={"file": ("a.xg", b"\x00junk")}).status_code == 422
    assert len(gateway.get("/v1/matches").json()["matches"]) == 2  # a refused file is not kept
    assert gateway.delete(f"/v1/matches/{uid}").status_code == 204
    assert gateway.get(f"/v1/matches/{uid}").status_code == 404
