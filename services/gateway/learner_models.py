"""Models of the players (``/v1/players``) and their record (``/v1/players/{id}/...``): statistics, archive,
weekly plan, achievements, the daily calendar."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator


class LevelResults(BaseModel):
    games_played: int = Field(description="games against this level")
    games_won: int = Field(description="of them won")
    matches_played: int = Field(description="matches (not money sessions) played to their end")
    matches_won: int = Field(description="of them won")


class Dice(BaseModel):
    counts: list[int] = Field(
        description="how often each number (1..6) fell for the player; doubles count four"
    )
    total: int = Field(description="numbers counted")
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
    rank: Rank = Field(description="the rank of the rating")
    ladder: list[Rung] = Field(description="the last six months, oldest first")


class DailyResults(BaseModel):
    tried: int = Field(description="puzzles attempted (the first attempt counts)")
    solved: int = Field(description="solved at the first attempt")
    streak: int = Field(description="days in a row solved, up to today or yesterday")
    best_streak: int = Field(description="the longest streak so far")
    mean_loss: float | None = Field(description="of the first attempts")


class PrPoint(BaseModel):
    time: float = Field(description="when the analysis was done (seconds since the epoch, UTC)")
    pr: float = Field(description="the player's PR in that match (lower is better)")
    ref: str | None = Field(description="the match: game:<id> (played here) or job:<id>:<match> (imported)")


class PrTrend(BaseModel):
    points: list[PrPoint] = Field(description="the analysed matches' PR, oldest first (the last 200)")
    last: float | None = Field(description="the last analysed match's PR")
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
    points_lost: float = Field(description="the equity (EMG) lost in these decisions, summed")
    pr: float = Field(description="500 x the mean loss of these decisions")
    trend: Literal["better", "worse", "steady"] | None = Field(
        description="the last ten games' PR against the earlier games' (null without earlier games)"
    )


class PlayedMatch(BaseModel):
    id: str = Field(description="the archive entry's id")
    source: Literal["game", "import"] = Field(description="played here, or an uploaded file analysed")
    ref: str = Field(description="game:<game id> or job:<analysis id>:<match>")
    opponent: str | None = Field(description="the bot's level, or the other player's name in the file")
    length: int | None = Field(description="match length; 0: money")
    rules: str | None = Field(description="the rule set")
    filename: str | None = Field(None, description="the uploaded file's name (imports)")
    game_id: str | None = Field(None, description="the game of the Play API (GET /v1/games/{id})")
    won: bool | None = Field(description="null: not ended")
    pr: float | None = Field(description="null until analysed")
    analysis: str | None = Field(description="the analysis job (GET /v1/analyses/{id})")
    played: float = Field(
        description="when the game ended or the analysis was done (seconds since the epoch, UTC)"
    )
    analysed: float | None = Field(description="when its analysis was recorded; null: not analysed")


class Archive(BaseModel):
    matches: list[PlayedMatch] = Field(description="newest first")
    next_cursor: str | None = Field(description="pass as `cursor` for the next page; null on the last")


class PlanTask(BaseModel):
    kind: Literal["cards", "daily", "exercise", "lesson"] = Field(
        description="cards, daily, exercise or lesson"
    )
    position_type: str | None = Field(None, description="cards: of this type")
    exercise: str | None = Field(None, description="GET /v1/exercises/{kind}/next (issue 30)")
    lesson: str | None = Field(None, description="the lesson that trains the area (issue 30)")
    target: int = Field(description="how many this week")
    done: int | None = Field(
        description="how many done this week (cards answered, dailies solved, exercises right, the lesson "
        "completed: 1)"
    )


class PlanArea(Mistakes):
    tasks: list[PlanTask] = Field(description="cards of the type, the daily, an exercise and a lesson")


class WeeklyPlan(BaseModel):
    week: str = Field(description="the week's Monday (a new plan each Monday)")
    areas: list[PlanArea] = Field(description="the two areas where the player loses most; may be empty")
    reason: str | None = Field(description="why the plan is empty; null when it is not")


class ExerciseResults(BaseModel):
    tried: int = Field(description="exercises answered (the first answer counts)")
    correct: int = Field(description="of them right")
    streak: int = Field(description="right in a row, up to the last")
    best_streak: int = Field(description="the longest streak")


class Statistics(BaseModel):
    """What a player's games against the bots add up to (``pulvezar.play.statistics``)."""

    games_played: int = Field(description="games against the bots played to their end")
    games_won: int = Field(description="of them won")
    win_rate: float | None = Field(description="games won / played; null before the first game")
    matches_played: int = Field(description="matches (not money sessions) played to their end")
    matches_won: int = Field(description="of them won")
    match_win_rate: float | None = Field(description="matches won / played; null before the first")
    gammons_won: int = Field(description="borne off while the loser had borne off none")
    backgammons_won: int = Field(description="Tavla: mars")
    gammons_lost: int = Field(description="gammons (Tavla: mars) lost")
    backgammons_lost: int = Field(description="backgammons lost")
    win_streak: int = Field(description="games won in a row, up to the last")
    longest_win_streak: int = Field(description="the most games won in a row")
    points_won: int = Field(description="points won in games")
    points_lost: int = Field(description="points lost in games")
    by_level: dict[str, LevelResults] = Field(description="results by bot level")
    rolls: int = Field(description="the player's rolls (the opening die not counted)")
    doubles: int = Field(description="doubles rolled")
    dice: Dice = Field(description="the player's dice")
    rated_games: int = Field(description="games that moved the rating")
    rating: Rating = Field(description="the rating, its rank and ladder")
    daily: dict[str, DailyResults] = Field(
        description="the daily position per rule set (international, tavla), the daily cube decision (cube)"
    )
    pr: PrTrend = Field(description="the PR trend of the player's analysed matches")
    frequent_mistakes: list[Mistakes] = Field(
        description="up to three position types where the player lost most (20 decisions each at least)"
    )
    recent_matches: list[PlayedMatch] = Field(description="the last five, newest first")
    exercises: dict[str, ExerciseResults] = Field(
        description="per exercise (pip-count, bear-off, take-point): first answers, right, streaks"
    )


