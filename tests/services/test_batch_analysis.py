"""Batch analysis of a match database (issue 45): one upload of an OGXM stream is one analysis job.

On a real Redis, the durable store (SQLite) and real Celery workers (subprocesses, a small untrained
net, no extra delay), as :mod:`test_analysis_jobs`.  The stream is made here with
:func:`pulvezar.formats.ogxm.write_ogxm_stream` from the test matches; the job analyses its members at
0 ply.  Checked: the members are the job's matches, a corrupt member and a truncated tail are in the
job's ``streams`` (which member, why, the offset), the per-player summary is the per-match numbers
summed (PR pooled over the decisions), the CSV and JSON lines agree with the report, and the caps
refuse a stream naming its field.
"""

from __future__ import annotations

import csv
import io
import json
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("celery")
redis = pytest.importorskip("redis")
zstandard = pytest.importorskip("zstandard")
pytest.importorskip("ogxm")

from procutil import wait_until  # noqa: E402
from rollout_workers import Workers, idle, module_worker_env  # noqa: E402

from pulvezar.formats.files import read_match  # noqa: E402
from pulvezar.formats.ogxm import read_ogxm, write_ogxm, write_ogxm_stream  # noqa: E402
from services.gateway.services.analyses import (  # noqa: E402
    CSV_COLUMNS,
    job_of,
    result_rows,
    results_csv,
    results_jsonl,
)
from services.jobs.analysis_files import (  # noqa: E402
    AnalysisJobSettings,
    file_call,
    file_summary,
    plan_job,
    stream_summary,
    zip_summary,
)
from services.jobs.errors import InvalidJob  # noqa: E402
from services.jobs.kinds.analysis import Analyses  # noqa: E402
from services.jobs.settings import RolloutSettings  # noqa: E402
from services.rollout.celery_app import make_app  # noqa: E402

DATA = Path(__file__).resolve().parents[1] / "formats" / "data"
TINY = DATA / "gnubg_roll_then_resign_1p.mat"  # charlot1 - charlot2, 1 point, 1 game
CHARLOT = DATA / "charlot1-charlot2_7p_2025-11-08-2305.mat"  # 7 points, 4 games
SEVEN = DATA / "7point.mat"  # JoeBlack - SnowWhite, 7 points, 9 games
MATCHES = (TINY, CHARLOT, SEVEN)


def stream_bytes(paths: tuple[Path, ...] = MATCHES) -> tuple[bytes, list[int]]:
    """The matches of ``paths`` as one uncompressed ``.ogxms`` stream, and each member's offset."""
    out = io.BytesIO()
    offsets = []
    for p in paths:
        offsets.append(out.tell())
        write_ogxm_stream([read_match(p)], out)
    return out.getvalue(), offsets


def zstd(data: bytes) -> bytes:
    return bytes(zstandard.ZstdCompressor().compress(data))


