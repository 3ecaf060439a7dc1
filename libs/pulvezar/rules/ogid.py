"""OpenGammon's position ID (OGID): parsed, checked and formatted.

An OGID is colon-separated fields; ``OGID=`` before it is read, never written::

    ogid     = white ":" black ":" cube ":" dice ":" color
               [":" state [":" score-w [":" score-b [":" length [":" move-id [":" checkers]]]]]]
    white    = pip*           one character per White checker on the board (at most 15)
    black    = pip*           the same for Black
    pip      = "0".."9" | "a".."p"     absolute pips 0..25
    cube     = owner log2 action
    owner    = "N" (centred) | "W" | "B" | "D" (dead) | "?" (not known)
    log2     = 1*2 digit      the cube value's logarithm, 0..15
    action   = "N" (none) | "O" (offered) | "T" (taken) | "P" (passed)
    dice     = "" | die die   die = "1".."6"
    color    = "W" | "B"      the player who acted last: who reached this position
    state    = "IW" | "IB" | "R" | "C" | "A" | "D" | "P" | "PR" | "G" | "M" | "F" | "RG" | "RM" | "FF"
    score-w  = 1*5 digit      White's score, then Black's
    length   = 1*5 digit ["C" | "L" | "G" 1*5 digit]
    move-id  = 1*5 digit      plays made in the game so far
    checkers = 1*2 digit      checkers a side, written only when not 15

Pips are absolute: White's bar is pip 0, White's point ``p`` is pip ``25 - p``
(White bears off from pips 19..24); Black's point ``p`` is pip ``p`` and
Black's bar pip 25.  Checkers borne off are not written.  Missing trailing
fields read as ``IW``, 0, 0, money (0), move 0 and 15 checkers.  The writer
sorts each side's characters and writes ten fields, as OpenGammon's codec does.

States: ``IW`` the game not started (White is taken to act), ``IB`` the
opening roll is up, ``R`` dice rolled, ``C`` a play made (the other player
may double or roll), ``D`` a double offered, ``A`` a double taken, ``P`` a
double passed, ``PR`` before a roll, ``G`` game over, ``M`` match over,
``F`` finished, ``RG``/``RM`` game/match resigned, ``FF`` forfeit.  Length
suffixes: ``C`` the Crawford game, ``L`` after it, ``G n`` a money session of
``n`` games.

The player on roll (:attr:`OGID.on_roll`, from whose side
:attr:`OGID.position` is seen) is the one *not* named by ``color``, except
in state ``D``, where it is the doubler (``color``), and in ``IW`` with no
dice, where it is White.

Errors, as python-chess tells a malformed move from an illegal one:
:class:`InvalidOgidError` for text that does not follow the grammar,
:class:`IllegalOgidError` for a well-formed OGID of a state that cannot
exist (a point held by both colours, more checkers than the last field allows,
a score past the length): :class:`~pulvezar.errors.MalformedIdError` and
:class:`~pulvezar.errors.IllegalIdError`, as for every ID
(:func:`pulvezar.formats.position_text.read_position_text`).

In the codec's OGXM projection (``ogxm.binary_to_json``), White is a ply's
``color`` 1 and a game's ``winner`` 0; the OGIDs it replays follow the states
above (``IB`` before the first roll's play, ``R`` before the others, ``C``
after a play, ``D``/``A``/``G`` around a double; ``T`` stays in the cube field
until the next play) and mark the Crawford game ``C``, a 1-point match's game
included.

>>> o = from_ogid("11ccccchhhjjjjj:66666888dddddoo:N0N:25:W:IB:0:0:5:0")
>>> o.on_roll, o.dice, o.match_length, o.position == Position.start()
('B', (2, 5), 5, True)
>>> to_ogid(Position.start(), on_roll="B", dice=(5, 2), match_length=5, state="IB")
'11ccccchhhjjjjj:66666888dddddoo:N0N:25:W:IB:0:0:5:0'
>>> str(from_ogid("11jjjjjhhhccccc:ooddddd88866666:N0N::W"))
'11ccccchhhjjjjj:66666888dddddoo:N0N::W:IW:0:0:0:0'
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal, TypedDict, Unpack, cast

from pulvezar.errors import IllegalIdError, InvalidIdError, InvalidPositionError, MalformedIdError
from pulvezar.rules.matchid import GameState, MatchId
from pulvezar.rules.position import Position
from pulvezar.rules.xgid import XGID

__all__ = [
    "MAX_OGID_LENGTH",
    "OGID",
    "STATES",
    "IllegalOgidError",
    "InvalidOgidError",
    "OgidFields",
    "from_ogid",
    "looks_like_ogid",
    "to_ogid",
]

Side = Literal["W", "B"]
Owner = Literal["centre", "player", "opponent"]
CubeOwner = Literal["N", "W", "B", "D", "?"]
CubeAction = Literal["N", "O", "T", "P"]

MAX_OGID_LENGTH = 128  # longer text is refused before it is looked at
STATES = ("IW", "IB", "R", "C", "A", "D", "P", "PR", "G", "M", "F", "RG", "RM", "FF")
_OVER = {"P": GameState.DROPPED, "G": GameState.OVER, "M": GameState.OVER, "F": GameState.OVER}
_OVER |= {"RG": GameState.RESIGNED, "RM": GameState.RESIGNED, "FF": GameState.RESIGNED}
_PIPS = "0123456789abcdefghijklmnop"
_SIDE = re.compile(r"[0-9a-p]{0,15}\Z")
_PIP_RUN = re.compile(r"[0-9a-p]*\Z")
_CUBE = re.compile(r"([NWBD?])([0-9]{1,2})([NOTP])\Z")
_DICE = re.compile(r"([1-6][1-6])?\Z")
_NUM = re.compile(r"[0-9]{1,5}\Z")
_LENGTH = re.compile(r"([0-9]{1,5})(C|L|G[0-9]{1,5})?\Z")
_CHECKERS = re.compile(r"[0-9]{1,2}\Z")
_PREFIX = re.compile(r"ogid[=:]", re.IGNORECASE)


class InvalidOgidError(MalformedIdError):
    """Text that is not an OGID: a field missing, malformed or out of the grammar."""


class IllegalOgidError(IllegalIdError):
    """A well-formed OGID of a state that cannot exist (or that pulvezar cannot hold)."""


def _invalid(reason: str, field: str) -> InvalidOgidError:
    return InvalidOgidError(reason, field=f"ogid.{field}")


def _illegal(reason: str, field: str) -> IllegalOgidError:
    return IllegalOgidError(reason, field=f"ogid.{field}")


def _other(side: Side) -> Side:
    return "B" if side == "W" else "W"


@dataclass(frozen=True, slots=True)
class OGID:
    """An OGID's fields.

    ``white`` and ``black`` are each side's 25 counts in its owner's numbering
    (points 1..24, then the bar), as :class:`~pulvezar.rules.position.Position`
    keeps them; ``score`` is (White, Black); ``cube_value`` is the value, not
    its logarithm; ``crawford``, ``post_crawford`` and ``max_games`` are the
    length field's suffix.
    """

    white: tuple[int, ...]
    black: tuple[int, ...]
    cube_value: int = 1
    cube_owner: CubeOwner = "N"
    cube_action: CubeAction = "N"
    dice: tuple[int, int] | None = None
    color: Side = "W"
    state: str = "IW"
    score: tuple[int, int] = (0, 0)
    match_length: int = 0
    crawford: bool = False
    post_crawford: bool = False
    max_games: int | None = None
    move_id: int = 0
    checkers: int = 15

    def __post_init__(self) -> None:
        for name in ("white", "black"):
            side = tuple(getattr(self, name))
            if len(side) != 25 or not all(type(n) is int and n >= 0 for n in side):
                raise _invalid(f"{name} needs 25 non-negative counts, got {side!r}", "position")
            object.__setattr__(self, name, side)
        object.__setattr__(self, "score", tuple(self.score))
        if self.dice is not None:
            object.__setattr__(self, "dice", tuple(self.dice))
        self._check()

    def _check(self) -> None:
        v = self.cube_value
        if type(v) is not int or v < 1 or v > 1 << 15 or v & (v - 1):
            raise _invalid(f"the cube is a power of two from 1 to 32768, got {v!r}", "cube")
        if self.cube_owner not in ("N", "W", "B", "D", "?"):
            raise _invalid(f"the cube owner is N, W, B, D or ?, got {self.cube_owner!r}", "cube")
        if self.cube_action not in ("N", "O", "T", "P"):
            raise _invalid(f"the cube action is N, O, T or P, got {self.cube_action!r}", "cube")
        d = self.dice
        if d is not None and (len(d) != 2 or not all(type(x) is int and 1 <= x <= 6 for x in d)):
            raise _invalid(f"dice are None or two values 1..6, got {d!r}", "dice")
        if self.color not in ("W", "B"):
            raise _invalid(f"the color is W or B, got {self.color!r}", "color")
        if self.state not in STATES:
            raise _invalid(f"the state is one of {', '.join(STATES)}; got {self.state!r}", "state")
        for name in ("match_length", "move_id"):
            n = getattr(self, name)
            if type(n) is not int or not 0 <= n <= 99999:
                raise _invalid(f"{name} is 0..99999, got {n!r}", name)
        s, length = self.score, self.match_length
        if len(s) != 2 or not all(type(x) is int and 0 <= x <= 99999 for x in s):
            raise _invalid(f"the scores are two values 0..99999, got {s!r}", "score")
        if length and max(s) > length:
            raise _illegal(f"score {s} exceeds the match length {length}", "score")
        g = self.max_games
        if g is not None and (type(g) is not int or not 1 <= g <= 99999):
            raise _invalid(f"max_games is None or 1..99999, got {g!r}", "match_length")
        if self.crawford + self.post_crawford + (g is not None) > 1:
            raise _invalid("the length takes one suffix: Crawford, post-Crawford or games", "match_length")
        if (self.crawford or self.post_crawford) and not length:
            raise _illegal("a money game has no Crawford game", "match_length")
        if type(self.checkers) is not int or not 1 <= self.checkers <= 15:
            raise _illegal(f"pulvezar plays 1..15 checkers a side, got {self.checkers!r}", "checkers")
        for name, side in (("White", self.white), ("Black", self.black)):
            if sum(side) > self.checkers:
                raise _illegal(
                    f"{name} has {sum(side)} checkers on the board; at most {self.checkers}", "position"
                )
        try:
            Position(self.white, self.black)
        except InvalidPositionError as e:
            raise _illegal(f"impossible position: {e}", "position") from None

    # ---- text ---------------------------------------------------------
    @classmethod
    def parse(cls, text: str) -> OGID:
        """Decode an OGID (with or without ``OGID=``); see the module for the grammar."""
        return _parse(text)

    def encode(self) -> str:
        """The OGID in the codec's form: sorted checkers, ten fields (eleven when not 15 checkers)."""
        length = str(self.match_length)
        if self.crawford:
            length += "C"
        elif self.post_crawford:
            length += "L"
        elif self.max_games is not None:
            length += f"G{self.max_games}"
        fields = [
            _format_side(self.white, white=True),
            _format_side(self.black, white=False),
            f"{self.cube_owner}{self.cube_value.bit_length() - 1}{self.cube_action}",
            "" if self.dice is None else f"{self.dice[0]}{self.dice[1]}",
            self.color,
            self.state,
            str(self.score[0]),
            str(self.score[1]),
            length,
            str(self.move_id),
        ]
        if self.checkers != 15:
            fields.append(str(self.checkers))
        return ":".join(fields)

    def __str__(self) -> str:
        return self.encode()

    # ---- views --------------------------------------------------------
    @property
    def on_roll(self) -> Side:
        """The player on roll: the other one than ``color``, but the doubler (``color``) in state ``D``
        and White in ``IW`` before the dice."""
        if self.state == "D":
            return self.color
        if self.state == "IW" and self.dice is None:
            return "W"
        return _other(self.color)

    @property
    def position(self) -> Position:
        """The board seen from the player on roll (:attr:`on_roll`)."""
        if self.on_roll == "W":
            return Position(self.white, self.black)
        return Position(self.black, self.white)

    def to_match_id(self, *, white: int = 0) -> MatchId:
        """The same state as a gnubg Match ID; ``white`` is the gnubg player (0 or 1) who is White.

        The states of a game in play map to ``PLAYING`` (``IW`` to ``NONE``); ``P`` to
        ``DROPPED``, resignations and forfeits to ``RESIGNED``, the other ends to ``OVER``.
        A dead or unknown cube reads as centred; an OGID says nothing of the Jacoby rule.
        """
        if white not in (0, 1):
            raise InvalidIdError(f"white must be gnubg player 0 or 1, got {white!r}", field="white")
        player = {"W": white, "B": 1 - white}
        mover = player[self.on_roll]
        doubled = self.state == "D"
        state = GameState.NONE if self.state == "IW" else _OVER.get(self.state, GameState.PLAYING)
        score = [0, 0]
        score[white], score[1 - white] = self.score
        return MatchId(
            cube_value=self.cube_value,
            cube_owner=player.get(self.cube_owner),
            dice_owner=mover,
            crawford=self.crawford,
            game_state=state,
            turn=1 - mover if doubled else mover,
            double_offered=doubled,
            dice=(0, 0) if doubled or self.dice is None else self.dice,
            match_length=self.match_length,
            score=(score[0], score[1]),
            jacoby=False,
        )

    def to_xgid(self) -> XGID:
        """The same game in play as an XGID, from the player on roll's view (White is XG's bottom).

        What the engine reads of a position (board, dice, cube, score, length, Crawford) carries over;
        an OGID of a game not in play (ended, resigned) has no XGID: :class:`IllegalOgidError`.

        >>> OGID.parse("11ccccchhhjjjjj:66666888dddddoo:N0N:31:B:R:0:0:0:0").to_xgid().encode()
        'XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10'
        """
        match = self.to_match_id(white=0)
        if match.game_state != GameState.PLAYING:
            raise _illegal(f"state {self.state!r} is not a game in play: it has no XGID", "state")
        return XGID.from_match_id(self.position, match, bottom=0)

    # ---- constructors -------------------------------------------------
    @classmethod
    def from_position(
        cls,
        position: Position,
        *,
        on_roll: Side = "W",
        dice: tuple[int, int] | None = None,
        cube_value: int = 1,
        cube_owner: Owner = "centre",
        cube_action: CubeAction = "N",
        score: tuple[int, int] = (0, 0),
        match_length: int = 0,
        crawford: bool = False,
        post_crawford: bool = False,
        state: str | None = None,
        move_id: int = 0,
    ) -> OGID:
        """An OGID for ``position``, seen from the player on roll; ``on_roll`` says which colour that is.

        ``cube_owner`` and ``score`` are from the player on roll's side (``score``: theirs, then the
        opponent's), as :class:`~pulvezar.cubeful.state.CubeState` has them.  ``state`` defaults to
        ``R`` with dice and ``C`` without; in ``D`` the player on roll is the doubler.  The dice are
        written low die first, as the codec writes them.

        >>> p = Position.from_points({6: 2}, {1: 1})
        >>> str(OGID.from_position(p, on_roll="B", cube_value=2, cube_owner="opponent", score=(1, 3),
        ...                        match_length=5))
        'o:66:W1N::W:C:3:1:5:0'
        """
        if on_roll not in ("W", "B"):
            raise _invalid(f"on_roll is W or B, got {on_roll!r}", "color")
        if cube_owner not in ("centre", "player", "opponent"):
            raise _invalid(f"cube_owner is centre, player or opponent, got {cube_owner!r}", "cube")
        if not isinstance(position, Position):
            raise _invalid("from_position needs a Position", "position")
        if state is None:
            state = "R" if dice else "C"
        if state == "IW" and on_roll != "W":
            raise _illegal("before the game starts (IW) White is taken to be on roll", "state")
        color: Side = on_roll if state in ("D", "IW") else _other(on_roll)
        mine, theirs = position.mine, position.theirs
        white, black = (mine, theirs) if on_roll == "W" else (theirs, mine)
        owner: CubeOwner = {"centre": "N", "player": on_roll, "opponent": _other(on_roll)}[cube_owner]
        sw, sb = score if on_roll == "W" else (score[1], score[0])
        if dice is not None:
            dice = (min(dice), max(dice))
        return cls(
            white, black, cube_value, owner, cube_action, dice, color, state, (sw, sb),
            match_length, crawford, post_crawford, None, move_id,
        )  # fmt: skip


