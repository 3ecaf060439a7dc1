"""Match analysis jobs in Redis: submit, progress, results, cancel (:class:`AnalysisStore`).

A job analyses one match or many ("analyse all") at one level (``0ply`` .. ``deep``).  One chunk
is one game of one match: the Celery task of :mod:`services.rollout.analysis_tasks` reads the
match file stored with the job, replays it and runs :func:`pulvezar.analysis.match.analyse_game`
on that game.  Chunks go to the rollout queues (the job's priority picks the queue) and are run by
the same workers, so an analysis job and a rollout job share the fleet fairly, chunk by chunk.
Keys (all expire ``job_ttl_s`` after submission):

``analysis:{id}:spec``          JSON: kind, priority, level, the library's settings, the matches
                                 (file name, format, players, length, actions per game), the chunks
                                 (``[match, game]`` per chunk)
``analysis:{id}:file:{m}``      match ``m``'s file, base64 (kept with the job: a chunk needs nothing
                                 else, so it is idempotent and survives worker restarts)
``analysis:{id}:chunk:{n}``     chunk ``n``'s result (``GameAnalysis.to_json()`` and timings, or the
                                 error after the retries), written once (``SET NX``)
``analysis:{id}:progress``      hash, field ``n`` = chunk ``n``'s result less the analysis (timings
                                 or error): progress and ETA read this small hash, never the
                                 analyses (see :func:`record_chunk`)
``analysis:{id}:summary:{m}``   match ``m``'s ``MatchAnalysis.to_json()`` without the games (the
                                 per-player statistics), once all its games are done, written once
                                 by whoever first sees them done
``analysis:{id}:started``       when a worker first started a chunk
``analysis:{id}:cancel``        present once the job is cancelled; workers skip and stop its chunks
                                 (removed by :meth:`AnalysisStore.resume`, which queues the games
                                 without a result again)

As for rollouts there is no chord: :meth:`AnalysisStore.status` merges the chunk keys that exist,
so a game analysed twice (a redelivery) counts once.  A game that still fails after its retries is
recorded as failed; the other games and matches go on, and the job ends ``failed`` with their
results kept.

The library (:mod:`pulvezar.analysis.match`) is imported when first needed, so that the gateway
imports this module without torch work.
"""

from __future__ import annotations

import base64
import binascii
import json
import logging
import secrets
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from services.jobs.analysis_archive import (
    ARCHIVE_RETRY_KEY,
    archive_entries,
    archive_match,
    owner_archive,
    record_for_learner,
    store_match_result,
)
from services.jobs.analysis_files import (
    ANALYSIS_DEPTHS,
    FORMATS,
    AnalysisDepth,
    AnalysisJobSettings,
    detect_format,
    learner_sides,
    level_settings,
    plan_job,
    read_record,
)
from services.jobs.analysis_report import game_engines, job_report, match_entry
from services.jobs.broker import ANALYSIS_TASK
from services.jobs.chunked import ChunkedJobs
from services.jobs.errors import InvalidJob, JobNotFound, JobStateError, text
from services.jobs.states import STOPPED, JobState

__all__ = [
    "ANALYSIS_DEPTHS",
    "ANALYSIS_TASK",
    "FORMATS",
    "AnalysisDepth",
    "AnalysisJobSettings",
    "AnalysisStore",
    "InvalidJob",
    "JobNotFound",
    "JobStateError",
    "MatchNotReady",
    "archive_entries",
    "archive_match",
    "detect_format",
    "level_settings",
    "read_record",
]
from services.jobs.settings import RolloutSettings

logger = logging.getLogger("pulvezar.services.analysis")


class MatchNotReady(JobStateError):
    """The match's games are not all analysed (yet, or one failed); ``field`` is ``match``."""

    field = "match"


# ---- chunk results ------------------------------------------------------------------


def _meta(record: Mapping[str, Any]) -> str:
    return json.dumps({k: v for k, v in record.items() if k != "analysis"})


