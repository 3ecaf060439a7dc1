"""One reader of position text: a Position ID, gnubg's ``PositionID:MatchID``, an XGID or an OGID.

Every place that takes a position as text (the REST position parameters, the command line's position
argument, the play start) reads it here, so all accept the same four forms with the same errors.
The form is told by the text's shape, as it always was:

==============  ===================================================  ===========================
kind            shape                                                example
==============  ===================================================  ===========================
``ogid``        ``OGID=`` or five ``:``-fields, the first only pips  ``11ccccchhhjjjjj:6666...``
``xgid``        ``XGID=`` or two ``:`` or more                       ``XGID=-b----E-C---eE...``
``gnubg_id``    one ``:``                                            ``4HPwATDgc/ABMA:cAkAAAAAAAAA``
``position_id`` no ``:``                                             ``4HPwATDgc/ABMA``
==============  ===================================================  ===========================

Errors, as python-chess tells a malformed move from an illegal one, are both
:class:`~pulvezar.errors.InvalidIdError` (with the message and ``field`` of the form's own parser):
:class:`~pulvezar.errors.MalformedIdError` for text off the form's grammar,
:class:`~pulvezar.errors.IllegalIdError` for a well-formed ID of a state that cannot exist.  Text longer
than :data:`MAX_POSITION_TEXT` is refused before it is looked at, and every check is linear in the text
(no regular expression with nested quantifiers).

>>> read_position_text("4HPwATDgc/ABMA").kind
'position_id'
>>> r = read_position_text("XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:7:10")
>>> r.kind, r.dice, r.match.match_length if r.match else None
('xgid', (5, 2), 7)
>>> to_position_text(read_position_text("4HPwATDgc/ABMA:cAkAAAAAAAAA"), "xgid")
'XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:1:0:10'
>>> read_position_text("4HPwATDgc/ABM!")
Traceback (most recent call last):
...
pulvezar.errors.MalformedIdError: invalid Position ID '4HPwATDgc/ABM!': ...
>>> read_position_text("/////////////w")
Traceback (most recent call last):
...
pulvezar.errors.IllegalIdError: invalid Position ID '/////////////w': ...
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from pulvezar.errors import IllegalIdError, InvalidIdError, MalformedIdError
from pulvezar.rules.matchid import MatchId, format_gnubg_id
from pulvezar.rules.ogid import OGID, looks_like_ogid
from pulvezar.rules.position import Position
from pulvezar.rules.xgid import XGID

__all__ = [
    "KINDS",
    "MAX_POSITION_TEXT",
    "PositionKind",
    "PositionText",
    "ogid_of_xgid",
    "position_text_kind",
    "read_position_text",
    "to_position_text",
]

PositionKind = Literal["position_id", "gnubg_id", "xgid", "ogid"]
KINDS: tuple[PositionKind, ...] = ("position_id", "gnubg_id", "xgid", "ogid")

#: the longest position text (an XGID with its match fields is about 70 characters, an OGID at most 128)
MAX_POSITION_TEXT = 200

_B64 = re.compile(r"[A-Za-z0-9+/]*\Z")
_XGID_BOARD = re.compile(r"[-a-oA-O]{26}\Z")
_XGID_INT = re.compile(r"-?[0-9]{1,9}\Z")
_XGID_DICE = re.compile(r"(00|D|B|R|[1-6][1-6])\Z")


@dataclass(frozen=True, slots=True)
class PositionText:
    """What a position text says: the board of the player on roll and, by kind, the game around it.

    ``match`` is the gnubg Match ID of the state (none for a bare Position ID, or an XGID of a beaver
    state, which has no Match ID form); ``xgid`` and ``ogid`` are set when the text was one (an OGID
    also gives the XGID of the same game).
    """

    kind: PositionKind
    position: Position
    match: MatchId | None = None
    xgid: XGID | None = None
    ogid: OGID | None = None

    @property
    def dice(self) -> tuple[int, int] | None:
        """The rolled dice, where the text has them."""
        if self.xgid is not None:
            return self.xgid.rolled
        if self.match is not None and self.match.dice != (0, 0):
            return self.match.dice
        return None


def position_text_kind(text: str) -> PositionKind:
    """Which form ``text`` is meant as, by its shape only (see the module); it may still not decode.

    >>> position_text_kind("OGID=11ccccchhhjjjjj:66666888dddddoo:N0N::W")
    'ogid'
    """
    s = text[: MAX_POSITION_TEXT + 1].strip()
    if looks_like_ogid(s):
        return "ogid"
    if s[:5].upper() == "XGID=" or s.count(":") >= 2:
        return "xgid"
    return "gnubg_id" if ":" in s else "position_id"


def read_position_text(text: object) -> PositionText:
    """Read a Position ID, ``PositionID:MatchID``, an XGID or an OGID (see the module).

    Raises :class:`~pulvezar.errors.MalformedIdError` or :class:`~pulvezar.errors.IllegalIdError`
    (an OGID's own subclasses of them, ``InvalidOgidError`` and ``IllegalOgidError``).
    """
    if not isinstance(text, str):
        raise MalformedIdError("a position is a string", field="id")
    if len(text) > MAX_POSITION_TEXT:
        raise MalformedIdError(
            f"a position text has at most {MAX_POSITION_TEXT} characters, got {len(text)}", field="id"
        )
    s = text.strip()
    kind = position_text_kind(s)
    if kind == "ogid":
        o = OGID.parse(s)  # InvalidOgidError or IllegalOgidError
        x = o.to_xgid()
        return PositionText(kind, x.position, x.to_match_id(), x, o)
    if kind == "xgid":
        x = _read_xgid(s)
        try:
            match: MatchId | None = x.to_match_id()
        except InvalidIdError:
            match = None  # a beaver state has no Match ID form
        return PositionText(kind, x.position, match, x)
    if kind == "gnubg_id":
        pid, mid = s.split(":")
        return PositionText(kind, _read_position_id(pid.strip()), _read_match_id(mid.strip()))
    return PositionText(kind, _read_position_id(s))


def to_position_text(state: PositionText, kind: PositionKind) -> str:
    """``state`` written as ``kind``: the from/to pair of :func:`read_position_text`.

    A bare Position ID's state is money play with a centred cube and no dice (and gnubg's Jacoby rule);
    an XGID of a gnubg ID's state has the player on roll at the bottom, an OGID of another form's state
    White on roll.  A state a form cannot hold (a beaver as a Match ID, a game not in play as
    an XGID) is :class:`~pulvezar.errors.IllegalIdError`.

    >>> t = read_position_text("XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:7:10")
    >>> to_position_text(t, "gnubg_id")
    '4HPwATDgc/ABMA:cInqAAAAAAAE'
    >>> to_position_text(t, "ogid")  # the codec writes the low die first
    '11ccccchhhjjjjj:66666888dddddoo:N0N:25:B:R:0:0:7:0'
    >>> to_position_text(read_position_text("4HPwATDgc/ABMA"), "xgid")
    'XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:1:0:10'
    """
    if kind == "position_id":
        return state.position.position_id
    match = state.match if state.match is not None else MatchId()
    try:
        if kind == "gnubg_id":
            if state.match is None and state.xgid is not None:
                raise IllegalIdError("a beaver state has no Match ID form", field="match_id")
            return format_gnubg_id(state.position, match)
        if kind == "xgid":
            return _xgid_of(state, match).encode()
        if kind == "ogid":
            if state.ogid is not None:
                return state.ogid.encode()
            return ogid_of_xgid(_xgid_of(state, match)).encode()
    except IllegalIdError:
        raise
    except InvalidIdError as e:
        raise IllegalIdError(str(e), field=e.field) from None
    raise MalformedIdError(f"a position text kind is one of {', '.join(KINDS)}, got {kind!r}", field="kind")


def _xgid_of(state: PositionText, match: MatchId) -> XGID:
    """The text's XGID, else that of its Match ID with the player on roll at the bottom."""
    if state.xgid is not None:
        return state.xgid
    return XGID.from_match_id(state.position, match, bottom=match.dice_owner)


