"""The cube around a position: :class:`CubeState`, the input of cube decisions and cubeful hints.

It sits below both the checker search (:mod:`pulvezar.search.hint` values plays
against it) and the cube decisions (:mod:`pulvezar.cube.decision`), so neither
imports the other for it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pulvezar.cubeful.janowski import Cube, Owner
from pulvezar.errors import PulvezarError
from pulvezar.met.equity import MatchEquity
from pulvezar.rules.position import Position
from pulvezar.rules.rules import Rules

if TYPE_CHECKING:
    from pulvezar.match.game import Game

__all__ = ["CubeState"]


@dataclass(frozen=True, slots=True)
class CubeState:
    """A position with the player on roll *before* rolling, and the cube around it.

    ``score`` is (player on roll, opponent) in points won, ``match_length`` 0 for
    money; ``crawford`` marks the Crawford game (a 1-away score without it is
    post-Crawford).  ``jacoby`` and ``beaver`` are money options.
    """

    position: Position
    cube_value: int = 1
    cube_owner: Owner = "centre"
    match_length: int = 0
    score: tuple[int, int] = (0, 0)
    crawford: bool = False
    jacoby: bool = False
    beaver: bool = False
    rules: Rules = field(default_factory=Rules.international)
    met: MatchEquity | None = None

    def __post_init__(self) -> None:
        if not self.rules.uses_cube:
            raise PulvezarError("Tavla is played without a cube", field="rules")
        if self.match_length:
            n = self.match_length
            if not all(0 <= s < n for s in self.score):
                raise PulvezarError(f"scores must lie in 0..{n - 1}, got {self.score}", field="score")
        self.cube  # noqa: B018 -- validates the cube fields

    @property
    def cube(self) -> Cube:
        away = None
        if self.match_length:
            away = (self.match_length - self.score[0], self.match_length - self.score[1])
        return Cube(self.cube_value, self.cube_owner, away, self.crawford, self.jacoby, self.beaver)

    @property
    def table(self) -> MatchEquity:
        return self.met if self.met is not None else MatchEquity.kazaross_xg2()

    @classmethod
    def from_game(cls, game: Game) -> CubeState:
        """The state of a :class:`~pulvezar.match.game.Game` for the player on turn."""
        c, t = game.context, game.turn
        owner: Owner = (
            "centre" if game.cube_owner is None else ("player" if game.cube_owner == t else "opponent")
        )
        o = c.options
        return cls(
            game.position, game.cube_value, owner, c.length, (c.score[t], c.score[1 - t]),
            c.crawford, o.jacoby, o.beaver, c.rules,
        )  # fmt: skip
