"""Match analyses as a job kind (:class:`Analyses`, ``analysis``): one match or many ("analyse all", or one
upload of a stream of matches or a zip of match files: a batch) at one level (``0ply`` .. ``deep``), one
chunk per game.  The report adds per-player summaries across the finished matches (:func:`batch_players`).

The match files are the job's uploads (:meth:`~services.jobs.kind.JobKind.uploads`): kept with it in Redis
and in the durable store, so a chunk needs nothing else and any worker can run it.  A chunk is
``[match, game]``; the one kind chunk task (:mod:`services.rollout.kind_tasks`) runs it through
:meth:`Analyses.run_chunk` (the match read once per process, :func:`pulvezar.analysis.match.analyse_game`
on a fresh search cache) and, after it, :meth:`Analyses.chunk_done` finalises the match once its last game
is in (:meth:`Analyses.finalise_match`: summary, the owner's archive of positions, the result and SGF in
the durable store, the learner's record).  A game that fails after its retries is recorded as failed; the
other games and matches go on, and the job ends ``failed`` with their results kept.  ``resume`` is
:meth:`~services.jobs.kind.JobKind.resume_stopped`.

The keys and the wire format are those of the analysis jobs before the job framework (their routes are written
by hand: :mod:`services.gateway.routers.analyses`). Keys (expiring ``job_ttl_s`` after the last write), under
``analysis:{id}:``: ``spec`` (kind, priority, level, the library's settings, the matches: file name, format,
players, length, actions per game and, for a member of an uploaded stream or zip, ``source``, ``member``,
``offset``, ``digest``; the chunks; ``streams``: each uploaded stream's or zip's skipped members and truncated
tail, :func:`~services.jobs.analysis_files.stream_summary`), ``file:{m}`` (match ``m``'s file, base64),
``chunk:{n}`` (the game's record: ``GameAnalysis.to_json()`` and timings, or the error), written once
(``SET NX``), ``progress`` (hash, field ``n``: the record less the analysis, which progress and the ETA read:
:func:`record_chunk`), ``summary:{m}`` (match ``m``'s ``MatchAnalysis.to_json()`` without the games, once all
its games are done, written once), ``started``, ``cancel``.

The library (:mod:`pulvezar.analysis.match`) is imported when first needed, so that the gateway imports
this module without torch work.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypedDict

from pydantic import ConfigDict, Field, PrivateAttr

from services.jobs.analysis_archive import (
    ARCHIVE_RETRY_KEY,
    archive_match,
    owner_archive,
    record_for_learner,
    store_match_result,
)
from services.jobs.analysis_files import (
    AnalysisJobSettings,
    entry_prefix,
    file_call,
    learner_sides,
    level_settings,
    plan_job,
    read_record,
)
from services.jobs.analysis_models import AnalysisReport
from services.jobs.analysis_report import game_engines, job_report, match_entry
from services.jobs.errors import InvalidJob, JobStateError, text
from services.jobs.kind import JobKind, JobRequest
from services.jobs.settings import RolloutSettings
from services.jobs.states import JobState

if TYPE_CHECKING:
    from services.store.jobs import JobRecords

logger = logging.getLogger("pulvezar.services.analysis")

#: estimated core-seconds of one decision (a checker play or a cube action) by analysis level, and of a
#: game whatever its length (reading, the match model); bench/job_costs.py checks them
DECISION_SECONDS = {"0ply": 0.003, "1ply": 0.008, "2ply": 0.1, "3ply": 2.0, "deep": 10.0}
GAME_SECONDS = 0.05

#: a one-game 1-point match of two plays: the kind's example request
EXAMPLE_MATCH = """ 1 point match

 Game 1
 charlot1 : 0                   charlot2 : 0
  1)                             62: 24/18 13/11
  2) 62: 13/7* 24/22             51:
      Wins 1 point
"""


class MatchNotReady(JobStateError):
    """The match's games are not all analysed (yet, or one failed); ``field`` is ``match``."""

    field = "match"


