"""Positions decoded (any ID: board, IDs, pips, match state, type, diagram) and drawn (SVG, and PNG to
share with a play's arrows, the score and a caption)."""

from __future__ import annotations

import functools
from urllib.parse import quote

from pulvezar import XGID, PulvezarError, format_gnubg_id
from pulvezar.formats.position_text import ogid_of_xgid
from pulvezar.rules.diagram import ascii_board
from services.gateway import svg
from services.gateway.models import Board, Parsed, Pips, match_state, parse_position
from services.gateway.plays_models import PositionInfo, Side
from services.gateway.problems import invalid
from services.gateway.services.plays import position_type


def decoded(position: str) -> PositionInfo:
    """What a position ID says (a 422 naming ``position`` for one that is not)."""
    parsed = parse_position(position, "position")
    p = parsed.position
    pips, off, bar = p.pips(), p.off(), p.bar()
    return PositionInfo(
        kind=parsed.kind,
        position_id=p.position_id,
        xgid=_xgid(parsed).encode(),
        ogid=_ogid(parsed),
        gnubg_id=_gnubg_id(parsed),
        board=Board(mine=list(p.mine), theirs=list(p.theirs)),
        pips=Pips(player=pips[0], opponent=pips[1]),
        off=Side(player=off[0], opponent=off[1]),
        bar=Side(player=bar[0], opponent=bar[1]),
        match=match_state(parsed.match) if parsed.match is not None else None,
        dice=_dice(parsed),
        race=p.is_race(),
        diagram=ascii_board(p),
        board_svg=f"/v1/positions/{quote(position.strip(), safe='/:=+')}/board.svg",
        position_type=position_type(p),
    )


def _xgid(parsed: Parsed) -> XGID:
    if parsed.xgid is not None:
        return parsed.xgid
    if parsed.match is not None:
        try:
            return XGID.from_match_id(parsed.position, parsed.match)
        except PulvezarError:
            pass
    return XGID.from_position(parsed.position)


def _ogid(parsed: Parsed) -> str:
    """The OGID given, else that of the state the other forms say (the player on roll as White)."""
    if parsed.ogid is not None:
        return parsed.ogid.encode()
    return ogid_of_xgid(_xgid(parsed)).encode()


def _dice(parsed: Parsed) -> tuple[int, int] | None:
    if parsed.xgid is not None:
        return parsed.xgid.rolled
    if parsed.match is not None and parsed.match.dice[0]:
        return parsed.match.dice
    return None


def _cube(parsed: Parsed) -> tuple[int, str | None]:
    """Cube value and owner: "player" (on roll), "opponent" or None (centred)."""
    if parsed.xgid is not None:
        x = parsed.xgid
        owner = None if x.cube_owner == 0 else ("player" if x.cube_owner == x.turn else "opponent")
        return x.cube_value, owner
    if parsed.match is not None:
        m = parsed.match
        if m.cube_owner is None:
            return m.cube_value, None
        return m.cube_value, "player" if m.cube_owner == m.turn else "opponent"
    return 1, None


def _gnubg_id(parsed: Parsed) -> str | None:
    if parsed.match is None:
        return None
    return format_gnubg_id(parsed.position, parsed.match)


def picture(
    position: str,
    cube: bool,
    ids: bool,
    play: str | None = None,
    dice: str | None = None,
    rules: str = "international",
    caption: list[str] | None = None,
) -> str:
    """The SVG of a position: the board, and for a picture to share a play's arrows, the score and a
    caption; a 422 naming ``position``, ``dice`` or ``play`` for what does not fit."""
    parsed = parse_position(position, "position")
    labels: list[tuple[str, str]] = []
    if ids:
        labels = [
            ("Position ID", parsed.position.position_id),
            ("XGID", _xgid(parsed).encode()),
            ("OGID", _ogid(parsed)),
        ]
        gid = _gnubg_id(parsed)
        if gid:
            labels.append(("GNUbg ID", gid))
    rolled = _dice(parsed)
    if dice is not None:
        rolled = (int(dice[0]), int(dice[1]))
    arrows: list[tuple[int, int]] = []
    if play:
        try:
            arrows = svg.arrows_of(play)
            if rolled is not None:  # a play of these dice: it must be legal
                from pulvezar import Rules
                from pulvezar.rules.notation import parse_play

                parse_play(
                    play,
                    parsed.position,
                    rolled,
                    Rules.tavla() if rules == "tavla" else Rules.international(),
                )
        except (ValueError, PulvezarError) as e:
            raise invalid("play", str(e)) from None
    value, owner = _cube(parsed)
    return svg.board_svg(
        parsed.position, ids=labels, dice=rolled, cube_value=value, cube_owner=owner, show_cube=cube,
        arrows=arrows, score=_score(parsed), caption=caption or [],
    )  # fmt: skip


def _score(parsed: Parsed) -> str | None:
    m = parsed.match
    if m is None or not m.match_length:
        return None
    me = m.turn if m.dice == (0, 0) else m.dice_owner
    return f"Score {m.score[me]}-{m.score[1 - me]}, {m.match_length}-point match" + (
        " (Crawford)" if m.crawford else ""
    )


@functools.lru_cache(maxsize=256)
def png(
    position: str,
    cube: bool,
    ids: bool,
    play: str | None,
    dice: str | None,
    rules: str,
    caption: tuple[str, ...],
) -> bytes:
    """The PNG of :func:`picture`, rendered once per request form (the recent ones are kept)."""
    return svg.png(picture(position, cube, ids, play, dice, rules, list(caption)))