def record_chunk(redis_client: Any, job_id: str, n: int, record: Mapping[str, Any], ttl: int) -> bool:
    """Write chunk ``n``'s result once (``SET NX``), then its entry in the progress hash.  False when
    the chunk had a result already (a duplicate: its progress entry is made sure of instead)."""
    if not redis_client.set(chunk_key(job_id, n), json.dumps(record), nx=True, ex=ttl):
        repair_progress(redis_client, job_id, n, ttl)
        return False
    pipe = redis_client.pipeline(transaction=False)
    pipe.hset(progress_key(job_id), str(n), _meta(record))
    pipe.expire(progress_key(job_id), ttl)
    pipe.execute()
    return True


def repair_progress(redis_client: Any, job_id: str, n: int, ttl: int) -> bool:
    """Make the progress entry of a chunk whose result exists (a worker lost between the two writes
    of :func:`record_chunk`); True when one was written."""
    if redis_client.hexists(progress_key(job_id), str(n)):
        return False
    raw = text(redis_client.get(chunk_key(job_id, n)))
    if raw is None:
        return False
    redis_client.hset(progress_key(job_id), str(n), _meta(json.loads(raw)))
    redis_client.expire(progress_key(job_id), ttl)
    return True


# ---- cost ---------------------------------------------------------------------------
#: estimated core-seconds of one decision (a checker play or a cube action) by analysis level, and of a
#: game whatever its length (reading, the match model); bench/job_costs.py checks them
DECISION_SECONDS = {"0ply": 0.003, "1ply": 0.008, "2ply": 0.1, "3ply": 2.0, "deep": 10.0}
GAME_SECONDS = 0.05


def analysis_cost(level: str, infos: Sequence[Mapping[str, Any]]) -> float:
    """The estimated core-seconds of analysing the matches of ``infos`` (each with ``actions``: the
    actions of each game) at ``level``; what admission charges the job."""
    per = DECISION_SECONDS[level]
    return sum(GAME_SECONDS + per * int(n) for info in infos for n in info["actions"])


# ---- the store ------------------------------------------------------------------