class AnalysisRequest(JobRequest):
    """The analysis of one or more match files.  The entries and values are checked by
    :func:`~services.jobs.analysis_files.plan_job`, naming the API's fields (``file``,
    ``matches[1].file``)."""

    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True)

    matches: Any = Field(description="the match files: ``{data (bytes or text), format?, filename?}`` each")
    level: Any = Field(None, description="the analysis depth (default: the platform's default level)")
    priority: Any = Field(None, description="interactive or batch (default: interactive for one match)")
    single: bool = Field(False, description="name errors after the one-match request's fields")
    learner: Any = Field(None, description="the player the matches are recorded for (see learner_sides)")
    prune: bool = Field(True, description="the searches at 1 ply or deeper prune their replies")
    _files: list[bytes] | None = PrivateAttr(None)  # the planned job's files (a stream's members)


def analysis_cost(level: str, infos: Sequence[Mapping[str, Any]]) -> float:
    """The estimated core-seconds of analysing the matches of ``infos`` (each with ``actions``: the
    actions of each game) at ``level``; what admission charges the job."""
    per = DECISION_SECONDS[level]
    return sum(GAME_SECONDS + per * int(n) for info in infos for n in info["actions"])


# ---- chunk records and the progress hash ------------------------------------------------


def _meta(record: Mapping[str, Any]) -> str:
    return json.dumps({k: v for k, v in record.items() if k != "analysis"})


def record_chunk(redis_client: Any, job_id: str, n: int, record: Mapping[str, Any], ttl: int) -> bool:
    """Write chunk ``n``'s result once (``SET NX``), then its entry in the progress hash.  False when
    the chunk had a result already (a duplicate: its progress entry is made sure of instead)."""
    if not redis_client.set(Analyses.chunk_key(job_id, n), json.dumps(record), nx=True, ex=ttl):
        repair_progress(redis_client, job_id, n, ttl)
        return False
    pipe = redis_client.pipeline(transaction=False)
    pipe.hset(Analyses.progress_key(job_id), str(n), _meta(record))
    pipe.expire(Analyses.progress_key(job_id), ttl)
    pipe.execute()
    return True


def repair_progress(redis_client: Any, job_id: str, n: int, ttl: int) -> bool:
    """Make the progress entry of a chunk whose result exists (a worker lost between the two writes
    of :func:`record_chunk`); True when one was written."""
    progress = Analyses.progress_key(job_id)
    if redis_client.hexists(progress, str(n)):
        return False
    raw = text(redis_client.get(Analyses.chunk_key(job_id, n)))
    if raw is None:
        return False
    redis_client.hset(progress, str(n), _meta(json.loads(raw)))
    redis_client.expire(progress, ttl)
    return True


_RECORDS: OrderedDict[tuple[str, int], Any] = OrderedDict()  # the last few parsed matches of this process
_MAX_RECORDS = 4
_RECORDS_LOCK = threading.Lock()  # the gateway's threads finalise matches too (status())


# ---- a batch's players ---------------------------------------------------------------------

#: what a match from an uploaded stream adds to its report entry: the stream's entry and the member
MEMBER_FIELDS = ("source", "member", "offset", "digest")


def summaries_of(matches: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any] | None]:
    """Each match entry's summary (None until the match is done)."""
    return [m.get("summary") for m in matches]


def _error_total(stats: Mapping[str, Any]) -> float:
    return float(stats["checker"]["error_total"]) + float(stats["cube"]["error_total"])