def damaged() -> tuple[bytes, dict[str, int]]:
    """The three matches with a corrupt member between the second and the third, and a stream that stops
    inside a last member; where each is (decompressed)."""
    good, offsets = stream_bytes()
    tiny = write_ogxm(read_match(TINY))
    bad = bytearray(tiny)
    bad[len(bad) // 2] ^= 0xFF
    head = good[: offsets[2]]
    data = head + bytes(bad) + good[offsets[2] :] + tiny[: len(tiny) // 2]
    where = {
        "corrupt": len(head),
        "third": len(head) + len(bad),
        "tail": len(head) + len(bad) + len(good) - offsets[2],
    }
    return data, where


# ---- Redis, workers, the store (as test_analysis_jobs) ---------------------------------------


@pytest.fixture(scope="module")
def database(module_database: str) -> str:
    """The module's durable store (required by the jobs): conftest's migrated SQLite file."""
    return module_database


@pytest.fixture(scope="module")
def workers(
    redis_server: str, database: str, model_file: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Workers]:
    pool = Workers(
        module_worker_env(
            database,
            redis_server,
            model_file,
            tmp_path_factory,
            PULVEZAR_ROLLOUT_RESTORE_INTERVAL_S="0.5",
            PULVEZAR_ROLLOUT_WORKER_TTL_S="3",
        )
    )
    try:
        yield pool
    finally:
        pool.stop_all()


def make_store(redis_url: str, database: str, **limits: Any) -> Analyses:
    from services.store.jobs import JobRecords

    s = RolloutSettings(redis_url=redis_url)
    client = redis.Redis.from_url(redis_url, decode_responses=True)
    return Analyses(
        client, make_app(s), s, AnalysisJobSettings(max_level="0ply", **limits), records=JobRecords(database)
    )


@pytest.fixture(scope="module")
def store(redis_server: str, database: str) -> Analyses:
    return make_store(redis_server, database)


def upload(data: bytes, filename: str | None = "db.ogxms.zst") -> dict[str, Any]:
    return {"matches": [{"data": data, "filename": filename}], "level": "0ply", "single": True}


# ---- the tests ---------------------------------------------------------------------------


def test_a_stream_is_one_upload_of_its_members() -> None:
    """By name or by zstd's magic; each member kept as its own .ogxm file, read back as its match."""
    plain, offsets = stream_bytes()
    limits = AnalysisJobSettings()
    assert file_call({"data": plain, "filename": "x.ogxms"}, "", limits)[1] == "ogxms"
    assert file_call({"data": zstd(plain)}, "", limits)[1] == "ogxms"
    assert file_call({"data": plain[: offsets[1]]}, "", limits)[1] == "ogxm"  # one .ogxm file, unnamed
    for data in (plain, zstd(plain)):
        got = stream_summary(data)
        assert (
            [m["offset"] for m in got["members"]] == offsets and not got["skipped"] and not got["truncated"]
        )
        for member, path in zip(got["members"], MATCHES, strict=True):
            want = read_ogxm(write_ogxm(read_match(path)))  # as OGXM keeps it (an unplayed roll is lost)
            assert read_ogxm(member["data"]).players == want.players == tuple(member["players"])
            assert member["actions"] == [len(g.actions) for g in want.games]
        assert got["decompressed_bytes"] == len(plain)


def test_a_corrupt_member_and_a_truncated_tail_are_reported() -> None:
    data, where = damaged()
    got = stream_summary(zstd(data))
    assert [m["offset"] for m in got["members"]][2] == where["third"] and len(got["members"]) == 3
    [skipped] = got["skipped"]
    assert skipped["offset"] == where["corrupt"] and skipped["reason"].startswith("invalid member")
    assert (
        got["truncated"]["offset"] == where["tail"] and "ends inside a member" in got["truncated"]["reason"]
    )
    for junk in (b"\x28\xb5\x2f\xfd not zstd at all", b"OGXM" + b"\x00" * 40):
        with pytest.raises(InvalidJob) as e:
            stream_summary(junk, "matches[2].file")
        assert e.value.field == "matches[2].file", e.value


def zip_of(files: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in files.items():
            z.writestr(name, data)
    return out.getvalue()


def test_a_zip_of_match_files_is_one_job_of_them() -> None:
    """Each readable file a match in the archive's order (its format by its name); others skipped with
    why; a bomb or too many files refused naming the field."""
    files = {
        "a/tiny.mat": TINY.read_bytes(),
        "notes.pdf": b"%PDF-1.4",
        "match.sgf": (DATA / "match.sgf").read_bytes(),
        "broken.mat": b" 1 point match\n\n Game 1\n a : 0    b : 0\n  1) 77: 24/18\n",
        "seven.ogxm": (DATA / "ogxm" / "7point.ogxm").read_bytes(),
    }
    limits = AnalysisJobSettings()
    archive = zip_of(files)
    assert file_call({"data": archive}, "", limits)[1] == "zip"
    _level, priority, kept, infos, chunks, streams = plan_job([{"data": archive}], "0ply", None, True, limits)
    assert [i["filename"] for i in infos] == ["a/tiny.mat", "match.sgf", "seven.ogxm"] and priority == "batch"
    assert [i["format"] for i in infos] == ["mat", "sgf", "ogxm"] and [i["member"] for i in infos] == [
        0,
        2,
        4,
    ]
    assert kept == [files["a/tiny.mat"], files["match.sgf"], files["seven.ogxm"]]
    assert len(chunks) == sum(len(i["actions"]) for i in infos)
    [stream] = streams
    assert [(s["member"], s["reason"].split(":")[0]) for s in stream["skipped"]] == [
        (1, "notes.pdf"),
        (3, "broken.mat"),
    ]
    assert stream["truncated"] is None and stream["matches"] == 3
    bomb = zip_of({"zeros.mat": b"0" * (limits.max_file_bytes + 10)})
    assert len(bomb) < 100_000
    cases = [
        (bomb, limits, "max_file_bytes"),
        (archive, AnalysisJobSettings(max_matches=2), "max_matches"),  # 3 matches of its 5 files
        (
            zip_of({"seven.mat": SEVEN.read_bytes()}),
            AnalysisJobSettings(max_file_bytes=5000),
            "max_file_bytes",
        ),
        (archive, AnalysisJobSettings(max_stream_bytes=1000), "max_stream_bytes"),
        (archive[: len(archive) // 2], limits, "not a readable zip"),
    ]
    for data, caps, words in cases:
        with pytest.raises(InvalidJob) as e:
            plan_job([{"data": data, "filename": "db.zip"}], "0ply", None, False, caps)
        assert e.value.field == "matches[0].file" and words in e.value.message, (words, e.value)


def test_a_stream_past_the_parse_budget_stops_with_a_refusal_naming_its_field(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A stream is read in the gateway's parser process: what one upload holds is what its parse budget
    reads (80% of ``PULVEZAR_GATEWAY_PARSE_CPU_S``, read from the environment as the parser process
    does).  1,000 1-point matches (the committed 100, ten times) under a budget of 0.2 s of CPU: the read
    stops early, naming ``file``, how far it got and the limits to raise, not a parser killed at its
    CPU limit; a zip archive the same."""
    plain = (
        zstandard.ZstdDecompressor()
        .decompressobj()
        .decompress((DATA / "ogxm" / "selfplay-100x1p.ogxms.zst").read_bytes())
    )
    monkeypatch.setenv("PULVEZAR_GATEWAY_PARSE_CPU_S", "0.25")
    monkeypatch.setenv("PULVEZAR_ANALYSIS_MAX_MATCHES", "10000")  # the member cap is not what stops it
    with pytest.raises(InvalidJob) as e:
        file_summary(zstd(plain * 10), "ogxms", "matches[2].file")
    read = int(e.value.message.split("its first ")[1].split(" members")[0])
    assert e.value.field == "matches[2].file" and 1 <= read < 1000, e.value
    assert "PULVEZAR_GATEWAY_PARSE_CPU_S" in e.value.message and "0.2 s of CPU" in e.value.message
    assert len(stream_summary(plain[: len(plain) // 10], budget=(60.0, 60.0))["members"]) >= 1
    archive = zip_of({f"m{i}.mat": SEVEN.read_bytes() for i in range(3)})
    with pytest.raises(InvalidJob, match=r"archive is larger .* its first 1 members"):
        zip_summary(archive, budget=(0.0, 60.0))
    assert len(zip_summary(archive, budget=(60.0, 60.0))["members"]) == 3


def test_the_caps_refuse_a_stream_naming_its_field(redis_server: str, database: str) -> None:
    plain, _ = stream_bytes()
    data = zstd(plain)
    cases = [
        ({"max_matches": 2}, "max_matches"),
        ({"max_games": 10}, "max_games"),
        ({"max_stream_bytes": len(plain) - 1}, "max_stream_bytes"),
        ({"max_file_bytes": len(data) - 1}, "at most"),
    ]
    for limits, words in cases:
        store = make_store(redis_server, database, **limits)
        with pytest.raises(InvalidJob) as e:
            store.submit(upload(data))
        assert e.value.field == "file" and words in e.value.message, (limits, e.value)
        with pytest.raises(InvalidJob) as e:
            store.submit({**upload(data), "single": False})
        assert e.value.field == "matches[0].file", (limits, e.value)
    admitted: list[float] = []
    store = make_store(redis_server, database)

    def refuse(cost: float) -> None:
        admitted.append(cost)
        raise InvalidJob("level", "over the key's budget")

    with pytest.raises(InvalidJob):
        store.submit(upload(data), admit=refuse)
    games = sum(len(read_match(p).games) for p in MATCHES)
    assert (
        admitted and admitted[0] == pytest.approx(store.estimate(upload(data))) and admitted[0] > games * 0.05
    )
    assert idle(store.redis)  # nothing was queued for a refused job


def test_a_stream_analysed_to_done_with_players_and_downloads(workers: Workers, store: Analyses) -> None:
    workers.ensure(2)
    data, where = damaged()
    job_id = store.submit(upload(zstd(data)))
    first = store.status(job_id, games=False)
    assert first["priority"] == "batch" and len(first["matches"]) == 3
    [stream] = first["streams"]
    assert stream["matches"] == 3 and stream["field"] == "file" and stream["filename"] == "db.ogxms.zst"
    assert [s["offset"] for s in stream["skipped"]] == [where["corrupt"]]
    assert stream["truncated"]["offset"] == where["tail"]

    def done() -> bool:
        s = store.status(job_id, games=False)
        assert s["state"] not in ("failed", "cancelled"), s
        return bool(s["state"] == "done")

    wait_until(done, 60, f"batch job {job_id} to finish", every=0.2)
    report = store.status(job_id, games=False)
    job = job_of(job_id, report)  # the gateway's model takes every field
    assert job.streams is not None and job.streams[0].truncated is not None
    matches = report["matches"]
    assert [m["member"] for m in matches] == [0, 1, 2]
    assert [m["players"] for m in matches] == [list(read_match(p).players) for p in MATCHES]

    # the per-player summary: the per-match numbers summed, PR pooled over the decisions
    by_name = {p["name"]: p for p in report["players"]}
    assert set(by_name) == {"charlot1", "charlot2", "JoeBlack", "SnowWhite"}
    for name, p in by_name.items():
        mine = [(m, s) for m in matches for s in m["summary"]["players"] if s["name"] == name]
        assert p["matches"] == [m["match"] for m, _ in mine]
        assert p["games"] == sum(m["games_total"] for m, _ in mine)
        for k in ("decisions", "errors", "blunders", "result_points"):
            assert p[k] == sum(s[k] for _, s in mine), (name, k)
        total = sum(s["checker"]["error_total"] + s["cube"]["error_total"] for _, s in mine)
        assert p["error_total"] == pytest.approx(total)
        assert p["luck_net"] == pytest.approx(sum(s["luck"]["net"] for _, s in mine))
        assert p["pr"] == pytest.approx(500 * total / p["decisions"])
    assert by_name["JoeBlack"]["pr"] == pytest.approx(matches[2]["summary"]["players"][0]["pr"])  # one match

    # the downloads: JSON lines (a match a line), CSV (a row per match and player), both as the report
    rows = [json.loads(line) for line in results_jsonl(result_rows(report)).decode().splitlines()]
    assert [r["match"] for r in rows] == [0, 1, 2]
    table = list(csv.DictReader(io.StringIO(results_csv(result_rows(report)).decode())))
    assert tuple(table[0]) == CSV_COLUMNS and len(table) == 6
    for line, m in zip(rows, matches, strict=True):
        assert line["digest"] == m["digest"] and line["games"] == m["games_total"]
        for side, (got, want) in enumerate(zip(line["players"], m["summary"]["players"], strict=True)):
            assert (got["name"], got["pr"], got["decisions"]) == (want["name"], want["pr"], want["decisions"])
            assert got["luck_net"] == want["luck"]["net"]
            row = table[2 * m["match"] + side]
            assert (row["player"], int(row["decisions"]), int(row["blunders"])) == (
                got["name"],
                got["decisions"],
                got["blunders"],
            )
            assert float(row["pr"]) == pytest.approx(got["pr"]) and int(row["member"]) == m["member"]


# ---- through the REST API (a gateway process on the module's Redis and durable store) ----------------
KEY = "batch-key"


@pytest.fixture(scope="module")
def gateway(gateway_process: Any, redis_server: str, database: str) -> Iterator[Any]:
    env = {
        "PULVEZAR_GATEWAY_API_KEYS": json.dumps({KEY: {"name": "batch", "rate_per_s": 1000, "burst": 1000}}),
        "PULVEZAR_GATEWAY_REDIS_URL": redis_server,
        "PULVEZAR_DATABASE_URL": database,
        "PULVEZAR_ANALYSIS_MAX_LEVEL": "0ply",
        "PULVEZAR_ANALYSIS_MAX_MATCHES": "3",
    }
    gw = gateway_process(env, key=KEY, timeout_s=60)
    yield gw
    gw.stop()


def test_a_stream_through_the_api_with_its_downloads(workers: Workers, gateway: Any) -> None:
    """A multipart upload of the damaged stream: 202, its streams reported; the downloads as the job's
    report once done; a stream over the platform's max_matches: a 422 problem naming ``file``."""
    workers.ensure(2)
    data, where = damaged()
    files = {"file": ("db.ogxms.zst", zstd(data))}
    r = gateway.http.post("/v1/analyses", files=files, data={"level": "0ply"})
    assert r.status_code == 202, r.text
    job = r.json()
    assert len(job["matches"]) == 3 and job["streams"][0]["truncated"]["offset"] == where["tail"]
    href = r.headers["Location"]

    def done() -> bool:
        state = gateway.http.get(href, params={"games": "false"}).json()["state"]
        assert state not in ("failed", "cancelled")
        return bool(state == "done")

    wait_until(done, 60, "the API's batch job to finish", every=0.2)
    report = gateway.http.get(href, params={"games": "false"}).json()
    assert [p["name"] for p in report["players"]] == ["charlot1", "charlot2", "JoeBlack", "SnowWhite"]
    lines = gateway.http.get(f"{href}/results.jsonl")
    table = gateway.http.get(f"{href}/results.csv")
    assert lines.status_code == table.status_code == 200
    assert lines.headers["X-Job-State"] == "done" and table.headers["X-Matches-Done"] == "3/3"
    assert table.headers["content-type"].startswith("text/csv")
    assert lines.content == results_jsonl(result_rows(report))
    assert table.content == results_csv(result_rows(report))
    assert gateway.http.get("/v1/analyses/nosuchjob0123/results.csv").status_code == 404

    more, _ = stream_bytes((*MATCHES, TINY))  # four matches, the platform allows three
    r = gateway.http.post("/v1/analyses", files={"file": ("four.ogxms", more)}, data={"level": "0ply"})
    assert r.status_code == 422 and r.headers["content-type"].startswith("application/problem+json")
    assert [e["field"] for e in r.json()["errors"]] == ["file"] and "max_matches" in r.text