class AnalysisStore(ChunkedJobs):
    """Match analysis jobs; games are analysed by the workers' task of :mod:`services.rollout.analysis_tasks`.

    With the durable store (``records``) the job and its files are written there before the games are
    queued, each game as it is analysed, each match's result and SGF.
    """

    namespace = "analysis"
    task = ANALYSIS_TASK
    kinds = ("analysis",)
    noun = "analysis"

    def __init__(
        self,
        redis_client: Any,
        app: Any = None,
        settings: RolloutSettings | None = None,
        limits: AnalysisJobSettings | None = None,
        records: Any = None,
    ) -> None:
        super().__init__(redis_client, app, settings, records)
        self.limits = limits or AnalysisJobSettings()

    @classmethod
    def file_key(cls, job_id: str, m: int) -> str:
        return cls.key(job_id, f"file:{m}")

    @classmethod
    def summary_key(cls, job_id: str, m: int) -> str:
        return cls.key(job_id, f"summary:{m}")

    @classmethod
    def progress_key(cls, job_id: str) -> str:
        return cls.key(job_id, "progress")

    def chunk_count(self, job_id: str, spec: Mapping[str, Any]) -> int:
        return len(spec["chunks"])

    def job_keys(self, job_id: str, spec: Mapping[str, Any]) -> list[str]:
        matches = range(len(spec["matches"]))
        return [self.progress_key(job_id), *(self.file_key(job_id, m) for m in matches)] + [
            self.summary_key(job_id, m) for m in matches
        ]

    def state(self, job_id: str) -> tuple[JobState, str | None]:
        spec = self.spec(job_id)
        records = self._progress(job_id, len(spec["chunks"]))
        done = sum(r is not None and "error" not in r for r in records)
        failed = sum(r is not None and "error" in r for r in records)
        return self.state_of(job_id, done, failed, len(spec["chunks"]))[0], None

    # ---- submission ----------------------------------------------------
    def submit(
        self,
        matches: Sequence[Mapping[str, Any]],
        level: str | None = None,
        priority: str | None = None,
        *,
        single: bool = False,
        owner: str | None = None,
        learner: Mapping[str, Any] | None = None,
        admit: Callable[[float], None] | None = None,
        prune: bool = True,
    ) -> str:
        """Queue the analysis of one or more matches; returns the job id.

        Each entry of ``matches``: ``data`` (the file: bytes, or text), optional ``format`` (mat,
        sgf, xg, gmd; default by ``filename``, else by content) and ``filename``.  ``level``: one of
        :data:`ANALYSIS_DEPTHS` up to the platform's ``max_level`` (default ``default_level``); ``priority``:
        ``interactive`` or ``batch`` (default interactive for one match, batch for several).
        ``single``: name errors after the one-match request's fields (``file``, not
        ``matches[0].file``).  ``learner``: the player the matches are recorded for (``player``, its
        ``name`` and, optional, ``player_name``: which of each match's players it is; ``game_id``: the game
        played here that the match is), see :func:`learner_sides`.  ``admit``: called with the job's
        estimated core-seconds (:func:`analysis_cost`) before anything is recorded.  ``prune``: the
        searches at 1 ply or deeper prune their replies (recorded in the library settings).  Raises
        :class:`InvalidJob` naming the field.
        """
        level, priority, files, infos, chunks = plan_job(matches, level, priority, single, self.limits)
        if admit is not None:
            admit(analysis_cost(level, infos))
        lib_settings = level_settings(level, prune)
        job_id = secrets.token_hex(12)
        spec = {
            "id": job_id,
            "kind": "analysis",
            "priority": priority,
            "level": level,
            "settings": lib_settings.to_json(),
            "created": time.time(),
            "matches": infos,
            "chunks": chunks,
            "owner": owner,  # whose archive of positions the analysed decisions join
        }
        if learner is not None:  # each match's analysis joins this player's record
            spec["learner"] = learner_sides(learner, infos)
        if self.records is not None:  # accepted once it is in the system of record
            self.records.create(
                job_id, "analysis", spec, owner=owner, priority=priority, chunk_list=chunks,
                created=spec["created"], blobs={f"file:{m}": data for m, data in enumerate(files)},
            )  # fmt: skip
        self.write(job_id, spec, files, {}, {})
        self.enqueue(job_id, priority, range(len(chunks)), owner=owner)
        return job_id

    def estimate(
        self, matches: Sequence[Mapping[str, Any]], level: str | None = None, single: bool = False
    ) -> float:
        """What :meth:`submit` of ``matches`` at ``level`` would be charged, in core-seconds."""
        level, _, _, infos, _ = plan_job(matches, level, None, single, self.limits)
        return analysis_cost(level, infos)

    def write(
        self,
        job_id: str,
        spec: Mapping[str, Any],
        files: Sequence[bytes],
        records: Mapping[int, Mapping[str, Any]],
        summaries: Mapping[int, Any],
    ) -> None:
        """A job's keys in Redis: files, finished games (with their progress entries), match summaries
        and, last, the spec (a visible spec has its files)."""
        ttl = self.settings.job_ttl_s
        pipe = self.redis.pipeline(transaction=True)
        for m, data in enumerate(files):
            pipe.set(file_key(job_id, m), base64.b64encode(data).decode(), ex=ttl)
        self.write_once(pipe, job_id, records)
        for n, record in records.items():
            pipe.hset(progress_key(job_id), str(n), _meta(record))
        if records:
            pipe.expire(progress_key(job_id), ttl)
        for m, summary in summaries.items():
            pipe.set(summary_key(job_id, m), json.dumps(summary), ex=ttl, nx=True)
        pipe.set(spec_key(job_id), json.dumps(spec), ex=ttl)
        pipe.execute()

    def restore(self, job_id: str, row: Any) -> None:
        spec = dict(row.spec)
        files = [self.records.blob(job_id, f"file:{m}") or b"" for m in range(len(spec["matches"]))]
        summaries = {}
        for m in range(len(spec["matches"])):
            raw = self.records.blob(job_id, f"summary:{m}")
            if raw is not None:
                summaries[m] = json.loads(raw)
        self.write(job_id, spec, files, self.records.chunks(job_id), summaries)

    # ---- reading -------------------------------------------------------
    def spec(self, job_id: str) -> dict[str, Any]:
        raw = text(self.redis.get(spec_key(job_id)))
        if raw is None and self.records is not None and self.records.get(job_id) is not None:
            self.rehydrate(job_id)  # Redis lost it: back from the durable store, unfinished games queued
            raw = text(self.redis.get(spec_key(job_id)))
        if raw is None:
            raise JobNotFound(job_id)
        spec: dict[str, Any] = json.loads(raw)
        return spec

    def file(self, job_id: str, m: int) -> bytes:
        raw = text(self.redis.get(file_key(job_id, m)))
        if raw is None and self.records is not None:  # an ended job's file left Redis (the reconciler)
            kept = self.records.blob(job_id, f"file:{m}")
            if kept is not None:
                return bytes(kept)
        if raw is None:
            raise JobNotFound(job_id)
        try:
            return base64.b64decode(raw, validate=True)
        except binascii.Error:
            raise JobNotFound(job_id) from None

    def record(self, job_id: str, m: int, spec: Mapping[str, Any] | None = None) -> Any:
        """The parsed match ``m`` of the job."""
        spec = spec or self.spec(job_id)
        return read_record(self.file(job_id, m), spec["matches"][m]["format"])

    def _progress(self, job_id: str, total: int) -> list[dict[str, Any] | None]:
        """Per chunk: its result less the analysis (timings, or ``error``), None while it has none."""
        raw = self.redis.hgetall(progress_key(job_id))
        out: list[dict[str, Any] | None] = [None] * total
        for k, v in raw.items():
            n = int(text(k) or -1)
            if 0 <= n < total:
                out[n] = json.loads(text(v) or "null")
        missing = [n for n, r in enumerate(out) if r is None]
        if missing:  # a result without its progress entry (a worker lost between the two writes)?
            pipe = self.redis.pipeline(transaction=False)
            for n in missing:
                pipe.exists(chunk_key(job_id, n))
            for n, exists in zip(missing, pipe.execute(), strict=True):
                if exists and repair_progress(self.redis, job_id, n, self.settings.job_ttl_s):
                    out[n] = json.loads(text(self.redis.hget(progress_key(job_id), str(n))) or "null")
        return out

    def _analyses(self, job_id: str, numbers: Sequence[int]) -> dict[int, Any]:
        """The ``GameAnalysis.to_json()`` of the given chunks that have one."""
        if not numbers:
            return {}
        raw = self.redis.mget([chunk_key(job_id, n) for n in numbers])
        out = {}
        for n, r in zip(numbers, raw, strict=True):
            record = None if r is None else json.loads(text(r) or "null")
            if record is not None and "analysis" in record:
                out[n] = record["analysis"]
        return out

    def _summaries(self, job_id: str, matches: int) -> list[dict[str, Any] | None]:
        raw = self.redis.mget([summary_key(job_id, m) for m in range(matches)])
        return [None if r is None else json.loads(text(r) or "null") for r in raw]

    def finalise_match(
        self, job_id: str, m: int, spec: Mapping[str, Any] | None = None
    ) -> dict[str, Any] | None:
        """Match ``m``'s summary (``MatchAnalysis.to_json()`` less ``games``: players with their
        statistics, length, variant, settings, engine) once all its games are analysed, else None.

        The first caller that finds the games done writes the summary (``SET NX``) and adds the
        match's decisions to the archive of positions (best effort, see :func:`archive_match`);
        later callers read it.  A match analysed for a player is recorded for it before the summary is
        written (once: :func:`record_for_learner`), so whoever sees the summary sees the record.  The
        workers call this after each game; :meth:`status` too, so a worker lost between its last game
        and the summary loses nothing.
        """
        spec = spec or self.spec(job_id)
        cached = text(self.redis.get(summary_key(job_id, m)))
        if cached is not None:
            out: dict[str, Any] = json.loads(cached)
            return out
        games = self._games(job_id, m, spec)
        if games is None:
            return None
        from pulvezar.analysis.match import summarise

        record = self.record(job_id, m, spec)
        summary: dict[str, Any] = summarise(record, games).to_json()
        summary.pop("games", None)  # each game's analysis is in its chunk's key already
        if spec.get("learner") and self.records is not None:  # once per match, before the summary shows
            record_for_learner(self.records.url, spec["learner"], job_id, m, games, summary)
        if self.redis.set(summary_key(job_id, m), json.dumps(summary), nx=True, ex=self.settings.job_ttl_s):
            archive = owner_archive(self.redis, self.records, spec.get("owner"))
            archive_match(archive, job_id, m, record, games, self.file(job_id, m), self.redis)
            store_match_result(self.records, job_id, m, record, games, summary)
        else:  # another caller was first: theirs is the same
            again = text(self.redis.get(summary_key(job_id, m)))
            if again is not None:
                summary = json.loads(again)
        return summary

    def archive_again(self, limit: int = 100) -> tuple[int, int]:
        """Retry the archive writes that failed (:data:`ARCHIVE_RETRY_KEY`); ``(written, failed)``
        matches.  A retry that fails again stays noted; one whose job is gone is dropped."""
        written = failed = 0
        for raw in self.redis.srandmember(ARCHIVE_RETRY_KEY, limit) or []:
            member = text(raw) or ""
            job_id, _, m_text = member.partition("|")
            try:
                spec = self.spec(job_id)
                m = int(m_text)
                games = self._games(job_id, m, spec)
            except (LookupError, ValueError):
                self.redis.srem(ARCHIVE_RETRY_KEY, member)
                continue
            if games is None:
                self.redis.srem(ARCHIVE_RETRY_KEY, member)
                continue
            self.redis.srem(ARCHIVE_RETRY_KEY, member)  # noted again by archive_match if it fails again
            archive = owner_archive(self.redis, self.records, spec.get("owner"))
            data = self.file(job_id, m)
            if archive_match(archive, job_id, m, self.record(job_id, m, spec), games, data, self.redis):
                written += 1
            else:
                failed += 1
        return written, failed

    def _games(self, job_id: str, m: int, spec: Mapping[str, Any]) -> list[Any] | None:
        """Match ``m``'s :class:`~pulvezar.analysis.match.GameAnalysis` per game, or None until all
        its games are analysed."""
        mine = [n for n, (mm, _g) in enumerate(spec["chunks"]) if mm == m]
        found = self._analyses(job_id, mine)
        if not mine or len(found) < len(mine):
            return None
        from pulvezar.analysis.match import GameAnalysis

        return [GameAnalysis.from_json(found[n]) for n in mine]

    def status(self, job_id: str, games: bool = True, match: int | None = None) -> dict[str, Any]:
        """State, progress, ETA and the results so far (``games``: with each game's analysis; ``match``:
        only that match's games, :class:`InvalidJob` naming ``match`` when the job has no such match).

        ``{"job_id", "kind": "analysis", "priority", "level", "state": queued|running|done|failed|
        cancelled, "error", "games_done", "games_failed", "games_total", "progress" (games done /
        total), "eta_s" (None until a game is done, 0 when finished), "elapsed_s", "created",
        "matches": [{"match", "filename", "format", "players", "length", "state", "error",
        "games_done", "games_total", "games": [GameAnalysis JSON or None per game] (with ``games``),
        "summary": MatchAnalysis JSON once the match is done, else None}]}``
        """
        spec = self.spec(job_id)
        if match is not None and not 0 <= match < len(spec["matches"]):
            raise InvalidJob("match", f"the job has matches 0..{len(spec['matches']) - 1}, got {match}")
        chunks = spec["chunks"]
        records = self._progress(job_id, len(chunks))
        summaries = self._summaries(job_id, len(spec["matches"]))
        done = [r is not None and "error" not in r for r in records]
        failed = [r is not None and "error" in r for r in records]
        state = self.state_of(job_id, sum(done), sum(failed), len(chunks))[0]
        wanted = [n for n, (m, _g) in enumerate(chunks) if done[n] and match in (None, m)] if games else []
        analyses = self._analyses(job_id, wanted)
        matches, engines = [], []
        for m, info in enumerate(spec["matches"]):
            mine = [n for n, (mm, _g) in enumerate(chunks) if mm == m]
            summary = summaries[m]
            if summary is None and mine and all(done[n] for n in mine):
                summary = self.finalise_match(job_id, m, spec)
            with_games = games and match in (None, m)
            matches.append(match_entry(m, info, mine, chunks, records, state, summary, analyses, with_games))
            engines += game_engines(records, mine, summary)
        return job_report(job_id, spec, state, records, matches, engines)

    def result(self, job_id: str) -> dict[str, Any] | None:
        """The full report (as :meth:`status`) once the job is done, else None (also when it failed
        or was cancelled: :meth:`status` still has what was analysed)."""
        report = self.status(job_id)
        return report if report["state"] == JobState.DONE else None

    def match_analysis(self, job_id: str, m: int) -> tuple[Any, Any]:
        """Match ``m``'s record and :class:`~pulvezar.analysis.match.MatchAnalysis`; :class:`InvalidJob`
        (``match``) for a match the job does not have, :class:`MatchNotReady` while its games are
        not all analysed."""
        spec = self.spec(job_id)
        if isinstance(m, bool) or not isinstance(m, int) or not 0 <= m < len(spec["matches"]):
            raise InvalidJob("match", f"the job has matches 0..{len(spec['matches']) - 1}, got {m!r}")
        games = self._games(job_id, m, spec)
        if games is None:
            raise MatchNotReady(f"match {m} of job {job_id} is not analysed yet (or a game failed)")
        from pulvezar.analysis.match import summarise

        record = self.record(job_id, m, spec)
        return record, summarise(record, games)

    def sgf(self, job_id: str, m: int = 0) -> str:
        """Match ``m`` as an SGF file with the analysis, for GNU Backgammon."""
        from pulvezar.analysis.match import annotated_sgf

        record, analysis = self.match_analysis(job_id, m)
        out: str = annotated_sgf(record, analysis)
        return out

    # ---- changing --------------------------------------------------------
    def resume(self, job_id: str) -> int:
        """Continue a cancelled or failed job: its failed games are forgotten and every game without
        a result is queued again (the games already analysed are kept).  Returns how many games were
        queued; :class:`JobStateError` for a job that is queued, running or done."""
        spec = self.spec(job_id)
        chunks = spec["chunks"]
        records = self._progress(job_id, len(chunks))
        done = sum(r is not None and "error" not in r for r in records)
        failed = [n for n, r in enumerate(records) if r is not None and "error" in r]
        state = self.state_of(job_id, done, len(failed), len(chunks))[0]
        if state not in STOPPED:
            raise JobStateError(f"job {job_id} is {state}: only a cancelled or failed job can be resumed")
        pipe = self.redis.pipeline(transaction=True)
        pipe.delete(cancel_key(job_id), *(chunk_key(job_id, n) for n in failed))
        if failed:
            pipe.hdel(progress_key(job_id), *(str(n) for n in failed))
        pipe.execute()
        todo = [n for n, r in enumerate(records) if r is None or n in failed]
        if self.records is not None:
            for m in range(len(spec["matches"])):  # the files the reconciler dropped when the job ended
                if not self.redis.exists(file_key(job_id, m)):
                    data = self.records.blob(job_id, f"file:{m}")
                    if data is not None:
                        encoded = base64.b64encode(data).decode()
                        self.redis.set(file_key(job_id, m), encoded, ex=self.settings.job_ttl_s)
            self.records.forget_chunks(job_id, failed)
            self.records.reopen(job_id, chunks)
        self.enqueue(job_id, spec["priority"], todo, owner=self.owner(job_id) or spec.get("owner"))
        return len(todo)


spec_key = AnalysisStore.spec_key
chunk_key = AnalysisStore.chunk_key
cancel_key = AnalysisStore.cancel_key
started_key = AnalysisStore.started_key
file_key = AnalysisStore.file_key
summary_key = AnalysisStore.summary_key
progress_key = AnalysisStore.progress_key
