"""A match (or money session): games in sequence, scores, the Crawford game.

>>> m = Match(length=3)
>>> g = m.new_game()
>>> g.opening_roll(6, 1); g.resign(1); g.accept_resignation()
>>> m.finish_game(g)
>>> m.score, m.new_game().context.crawford
((0, 1), False)
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pulvezar.errors import PulvezarError
from pulvezar.match.game import Game, IllegalActionError, MatchContext, Phase, SessionOptions, Setup
from pulvezar.rules.rules import Rules


@dataclass(slots=True)
class Match:
    """Scores and games of a match of ``length`` points (0 = money session)."""

    length: int = 0
    rules: Rules = field(default_factory=Rules.international)
    options: SessionOptions = field(default_factory=SessionOptions)
    score: tuple[int, int] = (0, 0)
    crawford_played: bool = False
    games: list[Game] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.length < 0:
            raise PulvezarError("match length must be 0 (money) or positive", field="length")
        if self.rules.variant == "tavla" and self.length == 0:
            raise PulvezarError("Tavla is played as a match, not a money session", field="length")

    @property
    def is_over(self) -> bool:
        return bool(self.length) and max(self.score) >= self.length

    @property
    def winner(self) -> int | None:
        if not self.is_over:
            return None
        return 0 if self.score[0] >= self.length else 1

    @property
    def post_crawford(self) -> bool:
        """The Crawford game has been played: the cube is back for good."""
        return self.crawford_played and not (self.games and self.games[-1].context.crawford)

    def _is_crawford_next(self) -> bool:
        return (
            self.length > 1  # a 1-point match has no Crawford game (as gnubg plays it)
            and not self.crawford_played
            and self.rules.uses_cube
            and self.length - 1 in self.score
        )

    def new_game(self, setup: Setup | None = None) -> Game:
        """Start the next game; it is the Crawford game when a side first reached match point.

        ``setup``: the game starts from a set-up position (:class:`~pulvezar.match.game.Setup`).
        """
        if self.is_over:
            raise IllegalActionError("the match is over")
        if self.games and self.games[-1].phase is not Phase.OVER:
            raise IllegalActionError("finish the current game first")
        crawford = self._is_crawford_next()
        if crawford:
            self.crawford_played = True
        opener = None
        if self.rules.variant == "tavla" and self.games:
            opener = self.games[-1].winner
        context = MatchContext(
            length=self.length,
            score=self.score,
            crawford=crawford,
            rules=self.rules,
            options=self.options,
            opener=opener,
        )
        game = Game(context, setup)
        self.games.append(game)
        return game

    def finish_game(self, game: Game) -> None:
        """Add a finished game's points to the score."""
        if game.phase is not Phase.OVER or game.winner is None:
            raise IllegalActionError("the game is not over")
        s = list(self.score)
        s[game.winner] += game.points
        self.score = (s[0], s[1])
