"""A match as a file records it: tags, players, games of actions, replayable.

Players are ``0`` (the left column of a ``.mat`` file, first on its score
lines) and ``1``.  A :class:`MatchRecord` read from a file has been replayed
through the match model: its actions are legal, plays are in canonical
notation, and a game whose record stops making sense is cut there
(:attr:`GameRecord.cut_at`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Literal

from pulvezar.errors import PulvezarError
from pulvezar.match.game import Game, MatchContext, Phase, SessionOptions, Setup
from pulvezar.rules.matchid import GameState, MatchId, Resignation
from pulvezar.rules.position import Position
from pulvezar.rules.rules import Rules

__all__ = ["Action", "ActionKind", "Decision", "GameRecord", "MatchFileError", "MatchRecord"]

ActionKind = Literal[
    "roll", "play", "double", "take", "drop", "resign", "accept", "win", "reject", "beaver", "raccoon"
]
_DECISIONS = ("play", "double", "take", "drop", "resign", "accept", "reject", "beaver", "raccoon")


class MatchFileError(PulvezarError):
    """A match file that cannot be read: ``line`` and ``column`` are 1-based."""

    def __init__(self, message: str, *, line: int, column: int = 1) -> None:
        super().__init__(f"line {line}, column {column}: {message}", field="file")
        self.line = line
        self.column = column


@dataclass(frozen=True, slots=True)
class Action:
    """One recorded action.

    ``dice`` for ``roll`` (in rolled order); ``notation`` for ``play`` ("" when
    nothing can move); ``value``: the cube offered (``double``), the cube after
    a ``beaver`` (4x) or ``raccoon`` (8x), the level (``resign``, 1-3) or the
    points won (``win``); ``reject`` answers a resignation that play goes on
    after; ``props``: what a format records beside the action and pulvezar keeps
    verbatim (SGF analysis, comments).
    """

    player: int
    kind: ActionKind
    dice: tuple[int, int] | None = None
    notation: str | None = None
    value: int = 0
    props: dict[str, list[str]] = field(default_factory=dict, compare=False)


@dataclass(slots=True)
class GameRecord:
    """One game: starting score, actions, result, and where it was cut if it was.

    ``points`` are the points won under the rules, as the replay scores them:
    cube value x 1, 2 or 3 (single, gammon, backgammon; a resignation at its
    level), *not* capped at what the winner needed to win the match -- gnubg
    writes this figure.  :meth:`credited` is what the match score gains toward
    the length; some exporters (Backgammon Studio, Backgammon Galaxy) write that
    figure instead.  The ``win`` action keeps the file's own figure verbatim.
    A game whose record ends before the game does keeps the file's figure.
    """

    number: int
    score: tuple[int, int]
    actions: list[Action] = field(default_factory=list)
    winner: int | None = None  # None: the record ends before the game does
    points: int = 0
    crawford: bool = False
    cut_at: str | None = None  # "line L: reason" when replay stopped at a bad action
    notes: list[str] = field(default_factory=list)
    props: dict[str, list[str]] = field(default_factory=dict)  # format-specific, kept verbatim
    setup: Setup | None = None  # the game starts from this set-up position, not the opening

    def credited(self, length: int) -> int:
        """``points`` capped at what the winner needed to win a ``length``-point match (0: money)."""
        if not length or self.winner is None:
            return self.points
        return max(0, min(self.points, length - self.score[self.winner]))

    def score_after(self, length: int) -> tuple[int, int]:
        """The match score after this game: its own, the winner's :meth:`credited` points added."""
        if self.winner is None:
            return self.score
        s = list(self.score)
        s[self.winner] += self.credited(length)
        return (s[0], s[1])


@dataclass(frozen=True, slots=True)
class Decision:
    """The state before one decision (a play, a cube action or a resignation)."""

    game: int  # index into MatchRecord.games
    index: int  # index of the action into GameRecord.actions
    action: Action
    position: Position  # seen from the player on roll (match_id.dice_owner)
    match_id: MatchId

    @property
    def gnubg_id(self) -> str:
        """gnubg's "PositionID:MatchID"."""
        return f"{self.position.position_id}:{self.match_id.encode()}"


