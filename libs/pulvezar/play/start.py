"""Where a game against a bot starts when it does not start from the opening: a position from an ID.

:meth:`Start.parse` reads a Position ID, gnubg's ``PositionID:MatchID``, an
XGID or an OGID (:func:`~pulvezar.formats.position_text.read_position_text`):
the board, and where the ID holds them the cube, the score, the Crawford
game, the side on roll, its dice or a double it has offered.  Players are the
session's: the human 0, the bot 1; ``side="on_roll"`` (the default) gives the
human the side on roll (the roller, or the doubler of a double on offer),
``"opponent"`` the other side.

>>> s = Start.parse("4HPwATDgc/ABMA:QYkqASAAIAAA")     # 9-point match, 2-4, player 1 rolled 52
>>> s.turn, s.dice, s.score, s.cube_value, s.cube_owner, s.match_length
(0, (5, 2), (4, 2), 2, 1, 9)
>>> Start.parse("4HPwATDgc/ABMA", side="opponent").turn
1
>>> Start.from_dict(s.to_dict()) == s
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from pulvezar.errors import PulvezarError
from pulvezar.formats.position_text import read_position_text
from pulvezar.match.game import Setup
from pulvezar.rules.matchid import GameState, MatchId, Resignation
from pulvezar.rules.position import Position

Side = Literal["on_roll", "opponent"]
SIDES: tuple[str, ...] = ("on_roll", "opponent")


def _err(message: str, field: str = "start.position") -> PulvezarError:
    return PulvezarError(message, field=field)


@dataclass(frozen=True, slots=True)
class Start:
    """A game's start from a position, in the session's players (human 0, bot 1).

    ``turn`` rolls next, or has ``dice`` to play, or (``doubled``) has offered a
    double the other side answers; ``score`` is the human's, then the bot's;
    ``match_length`` is what the ID says (None: a Position ID alone says nothing).
    """

    position: Position  # seen from ``turn``
    turn: int = 0
    cube_value: int = 1
    cube_owner: int | None = None
    dice: tuple[int, int] | None = None
    doubled: bool = False
    score: tuple[int, int] = (0, 0)
    crawford: bool = False
    match_length: int | None = None

    def __post_init__(self) -> None:
        if self.dice is not None and self.doubled:
            raise _err("a start has dice to play or a double on offer, not both")
        if self.dice is not None and not all(type(d) is int and 1 <= d <= 6 for d in self.dice):
            raise _err(f"dice are two values 1..6, got {self.dice!r}")
        self.setup  # validates the board and the cube  # noqa: B018

    @property
    def setup(self) -> Setup:
        """The game model's set-up (board, turn, cube), before the dice or the double."""
        try:
            return Setup(self.position, self.turn, self.cube_value, self.cube_owner)
        except PulvezarError as e:
            raise _err(str(e)) from None

    # ---- reading an ID ---------------------------------------------------------------------------
    @classmethod
    def parse(cls, text: str, side: str = "on_roll") -> Start:
        """The start of a Position ID, ``PositionID:MatchID``, an XGID or an OGID (see the module)."""
        if side not in SIDES:
            raise _err(f"side is 'on_roll' or 'opponent', got {side!r}", "start.side")
        if not isinstance(text, str) or not text.strip():
            raise _err("a position is a Position ID, PositionID:MatchID, an XGID or an OGID")
        try:
            r = read_position_text(text)  # the library's one reader of position text
            match = r.match
            if match is None and r.xgid is not None:
                match = r.xgid.to_match_id()  # an XGID of a beaver state: its own reason
            if match is not None:
                return cls.from_match_id(r.position, match, side)
        except PulvezarError as e:
            raise _err(str(e)) from None
        return cls(r.position, turn=0 if side == "on_roll" else 1)

    @classmethod
    def from_match_id(cls, position: Position, m: MatchId, side: str = "on_roll") -> Start:
        """The start of gnubg's board (seen from the side on roll) and Match ID."""
        if m.game_state not in (GameState.NONE, GameState.PLAYING):
            raise _err(f"the Match ID holds a game that is {m.game_state.name.lower()}: nothing to play")
        if m.resignation != Resignation.NONE:
            raise _err("the Match ID holds a resignation on offer; start from the position before it")
        mover = m.dice_owner  # the roller, or the doubler of a double on offer
        human = mover if side == "on_roll" else 1 - mover
        ours = {human: 0, 1 - human: 1}  # gnubg player -> session player
        score = (m.score[human], m.score[1 - human])
        dice = None if m.dice == (0, 0) else (int(m.dice[0]), int(m.dice[1]))
        owner = None if m.cube_owner is None else ours[m.cube_owner]
        return cls(
            position,
            ours[mover],
            m.cube_value,
            owner,
            dice,
            m.double_offered,
            score,
            m.crawford,
            m.match_length,
        )

    # ---- checks against the game's settings -----------------------------------------------------
    def check(self, match_length: int, uses_cube: bool) -> None:
        """Raise where the start cannot be a game of these settings (length 0: money)."""
        if self.match_length is not None and self.match_length != match_length:
            what = f"a {self.match_length}-point match" if self.match_length else "money play"
            raise _err(f"the position holds {what}; the game is set to {match_length or 'money'}")
        if match_length and max(self.score) >= match_length:
            raise _err(
                f"the score {self.score[0]}-{self.score[1]} has already won the {match_length}-point match"
            )
        if not match_length and self.crawford:
            raise _err("money play has no Crawford game")
        if self.crawford and (match_length < 2 or match_length - 1 not in self.score):
            raise _err("the Crawford game is played when a side is one point from winning the match")
        if not uses_cube and (self.cube_value > 1 or self.cube_owner is not None or self.doubled):
            raise _err("Tavla has no cube: the cube is 1 and centred")
        if self.crawford and (self.cube_value > 1 or self.cube_owner is not None or self.doubled):
            raise _err("there is no doubling in the Crawford game")

    # ---- the stored form -------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return {
            "position_id": self.position.position_id,
            "turn": self.turn,
            "cube_value": self.cube_value,
            "cube_owner": self.cube_owner,
            "dice": list(self.dice) if self.dice else None,
            "doubled": self.doubled,
            "score": list(self.score),
            "crawford": self.crawford,
            "match_length": self.match_length,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Start:
        try:
            dice = d.get("dice")
            return cls(
                Position.from_position_id(d["position_id"]), int(d["turn"]), int(d["cube_value"]),
                d.get("cube_owner"), (int(dice[0]), int(dice[1])) if dice else None, bool(d.get("doubled")),
                (int(d["score"][0]), int(d["score"][1])), bool(d.get("crawford")), d.get("match_length"),
            )  # fmt: skip
        except (KeyError, TypeError, ValueError, IndexError) as e:
            raise PulvezarError(f"not a stored start: {e}", field="record") from None
