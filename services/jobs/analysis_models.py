"""The typed report of a match-analysis job: what the kind :class:`services.jobs.kinds.analysis.Analyses`
answers as its status and result, field by field.

The store builds plain dicts (:mod:`services.jobs.analysis_report`); these models describe them (the
gateway's ``AnalysisJob`` extends :class:`AnalysisReport` with its links).  A game's analysis and a
match's summary are the library's JSON (``GameAnalysis.to_json()``, ``MatchAnalysis.to_json()``) and
stay objects here.  ``games`` is absent when the status was asked without them: serialise with
``exclude_unset=True`` so that it stays absent.  Every model forbids other keys.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from services.jobs.provenance import Engine
from services.jobs.states import JobState

__all__ = ["AnalysisMatchReport", "AnalysisReport", "BatchPlayer", "StreamMember", "StreamReport"]


class AnalysisMatchReport(BaseModel):
    """One match of an analysis job."""

    model_config = ConfigDict(extra="forbid")

    match: int = Field(description="its index in the job's matches")
    filename: str | None = Field(description="the file's name, if one was given")
    format: str = Field(description="the file's format: mat, sgf, xg or gmd")
    players: list[str] = Field(description="the players' names, as the file has them")
    length: int = Field(description="the match length (0: money games)")
    state: JobState = Field(description="queued, running, done, failed or cancelled")
    error: str | None = Field(description="why games of it failed")
    games_done: int = Field(description="games analysed")
    games_total: int = Field(description="games of the match")
    games: list[dict[str, Any] | None] | None = Field(
        None,
        description="with games=true (the default) only: each game's analysis "
        "(pulvezar's GameAnalysis JSON), null until it is done",
    )
    summary: dict[str, Any] | None = Field(
        description="the match's analysis summary (pulvezar's MatchAnalysis JSON, without its games: "
        "per player error rates, luck, ratings) once every game is done, else null"
    )
    provenance: Engine | None = Field(
        None,
        description="the engine and net that analysed its games (GET /v1/models); null before a game is "
        "done, or when its games were analysed by different nets",
    )
    source: int | None = Field(None, description="a stream's match only: the stream's index in `streams`")
    member: int | None = Field(None, description="a stream's match only: its index among the members")
    offset: int | None = Field(
        None, description="a stream's match only: its offset in the decompressed stream"
    )
    digest: str | None = Field(
        None, description="a stream's match only: its OGXM match digest (a zip's file: its SHA-256), hex"
    )


class StreamMember(BaseModel):
    """A part of an uploaded stream that is not one of the job's matches."""

    model_config = ConfigDict(extra="forbid")

    member: int | None = Field(None, description="the member's index (null: bytes between members)")
    offset: int = Field(description="where it starts in the decompressed stream")
    length: int = Field(description="its bytes")
    reason: str = Field(description="why it was skipped, or where the stream stopped")


class StreamReport(BaseModel):
    """An uploaded stream of matches (``.ogxms``, ``.ogxms.zst``) or zip archive of match files whose
    members are matches of the job (a zip's offsets: its local headers; it has no truncated tail)."""

    model_config = ConfigDict(extra="forbid")

    source: int = Field(description="the upload's index in the request's matches (0 for one file)")
    field: str = Field(description="the request's field the stream came in")
    filename: str | None = Field(description="the file's name, if one was given")
    bytes: int = Field(description="the bytes uploaded")
    decompressed_bytes: int = Field(description="the bytes of the stream once decompressed")
    matches: int = Field(description="its members that are matches of the job")
    skipped: list[StreamMember] = Field(description="members that did not read as a match, with why")
    truncated: StreamMember | None = Field(
        description="where the stream stops inside a member (every complete match before it is kept)"
    )


class BatchPlayer(BaseModel):
    """A player across the job's finished matches: their per-match numbers summed (``pr`` pooled)."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(description="the player's name (matches compare names without case)")
    matches: list[int] = Field(description="the finished matches they play in (indices into matches)")
    games: int = Field(description="games of those matches")
    decisions: int = Field(description="their counted decisions")
    errors: int = Field(description="errors that are not blunders")
    blunders: int = Field(description="blunders")
    error_total: float = Field(description="the equity they lost on counted decisions (checker and cube)")
    pr: float | None = Field(description="500 x error_total / decisions: all their decisions pooled")
    result_points: int = Field(description="points won minus points lost")
    luck_total: float = Field(description="their luck (EMG), summed")
    luck_total_points: float = Field(description="their luck in points, summed")
    luck_net: float = Field(description="their luck minus their opponents' (EMG), summed")
    luck_net_points: float = Field(description="net luck in points, summed")


class AnalysisReport(BaseModel):
    """An analysis job's status or final report (``result``)."""

    model_config = ConfigDict(extra="forbid")

    job_id: str = Field(description="the job's id")
    kind: Literal["analysis"] = "analysis"
    priority: str = Field(description="interactive or batch: the queue its games go to")
    level: str = Field(description="the analysis level: 0ply, 1ply, 2ply, 3ply or deep")
    state: JobState = Field(description="queued, running, done, failed or cancelled")
    error: str | None = Field(description="the failed games, per match")
    games_done: int = Field(description="games analysed, all matches together")
    games_failed: int = Field(description="games that failed")
    games_total: int = Field(description="games of the job")
    progress: float = Field(description="games done / total (0..1)")
    eta_s: float | None = Field(description="seconds left; null until a game is done (or cancelled, failed)")
    elapsed_s: float | None = Field(description="seconds from the first game's start to the last's end")
    created: float = Field(description="seconds since the epoch (UTC)")
    settings: dict[str, Any] | None = Field(
        None,
        description="the analysis settings of the level (pulvezar's AnalysisSettings JSON: ply, cube_ply, "
        "filter, prune, ...): with provenance, what made the analysis",
    )
    provenance: Engine | None = Field(
        None,
        description="the engine and net that analysed the games (GET /v1/models); null before a game is "
        "done, or when games were analysed by different nets (then `engines` lists them)",
    )
    engines: list[Engine] | None = Field(
        None, description="only when the games' nets differ: each engine that analysed some"
    )
    matches: list[AnalysisMatchReport] = Field(description="the job's matches, in order")
    players: list[BatchPlayer] = Field(
        default_factory=list, description="per player across the finished matches (see BatchPlayer)"
    )
    streams: list[StreamReport] | None = Field(
        None, description="only for uploaded streams of matches: each one's skipped members and end"
    )