@dataclass(slots=True)
class MatchRecord:
    """A whole match file: metadata tags, players, length (0 = money) and games.

    ``options``: the money-session rules (Jacoby, beaver, raccoon) the games are
    replayed under; matches leave them off.
    """

    length: int = 0
    players: tuple[str, str] = ("", "")
    tags: dict[str, str] = field(default_factory=dict)
    games: list[GameRecord] = field(default_factory=list)
    comments: list[str] = field(default_factory=list)
    options: SessionOptions = field(default_factory=SessionOptions)

    @property
    def cut_games(self) -> int:
        """How many games were cut at an action the rules do not allow."""
        return sum(g.cut_at is not None for g in self.games)

    @property
    def rules(self) -> Rules:
        """The rules the games are played under: Tavla when the ``Variation`` (or ``Variant``) tag says
        so, with its ``HitAndStop``/``MustBearOff`` tags (``On``, ``true``, ``1``, ``yes``)."""
        tags = {k.lower(): str(v) for k, v in self.tags.items()}
        if tags.get("variation", tags.get("variant", "")).strip().lower() != "tavla":
            return Rules.international()

        def on(name: str) -> bool:
            return tags.get(name, "").strip().lower() in ("on", "true", "1", "yes")

        return Rules.tavla(hit_and_stop=on("hitandstop"), must_bear_off=on("mustbearoff"))

    def new_game(self, game: GameRecord) -> Game:
        """A fresh model game at the start of ``game`` (Tavla: a later game opens with the previous
        winner's ordinary roll)."""
        rules = self.rules
        if rules.uses_cube:
            ctx = MatchContext(self.length, game.score, game.crawford, options=self.options)
            return Game(ctx, game.setup)
        if game.setup is not None:
            return Game(MatchContext(length=self.length, score=game.score, rules=rules), game.setup)
        opener = None
        # a record's own game, or the next one (a reader asks before appending it)
        index = next((i for i, g in enumerate(self.games) if g is game), len(self.games))
        prev = self.games[index - 1].winner if 0 < index <= len(self.games) else None
        first = game.actions[0] if game.actions else None  # (none yet while a reader fills it)
        if prev is not None and (first is None or (first.kind == "roll" and first.player == prev)):
            opener = prev
        return Game(MatchContext(length=self.length, score=game.score, rules=rules, opener=opener))

    def replay(self) -> Iterator[Decision]:
        """Every decision of every game, with the Position ID and Match ID before it."""
        for gi, rec in enumerate(self.games):
            game = self.new_game(rec)
            for ai, action in enumerate(rec.actions):
                if action.kind in _DECISIONS:
                    yield Decision(gi, ai, action, game.position, match_id_of(game))
                apply_action(game, action)


def match_id_of(game: Game) -> MatchId:
    """gnubg's Match ID for the state of ``game`` (players as in the record)."""
    c = game.context
    turn = game.turn
    resignation = Resignation.NONE
    if game.phase in (Phase.DOUBLED, Phase.RACCOONED):
        turn = 1 - game.turn  # the doubled player answers (a raccoon: the beaverer)
    if game.phase is Phase.RESIGNED:
        assert game.resigner is not None
        turn = 1 - game.resigner  # the player who answers the resignation
        resignation = Resignation(game.resignation)
    state = GameState.OVER if game.phase is Phase.OVER else GameState.PLAYING
    return MatchId(
        cube_value=game.cube_value,
        cube_owner=game.cube_owner,
        dice_owner=game.turn,
        crawford=c.crawford,
        game_state=state,
        turn=turn,
        double_offered=game.phase in (Phase.DOUBLED, Phase.BEAVERED, Phase.RACCOONED),
        resignation=resignation,
        dice=game.dice if game.dice is not None and game.phase is Phase.MOVE else (0, 0),
        match_length=c.length,
        score=c.score,
        jacoby=c.is_money and c.options.jacoby,
    )


def setup_gnubg_id(record: MatchRecord, rec: GameRecord) -> str:
    """A game's set-up start as gnubg's "PositionID:MatchID" (players as in the record)."""
    if rec.setup is None:
        raise PulvezarError("the game starts from the opening, not a set-up position", field="setup")
    game = record.new_game(rec)
    return f"{game.position.position_id}:{match_id_of(game).encode()}"


def setup_of_gnubg_id(text: str) -> Setup:
    """The set-up of :func:`setup_gnubg_id` (raises :class:`~pulvezar.errors.InvalidIdError`)."""
    from pulvezar.rules.matchid import parse_gnubg_id

    position, m = parse_gnubg_id(text.strip())
    return Setup(position, m.dice_owner, m.cube_value, m.cube_owner)


def apply_action(game: Game, action: Action) -> None:
    """Apply a recorded action to the model game (raises the model's errors)."""
    kind = action.kind
    if kind == "roll":
        assert action.dice is not None
        a, b = action.dice
        if game.phase is Phase.OPENING:  # Tavla: the winner of the opening then rolls again
            hi, lo = max(a, b), min(a, b)
            game.opening_roll(*((hi, lo) if action.player == 0 else (lo, hi)))
            game.dice = (a, b)
        else:
            game.roll((a, b))
    elif kind == "play":
        game.play(action.notation or "")
    elif kind == "double":
        game.double()
    elif kind == "take":
        game.take()
    elif kind == "drop":
        game.drop()
    elif kind == "resign":
        game.resign(action.value, action.player)
    elif kind == "accept":
        game.accept_resignation()
    elif kind == "reject":
        game.reject_resignation()
    elif kind == "beaver":
        game.beaver()
    elif kind == "raccoon":
        game.raccoon()
