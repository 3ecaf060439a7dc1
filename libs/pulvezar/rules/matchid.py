"""GNU Backgammon's Match ID and its combined "PositionID:MatchID" form.

A Match ID is 12 base64 characters holding a 72-bit key, read least significant
bit first: cube (log2, 4 bits), cube owner (2), dice owner (1), Crawford (1),
game state (3), turn (1), double offered (1), resignation (2), two dice (3 + 3),
match length (15) and the scores of players 0 and 1 (15 + 15).  gnubg 1.07
also writes bit 67, set when the Jacoby rule is *off*; the last five bits are
always zero.  Players are gnubg's 0 and 1 (in gnubg's own games 1 is the
bottom player, "X").

The example of the gnubg manual (section 11.7): a 9-point match at 2-4, player 0
owning a 2-cube, player 1 having rolled 52.

>>> m = MatchId.parse("QYkqASAAIAAA")
>>> m.cube_value, m.cube_owner, m.dice_owner, m.dice, m.match_length, m.score
(2, 0, 1, (5, 2), 9, (2, 4))
>>> str(m)
'QYkqASAAIAAA'
>>> p, m = parse_gnubg_id("4HPwATDgc/ABMA:cAkAAAAAAAAA")
>>> p == Position.start(), m.match_length, m.cube_owner
(True, 0, None)
"""

from __future__ import annotations

import binascii
from base64 import b64decode, b64encode
from dataclasses import dataclass
from enum import IntEnum

from pulvezar.errors import InvalidIdError
from pulvezar.rules.position import Position

__all__ = ["GameState", "MatchId", "Resignation", "format_gnubg_id", "parse_gnubg_id"]

_FIELD = "match_id"
_MAX15 = (1 << 15) - 1

# (name, bit offset, width) of each field in the 72-bit key, least significant bit first
_CUBE, _OWNER, _MOVE, _CRAWFORD, _STATE, _TURN, _DOUBLE, _RESIGN = (
    (0, 4), (4, 2), (6, 1), (7, 1), (8, 3), (11, 1), (12, 1), (13, 2),
)  # fmt: skip
_DIE1, _DIE2, _LENGTH, _SCORE0, _SCORE1, _NO_JACOBY = (15, 3), (18, 3), (21, 15), (36, 15), (51, 15), (66, 1)
_USED_BITS = 67


class GameState(IntEnum):
    """The game state of a Match ID."""

    NONE = 0  # no game started
    PLAYING = 1
    OVER = 2
    RESIGNED = 3
    DROPPED = 4  # ended by a dropped cube


class Resignation(IntEnum):
    """A resignation on offer (offered by the player *not* on turn)."""

    NONE = 0
    SINGLE = 1
    GAMMON = 2
    BACKGAMMON = 3


def _error(reason: str) -> InvalidIdError:
    return InvalidIdError(reason, field=_FIELD)


