"""The Play API's bodies (``/v1/games``): requests, and the responses as clients get them.

The game's state is :meth:`pulvezar.play.PlaySession.state` with the game's head (``id``, ``href``,
``created``, ``player``) and, after an action, what it produced (``hint``, ``check``, ``held``, ``events``); a
:class:`GameView` is dumped with ``exclude_unset`` so a key the state had not is not sent either.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from services.gateway.models import NextCursor, RuleSet


# ---- requests ------------------------------------------------------------------------------------
class MoneyIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    jacoby: bool = False
    beaver: bool = False
    raccoon: bool = False
    automatic_doubles: int = Field(0, ge=0, le=8)


class BotIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    level: Literal["easy", "medium", "hard", "master", "adaptive"] = "medium"
    style: Literal["balanced", "aggressive", "cautious", "runner"] | None = None
    rating: float | None = Field(None, description="adaptive: the player's rating")
    rating_kind: Literal["elo", "pr"] | None = None


class ClockIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    enabled: bool = True
    scope: Literal["match", "game"] | None = None
    minutes: float | None = Field(None, gt=0, le=600)
    delay: float | None = Field(None, ge=0, le=120)


class StartIn(BaseModel):
    """Where the game starts instead of the opening: a position (an ID), or a step of a finished game's
    replay ("play from here")."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {"position": "4HPwATDgc/ABMA:QYkqASAAIAAA"},
                {"position": "XGID=-b----E-C---eE---c-e----B-:1:1:1:52:3:1:0:7:10", "side": "opponent"},
                {"game": "g0123456789abcdef01234567", "step": 12},
            ]
        },
    )
    position: str | None = Field(
        None,
        max_length=100,
        description="a Position ID, PositionID:MatchID or XGID: the board and, where the ID holds them, the "
        "cube, score, Crawford game, side on roll and its dice or double (its match length is the game's)",
    )
    side: Literal["on_roll", "opponent"] = Field(
        "on_roll", description="with position: you play the side on roll (or the doubler), or the other"
    )
    game: str | None = Field(
        None, max_length=64, description="play from here: one of your finished games (GET .../replay)"
    )
    step: int | None = Field(None, ge=0, le=1_000_000, description="with game: the step of its replay")


