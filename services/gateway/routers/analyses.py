"""Match analysis as jobs: submit (202 + ``Location``), progress, server-sent events, SGF, cancel, and the
per-match results (``results.csv``/``.jsonl``: the matches done so far, ``X-Job-State``, ``X-Matches-Done``).

One job analyses one match (``file`` / ``file_base64``) or many (``matches``: "analyse all"); each
game is one chunk on the rollout workers (:mod:`services.jobs.kinds.analysis`).  The jobs live in
the same Redis as the rollout jobs: the gateway builds its analysis store from its rollout job store,
so a gateway with ``REDIS_URL`` serves both, and one without answers 503 for both.
"""

from __future__ import annotations

import logging
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response, StreamingResponse
from pydantic import ValidationError

from services.gateway.analysis_models import REQUEST_BODY, AnalysisForm, AnalysisJob, AnalysisRequest
from services.gateway.jobs import cancel_or_remove, not_done
from services.gateway.links import links
from services.gateway.problems import invalid
from services.gateway.routers.job_lists import EVENTS, NOT_DONE, REMOVED, JobId, add_list_route
from services.gateway.routers.params import MatchIndex, Who, download, too_large
from services.gateway.services.analyses import (
    RESULT_MEDIA,
    AnalysisJobs,
    analyses,
    check,
    events,
    job_of,
    json_matches,
    learner_of,
    results,
    submit_files,
)
from services.gateway.services.ogxm import parse_keys, signatures
from services.gateway.sse import streams
from services.gateway.uploads import parse_pool

logger = logging.getLogger("pulvezar.gateway")
router = APIRouter(prefix="/v1/analyses", tags=["analyses"])
Store = Annotated[AnalysisJobs, Depends(analyses)]

SGF_MEDIA_TYPE = "application/x-go-sgf"


async def _json_body(request: Request) -> AnalysisRequest:
    raw = await request.body()
    try:
        return AnalysisRequest.model_validate_json(raw or b"{}")
    except ValidationError as e:
        raise _validation_error(e) from None


def _validation_error(e: ValidationError) -> RequestValidationError:
    """Pydantic's errors as FastAPI's, so the problem names the fields as for any other body."""
    return RequestValidationError(
        [{**err, "loc": ("body", *err.get("loc", ()))} for err in e.errors(include_url=False)]
    )


async def _form_upload(request: Request, limit: int) -> tuple[dict[str, Any], AnalysisForm]:
    """The match of a ``multipart/form-data`` upload and its settings; problems name the field."""
    try:
        form = await request.form(max_files=2, max_fields=10, max_part_size=limit + 1)
    except Exception as e:  # starlette's MultiPartException, a malformed body
        raise invalid("file", f"not a readable multipart/form-data body ({e})") from None
    try:
        files = form.getlist("file")
        if not files:
            raise invalid("file", "a multipart upload needs the match in the form field 'file'")
        if len(files) > 1:
            raise invalid("file", "one file per upload (several matches: the JSON body's 'matches')")
        texts: dict[str, Any] = {}
        for key, value in form.multi_items():
            if key == "file":
                continue
            if not isinstance(value, str):
                raise invalid(key, "a form field, not a file")
            if key in texts:
                raise invalid(key, "given twice")
            texts[key] = value
        try:
            settings = AnalysisForm.model_validate(texts)
        except ValidationError as e:
            raise _validation_error(e) from None
        upload = files[0]
        if isinstance(upload, str):  # curl -F 'file=<match.mat': the file as a text field
            data, filename = upload.encode("utf-8"), settings.filename
        else:
            data, filename = await upload.read(limit + 1), settings.filename or upload.filename
        if len(data) > limit:
            raise too_large("a match file", limit)
        if not data.strip():
            raise invalid("file", "the file is empty")
        return {"data": data, "format": settings.format, "filename": filename}, settings
    finally:
        await form.close()


@router.post(
    "",
    status_code=202,
    response_model=AnalysisJob,
    summary="Analyse a match, or many ('analyse all'), as a job",
    description="The match comes as JSON (`file` as text or `file_base64`, or several in `matches`) or "
    "as a multipart upload (`file`, with `level`, `priority`, `format` and `filename` as form fields):\n\n"
    "    curl -H 'X-API-Key: local-dev-key' -F file=@match.sgf -F level=2ply localhost:8000/v1/analyses",
    responses={
        **links(
            202,
            "accepted; the job is at the Location header (its status; only id, kind, state, href, events "
            "and no matches when the store could not report it at once)",
            "job_id",
            "/job_id",
            {  # where a new job's id goes (OpenAPI links: clients and schemathesis's stateful phase)
                "GetJob": ("GET", "/v1/analyses/{job_id}"),
                "Result": ("GET", "/v1/analyses/{job_id}/result"),
                "Sgf": ("GET", "/v1/analyses/{job_id}/sgf"),
                "Cancel": ("DELETE", "/v1/analyses/{job_id}"),
            },
        ),
        413: {"description": "a match file over the upload limit"},
        422: {"description": "bad input: the problem's errors name the fields"},
        503: {"description": "no job store behind this gateway"},
    },
    openapi_extra={"requestBody": REQUEST_BODY},
)
async def submit_analysis(
    request: Request,
    who: Who,
    store: Store,
) -> JSONResponse:
    limit: int = request.app.state.settings.max_upload_bytes
    ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if ctype in ("multipart/form-data", "application/x-www-form-urlencoded"):
        match, form = await _form_upload(request, limit)
        matches, level, priority, single = [match], form.level, form.priority, True
        player, player_name, prune, keys = form.player, form.player_name, form.prune, parse_keys(form.keys)
    else:
        body = await _json_body(request)
        matches, single = json_matches(body, limit)
        level, priority = body.level, body.priority
        player, player_name, prune, keys = body.player, body.player_name, body.prune, parse_keys(body.keys)
    learner = None
    if player is not None:
        learner = await learner_of(request, who, player, player_name)
    elif player_name is not None:
        raise invalid("player_name", "names the player of the file; give the player too")
    checks = await signatures(matches, keys, parse_pool(request))  # with keys: each file's (issue 45)
    return await submit_files(request, who, matches, level, priority, single=single, store=store,
                              learner=learner, prune=prune, signatures=checks)  # fmt: skip