def from_ogid(text: str) -> OGID:
    """Parse an OGID (:meth:`OGID.parse`): :class:`InvalidOgidError` for malformed text,
    :class:`IllegalOgidError` for an impossible state.

    >>> from_ogid("11ccccchhhjjjjj:66666888dddddoo:X0N::W")
    Traceback (most recent call last):
    ...
    pulvezar.rules.ogid.InvalidOgidError: the cube field is owner, log2, action (N0N, W1T, ...); got 'X0N'
    >>> from_ogid("1:1:N0N::W")
    Traceback (most recent call last):
    ...
    pulvezar.rules.ogid.IllegalOgidError: impossible position: both colours on point 24 (the opponent's 1)
    """
    return OGID.parse(text)


class OgidFields(TypedDict, total=False):
    """The keyword arguments of :meth:`OGID.from_position` and :func:`to_ogid`."""

    on_roll: Side
    dice: tuple[int, int] | None
    cube_value: int
    cube_owner: Owner
    cube_action: CubeAction
    score: tuple[int, int]
    match_length: int
    crawford: bool
    post_crawford: bool
    state: str | None
    move_id: int


def to_ogid(position: Position, /, **fields: Unpack[OgidFields]) -> str:
    """The OGID text of :meth:`OGID.from_position` (same keyword arguments).

    >>> to_ogid(Position.start(), dice=(3, 1))
    '11ccccchhhjjjjj:66666888dddddoo:N0N:13:B:R:0:0:0:0'
    """
    return OGID.from_position(position, **fields).encode()


