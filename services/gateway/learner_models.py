"""Models of the players (``/v1/players``) and their record (``/v1/players/{id}/...``): statistics, archive,
weekly plan, achievements, the daily calendar, the flash cards."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from services.gateway.models import Dice as Roll
from services.gateway.models import Epoch, InLanguage, NextCursor

#: the description of a text in the request's language
IN_LANGUAGE = "in the request's language (Accept-Language: en, de, tr, fr, es, pt, it, el, ru)"


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
    name: str = Field(description=IN_LANGUAGE)


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
    name: InLanguage
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
    next_cursor: NextCursor


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
    created: Epoch
    updated: float = Field(description="seconds since the epoch (UTC) of the last change")
    href: str = Field(description="the player's URL")


class PlayerList(BaseModel):
    players: list[Player] = Field(description="newest first")
    next_cursor: NextCursor


class Achievement(BaseModel):
    id: str = Field(description="first_win, ten_wins, ... (docs/learners.md has the table)")
    condition: str = Field(description=IN_LANGUAGE)
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


# ---- flash cards ----------------------------------------------------------------------------------
class Deck(BaseModel):
    count: int = Field(description="the player's cards")
    due_today: int = Field(description="due today or before")
    next_due: str | None = Field(description="the earliest due date (YYYY-MM-DD); null without cards")
    learned: int = Field(description="cards whose interval reached 21 days")


class CardOut(BaseModel):
    id: str = Field(description="the card's id")
    source: str = Field(description="where it comes from, e.g. daily:2026-12-01:international:position")
    due: str = Field(description="YYYY-MM-DD: when it is due")
    interval: int = Field(description="days between the last answer and due")
    reps: int = Field(description="answers in a row solved")
    lapses: int = Field(description="times it was answered wrong")
    decision: dict[str, Any] = Field(
        description="position_id, xgid, dice, rules, kind, candidates (no answer)"
    )


class DueCards(BaseModel):
    cards: list[CardOut] = Field(description="earliest due first; when none is due, the ten due earliest")


class CardAnswer(BaseModel):
    model_config = ConfigDict(extra="forbid")

    notation: str | None = Field(None, max_length=64, description="a play, e.g. 8/5 6/5")
    position_id: str | None = Field(None, max_length=32, description="or the position after the play")
    double: bool | None = Field(None, description="a cube card: whether to double")
    response: Literal["take", "pass"] | None = Field(None, description="a cube card: the right answer to it")


class CardResult(BaseModel):
    card: str = Field(description="the card's id")
    correct: bool = Field(description="whether the answer was the best one")
    loss: float = Field(description="equity lost against the answer (0 when correct)")
    loss_exact: bool = Field(
        description="false: a play the card does not list; loss is the largest listed loss, a lower bound"
    )
    next_due: str = Field(description="YYYY-MM-DD: when the card comes back")
    interval: int = Field(description="days until then")
    answer: dict[str, Any] = Field(
        description="the right answer: the play (play, position_id) or the cube action (double, response, "
        "costs)"
    )
    reason: str | None = Field(description="why, in the request's language")


class CardIn(BaseModel):
    """A decision of one of your analyses (``analysis``, ``match``, ``game``, ``index`` as its decisions
    name them) or a position of your library with dice (``position``, ``dice``)."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {"analysis": "5c0f1e2d3c4b5a6978695a4b", "match": 0, "game": 0, "index": 12},
                {"position": "lib-4HPwATDgc-ABMA", "dice": [3, 1]},
            ]
        },
    )

    analysis: str | None = Field(None, min_length=1, max_length=64, description="an analysis job's id")
    match: int = Field(0, ge=0, le=999, description="the match of the job")
    game: int | None = Field(None, ge=0, le=9999, description="the decision's game (as in the analysis)")
    index: int | None = Field(None, ge=0, le=99999, description="the decision's index (as in the analysis)")
    position: str | None = Field(None, min_length=1, max_length=64, description="a library position's id")
    dice: Roll | None = Field(
        None, description="with a library position: the roll to find the play for (default: its dice)"
    )


