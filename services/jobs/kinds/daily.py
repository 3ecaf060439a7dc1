"""Daily puzzle runs as a job kind (``daily``, ``POST /v1/daily-runs``): one chunk per daily puzzle of a date.

A chunk is a ``[rules, kind]`` of :func:`pulvezar.archive.daily.daily_kinds` (the daily position for
international backgammon and for Tavla, the daily cube decision); its record is the puzzle that
:func:`pulvezar.archive.daily.daily_puzzle` makes with the worker's evaluator and the job's settings
(``{"rules", "kind", "puzzle"}``).

**The platform's run** (:meth:`DailyRuns.submit_daily`, sent by the beat task ``pulvezar.daily.produce``):
a job without owner whose id is the date's (``daily-YYYY-MM-DD``), whose chunks are the puzzles of that
date not stored yet, and whose spec says ``platform``: its chunks store their puzzle insert-once in the
durable store's ``daily_puzzles`` (:class:`services.store.archive.DailyRecords`; the record is the puzzle
as stored, ``stored`` false when another run stored it first).  Submitting it again is idempotent: the
same job (a failed or cancelled one resumes), or none when every puzzle is stored; so no lock is needed.

**A client's run** (``POST /v1/daily-runs``, charged as any job): the puzzles of a date up to today (UTC)
computed with the request's settings, reported and never stored; it cannot learn a future puzzle.
"""

from __future__ import annotations

import datetime as dt
import json
import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Annotated, Any, NotRequired, TypedDict, cast

from pydantic import AfterValidator, BaseModel, Field

from pulvezar import PulvezarError
from services.jobs.errors import InvalidJob
from services.jobs.kind import JobKind, JobRequest, checked
from services.jobs.states import STOPPED

if TYPE_CHECKING:
    from pulvezar.archive.daily import Kind

#: estimated core-seconds per unit of a puzzle's work (see :meth:`DailyRuns.chunk_cost`)
GAME_S, SCREEN_S, TRIAL_STEP_S = 1.0, 0.01, 0.0002


def _date(value: str) -> str:
    from pulvezar.archive.similar import check_date

    try:
        return check_date(value)
    except PulvezarError as e:
        raise ValueError(str(e)) from None


class DailyParams(BaseModel):
    """How much work a puzzle takes (:class:`pulvezar.archive.daily.DailySettings`' fields; its defaults)."""

    games: int = Field(8, ge=1, le=64, description="self-play games whose positions are the candidates")
    trials: int = Field(324, ge=1, le=10_000, description="rollout trials of each checker-play candidate")
    truncate: int | None = Field(
        24, ge=0, le=1_000, description="half-moves after which a checker-play rollout stops; null: none"
    )
    cube_trials: int = Field(324, ge=1, le=10_000, description="rollout trials of a cube candidate")
    cube_truncate: int | None = Field(
        None, ge=0, le=1_000, description="half-moves after which a cube rollout stops; null: played out"
    )
    max_screened: int = Field(40, ge=1, le=200, description="candidates screened by search at most")
    max_rollouts: int = Field(5, ge=1, le=20, description="screened candidates rolled out at most")
    screen_ply: int = Field(2, ge=0, le=3, description="plies of the checker-play screen")
    cube_screen_ply: int = Field(1, ge=0, le=2, description="plies of the cube screen")

    def library(self) -> Any:
        """As the library's :class:`~pulvezar.archive.daily.DailySettings`."""
        from pulvezar.archive.daily import DailySettings

        return DailySettings(**self.model_dump())


class DailyRequest(JobRequest):
    date: Annotated[str, AfterValidator(_date)] = Field(description="YYYY-MM-DD")
    settings: DailyParams = Field(default_factory=DailyParams, description="the work per puzzle")


class DailyReport(BaseModel):
    date: str = Field(description="the puzzles' date, YYYY-MM-DD (UTC)")
    puzzles: list[dict[str, Any] | None] = Field(description="each chunk's puzzle; null: not yet")


class _Named:
    """An evaluator that names its net (``info``) as the one it wraps does: the runner's cancellation
    wrapper does not, and a puzzle records the net that made it (``settings.model_sha256``)."""

    def __init__(self, evaluator: Any) -> None:
        self._evaluator = evaluator
        inner = evaluator
        while getattr(inner, "info", None) is None and getattr(inner, "inner", None) is not None:
            inner = inner.inner
        self.info = getattr(inner, "info", None)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._evaluator, name)


def job_id_of(date: str) -> str:
    """The platform's run of ``date``: one job id per date."""
    return f"daily-{date}"


#: a chunk: ``[rules, kind]``, one puzzle of the date
DailyChunk = list[str]


class DailyRecord(TypedDict):
    """A puzzle's record (``stored``: the platform's run, whether this chunk stored it)."""

    rules: str
    kind: str
    puzzle: Any
    stored: NotRequired[bool]


class DailyReportFields(TypedDict):
    """:class:`DailyReport`'s fields."""

    date: str
    puzzles: list[Any]