class GameIn(BaseModel):
    """A new game or match, e.g. ``{"rules": {"variant": "tavla"}, "bot": {"level": "easy"},
    "match_length": 1}``."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {"rules": {"variant": "tavla"}, "bot": {"level": "easy"}, "match_length": 1},
                {"match_length": 5, "bot": {"level": "hard"}, "trainer": True, "hint_limit": 3},
                {"start": {"position": "4HPwATDgc/ABMA:QYkqASAAIAAA"}},
            ]
        },
    )
    rules: RuleSet | None = None
    match_length: int = Field(1, ge=0, le=25, description="0: a money session (international only)")
    money: MoneyIn | None = Field(None, description="money: Jacoby, beaver, raccoon, automatic doubles")
    bot: BotIn | None = None
    trainer: bool = Field(False, description="a verdict on each of your decisions")
    dice: Literal["server", "client"] = Field(
        "server", description="server: provably fair (SHA-256 commitment); client: you enter all rolls"
    )
    auto_forced: bool = Field(False, description="a play that is the only legal one is played for you")
    clock: bool | ClockIn = Field(False, description="the match clock (2 minutes per point, 12 s delay)")
    hint_limit: int | None = Field(
        None, ge=0, le=99, description='hints ({"action": "hint"}) allowed per match; none: no limit'
    )
    warn_at: float = Field(
        0.02, gt=0, le=1, description="the trainer warns from this loss on (0.02; 0.08: blunders only)"
    )
    player: str | None = Field(
        None,
        max_length=32,
        description="the player (POST /v1/players) the game is recorded for; none: nothing",
    )
    start: StartIn | None = Field(
        None, description="start from a position instead of the opening (a free game)"
    )
    free: bool | None = Field(
        None,
        description="a free game: neither archived nor counted for the player (always with start; default "
        "false otherwise)",
    )


class ActionIn(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {"action": "roll"},
                {"action": "play", "notation": "8/5 6/5"},
                {"action": "play", "notation": "13/10 6/5", "hold": True},
                {"action": "double", "hold": True},
                {"action": "hint"},
                {"action": "check", "notation": "13/10 6/5"},
                {"action": "check", "decision": "double"},
                {"action": "resign", "level": "gammon"},
            ]
        },
    )
    action: Literal[
        "roll",
        "play",
        "double",
        "take",
        "pass",
        "beaver",
        "raccoon",
        "resign",
        "accept",
        "reject",
        "end",
        "hint",
        "check",
    ] = Field(
        description="hint: the engine's best plays of your roll, or the right cube action when you may "
        "double or answer a double (counted); check: the trainer's verdict on a play or a cube action "
        "without making it"
    )
    notation: str | None = Field(None, max_length=64, description="play or check: e.g. 8/5 6/5")
    position_id: str | None = Field(None, max_length=32, description="play or check: the position after it")
    dice: tuple[int, int] | None = Field(None, description="roll with client dice")
    hold: bool | None = Field(
        None,
        description="with the trainer on: make the action only if the trainer finds nothing to warn about; "
        "else it is held (nothing made, the answer's held is the verdict, one search). The same action sent "
        "again without hold is made anyway with that verdict, not searched again",
    )
    decision: Literal["roll", "double", "take", "pass", "beaver"] | None = Field(
        None, description="check: the cube action to check instead of a play (roll: no double)"
    )
    level: Literal["single", "gammon", "mars", "backgammon"] | int | None = Field(
        None, description="resign: the level"
    )


class AnalysisIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    level: str | None = Field(None, description="the analysis level (default: the platform's)")


# ---- responses -----------------------------------------------------------------------------------
class _Out(BaseModel):
    model_config = ConfigDict(extra="forbid")


class BotView(_Out):
    level: str = Field(description="the level in use (an adaptive bot's, from its rating)")
    style: str | None
    margin: float = Field(description="the equity a play may lose to the best and still be chosen")


class CubeView(_Out):
    value: int
    owner: int | None = Field(description="0 you, 1 the bot, null centred")
    used: bool = Field(description="false: the rule set has no cube (Tavla)")


class Checkers(_Out):
    human: list[int] = Field(description="your checkers on points 1 to 24 and the bar (index 24), your view")
    bot: list[int] = Field(description="the bot's checkers, from its side, as in the Position ID")


class BoardView(_Out):
    position_id: str = Field(description="seen from the side on roll (seen_from)")
    match_id: str | None = Field(description="null where it cannot express the state (a huge cube or score)")
    gnubg_id: str | None
    xgid: str | None
    seen_from: int = Field(description="0 you, 1 the bot")
    checkers: Checkers
    off: list[int] = Field(description="borne off: yours, the bot's")
    pips: list[int] = Field(description="pip counts: yours, the bot's")


class LegalPlay(_Out):
    notation: str
    position_id: str = Field(description="the position after the play, mover's view")


class HintedPlay(_Out):
    notation: str
    position_id: str = Field(description="the position after the play, mover's view")
    equity: float
    loss: float
    probabilities: list[float]
    ply: int


class CubeHint(_Out):
    """The right cube action now, with each choice's equity in your view (money per cube; EMG in a match)."""

    moment: Literal["double", "answer"] = Field(description="double: you may double; answer: the bot doubled")
    best: Literal["roll", "double", "take", "pass", "beaver"]
    equities: dict[str, float] = Field(description="roll, double_take, double_pass; or take, pass (beaver)")
    ply: int


class PositionTypeView(_Out):
    kind: str = Field(description="opening, race, bear-off, blitz, backgame, prime, holding or contact")
    side: Literal["player", "opponent"] | None = Field(description="player: yours; opponent: the bot's")


class ClockView(_Out):
    remaining: list[float] = Field(description="seconds left: yours, the bot's")
    running: int | None = Field(description="whose clock runs: 0 you, 1 the bot, null none")
    delay: float = Field(description="seconds of delay a turn before the clock runs")
    delay_left: float | None
    scope: Literal["match", "game"]


class Resignation(_Out):
    player: int = Field(description="who offered it: 0 you, 1 the bot")
    level: str = Field(description="single, gammon or backgammon")