# ---- exercises ------------------------------------------------------------------------------------
class ExerciseOut(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "id": "x1b2c3d4e5f6",
                    "kind": "bear-off",
                    "position_id": "ZgIAQFQAAAAAAA",
                    "dice": [3, 6],
                    "match_length": None,
                    "score": None,
                    "cube_value": None,
                    "time_limit_s": None,
                }
            ]
        }
    )

    id: str = Field(description="answer it at POST /v1/exercises/{kind}/{id}/answers")
    kind: str = Field(description="pip-count, bear-off or take-point")
    position_id: str | None = Field(None, description="pip-count, bear-off: the position, on roll's view")
    dice: list[int] | None = Field(None, description="bear-off: the roll to play")
    match_length: int | None = Field(None, description="take-point: the match")
    score: list[int] | None = Field(None, description="take-point: your score and the opponent's")
    cube_value: int | None = Field(None, description="take-point: the cube before the double")
    time_limit_s: float | None = Field(
        None, description="pip-count: seconds to answer; null with a screen reader"
    )


class AnswerIn(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [{"pips": [167, 167]}, {"notation": "6/off 5/off"}, {"take_point": 0.25}]
        },
    )
    pips: list[int] | None = Field(None, min_length=2, max_length=2, description="pip-count: [yours, theirs]")
    notation: str | None = Field(None, max_length=64, description="bear-off: the play, e.g. 6/off 5/off")
    take_point: float | None = Field(None, ge=0, le=1, description="take-point: the chance, e.g. 0.25")


class AnswerOut(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "correct": False,
                    "first_attempt": True,
                    "attempt": 1,
                    "details": {"loss": 0.0412},
                    "answer": {"play": "6/off 5/2", "position_id": "ZgIAQAkAAAAAAA", "equity": 0.725612},
                    "counters": {"tried": 8, "correct": 6, "streak": 0, "best_streak": 4},
                }
            ]
        }
    )

    correct: bool = Field(description="whether the answer is right (a pip count: also in time)")
    first_attempt: bool = Field(description="only the first answer counts for the counters")
    attempt: int = Field(description="1 for the first")
    details: dict[str, Any] = Field(description="loss (bear-off), error (take-point), seconds (pip-count)")
    answer: dict[str, Any] = Field(description="the right answer")
    counters: ExerciseResults | None = Field(description="the player's counters after a first answer")


# ---- lessons --------------------------------------------------------------------------------------
class Progress(BaseModel):
    done: list[int] = Field(description="the steps done, from 0")
    completed: float | None = Field(description="when every step was done (seconds since the epoch, UTC)")


class LessonSummary(BaseModel):
    id: str = Field(description="the lesson's id")
    title: InLanguage
    steps: int = Field(description="how many steps")
    progress: Progress | None = Field(None, description="with player: the player's progress")


class LessonList(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "lessons": [
                        {
                            "id": "pip-counting",
                            "title": "Pip counting",
                            "steps": 6,
                            "progress": {"done": [0, 1], "completed": None},
                        },
                        {"id": "openings", "title": "Openings", "steps": 7, "progress": None},
                    ]
                }
            ]
        }
    )

    lessons: list[LessonSummary] = Field(description="the five lessons, in the manual's order")


class Step(BaseModel):
    kind: Literal["read", "play", "pips"] = Field(
        description="read: text; play: make the play the text asks for on the board; pips: count both sides"
    )
    text: InLanguage
    position: str | None = Field(
        None, description="play and pips: the position (Position ID, on roll's view)"
    )
    dice: list[int] | None = Field(None, description="play: the roll")


class Lesson(LessonSummary):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "id": "openings",
                    "title": "Openings",
                    "steps": 2,
                    "progress": None,
                    "items": [
                        {"kind": "read", "text": "With 3-1, make your 5-point: 8/5 6/5."},
                        {"kind": "play", "text": "Play 3-1.", "position": "4HPwATDgc/ABMA", "dice": [3, 1]},
                    ],
                }
            ]
        }
    )

    items: list[Step] = Field(description="the steps, in order")


class StepAnswer(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {"notation": "8/5 6/5", "player": "p3f0c5e1a2b4c6d8e0f1a2b3c"},
                {"pips": [167, 167]},
                {},
            ]
        },
    )
    notation: str | None = Field(None, max_length=64, description="a play step: the play, e.g. 8/5 6/5")
    pips: list[int] | None = Field(
        None, min_length=2, max_length=2, description="a pips step: [yours, theirs]"
    )
    player: str | None = Field(
        None, max_length=32, description="the player whose progress this step counts for"
    )


class StepResult(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {"correct": True, "expected": "8/5 6/5", "progress": {"done": [0, 1], "completed": None}}
            ]
        }
    )

    correct: bool = Field(description="false: not the lesson's play (the board refuses it) or a wrong count")
    expected: Any = Field(description="the right play or counts once answered right; null while not")
    progress: Progress | None = Field(description="with player: the player's progress in the lesson")