add_list_route(router, "", "analysis", "analysis")


@router.get(
    "/{job_id}",
    response_model=AnalysisJob,
    response_model_exclude_unset=True,
    summary="An analysis job: state, games done, ETA, per-game results, per-player summary",
)
async def get_analysis(
    job_id: JobId,
    who: Who,
    store: Store,
    games: Annotated[
        bool, Query(description="include each game's analysis (false: progress and summaries)")
    ] = True,
    match: Annotated[
        int | None, Query(ge=0, le=100_000, description="only this match's games (an index into matches)")
    ] = None,
) -> AnalysisJob:
    await check(who, store, job_id)
    return job_of(job_id, await store.status(job_id, games=games, match=match))


@router.get(
    "/{job_id}/result",
    response_model=AnalysisJob,
    response_model_exclude_unset=True,
    summary="The final report of a finished analysis job (every game and summary)",
    responses=NOT_DONE,
)
async def get_analysis_result(job_id: JobId, who: Who, store: Store) -> AnalysisJob:
    await check(who, store, job_id)
    report = await store.result(job_id)
    if report is None:
        raise not_done(job_id, str((await store.status(job_id, games=False))["state"]))
    return job_of(job_id, report)


@router.get(
    "/{job_id}/sgf",
    response_class=Response,
    summary="A match of the job as an SGF file with the analysis (GNU Backgammon opens it)",
    responses={
        200: {"content": {SGF_MEDIA_TYPE: {}}, "description": "the annotated SGF"},
        409: {"description": "the match is not analysed yet (or one of its games failed)"},
    },
)
async def get_sgf(
    job_id: JobId,
    who: Who,
    store: Store,
    match: MatchIndex = 0,
) -> Response:
    await check(who, store, job_id)
    sgf: str = await store.sgf(job_id, match)
    name = await store.download_name(job_id, match, "-analysis.sgf")
    return download(sgf.encode("utf-8"), SGF_MEDIA_TYPE, name)


def _results_route(fmt: str) -> None:
    """``GET /{job_id}/results.{fmt}``: :func:`~services.gateway.services.analyses.results`."""

    async def get_results(job_id: JobId, who: Who, store: Store) -> Response:
        await check(who, store, job_id)
        body, media, headers = await results(store, job_id, fmt)
        return download(body, media, f"analysis-{job_id}.{fmt}", headers)

    router.add_api_route(
        f"/{{job_id}}/results.{fmt}", get_results, methods=["GET"], response_class=Response,
        name=f"get_results_{fmt}",
        summary=f"Per-match results as {'CSV' if fmt == 'csv' else 'JSON lines'}, the matches done so far",
        description="Each finished match (with a stream's member and digest) and both players' numbers: "
        + ("one row per match and player" if fmt == "csv" else "one match a line")
        + ". A running job gives the matches done so far (X-Job-State, X-Matches-Done: done/total).",
        responses={200: {"content": {RESULT_MEDIA[fmt]: {}}, "description": "the results"}},
    )  # fmt: skip


for _fmt in ("csv", "jsonl"):
    _results_route(_fmt)


@router.get(
    "/{job_id}/events",
    response_class=StreamingResponse,
    summary="Server-sent events of an analysis job until it ends",
    responses=EVENTS,
)
async def analysis_events(
    job_id: JobId,
    request: Request,
    who: Who,
    store: Store,
) -> StreamingResponse:
    await check(who, store, job_id)
    first = await store.status(job_id, games=False)  # 404 before the stream starts
    keepalive = request.app.state.settings.sse_keepalive_s
    return await streams(request).open(
        who.owner, job_id, lambda pace: events(job_id, first, store, pace, keepalive)
    )


@router.delete(
    "/{job_id}",
    response_model=AnalysisJob,
    response_model_exclude_unset=True,
    summary="Cancel a running analysis job (200; the games already analysed are kept); "
    "remove a finished one with its results (204)",
    responses=REMOVED,
)
async def cancel_analysis(job_id: JobId, who: Who, store: Store) -> Any:
    await check(who, store, job_id)

    async def state() -> str:
        return str((await store.status(job_id, games=False))["state"])

    async def cancelled() -> AnalysisJob:
        return job_of(job_id, await store.status(job_id, games=False))

    return await cancel_or_remove(
        job_id, lambda: store.cancel(job_id), lambda: store.delete(job_id), state, cancelled
    )


@router.post(
    "/{job_id}/resume",
    status_code=202,
    response_model=AnalysisJob,
    response_model_exclude_unset=True,
    summary="Continue a cancelled or failed analysis job (the games already analysed are kept)",
    responses={409: {"description": "the job is queued, running or done"}},
)
async def resume_analysis(job_id: JobId, who: Who, store: Store) -> AnalysisJob:
    await check(who, store, job_id)
    await store.resume(job_id)
    return job_of(job_id, await store.status(job_id, games=False))
