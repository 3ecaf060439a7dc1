"""Analysis jobs of match files (the ``analysis`` job kind, :class:`services.jobs.kinds.analysis.Analyses`):
submitting them for the caller, their status with the links a client follows, and the owner check of the
job routes."""

from __future__ import annotations

import asyncio
import base64
import binascii
import csv
import io
import json
from collections.abc import AsyncIterator, Callable
from typing import Any, TypeVar

from fastapi import Request
from fastapi.responses import JSONResponse

from services.gateway.analysis_models import AnalysisJob, AnalysisRequest, MatchFile
from services.gateway.durable import store_call
from services.gateway.jobs import JobStoreLike, call_store, owner_lookup
from services.gateway.problems import ProblemError, invalid
from services.gateway.security import Client
from services.gateway.services.deps import player_records
from services.gateway.sse import Pace, job_events
from services.gateway.uploads import parsing_isolated, read_ahead
from services.jobs.kinds.analysis import Analyses

T = TypeVar("T")
TERMINAL = frozenset({"done", "failed", "cancelled"})


class AnalysisJobs:
    """The gateway's side of :class:`services.jobs.kinds.analysis.Analyses`: synchronous store
    calls run in a thread; its errors become problems (422 naming the field, 404, 409, 503)."""

    def __init__(self, store: Analyses | None) -> None:
        self.store = store

    def _store(self) -> Analyses:
        if self.store is None:
            raise ProblemError(
                503,
                "analysis jobs are not configured on this gateway (no job store)",
                kind="jobs-unavailable",
            )
        return self.store

    async def _run(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        out: T = await call_store(fn, *args, noun="analysis job", **kwargs)
        return out

    async def submit(
        self,
        matches: list[dict[str, Any]],
        level: str | None,
        priority: str | None,
        *,
        single: bool,
        owner: str | None,
        learner: dict[str, Any] | None = None,
        admit: Callable[[float], None] | None = None,
        prune: bool = True,
    ) -> str:
        body = {"matches": matches, "level": level, "priority": priority, "single": single,
                "learner": learner, "prune": prune}  # fmt: skip
        return await self._run(self._store().submit, body, owner=owner, admit=admit)

    async def status(self, job_id: str, games: bool = True, match: int | None = None) -> dict[str, Any]:
        return await self._run(self._store().status, job_id, games=games, match=match)

    async def result(self, job_id: str) -> dict[str, Any] | None:
        return await self._run(self._store().result, job_id)

    async def spec(self, job_id: str) -> dict[str, Any]:
        return await self._run(self._store().spec, job_id)

    async def download_name(self, job_id: str, match: int, suffix: str) -> str:
        """A download's file name for match ``match``: its upload's name (at most 80 characters, without
        its extension, else ``match-N``) and ``suffix``."""
        name = (await self.spec(job_id))["matches"][match].get("filename") or f"match-{match}"
        return f"{name.rsplit('.', 1)[0][:80] or f'match-{match}'}{suffix}"

    async def match_analysis(self, job_id: str, match: int) -> tuple[Any, Any]:
        return await self._run(self._store().match_analysis, job_id, match)

    async def sgf(self, job_id: str, match: int) -> str:
        return await self._run(self._store().sgf, job_id, match)

    async def cancel(self, job_id: str) -> bool:
        return await self._run(self._store().cancel, job_id)

    async def delete(self, job_id: str) -> bool:
        return await self._run(self._store().delete, job_id)

    async def resume(self, job_id: str) -> int:
        return await self._run(self._store().resume_stopped, job_id)


async def check(who: Client, store: AnalysisJobs, job_id: str) -> None:
    """404 unless the caller's key owns the job (in Redis, this process or the durable store)."""
    await asyncio.to_thread(who.check, job_id, owner_lookup(store.store))


def analyses(request: Request) -> AnalysisJobs:
    """The app's analysis store (made in its lifespan, :func:`open_analyses`; else on first use)."""
    ready: AnalysisJobs | None = getattr(request.app.state, "analyses", None)
    return ready if ready is not None else open_analyses(request.app.state)


def open_analyses(state: Any) -> AnalysisJobs:
    """The analysis store, made from the app's rollout job store (the same Redis and Celery app)."""
    base: JobStoreLike | None = state.jobs.store
    store = None
    if base is not None:
        store = Analyses(base.redis, app=base.app, settings=base.settings, records=base.records)
    jobs = state.analyses = AnalysisJobs(store)
    return jobs


def job_of(job_id: str, status: dict[str, Any]) -> AnalysisJob:
    """The store's status (or report) with the links; serialise with ``exclude_unset`` (a key the
    store left out stays out).  A status the store could not give at submission (only ``state``)
    is the job's links, state and no matches."""
    href = f"/v1/analyses/{job_id}"
    fields: dict[str, Any] = {
        k: v for k, v in status.items() if k not in ("id", "kind", "href", "events", "matches")
    }
    fields.setdefault("state", "queued")
    matches = [{**m, "sgf": f"{href}/sgf?match={m['match']}"} for m in status.get("matches", [])]
    links: dict[str, Any] = {"id": job_id, "kind": "analysis", "href": href, "events": f"{href}/events"}
    if set(fields) == {"state"} and not matches:  # accepted, its status not readable yet
        return AnalysisJob.model_construct(**links, **fields, matches=[])
    return AnalysisJob.model_validate({**fields, **links, "matches": matches})


def dump(job: AnalysisJob) -> dict[str, Any]:
    return job.model_dump(mode="json", exclude_unset=True)


def as_json(job: AnalysisJob, status_code: int = 200, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse(dump(job), status_code=status_code, headers=headers)


async def learner_of(request: Request, who: Client, player: str, player_name: str | None) -> dict[str, Any]:
    """The caller's ``player`` the analysed matches are recorded for (422 naming ``player`` when the key
    has none such)."""
    found = await store_call(player_records(request).get, who.owner, player)
    if found is None:
        raise invalid("player", f"no player {player!r} of this key")
    return {"player": found.id, "name": found.name, "player_name": player_name}


async def submit_files(
    request: Request,
    who: Client,
    matches: list[dict[str, Any]],
    level: str | None,
    priority: str | None,
    *,
    single: bool = True,
    store: AnalysisJobs | None = None,
    learner: dict[str, Any] | None = None,
    prune: bool = True,
    signatures: list[Any] | None = None,
) -> JSONResponse:
    """Submit match files (``{"data", "format", "filename"}``) as the caller's analysis job: 202 with
    the job and its Location (also for a finished game of the Play API); ``learner``: the player the
    matches are recorded for, ``prune``: the searches' pruning, recorded in the settings
    (:class:`services.jobs.kinds.analysis.AnalysisRequest`)."""
    store = store or analyses(request)
    with parsing_isolated(request) as isolation:  # the files are read in parser processes
        if store.store is not None:
            await read_ahead(isolation, matches, single, store.store.limits)
        job_id = await who.submit(
            0,
            lambda admit: store.submit(
                matches,
                level,
                priority,
                single=single,
                owner=who.owner,
                learner=learner,
                admit=admit,
                prune=prune,
            ),
            request.app.state.jobs.backlog,
        )
    try:
        status = await store.status(job_id, games=False)
    except ProblemError:  # accepted all the same: the client polls the Location
        status = {"state": "queued"}
    job = job_of(job_id, status)
    if signatures is not None:
        job.signatures = signatures
    return as_json(job, 202, {"Location": job.href})


def _data(entry: MatchFile, prefix: str, limit: int) -> bytes:
    given = [k for k in ("file", "file_base64") if getattr(entry, k) is not None]
    if len(given) != 1:
        raise invalid(f"{prefix}file", "give exactly one of file (text) and file_base64")
    field = f"{prefix}{given[0]}"
    if entry.file is not None:
        data = entry.file.encode("utf-8")
    else:
        try:
            data = base64.b64decode(entry.file_base64 or "", validate=True)
        except (binascii.Error, ValueError):
            raise invalid(field, "not valid base64") from None
    if len(data) > limit:
        raise ProblemError(
            413,
            f"{field}: a match file may have at most {limit} bytes, got {len(data)}",
            kind="too-large",
            errors=[(field, f"too large (at most {limit} bytes)")],
        )
    if not data.strip():
        raise invalid(field, "the file is empty")
    return data


def json_matches(body: AnalysisRequest, limit: int) -> tuple[list[dict[str, Any]], bool]:
    """The match files of a JSON body (``{"data", "format", "filename"}``) and whether it gave one match
    (``file`` or ``file_base64``) rather than several (``matches``)."""
    single = body.matches is None
    if single:
        entries: list[tuple[MatchFile, str]] = [(body, "")]
    else:
        if body.file is not None or body.file_base64 is not None:
            raise invalid("matches", "give one match (file or file_base64) or several (matches), not both")
        assert body.matches is not None
        if body.format is not None or body.filename is not None:
            field = "format" if body.format is not None else "filename"
            raise invalid(field, "with matches, give each match's format and filename in its entry")
        entries = [(m, f"matches[{i}].") for i, m in enumerate(body.matches)]
    matches = [
        {"data": _data(e, prefix, limit), "format": e.format, "filename": e.filename} for e, prefix in entries
    ]
    return matches, single


# ---- per-match results as CSV and JSON lines ----------------------------------------------------------

#: a player's numbers in a match's row (CSV: one row per match and player)
RESULT_FIELDS = ("pr", "decisions", "errors", "blunders", "error_total", "luck_total", "luck_net",
                 "result_points")  # fmt: skip
CSV_COLUMNS = ("match", "filename", "member", "digest", "length", "games", "side", "player", "opponent",
               *RESULT_FIELDS)  # fmt: skip


def _player(stats: dict[str, Any]) -> dict[str, Any]:
    """A player's per-match numbers, as :func:`services.jobs.kinds.analysis.batch_players` sums them."""
    return {
        "name": stats["name"],
        "pr": stats["pr"],
        "decisions": stats["decisions"],
        "errors": stats["errors"],
        "blunders": stats["blunders"],
        "error_total": stats["checker"]["error_total"] + stats["cube"]["error_total"],
        "luck_total": stats["luck"]["total"],
        "luck_net": stats["luck"]["net"],
        "result_points": stats["result_points"],
    }


def result_rows(status: dict[str, Any]) -> list[dict[str, Any]]:
    """One result per finished match of a job's status, in match order (a match appears as soon as its
    last game is analysed, so a running job's download has the matches done so far): its index, file,
    stream member and digest (null outside a stream), length, games and both players' numbers."""
    return [
        {
            "match": m["match"],
            "filename": m["filename"],
            "member": m.get("member"),
            "digest": m.get("digest"),
            "length": m["length"],
            "games": m["games_total"],
            "players": [_player(p) for p in m["summary"]["players"]],
        }
        for m in status["matches"]
        if m["state"] == "done" and m.get("summary")
    ]


def results_jsonl(rows: list[dict[str, Any]]) -> bytes:
    """:func:`result_rows` as JSON lines, one match a line."""
    return b"".join(json.dumps(r, separators=(",", ":")).encode() + b"\n" for r in rows)


def results_csv(rows: list[dict[str, Any]]) -> bytes:
    """:func:`result_rows` as CSV (:data:`CSV_COLUMNS`): one row per match and player (``side`` 0 or
    1); empty cells for nulls."""
    out = io.StringIO()
    writer = csv.DictWriter(out, CSV_COLUMNS, lineterminator="\n")
    writer.writeheader()
    for r in rows:
        for side, p in enumerate(r["players"]):
            writer.writerow({
                **{k: r[k] for k in ("match", "filename", "member", "digest", "length", "games")},
                "side": side, "player": p["name"], "opponent": r["players"][1 - side]["name"],
                **{k: p[k] for k in RESULT_FIELDS},
            })  # fmt: skip
    return out.getvalue().encode("utf-8")


RESULT_MEDIA = {"csv": "text/csv; charset=utf-8", "jsonl": "application/jsonl"}


async def results(store: AnalysisJobs, job_id: str, fmt: str) -> tuple[bytes, str, dict[str, str]]:
    """A job's per-match results (``fmt``: ``csv`` or ``jsonl``) so far: the body, its media type and
    headers saying how far the job is (``X-Job-State``, ``X-Matches-Done``: done/total)."""
    status = await store.status(job_id, games=False)
    rows = result_rows(status)
    body = results_csv(rows) if fmt == "csv" else results_jsonl(rows)
    headers = {"X-Job-State": str(status["state"]), "X-Matches-Done": f"{len(rows)}/{len(status['matches'])}"}
    return body, RESULT_MEDIA[fmt], headers


async def events(
    job_id: str, status: dict[str, Any], store: AnalysisJobs, pace: Pace, keepalive_s: float
) -> AsyncIterator[bytes]:
    """``progress`` events (without the per-game results) while the status changes, then one ``done``,
    ``failed`` or ``cancelled`` with the per-match summaries (the job's URL has the games)."""

    async def final(job: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
        state = str(job["state"])
        return (state, job) if state in TERMINAL else None

    def view(st: dict[str, Any]) -> dict[str, Any]:
        return dump(job_of(job_id, st))

    async def poll() -> dict[str, Any]:
        st: dict[str, Any] = await store.status(job_id, games=False)
        return st

    async for chunk in job_events(status, poll, view, final, pace, keepalive_s):
        yield chunk
