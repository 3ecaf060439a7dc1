"""Request and response models of the daily puzzles, similar positions and the position library."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from services.gateway.models import Dice, NextCursor, PositionInput, RuleSet, Strict
from services.jobs.provenance import Engine

DailyRules = Literal["international", "tavla"]
DailyKind = Literal["position", "cube"]
Tag = Annotated[str, Field(min_length=1, max_length=40)]


class DailyRecheckOut(BaseModel):
    """The puzzle's answer judged again by the served net (``pulvezar.archive.daily.Recheck``), when that
    net did not make the puzzle; the puzzle itself stays as served."""

    model_config = ConfigDict(extra="forbid")

    model: str | None = Field(description='the net that judged it again, e.g. "pulvezar-v4"')
    model_sha256: str = Field(description="SHA-256 of that net's model file")
    answer: str = Field(description="that net's answer: the play, or the cube action")
    agrees: bool = Field(description="whether that net's answer is the puzzle's")
    checked_at: str = Field(description="when (ISO 8601, UTC)")
    values: dict[str, Any] = Field(
        description="that net's answer with its equities (the puzzle's answer fields), same rollout settings"
    )


class DailyPuzzleOut(BaseModel):
    """A daily puzzle as the worker stored it (``pulvezar.archive.daily.DailyPuzzle``)."""

    model_config = ConfigDict(extra="forbid")

    date: str = Field(description="YYYY-MM-DD (UTC)")
    kind: DailyKind = Field(description="position (a checker play) or cube (a cube decision)")
    rules: str = Field(description="international, or tavla with its basic rules")
    position_id: str = Field(description="gnubg's Position ID, the player on roll's view")
    xgid: str = Field(description="the same position as an XGID")
    dice: tuple[int, int] | None = Field(description="the roll (position); none before the roll (cube)")
    match_length: int = Field(description="0: a single game (the checker puzzle's answer is cubeless)")
    score: tuple[int, int] = Field(description="the player on roll's score and the opponent's")
    cube_value: int = Field(description="the cube's value")
    cube_owner: str = Field(description="who owns the cube: centre, player or opponent")
    game: int = Field(description="the self-play game of the pool the position comes from")
    move: int = Field(description="the move of that game (from 1)")
    position_type: dict[str, str | None] = Field(description="kind, side and plan of the position type")
    candidates: list[dict[str, Any]] = Field(description="plays (position) or the three cube options (cube)")
    answer: dict[str, Any] | None = Field(
        description="the best play, or the right cube action with ND, DT, DP; null for a `player` who has "
        "not attempted the puzzle yet (the candidates then carry no values either)"
    )
    reason: dict[str, str] | None = Field(
        description="one sentence per language: en, de, tr, fr, es, pt, it, el, ru; null as answer"
    )
    attempted: bool | None = Field(
        None, description="with `player` only: whether that player has attempted it"
    )
    selection: dict[str, Any] = Field(description="how the rule chose it (fallback, candidates screened)")
    settings: dict[str, Any] = Field(description="trials, plies, truncation and thresholds used")
    version: int = Field(
        description="the puzzle rule's version (the same date, rules and kind: the same puzzle)"
    )
    seed: str = Field(description="the seed of its choice (hex), from the date, rules and kind")
    provenance: Engine = Field(
        description="the net that made it (GET /v1/models), from its settings' model_sha256, named by the "
        "gateway's model files; model and model_sha256 null for a puzzle stored without a SHA-256, version "
        '"unknown" (puzzles do not record it)'
    )
    recheck: DailyRecheckOut | None = Field(
        None,
        description="the answer judged again by the served net when another net made the puzzle; null when "
        "there is none yet (or for a `player` who has not attempted it)",
    )


class SimilarRequest(Strict):
    position: PositionInput
    rules: RuleSet | None = Field(None, description="only archive entries of this rule set; default: any")
    limit: int = Field(12, ge=1, le=12, description="at most this many hits")
    min_similarity: float = Field(0.6, ge=0.0, le=1.0, description="0..1; the product shows 60 % and more")
    exclude: Annotated[list[str], Field(max_length=100)] = Field(
        default_factory=list, description="entry ids to leave out (e.g. the library entry asked about)"
    )


class ArchiveEntryOut(BaseModel):
    id: str = Field(description="the entry's id (library: a digest of the position and match state)")
    source: Literal["match", "library"] = Field(
        description="match (an analysed match's decision) or library (a saved position)"
    )
    position_id: str = Field(description="gnubg's Position ID, the player on roll's view")
    match_id: str | None = Field(None, description="gnubg's Match ID, when known")
    rules: str = Field(description="the rule set's name")
    kind: str | None = Field(None, description="position type")
    side: str | None = Field(None, description="whose type it is: player (on roll), opponent, none")
    name: str | None = Field(None, description="library: the name")
    match: str | None = Field(None, description="match: which match")
    game: int | None = Field(None, description="match: the game (from 1)")
    move: int | None = Field(None, description="match: the move (from 1)")
    date: str | None = Field(None, description="YYYY-MM-DD")
    play: str | None = Field(None, description="the play (or cube action) made then")
    dice: tuple[int, int] | None = Field(None, description="the roll, if there was one")
    tags: list[str] = Field(default_factory=list, description="library: the tags")
    note: str | None = Field(None, description="library: the note")
    player: str | None = Field(None, description="library: the player who saved it, if one was named")


class SimilarHit(ArchiveEntryOut):
    similarity: float = Field(description="0..1")
    percent: int = Field(description="the similarity in whole percent (rounded down)")


class SimilarResponse(BaseModel):
    position_id: str
    kind: str = Field(description="the queried position's type")
    side: str | None
    archive_size: int = Field(description="entries in the archive")
    hits: list[SimilarHit]


class LibraryIn(Strict):
    position: PositionInput
    name: str = Field(min_length=1, max_length=120, description="the position's name in the library")
    tags: Annotated[list[Tag], Field(max_length=20, description="tags to find it by")] = Field(
        default_factory=list
    )
    note: str | None = Field(None, max_length=2000, description="a note")
    rules: RuleSet = Field(default_factory=RuleSet, description="the rule set")
    dice: Dice | None = Field(None, description="default: the dice of an XGID or Match ID, if any")
    play: str | None = Field(
        None, max_length=60, description="the play made; with dice it must be legal (stored canonically)"
    )
    date: str | None = Field(None, description="YYYY-MM-DD; default: today (UTC)")
    player: str | None = Field(
        None, min_length=1, max_length=32, description="the player (POST /v1/players) who saves it"
    )


class LibraryOut(ArchiveEntryOut):
    created: bool = Field(description="false when the same position (and match state) was saved before")


class LibraryList(BaseModel):
    positions: list[ArchiveEntryOut] = Field(description="by name, then id")
    next_cursor: NextCursor = None


class LibraryChange(Strict):
    """New values of a saved position's name, tags and note (what is left out stays)."""

    name: str | None = Field(None, min_length=1, max_length=120, description="a new name")
    tags: Annotated[list[Tag], Field(max_length=20)] | None = Field(
        None, description="the new tags (they replace the old)"
    )
    note: str | None = Field(None, max_length=2000, description="an empty string removes the note")


