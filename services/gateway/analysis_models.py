"""Request and response models of ``/v1/analyses`` (match analysis jobs)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from services.gateway.models import Strict

Level = Literal["0ply", "1ply", "2ply", "3ply", "deep"]
Format = Literal["mat", "sgf", "xg", "gmd"]
Priority = Literal["interactive", "batch"]

# no max_length here: the limit is the gateway's MAX_UPLOAD_BYTES per file (413 naming the field)
FileText = Annotated[
    str, Field(description="the match file as text (.mat, .sgf, .gmd); at most MAX_UPLOAD_BYTES bytes")
]
FileBase64 = Annotated[
    str,
    Field(description="the match file in base64 (needed for the binary .xg; any format works)"),
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


class AnalysisRequest(MatchFile):
    """One match (``file`` or ``file_base64``) or many (``matches``: "analyse all"), at one level."""

    matches: Annotated[list[MatchFile], Field(min_length=1, max_length=1000)] | None = Field(
        None, description="analyse all: several match files as one job, results per match"
    )
    level: Level | None = Field(
        None,
        description="0ply, 1ply, 2ply, 3ply or deep (the platform allows up to its maximum); "
        "default: the platform's default level",
    )
    priority: Priority | None = Field(
        None, description="default: interactive for one match, batch for several"
    )


class AnalysisForm(Strict):
    """The form fields of a ``multipart/form-data`` upload to ``/v1/analyses`` besides ``file``."""

    level: Level | None = Field(None, description="as in the JSON body; default: the platform's")
    priority: Priority | None = Field(None, description="default: interactive")
    format: Format | None = Field(None, description="the file's format; default: by file name, else content")
    filename: FileName | None = Field(None, description="default: the uploaded file's name")


class AnalysisMatch(BaseModel):
    """One match of a job; more fields may appear."""

    model_config = ConfigDict(extra="allow")

    match: int
    state: str = Field(description="queued, running, done, failed, cancelled")
    games_done: int
    games_total: int
    sgf: str = Field(description="the annotated SGF of this match, once it is done")


class AnalysisJob(BaseModel):
    """An analysis job's status as the job store reports it, with links; more fields may appear."""

    model_config = ConfigDict(extra="allow")

    id: str
    kind: Literal["analysis"] = "analysis"
    state: str = Field(description="queued, running, done, failed, cancelled")
    href: str
    events: str = Field(description="server-sent events of its progress")
    matches: list[AnalysisMatch] = Field(default_factory=list)
