"""Match analysis jobs on a real Redis and real Celery workers (subprocesses on free ports).

One chunk is one game.  The workers use a small untrained net written to a temporary model file and
10 ms extra per evaluator call (a game of the 7-point match then takes a few seconds), so that a
worker can be killed in the middle of a game.  Every finished match is compared with
:func:`pulvezar.analysis.match.analyse_match` run here, in the test process, with the same net and
torch thread count: the JSON must be equal, number for number.
"""

from __future__ import annotations

import contextlib
import json
import socket
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("celery")
redis = pytest.importorskip("redis")

from pulvezar.analysis.match import AnalysisSettings, analyse_match, annotated_sgf  # noqa: E402
from pulvezar.eval.evaluator import NetEvaluator  # noqa: E402
from pulvezar.formats import read_mat  # noqa: E402
from services.jobs.analysis_files import AnalysisJobSettings, detect_format, file_summary  # noqa: E402
from services.jobs.broker import KIND_CHUNK_TASK  # noqa: E402
from services.jobs.errors import InvalidJob, JobNotFound, JobStateError  # noqa: E402
from services.jobs.kinds.analysis import Analyses, MatchNotReady  # noqa: E402
from services.jobs.settings import INTERACTIVE_QUEUE, RolloutSettings  # noqa: E402
from services.rollout.celery_app import make_app  # noqa: E402

DATA = Path(__file__).resolve().parent / "data"
SHORT = DATA / "match1495872.txt"  # 1 point, 1 game
LONG = DATA / "charlot1-charlot2_7p_2025-11-08-2305.mat"  # 7 points, 4 games
TINY = DATA / "gnubg_roll_then_resign_1p.mat"  # 1 point, 1 game of two plays
VISIBILITY_S = 60.0  # Celery's backstop; a lost game comes back through its lease (LEASE_S)
LEASE_S = 3.0

from procutil import wait_until  # noqa: E402
from rollout_workers import Worker, Workers, idle, module_worker_env  # noqa: E402

# ---- Redis, workers, the store ---------------------------------------------------------


@pytest.fixture(scope="module")
def redis_url(redis_server: str) -> str:
    return redis_server


@pytest.fixture(scope="module")
def database(module_database: str) -> str:
    """The module's durable store (required by the jobs): conftest's migrated SQLite file."""
    return module_database


@pytest.fixture(scope="module")
def worker_env(
    redis_url: str, database: str, model_file: Path, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, str]:
    return module_worker_env(
        database,
        redis_url,
        model_file,
        tmp_path_factory,
        PULVEZAR_ROLLOUT_EVAL_DELAY_MS="10",
        PULVEZAR_ROLLOUT_VISIBILITY_TIMEOUT_S=str(VISIBILITY_S),
        PULVEZAR_ROLLOUT_RESTORE_INTERVAL_S="0.5",
        PULVEZAR_ROLLOUT_LEASE_S=str(LEASE_S),
        PULVEZAR_ROLLOUT_WORKER_TTL_S="3",
    )


@pytest.fixture(scope="module")
def workers(worker_env: dict[str, str]) -> Iterator[Workers]:
    pool = Workers(worker_env)
    try:
        yield pool
    finally:
        pool.stop_all()


@pytest.fixture(scope="module")
def store(redis_url: str, database: str) -> Analyses:
    from services.store.jobs import JobRecords

    s = RolloutSettings(redis_url=redis_url, visibility_timeout_s=VISIBILITY_S, lease_s=LEASE_S)
    limits = AnalysisJobSettings(max_level="2ply", max_file_bytes=64 * 1024, max_matches=3)
    client = redis.Redis.from_url(redis_url, decode_responses=True)
    return Analyses(client, make_app(s), s, limits, records=JobRecords(database))


@pytest.fixture(scope="module")
def local(model_file: Path) -> NetEvaluator:
    return NetEvaluator.load(model_file, device="cpu")