class AttemptIn(Strict):
    """An attempt at a daily puzzle: a play (``notation`` or the ``position_id`` after it) for the daily
    position, ``double`` and ``response`` for the daily cube decision."""

    player: str = Field(min_length=1, max_length=32, description="the player (POST /v1/players) who answers")
    rules: DailyRules = Field("international", description="the daily position's rule set")
    kind: DailyKind = Field("position", description="position or cube")
    notation: str | None = Field(None, max_length=64, description="position: the play, e.g. 8/5 6/5")
    position_id: str | None = Field(None, max_length=32, description="position: the position after the play")
    double: bool | None = Field(None, description="cube: whether the player on roll doubles")
    response: Literal["take", "pass"] | None = Field(None, description="cube: the opponent's right answer")


class AttemptOut(BaseModel):
    player: str = Field(description="who answered")
    date: str = Field(description="the puzzle's date")
    rules: str = Field(description="its rule set")
    kind: str = Field(description="position or cube")
    attempt: int = Field(description="1 for the first; only the first counts for the statistics and streaks")
    first_attempt: bool = Field(description="whether it was the player's first attempt at this puzzle")
    correct: bool = Field(description="whether the answer was the best one")
    loss: float | None = Field(description="equity lost against the answer (0 when correct)")
    loss_exact: bool = Field(description="false: the play is not among the listed candidates; loss is the "
                             "largest listed loss, a lower bound")  # fmt: skip
    answer: dict[str, Any] = Field(description="the puzzle's answer")
    reason: str = Field(description="why, in the request's language")
