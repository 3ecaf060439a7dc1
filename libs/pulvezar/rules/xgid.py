"""eXtreme Gammon's XGID.

``XGID=position:cube:cube position:turn:dice:score 1:score 2:Crawford/Jacoby:match length:max cube``

The 26-character position is drawn from the *bottom* player's side: character
0 is the top player's bar, characters 1..24 are points 1..24 in the bottom
player's numbering, character 25 is the bottom player's bar.  ``-`` is an
empty point, ``A``..``O`` are 1..15 bottom checkers, ``a``..``o`` top ones.
The cube is log2 of its value; cube position and turn are ``1`` for the bottom
player, ``-1`` for the top one (cube position ``0``: centred).  Dice are ``00``
(to roll or double), ``D`` (the player on turn doubled), ``B`` (doubled and
beavered), ``R`` (doubled, beavered and raccooned) or the two dice rolled.
Score 1 is the bottom player's, score 2 the top player's.  The
Crawford/Jacoby field is 1 in the Crawford game of a match; in money play bit
0 is the Jacoby rule and bit 1 beavers.  Match length 0 is money play; max
cube is log2 of the cube limit.

>>> x = XGID.parse("XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:7:10")
>>> x.position == Position.start(), x.dice, x.match_length
(True, '52', 7)
>>> str(XGID.from_position(Position.start(), dice=(3, 1)))
'XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10'
"""

from __future__ import annotations

from dataclasses import dataclass

from pulvezar.errors import InvalidIdError, InvalidPositionError
from pulvezar.rules.matchid import GameState, MatchId, Resignation
from pulvezar.rules.position import Position
from pulvezar.rules.xgidfields import check_fields, format_board, log2, parse_fields

__all__ = ["XGID"]


def _error(reason: str, field: str) -> InvalidIdError:
    return InvalidIdError(reason, field=field)


