"""Request and response models of ``/v1/analyses`` (match analysis jobs)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from services.gateway.models import Strict
from services.gateway.signature_models import Keys, KeysField, SignatureOut
from services.jobs.analysis_models import AnalysisMatchReport, AnalysisReport

AnalysisDepth = Literal["0ply", "1ply", "2ply", "3ply", "deep"]
#: ``ogxms``: a stream of matches (``.ogxms``, ``.ogxms.zst``) whose members are the job's matches;
#: ``zip``: an archive of match files, each one a match of the job
Format = Literal["mat", "sgf", "xg", "gmd", "ogxm", "bgf", "ogxms", "zip"]
Priority = Literal["interactive", "batch"]

# no max_length here: the limit is the gateway's MAX_UPLOAD_BYTES per file (413 naming the field)
FileText = Annotated[
    str, Field(description="the match file as text (.mat, .sgf, .gmd); at most MAX_UPLOAD_BYTES bytes")
]
FileBase64 = Annotated[
    str,
    Field(
        description="the match file in base64 (needed for the binary .xg, .ogxm and a stream of matches, "
        ".ogxms or .ogxms.zst, or a .zip of match files, whose members become the job's matches; any format "
        "works)"
    ),
]
FileName = Annotated[
    str,
    Field(max_length=200, description="the file's name; its extension gives the format when none is given"),
]


class MatchFile(Strict):
    """One match file: exactly one of ``file`` and ``file_base64``."""

    file: FileText | None = None
    file_base64: FileBase64 | None = None
    format: Format | None = Field(
        None, description="the file's format; default: by file name, else by content"
    )
    filename: FileName | None = None


PlayerRef = Annotated[
    str,
    Field(
        max_length=64,
        description="the player (POST /v1/players) the analysed matches are recorded for: its PR trend, "
        "mistakes, achievements, archive, and cards of its blunders",
    ),
]
PlayerName = Annotated[
    str,
    Field(
        max_length=100,
        description="which of each match's players the player is (its name in the file); default: the "
        "player's own name",
    ),
]


class AnalysisRequest(MatchFile):
    """One match (``file`` or ``file_base64``) or many (``matches``: "analyse all"), at one level."""

    matches: Annotated[list[MatchFile], Field(min_length=1, max_length=1000)] | None = Field(
        None, description="analyse all: several match files as one job, results per match"
    )
    level: AnalysisDepth | None = Field(
        None,
        description="0ply, 1ply, 2ply, 3ply or deep (the platform allows up to its maximum); "
        "default: the platform's default level",
    )
    priority: Priority | None = Field(
        None, description="default: interactive for one match, batch for several"
    )
    prune: bool = Field(
        True,
        description="the searches at 1 ply or deeper prune the replies (the screening net keeps each roll's "
        "4 best; the unpruned best play on over 99% of decisions at ~2.5x the speed); false: the unpruned "
        "search.  Recorded in the analysis's settings (its export says which settings made it)",
    )
    player: PlayerRef | None = None
    player_name: PlayerName | None = None
    keys: Keys | None = None


class AnalysisForm(Strict):
    """The form fields of a ``multipart/form-data`` upload to ``/v1/analyses`` besides ``file``."""

    level: AnalysisDepth | None = Field(None, description="as in the JSON body; default: the platform's")
    priority: Priority | None = Field(None, description="default: interactive")
    format: Format | None = Field(None, description="the file's format; default: by file name, else content")
    filename: FileName | None = Field(None, description="default: the uploaded file's name")
    prune: bool = Field(True, description="as in the JSON body: false, the unpruned search")
    player: PlayerRef | None = None
    player_name: PlayerName | None = None
    keys: KeysField | None = None


class AnalysisMatch(AnalysisMatchReport):
    """One match of a job (:class:`services.jobs.analysis_models.AnalysisMatchReport`), with its SGF's URL."""

    sgf: str = Field(description="the annotated SGF of this match, once it is done")


class AnalysisJob(AnalysisReport):
    """An analysis job's status (or final report) as the job store reports it
    (:class:`services.jobs.analysis_models.AnalysisReport`), with its links."""

    id: str = Field(description="the job's id (as job_id)")
    href: str = Field(description="the job's URL")
    events: str = Field(description="server-sent events of its progress")
    matches: list[AnalysisMatch] = Field(description="the job's matches, in order")  # type: ignore[assignment]
    signatures: list[SignatureOut] | None = Field(
        None, description="the upload's signature checks against its `keys` (only in the answer of a submit "
        "that gave keys)"
    )  # fmt: skip


# ---- the OpenAPI request body of POST /v1/analyses (JSON or a multipart form) --------------------------
def inline_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """A model's JSON schema with its ``$defs`` inlined (the OpenAPI request body holds it whole)."""
    defs = schema.pop("$defs", {})

    def walk(x: Any) -> Any:
        if isinstance(x, dict):
            ref = x.get("$ref", "")
            if ref.startswith("#/$defs/"):
                return walk(defs[ref.removeprefix("#/$defs/")])
            return {k: walk(v) for k, v in x.items()}
        if isinstance(x, list):
            return [walk(v) for v in x]
        return x

    return walk(schema)  # type: ignore[no-any-return]


UPLOAD_SCHEMA = {
    "type": "object",
    "required": ["file"],
    "properties": {
        "file": {"type": "string", "format": "binary", "description": "the match file (name: its format)"},
        **inline_schema(AnalysisForm.model_json_schema())["properties"],
    },
    "additionalProperties": False,
}
REQUEST_BODY = {
    "required": True,
    "description": "JSON (the file as text or base64, or several matches), or a multipart form as "
    "`curl -F file=@match.sgf -F level=2ply` sends it",
    "content": {
        "application/json": {"schema": inline_schema(AnalysisRequest.model_json_schema())},
        "multipart/form-data": {"schema": UPLOAD_SCHEMA},
    },
}