@contextlib.contextmanager
def worker_threads() -> Iterator[None]:
    """Torch with the workers' thread count: a float32 matmul's last bit depends on it."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)


_REFERENCE: dict[Path, dict[str, Any]] = {}


def reference(path: Path, local: NetEvaluator) -> dict[str, Any]:
    """``analyse_match`` of a file at 0-ply in this process (once per file)."""
    if path not in _REFERENCE:
        record = read_mat(path.read_bytes())
        with worker_threads():
            ma = analyse_match(record, AnalysisSettings.from_level("0ply"), evaluator=local)
        _REFERENCE[path] = {"json": ma.to_json(), "sgf": annotated_sgf(record, ma)}
    return _REFERENCE[path]


def submit(
    store: Analyses,
    matches: list[dict[str, Any]],
    level: str | None = None,
    priority: str | None = None,
    **options: Any,
) -> str:
    """Submit the analysis of ``matches`` at ``level`` (the kind's request body, options as its fields)."""
    return store.submit({"matches": matches, "level": level, "priority": priority, **options})


def queues_empty(store: Analyses) -> bool:
    return idle(store.redis)


def match_file(path: Path, **extra: Any) -> dict[str, Any]:
    return {"data": path.read_bytes(), "filename": path.name, **extra}


def wait_done(store: Analyses, job_id: str, timeout: float = 120) -> list[dict[str, Any]]:
    """The statuses seen (without the games) until the job is done."""
    seen: list[dict[str, Any]] = []

    def done() -> bool:
        s = store.status(job_id, games=False)
        seen.append(s)
        assert s["state"] not in ("failed", "cancelled"), s
        return bool(s["state"] == "done")

    wait_until(done, timeout, f"analysis job {job_id} to finish", every=0.1)
    return seen


def assert_equals_reference(status: dict[str, Any], m: int, path: Path, local: NetEvaluator) -> None:
    """The job's match ``m`` equals analyse_match run here: every game and the summary."""
    want = reference(path, local)["json"]
    got = status["matches"][m]
    assert got["state"] == "done" and got["games_done"] == got["games_total"] == len(want["games"])
    assert got["games"] == want["games"]  # every decision, every number
    assert got["summary"] == {k: v for k, v in want.items() if k != "games"}


# ---- the tests ---------------------------------------------------------------------------


def test_formats_are_detected_by_name_then_content() -> None:
    assert detect_format(b"x", "a.TXT") == "mat" and detect_format(b"x", "a.sgf") == "sgf"
    assert detect_format(b"RGMH\x00") == "xg" and detect_format(b"GMD-1\n") == "gmd"
    assert detect_format(b"\n(;FF[4]GM[6]") == "sgf" and detect_format(b" 1 point match") == "mat"
    assert detect_format(b"OGXM\x02\x00") == "ogxm" and detect_format(b"x", "a.ogxm") == "ogxm"


def test_an_ogxm_file_is_read_as_the_match_it_was_written_from() -> None:
    """An analysis job's OGXM file (issue 45): the games of the .mat it was written from."""
    data = Path(__file__).resolve().parents[1] / "formats" / "data"
    ogxm = file_summary((data / "ogxm" / "7point.ogxm").read_bytes(), "ogxm")
    mat = file_summary((data / "7point.mat").read_bytes(), "mat")
    assert ogxm["length"] == mat["length"] and len(ogxm["actions"]) == len(mat["actions"])
    with pytest.raises(InvalidJob) as e:
        file_summary(b"OGXM" + b"\x00" * 40, "ogxm")
    assert e.value.field == "file"


def test_bad_submissions_name_the_field(store: Analyses) -> None:
    good = match_file(SHORT)
    broken = {"data": b" 1 point match\n\n Game 1\n a : 0    b : 0\n  1) 77: 24/18 13/11\n"}
    cases: list[tuple[Callable[[], Any], str, str]] = [
        (lambda: submit(store, [broken], "0ply", single=True), "file", "line 5, column 6"),
        (lambda: submit(store, [good, broken], "0ply"), "matches[1].file", "line 5"),
        (lambda: submit(store, [{"data": b"(;FF[4]GM[6]"}], "0ply", single=True), "file", "line 1"),
        (lambda: submit(store, [{"data": b"   "}], "0ply", single=True), "file", "empty"),
        (lambda: submit(store, [{"data": b"GMD-1\n"}], "0ply", single=True), "file", "no game"),
        (lambda: submit(store, [{"data": b"x" * (64 * 1024 + 1)}], "0ply"), "matches[0].file", "at most"),
        (lambda: submit(store, [good], "9ply"), "level", "one of"),
        (lambda: submit(store, [good], "3ply"), "level", "not allowed"),
        (lambda: submit(store, [good], "deep"), "level", "not allowed"),
        (lambda: submit(store, [good], "0ply", "urgent"), "priority", "one of"),
        (lambda: submit(store, [good] * 4, "0ply"), "matches", "at most 3"),
        (lambda: submit(store, [], "0ply"), "matches", "non-empty"),
        (lambda: submit(store, [{**good, "format": "doc"}], "0ply"), "matches[0].format", "one of"),
    ]
    for call, field, words in cases:
        with pytest.raises(InvalidJob) as e:
            call()
        assert e.value.field == field and words in e.value.message, (field, e.value)
    assert queues_empty(store)  # nothing was queued for a refused job
    with pytest.raises(JobNotFound):
        store.status("0123456789abcdef01234567")


def test_short_match_end_to_end_equals_analyse_match(
    workers: Workers, store: Analyses, local: NetEvaluator
) -> None:
    workers.ensure(2)
    job_id = submit(store, [match_file(SHORT)], "0ply")
    first = store.status(job_id)
    assert first["kind"] == "analysis" and first["level"] == "0ply" and first["priority"] == "interactive"
    assert first["games_total"] == 1 and first["matches"][0]["players"] == ["lasse", "yuko"]
    with pytest.raises(MatchNotReady):
        store.sgf(job_id, 0)
    seen = wait_done(store, job_id)
    final = store.status(job_id)
    assert final["progress"] == 1 and final["eta_s"] == 0 and final["games_done"] == 1
    assert [s["progress"] for s in seen] == sorted(s["progress"] for s in seen)
    assert store.result(job_id) == final
    assert_equals_reference(final, 0, SHORT, local)
    assert store.sgf(job_id, 0) == reference(SHORT, local)["sgf"]
    with pytest.raises(InvalidJob) as e:
        store.sgf(job_id, 1)
    assert e.value.field == "match"
    assert store.cancel(job_id) is False  # finished
    # a worker lost between the result and its progress entry: status() repairs the entry
    store.redis.hdel(Analyses.progress_key(job_id), "0")
    assert store.status(job_id, games=False)["games_done"] == 1 and store.redis.hexists(
        Analyses.progress_key(job_id), "0"
    )
    # the match's checker plays went into the archive of similar positions (the durable store's, of the
    # job's owner: none here), once per move
    from services.store.archive import SqlArchive

    want = reference(SHORT, local)["json"]
    plays = [d for g in want["games"] for d in g["decisions"] if d["kind"] == "checker"]
    changes = SqlArchive(store.records.url, "").changes_since(0)
    assert changes is not None
    stored = {e.id: e.as_dict() for e in changes[1] if "lasse vs yuko" in str(e.as_dict().get("match"))}
    assert len(stored) == len(plays) > 0
    assert sorted((e["position_id"], e["play"]) for e in stored.values()) == sorted(
        (d["position_id"], d["played"]) for d in plays
    )
    done = sum(w.metric("pulvezar_analysis_games_total", outcome="done") for w in workers.running)
    assert done >= 1
    assert sum(w.metric("pulvezar_analysis_game_seconds_count", level="0ply") for w in workers.running) >= 1


def test_the_settings_record_the_pruning_and_the_workers_honour_it(
    workers: Workers, store: Analyses, local: NetEvaluator
) -> None:
    """Pruned by default; ``prune=False`` is recorded in the settings and the worker's analysis is the
    library's unpruned one (the two differ on this match at 1 ply)."""
    workers.ensure(1)
    jobs = {
        True: submit(store, [match_file(SHORT)], "1ply"),
        False: submit(store, [match_file(SHORT)], "1ply", prune=False),
    }
    record = read_mat(SHORT.read_bytes())
    games = {}
    for prune, job_id in jobs.items():
        assert store.spec(job_id)["settings"]["prune"] is prune
        wait_done(store, job_id)
        got = store.status(job_id)["matches"][0]
        with worker_threads():
            want = analyse_match(
                record, AnalysisSettings.from_level("1ply", prune=prune), evaluator=local
            ).to_json()
        assert got["summary"]["settings"]["prune"] is prune
        assert got["games"] == want["games"]
        games[prune] = got["games"]
    assert games[True] != games[False]


def test_cancel_stops_the_job_and_resume_finishes_it(
    workers: Workers, store: Analyses, local: NetEvaluator
) -> None:
    workers.ensure(2)
    job_id = submit(store, [match_file(LONG)] * 2, "0ply", "batch")  # 8 games
    wait_until(lambda: store.status(job_id, games=False)["games_done"] >= 1, 120, "a first game", every=0.1)
    assert store.cancel(job_id) is True
    assert store.cancel(job_id) is False
    wait_until(lambda: queues_empty(store), 30, "the remaining games to be skipped", every=0.1)
    time.sleep(1.0)  # a game running at cancel time stops at its next evaluator call
    done = store.status(job_id, games=False)["games_done"]
    time.sleep(1.0)
    final = store.status(job_id)
    assert final["state"] == "cancelled" and final["games_done"] == done < 8 and final["eta_s"] is None
    assert final["matches"][1]["state"] in ("cancelled", "done")
    # the games analysed before the cancel are kept
    assert sum(g is not None for m in final["matches"] for g in m["games"]) == done
    # resumed: the other games are queued again and the job ends as if never cancelled
    assert store.resume_stopped(job_id) == 8 - done
    with pytest.raises(JobStateError):
        store.resume_stopped(job_id)  # running: nothing to resume
    reference(LONG, local)  # made here (once) while the workers finish the job
    wait_done(store, job_id)
    resumed = store.status(job_id)
    assert_equals_reference(resumed, 0, LONG, local)
    assert_equals_reference(resumed, 1, LONG, local)
    with pytest.raises(JobStateError):
        store.resume_stopped(job_id)  # done


def test_worker_killed_mid_game_gives_the_same_analysis(
    workers: Workers, store: Analyses, local: NetEvaluator
) -> None:
    running = workers.ensure(2)
    wait_until(lambda: queues_empty(store), 60, "empty queues")
    job_id = submit(store, [match_file(LONG)], "0ply")

    def first_start() -> tuple[Worker, dict[str, Any]] | None:
        for w in running:
            for e in list(w.logs):
                if e.get("msg") == "analysis chunk started" and e.get("job") == job_id:
                    return w, e
        return None

    victim, lost = wait_until(first_start, 60, "a game of the job to start", every=0.02)
    time.sleep(0.3)  # in the middle of its game (seconds long)
    victim.kill()
    lost_key = f"analysis:{job_id}:chunk:{lost['chunk']}"
    assert not store.redis.exists(lost_key), "the game finished before the kill"
    workers.ensure(2)  # a replacement; the lost game comes back when its lease expires
    wait_done(store, job_id, timeout=180)
    final = store.status(job_id)
    assert_equals_reference(final, 0, LONG, local)
    record = json.loads(store.redis.get(lost_key))
    assert record["worker"] != f"{socket.gethostname()}:{lost['pid']}"  # analysed again, elsewhere


def test_analyse_all_gives_results_per_match(workers: Workers, store: Analyses, local: NetEvaluator) -> None:
    workers.ensure(2)
    job_id = submit(store, [match_file(SHORT), match_file(TINY)], "0ply")
    first = store.status(job_id, games=False)
    assert first["priority"] == "batch" and first["games_total"] == 2 and len(first["matches"]) == 2
    wait_done(store, job_id)
    final = store.status(job_id)
    assert [m["filename"] for m in final["matches"]] == [SHORT.name, TINY.name]
    assert_equals_reference(final, 0, SHORT, local)
    assert_equals_reference(final, 1, TINY, local)
    assert store.sgf(job_id, 1) == reference(TINY, local)["sgf"]
    one = store.status(job_id, match=1)  # only match 1's games
    assert "games" not in one["matches"][0] and one["matches"][1]["games"] == final["matches"][1]["games"]
    with pytest.raises(InvalidJob) as e:
        store.status(job_id, match=2)
    assert e.value.field == "match"


def test_a_failing_game_fails_the_job_and_keeps_the_rest(
    workers: Workers, store: Analyses, local: NetEvaluator
) -> None:
    running = workers.ensure(2)
    good = submit(store, [match_file(SHORT), match_file(TINY)], "0ply")
    wait_done(store, good)
    # the same job with a chunk of a game the match does not have: analyse_game raises every time
    job_id = f"failing{good}"
    spec = {**store.spec(good), "id": job_id, "chunks": [[0, 0], [1, 7]]}
    for m in range(2):
        store.redis.set(Analyses.file_key(job_id, m), store.redis.get(Analyses.file_key(good, m)))
    store.redis.set(Analyses.spec_key(job_id), json.dumps(spec))
    for n in range(2):
        store.app.send_task(KIND_CHUNK_TASK, args=["analysis", job_id, n], queue=INTERACTIVE_QUEUE)

    def ended() -> dict[str, Any] | None:
        s = store.status(job_id)
        return s if s["state"] not in ("queued", "running") else None

    final = wait_until(ended, 60, "the job to end", every=0.1)
    assert final["state"] == "failed" and final["games_done"] == 1 and final["games_failed"] == 1
    kept, failed = final["matches"]
    assert kept["state"] == "done" and kept["games"] == reference(SHORT, local)["json"]["games"]
    assert failed["state"] == "failed" and "out of range" in failed["error"] and failed["summary"] is None
    assert "match 1: game 8" in final["error"]
    assert store.result(job_id) is None and store.sgf(job_id, 0) == reference(SHORT, local)["sgf"]
    with pytest.raises(MatchNotReady):
        store.sgf(job_id, 1)
    retries = RolloutSettings().max_retries
    assert sum(w.metric("pulvezar_analysis_games_total", outcome="retried") for w in running) >= retries
    assert sum(w.metric("pulvezar_analysis_games_total", outcome="failed") for w in running) == 1


def test_the_analysis_depths_are_the_librarys() -> None:
    """The job store names the depths without importing the analysis library; they must be the same."""
    from pulvezar.analysis.match import ANALYSIS_DEPTHS
    from services.jobs.analysis_files import ANALYSIS_DEPTHS as named

    assert named == ANALYSIS_DEPTHS