@dataclass(frozen=True, slots=True)
class MatchId:
    """The match state of GNU Backgammon's Match ID.

    ``cube_owner`` is 0, 1 or ``None`` (centred); ``dice_owner`` is the player
    on roll (or who rolled ``dice``); ``turn`` is the player who must act now
    (the other one while a double or a resignation is on offer).  ``dice`` is
    ``(0, 0)`` before the roll; ``match_length`` 0 is money play; ``score`` is
    (player 0, player 1).  ``jacoby`` is gnubg 1.07's extra bit (stored
    inverted, so IDs without it read as Jacoby on; gnubg writes ``False`` in
    match play).
    """

    cube_value: int = 1
    cube_owner: int | None = None
    dice_owner: int = 0
    crawford: bool = False
    game_state: GameState = GameState.PLAYING
    turn: int = 0
    double_offered: bool = False
    resignation: Resignation = Resignation.NONE
    dice: tuple[int, int] = (0, 0)
    match_length: int = 0
    score: tuple[int, int] = (0, 0)
    jacoby: bool = True

    def __post_init__(self) -> None:
        cube = self.cube_value
        if not isinstance(cube, int) or cube < 1 or cube > 1 << 15 or cube & (cube - 1):
            raise _error(f"cube value must be a power of two from 1 to 32768, got {cube!r}")
        if self.cube_owner not in (0, 1, None):
            raise _error(f"cube owner must be 0, 1 or None (centred), got {self.cube_owner!r}")
        for name in ("dice_owner", "turn"):
            if getattr(self, name) not in (0, 1):
                raise _error(f"{name} must be player 0 or 1, got {getattr(self, name)!r}")
        try:
            object.__setattr__(self, "game_state", GameState(self.game_state))
            object.__setattr__(self, "resignation", Resignation(self.resignation))
        except ValueError as e:
            raise _error(str(e)) from None
        dice = tuple(self.dice)
        if len(dice) != 2 or not all(isinstance(d, int) and 0 <= d <= 6 for d in dice):
            raise _error(f"dice must be two values 0..6, got {self.dice!r}")
        if (dice[0] == 0) != (dice[1] == 0):
            raise _error(f"dice are both rolled or both 0, got {self.dice!r}")
        object.__setattr__(self, "dice", dice)
        length = self.match_length
        if not isinstance(length, int) or not 0 <= length <= _MAX15:
            raise _error(f"match length must be 0 (money) to {_MAX15}, got {length!r}")
        score = tuple(self.score)
        top = length if length else _MAX15
        if len(score) != 2 or not all(isinstance(s, int) and 0 <= s <= top for s in score):
            raise _error(f"scores must be two values 0..{top}, got {self.score!r}")
        object.__setattr__(self, "score", score)
        if self.crawford and not length:
            raise _error("no Crawford game in money play")
        for name in ("crawford", "double_offered", "jacoby"):
            object.__setattr__(self, name, bool(getattr(self, name)))

    @classmethod
    def parse(cls, match_id: str) -> MatchId:
        """Decode a 12-character Match ID."""
        if not isinstance(match_id, str):
            raise _error("a Match ID is a string")
        s = match_id.strip()
        if len(s) != 12:
            raise _error(f"a Match ID has 12 characters, got {len(s)} in {match_id!r}")
        try:
            key = int.from_bytes(b64decode(s, validate=True), "little")
        except (binascii.Error, ValueError):
            raise _error(f"invalid Match ID {match_id!r}: not base64 (A-Z a-z 0-9 + /)") from None
        if key >> _USED_BITS:
            raise _error(f"invalid Match ID {match_id!r}: unused bits are set")

        def get(f: tuple[int, int]) -> int:
            return (key >> f[0]) & ((1 << f[1]) - 1)

        owner, state = get(_OWNER), get(_STATE)
        if owner == 2:
            raise _error(f"invalid Match ID {match_id!r}: cube owner code 2")
        if state > max(GameState):
            raise _error(f"invalid Match ID {match_id!r}: game state code {state}")
        try:
            return cls(
                cube_value=1 << get(_CUBE),
                cube_owner=None if owner == 3 else owner,
                dice_owner=get(_MOVE),
                crawford=bool(get(_CRAWFORD)),
                game_state=GameState(state),
                turn=get(_TURN),
                double_offered=bool(get(_DOUBLE)),
                resignation=Resignation(get(_RESIGN)),
                dice=(get(_DIE1), get(_DIE2)),
                match_length=get(_LENGTH),
                score=(get(_SCORE0), get(_SCORE1)),
                jacoby=not get(_NO_JACOBY),
            )
        except InvalidIdError as e:
            raise _error(f"invalid Match ID {match_id!r}: {e}") from None

    def encode(self) -> str:
        """The 12-character Match ID."""
        fields = (
            (_CUBE, self.cube_value.bit_length() - 1),
            (_OWNER, 3 if self.cube_owner is None else self.cube_owner),
            (_MOVE, self.dice_owner),
            (_CRAWFORD, self.crawford),
            (_STATE, self.game_state),
            (_TURN, self.turn),
            (_DOUBLE, self.double_offered),
            (_RESIGN, self.resignation),
            (_DIE1, self.dice[0]),
            (_DIE2, self.dice[1]),
            (_LENGTH, self.match_length),
            (_SCORE0, self.score[0]),
            (_SCORE1, self.score[1]),
            (_NO_JACOBY, not self.jacoby),
        )
        key = 0
        for (offset, _width), value in fields:
            key |= int(value) << offset
        return b64encode(key.to_bytes(9, "little")).decode("ascii")

    def __str__(self) -> str:
        return self.encode()


def format_gnubg_id(position: Position, match_id: MatchId) -> str:
    """gnubg's combined "PositionID:MatchID" string.

    ``position`` is seen from the player on roll (``match_id.dice_owner``).
    """
    return f"{position.position_id}:{match_id.encode()}"


def parse_gnubg_id(gnubg_id: str) -> tuple[Position, MatchId]:
    """Decode gnubg's combined "PositionID:MatchID" string."""
    if not isinstance(gnubg_id, str) or gnubg_id.count(":") != 1:
        raise InvalidIdError(
            f"a GNUbg ID is 'PositionID:MatchID' (14 + 1 + 12 characters), got {gnubg_id!r}",
            field="gnubg_id",
        )
    pid, mid = gnubg_id.strip().split(":")
    return Position.from_position_id(pid), MatchId.parse(mid)