def looks_like_ogid(text: object) -> bool:
    """Whether ``text`` is meant as an OGID: ``OGID=``, or five fields or more whose first holds
    only pips (an XGID's first field has ``-`` and capitals; a gnubg ID has one colon at most).
    Cheap: it looks at the start of the text only.

    >>> looks_like_ogid("11ccccchhhjjjjj:66666888dddddoo:N0N::W")
    True
    >>> looks_like_ogid("XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:7:10")
    False
    """
    if not isinstance(text, str):
        return False
    s = text[: MAX_OGID_LENGTH + 8].strip()
    if _PREFIX.match(s):
        return True
    parts = s.split(":", 4)
    return len(parts) == 5 and bool(_PIP_RUN.match(parts[0]))


# ---- fields ------------------------------------------------------------
def _parse(text: object) -> OGID:
    if not isinstance(text, str):
        raise _invalid("an OGID is a string", "text")
    if len(text) > MAX_OGID_LENGTH:
        raise _invalid(f"an OGID has at most {MAX_OGID_LENGTH} characters, got {len(text)}", "text")
    s = text.strip()
    if _PREFIX.match(s):
        s = s[5:]
    parts = s.split(":")
    if not 5 <= len(parts) <= 11:
        raise _invalid(f"an OGID has 5 to 11 ':'-separated fields, got {len(parts)} in {text!r}", "text")
    parts += [""] * (11 - len(parts))
    white_text, black_text, cube, dice, color, state, sw, sb, length, move_id, checkers = parts
    m = _CUBE.match(cube)
    if not m:
        raise _invalid(f"the cube field is owner, log2, action (N0N, W1T, ...); got {cube!r}", "cube")
    log = int(m.group(2))
    if log > 15:
        raise _invalid(f"the cube's log2 is 0..15, got {log}", "cube")
    if not _DICE.match(dice):
        raise _invalid(f"the dice field is empty or two dice 1..6, got {dice!r}", "dice")
    if color not in ("W", "B"):
        raise _invalid(f"the color field is W or B, got {color!r}", "color")
    state = state or "IW"
    if state not in STATES:
        raise _invalid(f"the state is one of {', '.join(STATES)}; got {state!r}", "state")
    numbers = []
    for name, field, value in (("White's score", "score", sw), ("Black's score", "score", sb),
                               ("the move id", "move_id", move_id)):  # fmt: skip
        if value and not _NUM.match(value):
            raise _invalid(f"{name} is a number of 1 to 5 digits, got {value!r}", field)
        numbers.append(int(value or 0))
    lm = _LENGTH.match(length or "0")
    if not lm:
        raise _invalid(f"the length is digits with C, L or G<n> after them, got {length!r}", "match_length")
    suffix = lm.group(2) or ""
    if checkers and not _CHECKERS.match(checkers):
        raise _invalid(f"the checkers field is a number of 1 or 2 digits, got {checkers!r}", "checkers")
    return OGID(
        white=_parse_side(white_text, white=True),
        black=_parse_side(black_text, white=False),
        cube_value=1 << log,
        cube_owner=cast(CubeOwner, m.group(1)),
        cube_action=cast(CubeAction, m.group(3)),
        dice=(int(dice[0]), int(dice[1])) if dice else None,
        color=cast(Side, color),
        state=state,
        score=(numbers[0], numbers[1]),
        match_length=int(lm.group(1)),
        crawford=suffix == "C",
        post_crawford=suffix == "L",
        max_games=int(suffix[1:]) if suffix.startswith("G") else None,
        move_id=numbers[2],
        checkers=int(checkers or 15),
    )


def _parse_side(text: str, *, white: bool) -> tuple[int, ...]:
    name = "White" if white else "Black"
    if not _SIDE.match(text):
        raise _invalid(f"{name}'s checkers are at most 15 characters 0-9, a-p; got {text!r}", "position")
    side = [0] * 25
    for c in text:
        pip = _PIPS.index(c)
        if pip == (25 if white else 0):
            raise _illegal(f"{name} has no checker on pip {pip}: that is the other side's bar", "position")
        # White: pip 0 is the bar, pip q is point 25 - q; Black: pip q is point q, pip 25 the bar
        point = (25 - pip) if white else pip
        side[point - 1] += 1
    return tuple(side)


def _format_side(side: tuple[int, ...], *, white: bool) -> str:
    pips = []
    for i, n in enumerate(side):
        point = i + 1
        pip = (25 - point) if white else point  # the bar (point 25): White's pip 0, Black's 25
        pips += [pip] * n
    return "".join(_PIPS[p] for p in sorted(pips))