class MatchResult(_Out):
    reason: str = Field(description="how it ended, e.g. match, ended, resign, time")
    winner: int | None = Field(description="0 you, 1 the bot; null: ended without a winner")
    score: list[int] = Field(description="yours, the bot's")


class StartView(_Out):
    position_id: str
    turn: int
    cube_value: int
    cube_owner: int | None
    dice: list[int] | None
    doubled: bool
    score: list[int]
    crawford: bool
    match_length: int | None


class GameView(_Out):
    """A game as a client sees it (the dice seed only once the match is over)."""

    id: str
    href: str
    created: float | None = Field(None, description="when the game was made (Unix seconds)")
    player: str | None = Field(None, description="the player it is recorded for")
    status: Literal["playing", "finished"]
    settings: dict[str, Any] = Field(description="the game's settings (GameSettings.to_dict)")
    bot: BotView
    game: int = Field(description="the game of the match, from 1")
    match_length: int
    score: list[int] = Field(description="yours, the bot's")
    crawford: bool
    post_crawford: bool
    board: BoardView
    phase: str
    turn: int = Field(description="whose turn: 0 you, 1 the bot")
    to_act: int | None = Field(description="who acts next: 0 you, 1 the bot; null when over")
    cube: CubeView
    dice: list[int] | None
    actions: list[str] = Field(description="what you may do now")
    legal_plays: list[LegalPlay]
    resign_levels: list[str] = Field(description="the levels you may resign at")
    resign_preview: dict[str, bool] | None = Field(description="whether the bot would accept each level")
    resignation: Resignation | None = Field(description="a resignation offered and not yet answered")
    dice_mode: Literal["server", "client"]
    dice_commitment: str | None = Field(description="SHA-256 commitment to the dice seed (server dice)")
    clock: ClockView | None
    trainer: dict[str, Any] | None = Field(description="the trainer's verdict on your last decision")
    hints_used: int
    hints_left: int | None
    result: MatchResult | None
    bot_pending: bool = Field(description="the bot owes a reply (its evaluator failed); GET resumes it")
    start: StartView | None = Field(description="the position a game from a position started at")
    dice_seed: str | None = Field(None, description="revealed when the match is over (server dice)")
    position_type: PositionTypeView | None = Field(
        None, description="the position's type in your view (pulvezar.analysis.classify), while playing"
    )
    hint: list[HintedPlay] | None = Field(None, description="action hint: the engine's best plays")
    cube_hint: CubeHint | None = Field(None, description="action hint at a cube decision: the right action")
    check: dict[str, Any] | None = Field(None, description="action check: the trainer's verdict")
    held: dict[str, Any] | None = Field(
        None,
        description="an action sent with hold that the trainer held: its verdict (warn, why); nothing was "
        "made. Send the action again without hold to make it anyway, or choose again",
    )
    events: list[dict[str, Any]] | None = Field(None, description="what the request's action produced")

    def body(self) -> dict[str, Any]:
        """The JSON body: the keys the view was given, in the order clients have always had them."""
        return self.model_dump(mode="json", exclude_unset=True)


class Verification(_Out):
    verified: bool
    rolls: int
    dice_commitment: str | None
    dice_seed: str | None


class GameSummary(BaseModel):
    id: str
    status: str
    rules: str
    match_length: int
    score: list[int] | None = None
    game: int | None = None
    bot: dict[str, Any] | None = None
    result: dict[str, Any] | None = None
    hints_used: int = Field(0, description="hints asked for in the match")
    free: bool = Field(False, description="a free game: not archived or counted for a player")
    player: str | None = Field(None, description="the player the game is recorded for (none: nobody's)")
    created: float
    updated: float
    href: str


class GameList(BaseModel):
    games: list[GameSummary] = Field(description="newest first")
    next_cursor: NextCursor


class CubeState(BaseModel):
    value: int
    owner: int | None = Field(description="0 you, 1 the bot, null centred")