def batch_players(
    infos: Sequence[Mapping[str, Any]], summaries: Sequence[Mapping[str, Any] | None]
) -> list[dict[str, Any]]:
    """Per player (by name, compared without case and outer spaces) across the finished matches: the
    sums of their per-match ``games``, ``decisions``, ``errors``, ``blunders``, ``error_total`` (checker
    and cube), ``result_points`` and luck (``luck_total``, ``luck_net``, in EMG and in points), and
    ``pr``: 500 x ``error_total`` / ``decisions`` (the PR of all their decisions pooled, so a long match
    weighs more than a short one; null without decisions).  In the order they first appear."""
    out: dict[str, dict[str, Any]] = {}
    for m, (info, summary) in enumerate(zip(infos, summaries, strict=True)):
        if not summary:
            continue
        for stats in summary["players"]:
            key = str(stats["name"]).strip().casefold()
            p = out.setdefault(key, {
                "name": str(stats["name"]).strip(), "matches": [], "games": 0, "decisions": 0, "errors": 0,
                "blunders": 0, "error_total": 0.0, "result_points": 0, "luck_total": 0.0,
                "luck_total_points": 0.0, "luck_net": 0.0, "luck_net_points": 0.0,
            })  # fmt: skip
            p["matches"].append(m)
            p["games"] += len(info["actions"])
            for k in ("decisions", "errors", "blunders", "result_points"):
                p[k] += int(stats[k])
            p["error_total"] += _error_total(stats)
            luck = stats["luck"]
            p["luck_total"] += float(luck["total"])
            p["luck_total_points"] += float(luck["total_points"])
            p["luck_net"] += float(luck["net"])
            p["luck_net_points"] += float(luck["net_points"])
    for p in out.values():
        p["pr"] = 500.0 * p["error_total"] / p["decisions"] if p["decisions"] else None
    return list(out.values())


# ---- the kind -------------------------------------------------------------------------------


#: a chunk: ``[match, game]``
GameChunk = list[int]


class GameRecord(TypedDict):
    """A game's record: ``GameAnalysis.to_json()`` (the runner adds its timings)."""

    match: int
    game: int
    analysis: dict[str, Any]


