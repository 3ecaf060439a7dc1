"""OGXM over REST (issue 45): a finished analysis as an analysis-shape file, and signature checks.

A gateway process on the module's Redis and durable store (as :mod:`test_batch_analysis`), real Celery
workers started only once a test needs a job done.  Files are signed here with ``cryptography``'s
Ed25519 over the codec's own signing payloads (as ``tests/formats/test_ogxm_analysis.py``).  Checked:
``GET /v1/analyses/{id}/analysis.ogxm`` is 409 before the match is done, 404 for another key, then a
file the codec reads whose digest joins the match's ``.ogxm``; a Tavla match is a 422 naming ``match``;
``keys`` on ``POST /v1/matches``, ``POST /v1/analyses`` (JSON and multipart) and
``POST /v1/ogxm/verify`` answer each signature's status, and a bad key is a 422 naming ``keys``.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("celery")
pytest.importorskip("redis")
ogxm = pytest.importorskip("ogxm")
ed25519 = pytest.importorskip("cryptography.hazmat.primitives.asymmetric.ed25519")
serialization = pytest.importorskip("cryptography.hazmat.primitives.serialization")

from ogxm.signature import analysis_payload, match_payload  # type: ignore[import-untyped]  # noqa: E402
from procutil import wait_until  # noqa: E402
from rollout_workers import Workers, module_worker_env  # noqa: E402

from pulvezar.analysis.match import AnalysisSettings, analyse_match  # noqa: E402
from pulvezar.formats.files import read_match  # noqa: E402
from pulvezar.formats.mat import write_mat  # noqa: E402
from pulvezar.formats.ogxm import write_ogxm  # noqa: E402
from pulvezar.formats.ogxm_analysis import analysis_joins, read_ogxm_analysis, write_ogxm_analysis  # noqa: E402

DATA = Path(__file__).resolve().parents[1] / "formats" / "data"
TINY = DATA / "gnubg_roll_then_resign_1p.mat"  # 1 point, 1 game of two plays
KEY, OTHER = "ogxm-key", "ogxm-other"
PROBLEM = "application/problem+json"


def _key() -> tuple[Any, bytes]:
    private = ed25519.Ed25519PrivateKey.generate()
    public = private.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return private, public


def signed_match(private: Any, public: bytes) -> bytes:
    """TINY as ``.ogxm`` with one match signature (MSIG) that names its key."""
    doc = ogxm.binary_to_json(write_ogxm(read_match(TINY)))
    doc["match_signatures"] = [{"algorithm": "ed25519", "public_key": base64.b64encode(public).decode()}]
    doc["match_signatures"][0]["signature"] = base64.b64encode(private.sign(match_payload(doc, 0))).decode()
    return bytes(ogxm.json_to_binary(doc))


def signed_analysis(private: Any) -> bytes:
    """A 0-ply analysis of TINY as an analysis-shape file, its block signed without naming the key."""
    record = read_match(TINY)
    doc = ogxm.binary_to_json(
        write_ogxm_analysis(record, analyse_match(record, AnalysisSettings.from_level("0ply")))
    )
    sig = {"algorithm": "ed25519", "key_id": "test"}
    sig["signature"] = base64.b64encode(private.sign(analysis_payload(doc, 0))).decode()
    doc["analysis_info"]["signature"] = sig
    return bytes(ogxm.json_to_binary(doc))


def fields(r: Any, status: int = 422) -> list[str]:
    assert r.status_code == status, r.text
    assert r.headers["content-type"].startswith(PROBLEM)
    return [e["field"] for e in r.json().get("errors", [])]


def statuses(signatures: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(s["scope"], s["status"]) for s in signatures]


@pytest.fixture(scope="module")
def database(module_database: str) -> str:
    return module_database


@pytest.fixture(scope="module")
def workers(
    redis_server: str, database: str, model_file: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Workers]:
    pool = Workers(module_worker_env(database, redis_server, model_file, tmp_path_factory))
    try:
        yield pool
    finally:
        pool.stop_all()


@pytest.fixture(scope="module")
def gateway(gateway_process: Any, redis_server: str, database: str) -> Iterator[Any]:
    keys = {k: {"name": k, "rate_per_s": 1000, "burst": 1000} for k in (KEY, OTHER)}
    env = {
        "PULVEZAR_GATEWAY_API_KEYS": json.dumps(keys),
        "PULVEZAR_GATEWAY_REDIS_URL": redis_server,
        "PULVEZAR_DATABASE_URL": database,
        "PULVEZAR_ANALYSIS_MAX_LEVEL": "0ply",
    }
    gw = gateway_process(env, key=KEY, timeout_s=60)
    yield gw
    gw.stop()


def finish(gateway: Any, href: str) -> None:
    """Wait for the job at ``href`` to be done (failed or cancelled: the test fails)."""

    def done() -> bool:
        state = gateway.http.get(href, params={"games": "false"}).json()["state"]
        assert state not in ("failed", "cancelled")
        return bool(state == "done")

    wait_until(done, 90, f"{href} to finish", every=0.2)


def test_keys_on_a_match_upload_answer_each_signature(gateway: Any) -> None:
    private, public = _key()
    _, stranger = _key()
    data = signed_match(private, public)
    up = gateway.http.post("/v1/matches", files={"file": ("tiny.ogxm", data)}, data={"keys": public.hex()})
    assert up.status_code == 200, up.text
    [check] = up.json()["signatures"]
    assert (check["scope"], check["index"], check["status"], check["key"]) == (
        "match",
        0,
        "valid",
        public.hex(),
    )
    b64 = base64.b64encode(stranger).decode()
    other = gateway.http.post("/v1/matches", files={"file": ("tiny.ogxm", data)}, data={"keys": b64})
    assert statuses(other.json()["signatures"]) == [("match", "other_key")]
    assert gateway.http.post("/v1/matches", files={"file": ("tiny.ogxm", data)}).json()["signatures"] is None
    mat = gateway.http.post(
        "/v1/matches", files={"file": ("tiny.mat", TINY.read_bytes())}, data={"keys": b64}
    )
    assert statuses(mat.json()["signatures"]) == [("file", "unsigned")]
    for bad in ("nothex", "ab" * 31, "a" * 500, " ".join([public.hex()] * 17)):
        r = gateway.http.post("/v1/matches", files={"file": ("tiny.ogxm", data)}, data={"keys": bad})
        assert fields(r) == ["keys"], bad


def test_verify_checks_an_analysis_file_against_the_keys(gateway: Any) -> None:
    private, public = _key()
    _, stranger = _key()
    data = signed_analysis(private)

    def verify(body: bytes, *keys: bytes) -> Any:
        return gateway.http.post(
            "/v1/ogxm/verify", files={"file": ("a.ogxm", body)}, data={"keys": [k.hex() for k in keys]}
        )

    r = verify(data, stranger, public)  # the field repeated
    assert r.status_code == 200, r.text
    assert r.json()["ok"] and statuses(r.json()["signatures"]) == [("analysis", "valid")]
    assert r.json()["signatures"][0]["key"] == public.hex()
    r = verify(data, stranger)
    assert not r.json()["ok"] and statuses(r.json()["signatures"]) == [("analysis", "unverified")]
    doc = ogxm.binary_to_json(data)
    doc["analysis_info"]["level"]["checker_ply"] = 3  # covered by the signature
    assert statuses(verify(bytes(ogxm.json_to_binary(doc)), public).json()["signatures"]) == [
        ("analysis", "unverified")  # names no key: tampered or another key's, nothing tells
    ]
    plain = write_ogxm(read_match(TINY))
    assert statuses(verify(plain, public).json()["signatures"]) == [("file", "unsigned")]
    assert fields(verify(TINY.read_bytes(), public)) == ["file"]
    assert fields(gateway.http.post("/v1/ogxm/verify", files={"file": ("a.ogxm", data)})) == ["keys"]


def test_keys_on_an_analysis_upload_answer_with_the_job(gateway: Any) -> None:
    private, public = _key()
    data = signed_match(private, public)
    body = {"file_base64": base64.b64encode(data).decode(), "filename": "tiny.ogxm", "level": "0ply"}
    assert fields(gateway.http.post("/v1/analyses", json={**body, "keys": ["zz"]})) == ["keys"]
    assert fields(gateway.http.post("/v1/analyses", json={**body, "keys": []})) == ["keys"]
    for bad in (["a" * 101], [public.hex()] * 17, "notalist"):  # the model's caps
        named = fields(gateway.http.post("/v1/analyses", json={**body, "keys": bad}))
        assert named and all(f.startswith("keys") for f in named), named
    r = gateway.http.post("/v1/analyses", json={**body, "keys": [public.hex()]})
    assert r.status_code == 202, r.text
    assert (
        statuses(r.json()["signatures"]) == [("match", "valid")] and r.json()["signatures"][0]["match"] == 0
    )
    assert "signatures" not in gateway.http.get(r.headers["Location"]).json()  # only the submit's answer
    entry = {k: body[k] for k in ("file_base64", "filename")}
    many = {"matches": [entry, {"file": TINY.read_text(), "filename": "tiny.mat"}], "keys": [public.hex()]}
    r = gateway.http.post("/v1/analyses", json={**many, "level": "0ply"})
    assert r.status_code == 202, r.text
    assert [(s["match"], s["status"]) for s in r.json()["signatures"]] == [(0, "valid"), (1, "unsigned")]
    form = {"level": "0ply", "keys": f"{base64.b64encode(public).decode()}, {public.hex()}"}
    r = gateway.http.post("/v1/analyses", files={"file": ("tiny.ogxm", data)}, data=form)
    assert r.status_code == 202, r.text
    assert statuses(r.json()["signatures"]) == [("match", "valid")]
    r = gateway.http.post("/v1/analyses", files={"file": ("tiny.ogxm", data)}, data={"keys": "nokey"})
    assert fields(r) == ["keys"]
    assert "signatures" not in gateway.http.post("/v1/analyses", json=body).json()


def test_a_finished_analysis_as_an_ogxm_file(gateway: Any, workers: Workers) -> None:
    r = gateway.http.post(
        "/v1/analyses", json={"file": TINY.read_text(), "filename": TINY.name, "level": "0ply"}
    )
    assert r.status_code == 202, r.text
    href = r.headers["Location"]
    url = f"{href}/analysis.ogxm"
    assert fields(gateway.http.get(url), 409)  # the module's workers start below
    assert fields(gateway.http.get(url, headers={"X-API-Key": OTHER}), 404) == ["job_id"]
    workers.ensure(1)

    finish(gateway, href)
    got = gateway.http.get(url)
    assert got.status_code == 200, got.text
    assert got.headers["content-type"] == "application/octet-stream"
    assert "gnubg_roll_then_resign_1p-analysis.ogxm" in got.headers["content-disposition"]
    match = write_ogxm(read_match(TINY))
    assert analysis_joins(got.content, match)
    back = read_ogxm_analysis(got.content)
    assert back.match_digest == ogxm.match_digest(match).hex() and back.decisions and not back.signed
    report = gateway.http.get(href).json()["matches"][0]
    assert back.model_id and report["state"] == "done"
    assert "match" in fields(gateway.http.get(url, params={"match": 3}))
    assert fields(gateway.http.get(url, params={"match": -1})) == ["match"]


def test_a_tavla_analysis_is_a_problem_naming_the_match(gateway: Any, workers: Workers) -> None:
    record = read_match(TINY)
    record.tags["Variation"] = "Tavla"  # TINY's match as Tavla: OGXM has no Tavla
    assert record.rules.variant == "tavla"
    r = gateway.http.post(
        "/v1/analyses", json={"file": write_mat(record), "filename": "t.mat", "level": "0ply"}
    )
    assert r.status_code == 202, r.text
    href = r.headers["Location"]
    workers.ensure(1)

    finish(gateway, href)
    r = gateway.http.get(f"{href}/analysis.ogxm")
    assert fields(r) == ["match"] and "Tavla" in r.json()["detail"]
    assert gateway.http.get(f"{href}/sgf").status_code == 200  # the SGF export has it