def ogid_of_xgid(x: XGID) -> OGID:
    """The OGID of an XGID's game, the player on roll as White (the command line's ``PositionArg.ogid`` and
    the gateway's position info say the same)."""
    owner: Literal["centre", "player", "opponent"] = (
        "centre" if x.cube_owner == 0 else ("player" if x.cube_owner == x.turn else "opponent")
    )
    return OGID.from_position(
        x.position,
        on_roll="W",
        dice=x.rolled,
        cube_value=x.cube_value,
        cube_owner=owner,
        score=x.score if x.turn == 1 else (x.score[1], x.score[0]),
        match_length=x.match_length,
        crawford=x.crawford,
    )


# ---- the forms -----------------------------------------------------------------
def _read_position_id(pid: str) -> Position:
    """A Position ID (:meth:`Position.from_position_id`): not 14 base64 characters malformed, a board
    that cannot be illegal."""
    syntax = len(pid) == 14 and _B64.match(pid) is not None
    try:
        return Position.from_position_id(pid)
    except InvalidIdError as e:
        raise (IllegalIdError if syntax else MalformedIdError)(str(e), field=e.field) from None


def _read_match_id(mid: str) -> MatchId:
    """A Match ID: not 12 base64 characters malformed, a state that cannot be illegal."""
    syntax = len(mid) == 12 and _B64.match(mid) is not None
    try:
        return MatchId.parse(mid)
    except InvalidIdError as e:
        raise (IllegalIdError if syntax else MalformedIdError)(str(e), field=e.field) from None


def _read_xgid(s: str) -> XGID:
    """An XGID: off its grammar (ten ``:``-fields, a 26-character board, numbers, the dice) malformed,
    values out of range or an impossible board illegal."""
    body = s[5:] if s[:5].upper() == "XGID=" else s
    parts = body.split(":")
    syntax = (
        len(parts) == 10
        and _XGID_BOARD.match(parts[0]) is not None
        and _XGID_DICE.match(parts[4]) is not None
        and all(_XGID_INT.match(p) is not None for i, p in enumerate(parts) if i not in (0, 4))
    )
    try:
        return XGID.parse(s)
    except InvalidIdError as e:
        raise (IllegalIdError if syntax else MalformedIdError)(str(e), field=e.field) from None
