"""OGXM over REST (issue 45): ``GET /v1/analyses/{job_id}/analysis.ogxm``, a finished match's analysis
as an OGXM analysis-shape file joined to its match by digest, and ``POST /v1/ogxm/verify``, the
signature checks of an ``.ogxm`` file against publisher keys (:mod:`services.gateway.services.ogxm`).
Uploads to ``/v1/analyses`` and ``/v1/matches`` take the same ``keys``."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, File, Form, Request, UploadFile
from fastapi.responses import Response

from services.gateway.problems import invalid
from services.gateway.routers.analyses import Store
from services.gateway.routers.job_lists import JobId
from services.gateway.routers.params import MatchIndex, Who, download, read_upload
from services.gateway.services import ogxm
from services.gateway.services.analyses import check
from services.gateway.signature_models import MAX_KEYS, VerifyOut
from services.gateway.uploads import parse_pool

router = APIRouter(tags=["analyses"])

#: the multipart ``keys`` field: repeated, or several keys in one separated by commas or spaces
FormKeys = Annotated[
    list[str],
    Form(description=f"publisher keys (raw Ed25519, hex or base64; at most {MAX_KEYS}): repeat the field, "
         "or separate them by commas or spaces"),
]  # fmt: skip


def form_keys(keys: list[str] | None) -> list[bytes] | None:
    """A multipart form's ``keys`` (:func:`services.gateway.services.ogxm.parse_keys`)."""
    return None if keys is None else ogxm.parse_keys(" ".join(keys))


@router.get(
    "/v1/analyses/{job_id}/analysis.ogxm",
    response_class=Response,
    summary="A match of the job's analysis as an OGXM analysis-shape file, joined to the match by digest",
    description="The file's `match_digest` is that of the match as pulvezar writes it to `.ogxm` "
    "(`pulvezar match convert`): OGXM readers lay the analysis onto that file.  One file per match of the "
    "job (`match`, as the SGF).",
    responses={
        200: {"content": {ogxm.OGXM_MEDIA_TYPE: {}}, "description": "the analysis-shape .ogxm file"},
        409: {"description": "the match is not analysed yet (or one of its games failed)"},
        422: {"description": "a match OGXM cannot carry (Tavla, a set-up start, a beaver): names `match`"},
    },
)
async def get_analysis_ogxm(
    job_id: JobId,
    who: Who,
    store: Store,
    match: MatchIndex = 0,
) -> Response:
    await check(who, store, job_id)
    data, filename = await ogxm.analysis_file(store, job_id, match)
    return download(data, ogxm.OGXM_MEDIA_TYPE, filename)


@router.post(
    "/v1/ogxm/verify",
    response_model=VerifyOut,
    summary="Check every signature of an .ogxm file against publisher keys",
    description="Each analysis block's and match signature's result (`valid`, `other_key`, `unsigned`, "
    '`tampered`, `unverified`): a "no" is a result, not an error.\n\n'
    "    curl -H 'X-API-Key: local-dev-key' -F file=@match.ogxm -F keys=<hex> localhost:8000/v1/ogxm/verify",
    responses={413: {"description": "a file over the upload limit"}, 422: {"description": "names the field"}},
)
async def verify_ogxm(
    request: Request,
    who: Who,
    file: Annotated[UploadFile, File(description="an .ogxm match or analysis-shape file")],
    keys: FormKeys,
) -> VerifyOut:
    trusted = form_keys(keys) or []
    data = await read_upload(request, file, "an .ogxm file")
    if data[:4] != b"OGXM":
        raise invalid("file", "not an .ogxm file (no OGXM magic)")
    files = [{"data": data, "format": "ogxm", "filename": file.filename}]
    checks = await ogxm.signatures(files, trusted, parse_pool(request))
    out = checks or []
    return VerifyOut(ok=bool(out) and all(c.status == "valid" for c in out), signatures=out)