class DailyRuns(JobKind[DailyRequest, DailyChunk, DailyRecord, DailyReportFields]):
    name = "daily"
    route = "daily-runs"
    summary = "the daily puzzles of a date, computed as a job (the platform's run stores them)"
    Request = DailyRequest
    Report = DailyReport
    keeps_owner = True  # the spec says who asked; only the platform's run (``platform``) stores

    @classmethod
    def example(cls) -> dict[str, Any]:
        small = {"games": 1, "trials": 36, "truncate": 4, "cube_trials": 36, "cube_truncate": 4,
                 "max_screened": 3, "max_rollouts": 1, "screen_ply": 0, "cube_screen_ply": 0}  # fmt: skip
        return {"date": "2024-02-29", "settings": small}

    def admit(self, request: DailyRequest, owner: str | None) -> None:
        if dt.date.fromisoformat(request.date) > dt.datetime.now(dt.UTC).date():
            raise InvalidJob(
                "date", "a daily run is of a date up to today (UTC): later puzzles are not known"
            )

    def plan(self, request: DailyRequest) -> tuple[dict[str, Any], list[DailyChunk]]:
        from pulvezar.archive.daily import daily_kinds

        req = request
        return {"date": req.date, "settings": req.settings.model_dump()}, [list(c) for c in daily_kinds()]

    @staticmethod
    def puzzle_json(spec: Mapping[str, Any], chunk: DailyChunk, evaluator: Any) -> str:
        """The chunk's puzzle as the durable store keeps it (``DailyPuzzle.to_json``)."""
        from pulvezar.archive.daily import daily_puzzle

        rules, kind = chunk
        settings = DailyParams(**spec["settings"]).library()
        named = evaluator if getattr(evaluator, "info", None) is not None else _Named(evaluator)
        return str(daily_puzzle(spec["date"], rules, cast("Kind", kind), named, settings).to_json())

    @classmethod
    def compute(cls, spec: Mapping[str, Any], chunk: DailyChunk, evaluator: Any) -> DailyRecord:
        rules, kind = chunk
        return {"rules": rules, "kind": kind, "puzzle": json.loads(cls.puzzle_json(spec, chunk, evaluator))}

    def run_chunk(self, spec: Mapping[str, Any], chunk: DailyChunk, evaluator: Any) -> DailyRecord:
        """:meth:`compute`; the platform's run stores the puzzle insert-once (the record: the stored one)."""
        if not spec.get("platform"):
            return self.compute(spec, chunk, evaluator)
        daily = self.daily_records()
        rules, kind = chunk
        kept = daily.get(spec["date"], rules, kind)
        if kept is not None:  # stored meanwhile (a redelivery, or a run of an older worker)
            return {"rules": rules, "kind": kind, "puzzle": kept, "stored": False}
        text = self.puzzle_json(spec, chunk, evaluator)
        stored = daily.put(spec["date"], rules, kind, text)
        puzzle = json.loads(text) if stored else daily.get(spec["date"], rules, kind)
        return {"rules": rules, "kind": kind, "puzzle": puzzle, "stored": stored}

    @classmethod
    def report(cls, spec: Mapping[str, Any], records: Sequence[DailyRecord | None]) -> DailyReportFields:
        puzzles = [r["puzzle"] if r is not None and "error" not in r else None for r in records]
        return {"date": spec["date"], "puzzles": puzzles}

    @classmethod
    def chunk_cost(cls, spec: Mapping[str, Any], chunk: DailyChunk) -> float:
        """Self-play, the screening and the rollouts (not benchmarked: an upper-side guess)."""
        s = DailyParams(**spec["settings"])
        if chunk[1] == "cube":
            screen, rolled = 20**s.cube_screen_ply, 2 * s.cube_trials * (s.cube_truncate or 60)
        else:
            screen, rolled = 20**s.screen_ply, 3 * s.trials * (s.truncate or 60)
        return float(
            GAME_S * s.games + SCREEN_S * s.max_screened * screen + TRIAL_STEP_S * s.max_rollouts * rolled
        )

    @classmethod
    def log_fields(cls, spec: Mapping[str, Any], chunk: DailyChunk) -> dict[str, Any]:
        return {"date": spec["date"], "rules": chunk[0], "puzzle_kind": chunk[1]}

    # ---- the platform's run -----------------------------------------------------------------------
    def daily_records(self) -> Any:
        """The durable store's daily puzzles."""
        from services.store.archive import DailyRecords

        return DailyRecords(self.records.url)

    def submit_daily(self, date: str, settings: DailyParams | Mapping[str, Any] | None = None) -> str | None:
        """The platform's run of ``date`` (see the module): its job id, or None when every puzzle of the
        date is stored.  Idempotent: an existing run is returned (resumed when it failed or was cancelled);
        two at once create it once (the durable store's row first)."""
        request: DailyRequest = checked(DailyRequest, {"date": date, "settings": settings or {}})
        job_id = job_id_of(request.date)
        if self.redis.exists(self.spec_key(job_id)) or self.row(job_id) is not None:
            if self.state(job_id)[0] in STOPPED:
                self.resume_stopped(job_id)
            return job_id
        daily = self.daily_records()
        fields, chunks = self.plan(request)
        chunks = [c for c in chunks if daily.get(request.date, *c) is None]
        if not chunks:
            return None
        spec = {"id": job_id, "kind": self.name, "priority": "batch", "created": time.time(), **fields,
                "platform": True, "owner": None, "chunks": chunks}  # fmt: skip
        try:
            self.records.create(job_id, self.name, spec, priority="batch",
                                chunk_list=cast("list[Any]", chunks), created=spec["created"])  # fmt: skip
        except Exception:
            if self.row(job_id) is None:
                raise
            return job_id  # another submission of the date was first
        self.redis.set(self.spec_key(job_id), json.dumps(spec), ex=self.settings.job_ttl_s)
        self.enqueue(job_id, "batch", range(len(chunks)))
        return job_id


KIND = DailyRuns