class Analyses(JobKind[AnalysisRequest, GameChunk, GameRecord, dict[str, Any]]):
    """Match analysis jobs (with the durable store: the job and its files are written there before the
    games are queued, each game as it is analysed, each match's result and SGF)."""

    name = "analysis"
    route = "analyses"
    summary = "analyse match files, one game per chunk"
    noun = "analysis"
    Request = AnalysisRequest
    Report = AnalysisReport
    own_routes = True
    keeps_owner = True  # whose archive of positions the analysed decisions join, with the database down

    def __init__(
        self,
        redis_client: Any,
        app: Any = None,
        settings: RolloutSettings | None = None,
        limits: AnalysisJobSettings | None = None,
        *,
        records: JobRecords,
    ) -> None:
        super().__init__(redis_client, app, settings, records=records)
        self.limits = limits or AnalysisJobSettings()

    # ---- keys ------------------------------------------------------------
    @classmethod
    def summary_key(cls, job_id: str, m: int) -> str:
        return cls.key(job_id, f"summary:{m}")

    @classmethod
    def progress_key(cls, job_id: str) -> str:
        return cls.key(job_id, "progress")

    @classmethod
    def upload_count(cls, spec: Mapping[str, Any]) -> int:
        return len(spec["matches"])

    def job_keys(self, job_id: str, spec: Mapping[str, Any]) -> list[str]:
        matches = range(len(spec["matches"]))
        return [self.progress_key(job_id), *super().job_keys(job_id, spec)] + [
            self.summary_key(job_id, m) for m in matches
        ]

    # ---- planning ----------------------------------------------------------
    def plan(self, request: AnalysisRequest) -> tuple[dict[str, Any], list[GameChunk]]:
        level, priority, files, infos, chunks, streams = plan_job(
            request.matches, request.level, request.priority, request.single, self.limits
        )
        request._files = files
        fields: dict[str, Any] = {
            "priority": priority,
            "level": level,
            "settings": level_settings(level, request.prune).to_json(),
            "matches": infos,
        }
        if streams:  # uploaded streams of matches: what was skipped, where one stopped
            fields["streams"] = streams
        if request.learner is not None:  # each match's analysis joins this player's record
            fields["learner"] = learner_sides(request.learner, infos)
        return fields, chunks

    def uploads(self, request: AnalysisRequest) -> list[bytes]:
        if request._files is not None:  # planned: one file per match (a stream's members)
            return request._files
        single = bool(request.single)
        return [file_call(e, entry_prefix(m, single), self.limits)[0] for m, e in enumerate(request.matches)]

    def chunk_limit(self) -> int:
        return self.limits.max_games

    @classmethod
    def chunk_cost(cls, spec: Mapping[str, Any], chunk: GameChunk) -> float:
        m, g = chunk
        return GAME_SECONDS + DECISION_SECONDS[spec["level"]] * int(spec["matches"][m]["actions"][g])

    @classmethod
    def work(cls, spec: Mapping[str, Any], chunk: GameChunk) -> float:
        m, g = chunk
        actions = spec["matches"][m]["actions"]
        return float(actions[g]) if g < len(actions) else 1.0

    @classmethod
    def example(cls) -> dict[str, Any]:
        return {"matches": [{"data": EXAMPLE_MATCH, "filename": "example.mat"}], "level": "0ply"}

    @classmethod
    def log_fields(cls, spec: Mapping[str, Any], chunk: GameChunk) -> dict[str, Any]:
        return {"match": chunk[0], "game": chunk[1], "analysis_level": spec["level"]}

    # ---- the worker's side -----------------------------------------------------
    def match_record(self, job_id: str, m: int, fmt: str) -> Any:
        """Match ``m`` of the job, parsed once per process (its games are usually analysed one after
        another by the same workers)."""
        key = (job_id, m)
        with _RECORDS_LOCK:
            record = _RECORDS.get(key)
            if record is not None:
                _RECORDS.move_to_end(key)
                return record
        record = read_record(self.file(job_id, m), fmt)  # outside the lock: a parse takes a while
        with _RECORDS_LOCK:
            _RECORDS[key] = record
            while len(_RECORDS) > _MAX_RECORDS:
                _RECORDS.popitem(last=False)
        return record

    def run_chunk(self, spec: Mapping[str, Any], chunk: GameChunk, evaluator: Any) -> GameRecord:
        """Game ``g`` of match ``m`` (``chunk``) analysed with a fresh search cache: the net's last bits
        depend on the batch a board is evaluated in, so values cached by another chunk would make a game's
        numbers depend on what its process ran before."""
        from pulvezar.analysis.match import AnalysisSettings, analyse_game, engine_info

        m, g = chunk
        record = self.match_record(spec["id"], m, spec["matches"][m]["format"])
        analysis = analyse_game(record, g, AnalysisSettings.from_json(spec["settings"]), evaluator=evaluator)
        # the engine that analysed is the worker's evaluator, not the cancel-checking wrapper around it
        engine = engine_info(getattr(evaluator, "inner", evaluator))
        return {"match": m, "game": g, "analysis": dataclasses.replace(analysis, engine=engine).to_json()}

    @classmethod
    def write_record(cls, r: Any, job_id: str, n: int, record: Mapping[str, Any], ttl: int) -> bool:
        return record_chunk(r, job_id, n, record, ttl)

    @classmethod
    def duplicate(cls, r: Any, job_id: str, n: int, ttl: int) -> None:
        repair_progress(r, job_id, n, ttl)

    @classmethod
    def failure(cls, n: int, error: Exception, chunk: GameChunk | None = None) -> dict[str, Any]:
        import time

        m, g = chunk if chunk is not None else (None, None)
        return {"match": m, "game": g, "error": repr(error)[:500], "failed": time.time()}

    def chunk_done(
        self, job_id: str, n: int, spec: Mapping[str, Any], chunk: GameChunk, record: GameRecord
    ) -> None:
        """The match's summary (and its archive entries) if this was its last game; status() also does it."""
        self.finalise_match(job_id, chunk[0], spec)

    # ---- Redis and the durable store -------------------------------------------
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
        self.write_files(pipe, job_id, files)
        self.write_once(pipe, job_id, records)
        for n, record in records.items():
            pipe.hset(self.progress_key(job_id), str(n), _meta(record))
        if records:
            pipe.expire(self.progress_key(job_id), ttl)
        for m, summary in summaries.items():
            pipe.set(self.summary_key(job_id, m), json.dumps(summary), ex=ttl, nx=True)
        pipe.set(self.spec_key(job_id), json.dumps(spec), ex=ttl)
        pipe.execute()

    def restore(self, job_id: str, row: Any) -> None:
        spec = self.spec_of(row)
        summaries = {}
        for m in range(len(spec["matches"])):
            raw = self.records.blob(job_id, f"summary:{m}")
            if raw is not None:
                summaries[m] = json.loads(raw)
        files = self.stored_files(job_id, spec)
        self.write(job_id, spec, files, self.records.chunks(job_id), summaries)

    def forget(self, pipe: Any, job_id: str, numbers: Sequence[int]) -> None:
        if numbers:
            pipe.hdel(self.progress_key(job_id), *(str(n) for n in numbers))

    # ---- reading -------------------------------------------------------
    def spec(self, job_id: str) -> dict[str, Any]:
        raw = text(self.redis.get(self.spec_key(job_id)))
        if raw is None and self.row(job_id) is not None:
            self.rehydrate(job_id)  # Redis lost it: back from the durable store, unfinished games queued
            raw = text(self.redis.get(self.spec_key(job_id)))
        if raw is None:
            raise self.not_found(job_id)
        spec: dict[str, Any] = json.loads(raw)
        return spec

    def record(self, job_id: str, m: int, spec: Mapping[str, Any] | None = None) -> Any:
        """The parsed match ``m`` of the job."""
        spec = spec or self.spec(job_id)
        return read_record(self.file(job_id, m), spec["matches"][m]["format"])

    def _progress(self, job_id: str, total: int) -> list[dict[str, Any] | None]:
        """Per chunk: its result less the analysis (timings, or ``error``), None while it has none."""
        raw = self.redis.hgetall(self.progress_key(job_id))
        out: list[dict[str, Any] | None] = [None] * total
        for k, v in raw.items():
            n = int(text(k) or -1)
            if 0 <= n < total:
                out[n] = json.loads(text(v) or "null")
        missing = [n for n, r in enumerate(out) if r is None]
        if missing:  # a result without its progress entry (a worker lost between the two writes)?
            pipe = self.redis.pipeline(transaction=False)
            for n in missing:
                pipe.exists(self.chunk_key(job_id, n))
            for n, exists in zip(missing, pipe.execute(), strict=True):
                if exists and repair_progress(self.redis, job_id, n, self.settings.job_ttl_s):
                    out[n] = json.loads(text(self.redis.hget(self.progress_key(job_id), str(n))) or "null")
        return out

    def _analyses(self, job_id: str, numbers: Sequence[int]) -> dict[int, Any]:
        """The ``GameAnalysis.to_json()`` of the given chunks that have one."""
        return {
            n: r["analysis"] for n, r in self.records_of(job_id, numbers).items() if r and "analysis" in r
        }

    def _summaries(self, job_id: str, matches: int) -> list[dict[str, Any] | None]:
        raw = self.redis.mget([self.summary_key(job_id, m) for m in range(matches)])
        return [None if r is None else json.loads(text(r) or "null") for r in raw]

    def _games(self, job_id: str, m: int, spec: Mapping[str, Any]) -> list[Any] | None:
        """Match ``m``'s :class:`~pulvezar.analysis.match.GameAnalysis` per game, or None until all
        its games are analysed."""
        mine = [n for n, (mm, _g) in enumerate(spec["chunks"]) if mm == m]
        found = self._analyses(job_id, mine)
        if not mine or len(found) < len(mine):
            return None
        from pulvezar.analysis.match import GameAnalysis

        return [GameAnalysis.from_json(found[n]) for n in mine]

    def state(self, job_id: str) -> tuple[JobState, str | None]:
        spec = self.spec(job_id)
        records = self._progress(job_id, len(spec["chunks"]))
        done, failed = self._counts(records)
        return self.state_of(job_id, done, failed, len(spec["chunks"]))[0], None

    def status(self, job_id: str, games: bool = True, match: int | None = None) -> dict[str, Any]:
        """State, progress, ETA and the results so far (``games``: with each game's analysis; ``match``:
        only that match's games, :class:`InvalidJob` naming ``match`` when the job has no such match):
        :class:`~services.jobs.analysis_models.AnalysisReport`'s fields."""
        spec = self.spec(job_id)
        if match is not None and not 0 <= match < len(spec["matches"]):
            raise InvalidJob("match", f"the job has matches 0..{len(spec['matches']) - 1}, got {match}")
        chunks = spec["chunks"]
        records = self._progress(job_id, len(chunks))
        summaries = self._summaries(job_id, len(spec["matches"]))
        done = [r is not None and "error" not in r for r in records]
        state = self.state_of(job_id, *self._counts(records), len(chunks))[0]
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
            matches[-1].update({k: info[k] for k in MEMBER_FIELDS if k in info})
        report = job_report(job_id, spec, state, records, matches, engines)
        report["players"] = batch_players(spec["matches"], summaries_of(matches))
        if spec.get("streams"):
            report["streams"] = spec["streams"]
        return report

    def result(self, job_id: str) -> dict[str, Any] | None:
        """The full report (as :meth:`status`) once the job is done, else None (also when it failed
        or was cancelled: :meth:`status` still has what was analysed)."""
        report = self.status(job_id)
        return report if report["state"] == JobState.DONE else None

    # ---- a finished match -----------------------------------------------------
    def finalise_match(
        self, job_id: str, m: int, spec: Mapping[str, Any] | None = None
    ) -> dict[str, Any] | None:
        """Match ``m``'s summary (``MatchAnalysis.to_json()`` less ``games``) once all its games are
        analysed, else None.

        The first caller that finds the games done writes the summary (``SET NX``) and adds the
        match's decisions to its owner's archive of positions (best effort, see :func:`archive_match`);
        later callers read it.  A match analysed for a player is recorded for it before the summary is
        written (once: :func:`record_for_learner`), so whoever sees the summary sees the record.  The
        workers call this after each game (:meth:`chunk_done`); :meth:`status` too, so a worker lost
        between its last game and the summary loses nothing.
        """
        spec = spec or self.spec(job_id)
        cached = text(self.redis.get(self.summary_key(job_id, m)))
        if cached is not None:
            out: dict[str, Any] = json.loads(cached)
            return out
        games = self._games(job_id, m, spec)
        if games is None:
            return None
        from pulvezar.analysis.match import summarise

        record = self.match_record(job_id, m, spec["matches"][m]["format"])  # its last game's parse
        summary: dict[str, Any] = summarise(record, games).to_json()
        summary.pop("games", None)  # each game's analysis is in its chunk's key already
        if spec.get("learner"):  # once per match, before the summary shows
            record_for_learner(self.records.url, spec["learner"], job_id, m, games, summary)
        key = self.summary_key(job_id, m)
        if self.redis.set(key, json.dumps(summary), nx=True, ex=self.settings.job_ttl_s):
            archive = owner_archive(self.records, self.archive_owner(job_id, spec))
            archive_match(archive, job_id, m, record, games, self.file(job_id, m), self.redis)
            store_match_result(self.records, job_id, m, record, games, summary)
        else:  # another caller was first: theirs is the same
            again = text(self.redis.get(key))
            if again is not None:
                summary = json.loads(again)
        return summary

    def archive_owner(self, job_id: str, spec: Mapping[str, Any]) -> str | None:
        """Whose archive of positions the job's analysed decisions join: its owner, as the spec names it
        (read without the durable store, which may be down; a spec without it: the durable row's)."""
        if "owner" in spec:
            return None if spec["owner"] is None else str(spec["owner"])
        return self.owner(job_id)

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
            self.redis.srem(ARCHIVE_RETRY_KEY, member)  # noted again by archive_match if it fails again
            if games is None:
                continue
            archive = owner_archive(self.records, self.archive_owner(job_id, spec))
            data = self.file(job_id, m)
            if archive_match(archive, job_id, m, self.record(job_id, m, spec), games, data, self.redis):
                written += 1
            else:
                failed += 1
        return written, failed

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


KIND = Analyses