class ReplayStep(BaseModel):
    step: int = Field(description="from 0; POST /v1/games with start {game, step} plays from here")
    game: int = Field(description="the game of the match, from 1")
    player: int = Field(description="who acts: 0 you, 1 the bot")
    action: str = Field(description="roll, play, double, take, drop, beaver, raccoon, resign, accept, reject")
    dice: list[int] | None = Field(description="a roll's dice; a play's dice")
    notation: str | None = Field(description="a play")
    value: int | None = Field(description="the cube offered (double), the level (resign)")
    phase: str = Field(description="the game's phase before the step")
    score: list[int] = Field(description="yours, the bot's")
    crawford: bool
    cube: CubeState
    position_id: str = Field(description="before the step, seen from the side on roll (or the doubler)")
    match_id: str | None
    gnubg_id: str | None
    xgid: str | None = Field(description="you at the bottom")
    start: str | None = Field(description="the ID a game from here starts from; null: none can")
    side: Literal["on_roll", "opponent"] = Field(description="your side in that ID")


class Replay(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "id": "g0123456789abcdef01234567",
                    "rules": "international",
                    "match_length": 3,
                    "bot": {"level": "easy", "style": "balanced", "margin": 0.04},
                    "score": [3, 1],
                    "steps": [
                        {
                            "step": 0,
                            "game": 1,
                            "player": 1,
                            "action": "roll",
                            "dice": [3, 1],
                            "notation": None,
                            "value": None,
                            "phase": "opening",
                            "score": [0, 0],
                            "crawford": False,
                            "cube": {"value": 1, "owner": None},
                            "position_id": "4HPwATDgc/ABMA",
                            "match_id": "cAkAAAAAAAAA",
                            "gnubg_id": "4HPwATDgc/ABMA:cAkAAAAAAAAA",
                            "xgid": None,
                            "start": None,
                            "side": "on_roll",
                        },
                        {
                            "step": 3,
                            "game": 1,
                            "player": 0,
                            "action": "play",
                            "dice": [6, 4],
                            "notation": "24/14",
                            "value": None,
                            "phase": "move",
                            "score": [0, 0],
                            "crawford": False,
                            "cube": {"value": 1, "owner": None},
                            "position_id": "4HPwATDgc/ABMA",
                            "match_id": "cInpAAAAAAAA",
                            "gnubg_id": "4HPwATDgc/ABMA:cInpAAAAAAAA",
                            "xgid": "XGID=-b----E-C---eE---c-e----B-:0:0:1:64:0:0:0:3:10",
                            "start": "4HPwATDgc/ABMA:cInpAAAAAAAA",
                            "side": "on_roll",
                        },
                    ],
                }
            ]
        }
    )

    id: str
    rules: str
    match_length: int
    bot: BotView
    score: list[int]
    steps: list[ReplayStep]


class EndSide(_Out):
    """One side's rolls in an ended game."""

    rolls: int = Field(description="rolls drawn (the opening roll counts for its winner)")
    average_roll: float | None = Field(description="pips per roll (a double counts four times)")
    luck: float | None = Field(description="the side's luck in equity per cube (0 ply); null: not computed")
    pr: float | None = Field(
        None,
        description="the side's PR in this game from a quick 0-ply analysis of its decisions (500 x the "
        "average normalised-equity loss per counted decision); null: no decision counted or not computed. "
        "Analyse this match (POST /v1/games/{id}/analysis) gives the full one",
    )


class GameEnd(_Out):
    """The summary of an ended game of a match, and of the match once it is over (the end-of-game card)."""

    id: str
    game: int = Field(description="the game of the match, from 1")
    games_ended: int
    match_over: bool
    match_length: int
    winner: int = Field(description="0 you, 1 the bot")
    points: int
    how: str = Field(description="bearoff, drop, resignation, timeout or forfeit (the match resigned)")
    outcome: str | None = Field(description="a bear-off's single, gammon or backgammon")
    score: list[int] = Field(description="the match score after this game: yours, the bot's")
    duration_s: float | None = Field(description="the game's duration in seconds")
    match_duration_s: float | None = Field(description="the match's, once it is over")
    hints_used: int = Field(description="hints used in this game")
    warnings: int = Field(
        description="the trainer's warnings in this game: each held decision, and each warned one made "
        "without a hold"
    )
    you: EndSide
    bot: EndSide
    result: MatchResult | None = Field(description="the match's result once it is over")
