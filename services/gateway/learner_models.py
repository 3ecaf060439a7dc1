"""Response models of a player's record (``/v1/players/{id}/...``): statistics, archive, weekly plan."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field


class LevelResults(BaseModel):
    games_played: int
    games_won: int
    matches_played: int
    matches_won: int


class Dice(BaseModel):
    counts: list[int] = Field(
        description="how often each number (1..6) fell for the player; doubles count four"
    )
    total: int
    expected: float = Field(description="each number's expected count: total / 6")


class Rank(BaseModel):
    id: str = Field(description="apprentice, journeyman, candidate_master, master or grandmaster")
    name: str = Field(description="in the request's language (Accept-Language: en, de, tr)")


class Rung(BaseModel):
    month: str = Field(description="YYYY-MM")
    rating: float = Field(description="at the month's end")
    games: int = Field(description="games rated in the month")


class Rating(BaseModel):
    value: float = Field(
        description="Elo-like from the games against the bots; 1500 to start (docs/learners.md)"
    )
    rank: Rank
    ladder: list[Rung] = Field(description="the last six months, oldest first")


class DailyResults(BaseModel):
    tried: int = Field(description="puzzles attempted (the first attempt counts)")
    solved: int = Field(description="solved at the first attempt")
    streak: int = Field(description="days in a row solved, up to today or yesterday")
    best_streak: int
    mean_loss: float | None = Field(description="of the first attempts")


class PrPoint(BaseModel):
    time: float = Field(description="when the analysis was done (seconds since the epoch, UTC)")
    pr: float
    ref: str | None = Field(description="the match: game:<id> (played here) or job:<id>:<match> (imported)")


class PrTrend(BaseModel):
    points: list[PrPoint] = Field(description="the analysed matches' PR, oldest first (the last 200)")
    last: float | None
    best: float | None = Field(description="the lowest")
    mean_last5: float | None = Field(description="the mean of the last five")
    matches: int = Field(description="analysed matches recorded")


class Mistakes(BaseModel):
    position_type: str = Field(
        description="opening, race, bear-off, blitz, backgame, prime, holding or contact"
    )
    name: str = Field(description="in the request's language")
    decisions: int = Field(description="analysed decisions of this type")
    errors: int = Field(description="of them, errors (loss >= 0.02)")
    points_lost: float
    pr: float
    trend: Literal["better", "worse", "steady"] | None = Field(
        description="the last ten games' PR against the earlier games' (null without earlier games)"
    )


class PlayedMatch(BaseModel):
    id: str
    source: Literal["game", "import"] = Field(description="played here, or an uploaded file analysed")
    ref: str
    opponent: str | None = Field(description="the bot's level, or the other player's name in the file")
    length: int | None = Field(description="match length; 0: money")
    rules: str | None
    filename: str | None = None
    game_id: str | None = Field(None, description="the game of the Play API (GET /v1/games/{id})")
    won: bool | None = Field(description="null: not ended")
    pr: float | None = Field(description="null until analysed")
    analysis: str | None = Field(description="the analysis job (GET /v1/analyses/{id})")
    played: float
    analysed: float | None


class Archive(BaseModel):
    matches: list[PlayedMatch] = Field(description="newest first")
    next_cursor: str | None = Field(description="pass as `cursor` for the next page; null on the last")


class PlanTask(BaseModel):
    kind: Literal["cards", "daily", "exercise", "lesson"]
    position_type: str | None = Field(None, description="cards: of this type")
    exercise: str | None = Field(None, description="GET /v1/exercises/{kind}/next (issue 30)")
    lesson: str | None = None
    target: int = Field(description="how many this week")
    done: int | None = Field(description="how many done this week; null where nothing records it yet")


class PlanArea(Mistakes):
    tasks: list[PlanTask]


class WeeklyPlan(BaseModel):
    week: str = Field(description="the week's Monday (a new plan each Monday)")
    areas: list[PlanArea] = Field(description="the two areas where the player loses most; may be empty")
    reason: str | None = Field(description="why the plan is empty; null when it is not")


class Statistics(BaseModel):
    """What a player's games against the bots add up to (``pulvezar.play.statistics``)."""

    games_played: int
    games_won: int
    win_rate: float | None = Field(description="games won / played; null before the first game")
    matches_played: int = Field(description="matches (not money sessions) played to their end")
    matches_won: int
    match_win_rate: float | None
    gammons_won: int = Field(description="borne off while the loser had borne off none")
    backgammons_won: int = Field(description="Tavla: mars")
    gammons_lost: int
    backgammons_lost: int
    win_streak: int = Field(description="games won in a row, up to the last")
    longest_win_streak: int
    points_won: int
    points_lost: int
    by_level: dict[str, LevelResults] = Field(description="results by bot level")
    rolls: int = Field(description="the player's rolls (the opening die not counted)")
    doubles: int
    dice: Dice
    rated_games: int
    rating: Rating
    daily: dict[str, DailyResults] = Field(
        description="the daily position per rule set (international, tavla), the daily cube decision (cube)"
    )
    pr: PrTrend = Field(description="the PR trend of the player's analysed matches")
    frequent_mistakes: list[Mistakes] = Field(
        description="up to three position types where the player lost most (20 decisions each at least)"
    )
    recent_matches: list[PlayedMatch] = Field(description="the last five, newest first")
