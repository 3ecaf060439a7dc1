"""The cube around a position: :class:`CubeState`, the input of cube decisions and cubeful hints.

It sits below both the checker search (:mod:`pulvezar.search.hint` values plays
against it) and the cube decisions (:mod:`pulvezar.cube.decision`), so neither
imports the other for it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pulvezar.cubeful.janowski import Cube, Owner
from pulvezar.errors import InvalidValueError, PulvezarError
from pulvezar.met.equity import MatchEquity
from pulvezar.rules.position import Position
from pulvezar.rules.rules import Rules

if TYPE_CHECKING:
    from pulvezar.match.game import Game

__all__ = ["MAX_CUBE", "MAX_MATCH_LENGTH", "CubeState"]

#: the largest cube value the codec accepts (2**15, as gnubg's Match ID can hold)
MAX_CUBE = 1 << 15
#: the longest match the codec accepts (the match equity tables reach 25 points)
MAX_MATCH_LENGTH = 25
#: the keys of a cube state's JSON (:meth:`CubeState.from_dict`)
_CUBE_KEYS = ("value", "owner", "match_length", "score", "opponent_score", "crawford", "jacoby", "beaver")
#: the library's error fields as the JSON names them
_CUBE_FIELDS = {"cube": "value", "cube_owner": "owner", "score": "score", "crawford": "crawford", "rules": ""}


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

    def to_dict(self) -> dict[str, Any]:
        """The cube and score as JSON, as the REST API names them (``value``, ``owner``, ``match_length``,
        ``score``, ``opponent_score``, ``crawford``, ``jacoby``, ``beaver``); the position and the rule set
        have codecs of their own.  The inverse of :meth:`from_dict`.

        >>> CubeState(Position.start(), 2, "opponent", 7, (3, 1)).to_dict()["owner"]
        'opponent'
        """
        return {
            "value": self.cube_value,
            "owner": self.cube_owner,
            "match_length": self.match_length,
            "score": self.score[0],
            "opponent_score": self.score[1],
            "crawford": self.crawford,
            "jacoby": self.jacoby,
            "beaver": self.beaver,
        }

    @classmethod
    def from_dict(
        cls, position: Position, value: Any, rules: Rules | None = None, field: str = "cube"
    ) -> CubeState:
        """The cube state of ``position`` from the JSON of :meth:`to_dict` (every key optional: a centred
        1-cube, money play); :class:`~pulvezar.errors.InvalidValueError` names the key that was wrong.

        >>> s = CubeState.from_dict(Position.start(), {"value": 2, "owner": "player", "match_length": 5})
        >>> (s.cube_value, s.cube_owner, s.match_length, s.score)
        (2, 'player', 5, (0, 0))
        >>> CubeState.from_dict(Position.start(), {"value": 3})
        Traceback (most recent call last):
        ...
        pulvezar.errors.InvalidValueError: the cube is a power of two from 1 to 32768, got 3
        """
        value = {} if value is None else value
        if not isinstance(value, Mapping):
            raise InvalidValueError(f"an object, got {type(value).__name__}", field=field)
        unknown = sorted(str(k) for k in value if k not in _CUBE_KEYS)
        if unknown:
            raise InvalidValueError(
                f"unknown cube option (known: {', '.join(_CUBE_KEYS)})", field=f"{field}.{unknown[0]}"
            )

        def integer(key: str, default: int, top: int) -> int:
            v = value.get(key, default)
            if type(v) is not int or not 0 <= v <= top:
                raise InvalidValueError(f"an integer 0..{top}, got {v!r}"[:200], field=f"{field}.{key}")
            return v

        def flag(key: str) -> bool:
            v = value.get(key, False)
            if not isinstance(v, bool):
                raise InvalidValueError(f"true or false, got {v!r}"[:200], field=f"{field}.{key}")
            return v

        cube = integer("value", 1, MAX_CUBE)
        if cube < 1 or cube & (cube - 1):
            raise InvalidValueError(
                f"the cube is a power of two from 1 to {MAX_CUBE}, got {cube}", field=f"{field}.value"
            )
        owner = value.get("owner", "centre")
        if owner not in ("centre", "player", "opponent"):
            raise InvalidValueError(
                f"'centre', 'player' or 'opponent', got {owner!r}"[:200], field=f"{field}.owner"
            )
        length = integer("match_length", 0, MAX_MATCH_LENGTH)
        score = (integer("score", 0, MAX_MATCH_LENGTH), integer("opponent_score", 0, MAX_MATCH_LENGTH))
        options = (flag("crawford"), flag("jacoby"), flag("beaver"))
        try:
            return cls(position, cube, owner, length, score, *options, rules=rules or Rules.international())
        except PulvezarError as e:
            sub = _CUBE_FIELDS.get(e.field or "", "")
            raise InvalidValueError(str(e), field=f"{field}.{sub}" if sub else field) from None

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