@dataclass(frozen=True, slots=True)
class XGID:
    """An XGID, fields as eXtreme Gammon stores them.

    ``bottom`` and ``top`` are each player's 25 counts in the owner's numbering
    (points 1..24, then the bar).  ``cube_owner`` and ``turn`` use XG's
    ``1`` = bottom, ``-1`` = top (``cube_owner`` 0 = centred); ``dice`` is the
    text of the dice field; ``score`` is (bottom, top); ``cube_value`` and
    ``max_cube`` are values, not logarithms.
    """

    bottom: tuple[int, ...]
    top: tuple[int, ...]
    cube_value: int = 1
    cube_owner: int = 0
    turn: int = 1
    dice: str = "00"
    score: tuple[int, int] = (0, 0)
    crawford_jacoby: int = 0
    match_length: int = 0
    max_cube: int = 1024

    def __post_init__(self) -> None:
        for name in ("bottom", "top"):
            object.__setattr__(self, name, tuple(getattr(self, name)))
        object.__setattr__(self, "score", tuple(self.score))
        check_fields(
            self.bottom, self.top, self.cube_value, self.cube_owner, self.turn, self.dice, self.score,
            self.crawford_jacoby, self.match_length, self.max_cube,
        )  # fmt: skip
        try:
            Position(self.bottom, self.top)
        except InvalidPositionError as e:
            raise InvalidIdError(f"impossible position: {e}", field="xgid.position") from None

    # ---- text ---------------------------------------------------------
    @classmethod
    def parse(cls, xgid: str) -> XGID:
        """Decode an XGID, with or without the ``XGID=`` prefix."""
        return cls(**parse_fields(xgid))

    def encode(self) -> str:
        """The XGID with its ``XGID=`` prefix."""
        fields = (
            format_board(self.bottom, self.top),
            log2(self.cube_value, "cube_value"),
            self.cube_owner,
            self.turn,
            self.dice,
            self.score[0],
            self.score[1],
            self.crawford_jacoby,
            self.match_length,
            log2(self.max_cube, "max_cube"),
        )
        return "XGID=" + ":".join(map(str, fields))

    def __str__(self) -> str:
        return self.encode()

    # ---- views --------------------------------------------------------
    @property
    def position(self) -> Position:
        """The position seen from the player on turn (the doubler in a cube action)."""
        if self.turn == 1:
            return Position(self.bottom, self.top)
        return Position(self.top, self.bottom)

    @property
    def rolled(self) -> tuple[int, int] | None:
        """The dice rolled, or None before the roll or in a cube action."""
        d = self.dice
        return (int(d[0]), int(d[1])) if d.isdigit() and d != "00" else None

    @property
    def crawford(self) -> bool:
        """Whether this is the Crawford game of a match."""
        return bool(self.match_length and self.crawford_jacoby & 1)

    @property
    def jacoby(self) -> bool:
        """Whether the Jacoby rule is on (money play)."""
        return not self.match_length and bool(self.crawford_jacoby & 1)

    @property
    def beavers(self) -> bool:
        """Whether beavers are allowed (money play)."""
        return not self.match_length and bool(self.crawford_jacoby & 2)

    # ---- constructors -------------------------------------------------
    @classmethod
    def from_position(
        cls,
        position: Position,
        *,
        turn: int = 1,
        cube_value: int = 1,
        cube_owner: int = 0,
        dice: tuple[int, int] | str = "00",
        score: tuple[int, int] = (0, 0),
        crawford_jacoby: int = 0,
        match_length: int = 0,
        max_cube: int = 1024,
    ) -> XGID:
        """An XGID for ``position``, seen from the player on turn; ``turn`` says who that is.

        The other arguments keep XG's absolute sides (1 = bottom, -1 = top;
        ``score`` is (bottom, top)).

        >>> p = Position.from_points({6: 2}, {1: 1})
        >>> str(XGID.from_position(p, turn=-1, dice="D"))
        'XGID=-A-----------------b------:0:0:-1:D:0:0:0:0:10'
        """
        if turn not in (-1, 1):
            raise _error(f"turn must be 1 (bottom) or -1 (top), got {turn!r}", "xgid.turn")
        if not isinstance(dice, str):
            dice = "".join(map(str, dice))
        mine, theirs = position.mine, position.theirs
        bottom, top = (mine, theirs) if turn == 1 else (theirs, mine)
        return cls(
            bottom, top, cube_value, cube_owner, turn, dice, score, crawford_jacoby, match_length, max_cube
        )

    # ---- gnubg ----------------------------------------------------------
    def to_match_id(self, *, bottom: int = 1) -> MatchId:
        """The same state as a gnubg Match ID; ``bottom`` is the gnubg player drawn at the bottom.

        gnubg draws player 1 at the bottom, and PyPI ``gnubg`` 1.1's
        ``setgnubgid`` reads XGIDs that way; GNU Backgammon 1.07's ``set xgid``
        instead makes the player on turn player 1, i.e.
        ``bottom=1 if turn == 1 else 0``.  A double on offer (``D``) becomes
        ``double_offered`` with the turn at the taker; beaver states (``B``,
        ``R``) have no Match ID form.
        """
        if bottom not in (0, 1):
            raise InvalidIdError(f"bottom must be gnubg player 0 or 1, got {bottom!r}", field="bottom")
        if self.dice in ("B", "R"):
            raise _error(f"a Match ID cannot express a beaver (dice field {self.dice!r})", "xgid.dice")
        player = {1: bottom, -1: 1 - bottom}  # XG side -> gnubg player
        mover = player[self.turn]
        doubled = self.dice == "D"
        score = [0, 0]
        score[bottom], score[1 - bottom] = self.score
        return MatchId(
            cube_value=self.cube_value,
            cube_owner=player.get(self.cube_owner),
            dice_owner=mover,
            crawford=self.crawford,
            game_state=GameState.PLAYING,
            turn=1 - mover if doubled else mover,
            double_offered=doubled,
            dice=self.rolled or (0, 0),
            match_length=self.match_length,
            score=(score[0], score[1]),
            jacoby=self.jacoby,
        )

    @classmethod
    def from_match_id(
        cls,
        position: Position,
        match_id: MatchId,
        *,
        bottom: int = 1,
        beavers: bool = False,
        max_cube: int = 1024,
    ) -> XGID:
        """An XGID from gnubg's board (seen from the player on roll) and Match ID.

        ``bottom`` is the gnubg player drawn at the bottom of XG's board (gnubg
        draws player 1 there).  Only a game in play with no resignation on
        offer has an XGID.
        """
        m = match_id
        if bottom not in (0, 1):
            raise InvalidIdError(f"bottom must be gnubg player 0 or 1, got {bottom!r}", field="bottom")
        if m.game_state != GameState.PLAYING or m.resignation != Resignation.NONE:
            raise _error("an XGID holds only a game in play with no resignation on offer", "match_id")
        if m.double_offered and (m.turn == m.dice_owner or m.dice != (0, 0)):
            raise _error("a double on offer needs the turn at the taker and no dice", "match_id")
        cj = int(m.crawford) if m.match_length else int(m.jacoby) | (2 if beavers else 0)
        return cls.from_position(
            position,
            turn=1 if m.dice_owner == bottom else -1,
            cube_value=m.cube_value,
            cube_owner=0 if m.cube_owner is None else (1 if m.cube_owner == bottom else -1),
            dice="D" if m.double_offered else m.dice,
            score=(m.score[bottom], m.score[1 - bottom]),
            crawford_jacoby=cj,
            match_length=m.match_length,
            max_cube=max_cube,
        )