class BookBest(BaseModel):
    play: str = Field(description="the book's best play")
    equity: float = Field(description="its cubeless equity")


class YourOpening(BaseModel):
    play: str = Field(description="your most frequent play with this roll")
    times: int = Field(description="games you played it in")
    games: int = Field(description="games you opened with this roll")
    win_rate: float = Field(description="the games with that play you won")
    gap: float | None = Field(description="the best play's equity minus yours (0: the book's best)")
    gap_from: str | None = Field(description="book: the book's values; N-ply: a search (not in the book)")
    in_book: bool = Field(description="the play is one of the book's candidates")


class OpeningRow(BaseModel):
    roll: str = Field(description="the opening roll, e.g. 31")
    dice: list[int] = Field(description="the same as two dice")
    best: BookBest = Field(description="the book's best play of the roll")
    you: YourOpening | None = Field(description="null: you have not opened with this roll yet")


class YourOpenings(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "rules": "international",
                    "rows": [
                        {
                            "roll": "31",
                            "dice": [3, 1],
                            "best": {"play": "8/5 6/5", "equity": 0.1602},
                            "you": {
                                "play": "8/5 6/5",
                                "times": 12,
                                "games": 14,
                                "win_rate": 0.5833,
                                "gap": 0.0,
                                "gap_from": "book",
                                "in_book": True,
                            },
                        },
                        {
                            "roll": "42",
                            "dice": [4, 2],
                            "best": {"play": "8/4 6/4", "equity": 0.1231},
                            "you": None,
                        },
                    ],
                }
            ]
        }
    )
    rules: str = Field(description="international or tavla")
    rows: list[OpeningRow] = Field(description="one per opening roll of the book")


# ---- the players ----------------------------------------------------------------------------------
class PlayerIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=100, description="how the app shows the player")

    @field_validator("name")
    @classmethod
    def _not_blank(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("a name is not only spaces")
        return v.strip()


class Player(BaseModel):
    id: str = Field(description="the player's id: name it in what is recorded for it")
    name: str = Field(description="how the app shows the player")
    created: float = Field(description="seconds since the epoch (UTC)")
    updated: float = Field(description="seconds since the epoch (UTC) of the last change")
    href: str = Field(description="the player's URL")


class PlayerList(BaseModel):
    players: list[Player] = Field(description="newest first")
    next_cursor: str | None = Field(description="pass as `cursor` for the next page; null on the last")


class Achievement(BaseModel):
    id: str = Field(description="first_win, ten_wins, ... (docs/learners.md has the table)")
    condition: str = Field(description="in the request's language (Accept-Language: en, de, tr)")
    reached: float | None = Field(description="when (seconds since the epoch, UTC); null: not yet")


class Achievements(BaseModel):
    achievements: list[Achievement] = Field(description="the twenty of the app manual, in its order")
    reached: int = Field(description="how many of the twenty are reached")


class DayResult(BaseModel):
    date: str = Field(description="YYYY-MM-DD")
    state: Literal["solved", "missed", "not_tried"] = Field(
        description="solved at the first attempt, missed (the first attempt was wrong), or not tried"
    )


class DailyCalendar(BaseModel):
    month: str = Field(description="YYYY-MM")
    rules: str = Field(description="international or tavla")
    kind: str = Field(description="position or cube")
    days: list[DayResult] = Field(description="every day of the month up to today")
