"""An SVG picture of a position, drawn here: points, checkers, bar, borne-off trays, cube, dice, IDs, and
for a picture to share a play's arrows, the score and up to two lines of caption (:func:`png` renders it).

The player on roll (light checkers) moves from 24 down to 1 and bears off at the bottom right, as in
:func:`pulvezar.rules.diagram.ascii_board`. Stacks of more than five checkers show their count.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from xml.sax.saxutils import escape, quoteattr

from pulvezar import Position

POINT_W = 40
BAR_W = 40
TRAY_W = 48
FRAME = 12
CHECKER_R = 17
STACK = 5
HALF_H = STACK * 2 * CHECKER_R + 20  # one half of the board, edge to middle
GAP = 40  # between the halves
HEADER = 34
FOOTER = 84

BOARD_W = 12 * POINT_W + BAR_W
WIDTH = FRAME + BOARD_W + FRAME + TRAY_W + FRAME
BOARD_H = 2 * HALF_H + GAP
HEIGHT = HEADER + FRAME + BOARD_H + FRAME + FOOTER

MINE = ("#f4efe1", "#3b3b3b")  # fill, stroke: the player on roll
THEIRS = ("#a3261f", "#3b0d0a")
POINT_COLOURS = ("#c89f66", "#5c4a3a")
FELT = "#2f6b4f"
WOOD = "#6b4a2b"


def _attrs(**kv: object) -> str:
    return " ".join(f"{k.rstrip('_').replace('_', '-')}={quoteattr(str(v))}" for k, v in kv.items())


def _el(tag: str, text: str | None = None, **kv: object) -> str:
    a = _attrs(**kv)
    return f"<{tag} {a}>{escape(text)}</{tag}>" if text is not None else f"<{tag} {a}/>"


def _point_x(point: int) -> float:
    """Left edge of a point (1..24, the on-roll player's numbering)."""
    # columns from the left: the bottom row has 12..7 | 6..1, the top row 13..18 | 19..24
    col = 12 - point if point <= 12 else point - 13
    return FRAME + col * POINT_W + (BAR_W if col >= 6 else 0)


def _stack(cx: float, edge: float, direction: int, count: int, colours: tuple[str, str]) -> list[str]:
    """Checkers from ``edge`` towards the middle (``direction`` +1 down, -1 up)."""
    out = []
    shown = min(count, STACK)
    for i in range(shown):
        cy = edge + direction * (CHECKER_R + 2 * CHECKER_R * i + 1)
        out.append(
            _el("circle", cx=cx, cy=cy, r=CHECKER_R - 1, fill=colours[0], stroke=colours[1], stroke_width=2)
        )
        if i == shown - 1 and count > STACK:
            out.append(
                _el(
                    "text",
                    str(count),
                    x=cx,
                    y=cy + 5,
                    text_anchor="middle",
                    font_size=15,
                    font_weight="bold",
                    fill=colours[1],
                )
            )
    return out


def _die(x: float, y: float, value: int, size: float = 28) -> list[str]:
    out = [
        _el("rect", x=x, y=y, width=size, height=size, rx=5, fill="#fffdf7", stroke="#222", stroke_width=1.5)
    ]
    q = size / 4
    spots = {
        1: [(2, 2)],
        2: [(1, 1), (3, 3)],
        3: [(1, 1), (2, 2), (3, 3)],
        4: [(1, 1), (3, 1), (1, 3), (3, 3)],
        5: [(1, 1), (3, 1), (2, 2), (1, 3), (3, 3)],
        6: [(1, 1), (3, 1), (1, 2), (3, 2), (1, 3), (3, 3)],
    }
    for sx, sy in spots.get(value, []):
        out.append(_el("circle", cx=x + sx * q, cy=y + sy * q, r=size / 11, fill="#222"))
    return out


def board_svg(
    position: Position,
    *,
    ids: Sequence[tuple[str, str]] = (),
    dice: tuple[int, int] | None = None,
    cube_value: int = 1,
    cube_owner: str | None = None,  # "player", "opponent" or None (centred)
    show_cube: bool = True,
    title: str = "Backgammon position",
    arrows: Sequence[tuple[int, int]] = (),
    score: str | None = None,
    caption: Sequence[str] = (),
) -> str:
    """The SVG document (UTF-8 text) of ``position``, seen from the player on roll; ``arrows``: moves
    ``(from, to)`` in its numbering (25 the bar, 0 off), ``score`` a line above the board, ``caption`` up to
    two lines under it."""
    pips, off = position.pips(), position.off()
    desc = "; ".join(f"{k}: {v}" for k, v in ids)
    parts: list[str] = [
        _el("title", title),
        _el(
            "desc",
            f"Player on roll: pips {pips[0]}, off {off[0]}. Opponent: pips {pips[1]}, off {off[1]}. {desc}",
        ),
        _el("rect", x=0, y=0, width=WIDTH, height=HEIGHT, fill="#fafafa"),
        _el("rect", x=0, y=HEADER, width=WIDTH, height=BOARD_H + 2 * FRAME, fill=WOOD, rx=6, class_="frame"),
        _el("rect", x=FRAME, y=_TOP, width=BOARD_W, height=BOARD_H, fill=FELT, class_="felt"),
    ]
    parts += _points()
    parts.append(_el("rect", x=_BAR_X, y=_TOP, width=BAR_W, height=BOARD_H, fill=WOOD, class_="bar"))
    parts.append(_el("rect", x=_TRAY_X, y=_TOP, width=TRAY_W, height=BOARD_H, fill="#3d2a18", class_="tray"))
    parts += _checkers(position)
    parts += _borne_off(off)
    if show_cube:
        parts += _cube(cube_value, cube_owner)
    if dice:  # the dice of the player on roll, on the right half
        x0 = FRAME + 9 * POINT_W + BAR_W - 34
        parts += [*_die(x0, _MID - 14, dice[0]), *_die(x0 + 36, _MID - 14, dice[1])]
    for frm, to in arrows:
        (x1, y1), (x2, y2) = (
            _anchor(frm, _TOP, _BOTTOM, _MID, _BAR_X, _TRAY_X),
            _anchor(to, _TOP, _BOTTOM, _MID, _BAR_X, _TRAY_X),
        )
        parts.append(_el("line", x1=x1, y1=y1, x2=x2, y2=y2, stroke="#f2c200", stroke_width=5,
                         stroke_linecap="round", marker_end="url(#arrowhead)", class_="arrow"))  # fmt: skip
    parts += _texts(pips, off, ids, score, caption)
    height = HEIGHT + 20 * len(caption[:2])
    defs = (
        '<defs><marker id="arrowhead" markerWidth="4" markerHeight="4" refX="2" refY="2" orient="auto">'
        '<path d="M0,0 L4,2 L0,4 z" fill="#f2c200"/></marker></defs>'
    )
    body = "\n  ".join([defs, *parts])
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<svg xmlns="http://www.w3.org/2000/svg" {_attrs(width=WIDTH, height=height)} '
        f'viewBox="0 0 {WIDTH} {height}" role="img" font-family="sans-serif">\n  {body}\n</svg>\n'
    )


#: the board's geometry: the playing area's top and bottom, the middle, the bar's and the tray's left edges
_TOP = HEADER + FRAME
_BOTTOM = _TOP + BOARD_H
_MID = _TOP + HALF_H + GAP / 2
_BAR_X = FRAME + 6 * POINT_W
_TRAY_X = FRAME + BOARD_W + FRAME


def _points() -> list[str]:
    """The 24 points, numbered from the player on roll's view."""
    parts = []
    for point in range(1, 25):
        x = _point_x(point)
        colour = POINT_COLOURS[point % 2]
        if point <= 12:
            tip = _BOTTOM - HALF_H + 8
            pts = f"{x},{_BOTTOM} {x + POINT_W},{_BOTTOM} {x + POINT_W / 2},{tip}"
            label_y = _BOTTOM + FRAME - 2
        else:
            tip = _TOP + HALF_H - 8
            pts = f"{x},{_TOP} {x + POINT_W},{_TOP} {x + POINT_W / 2},{tip}"
            label_y = _TOP - 2
        parts.append(_el("polygon", points=pts, fill=colour, class_="point", data_point=point))
        parts.append(_el("text", str(point), x=x + POINT_W / 2, y=label_y, text_anchor="middle", font_size=10,
                         fill="#fff"))  # fmt: skip
    return parts


def _checkers(position: Position) -> list[str]:
    """The checkers on the points and on the bar (the player on roll's below the middle)."""
    mine, theirs = position.mine, position.theirs
    bar_mine, bar_theirs = position.bar()
    parts: list[str] = []
    for point in range(1, 25):
        cx = _point_x(point) + POINT_W / 2
        edge, direction = (_BOTTOM, -1) if point <= 12 else (_TOP, 1)
        if mine[point - 1]:
            parts += _stack(cx, edge, direction, mine[point - 1], MINE)
        elif theirs[24 - point]:
            parts += _stack(cx, edge, direction, theirs[24 - point], THEIRS)
    cx = _BAR_X + BAR_W / 2
    if bar_mine:
        parts += _stack(cx, _MID + GAP / 2 + 4 * CHECKER_R, -1, bar_mine, MINE)
    if bar_theirs:
        parts += _stack(cx, _MID - GAP / 2 - 4 * CHECKER_R, 1, bar_theirs, THEIRS)
    return parts


def _borne_off(off: tuple[int, int]) -> list[str]:
    """The checkers borne off as thin slabs in the tray, the player on roll's at the bottom."""
    parts = []
    for count, colours, base, direction in ((off[0], MINE, _BOTTOM, -1), (off[1], THEIRS, _TOP, 1)):
        for i in range(count):
            y = base + direction * (4 + i * 9) - (7 if direction < 0 else 0)
            parts.append(_el("rect", x=_TRAY_X + 6, y=y, width=TRAY_W - 12, height=7, fill=colours[0],
                             stroke=colours[1]))  # fmt: skip
        if count:
            ty = base + direction * (4 + count * 9 + 10) + (4 if direction > 0 else 0)
            parts.append(_el("text", str(count), x=_TRAY_X + TRAY_W / 2, y=ty, text_anchor="middle",
                             font_size=12, fill="#fff"))  # fmt: skip
    return parts


def _cube(cube_value: int, cube_owner: str | None) -> list[str]:
    """The doubling cube: in the middle of the bar when centred (showing 64), else at its owner's side."""
    size = 30
    cube_y = {"player": _BOTTOM - size - 4, "opponent": _TOP + 4}.get(cube_owner or "", _MID - size / 2)
    cube_x = _TRAY_X + (TRAY_W - size) / 2 if cube_owner else _BAR_X + (BAR_W - size) / 2
    label = "64" if cube_owner is None and cube_value == 1 else str(cube_value)
    return [
        _el("rect", x=cube_x, y=cube_y, width=size, height=size, rx=4, fill="#fff", stroke="#111",
            class_="cube"),
        _el("text", label, x=cube_x + size / 2, y=cube_y + size / 2 + 5, text_anchor="middle", font_size=14,
            font_weight="bold", fill="#111"),
    ]  # fmt: skip


def _texts(
    pips: tuple[int, int], off: tuple[int, int], ids: Sequence[tuple[str, str]], score: str | None,
    caption: Sequence[str],
) -> list[str]:  # fmt: skip
    """The lines above the board (the score, the opponent's pips) and under it (the player on roll's pips,
    the IDs, the caption)."""
    parts = []
    if score:
        parts.append(_el("text", score, x=WIDTH - FRAME, y=HEADER - 10, text_anchor="end", font_size=14,
                         fill="#111", class_="score"))  # fmt: skip
    parts.append(_el("text", f"Opponent: pips {pips[1]}, off {off[1]}", x=FRAME, y=HEADER - 10, font_size=14,
                     fill="#111"))  # fmt: skip
    y = _BOTTOM + FRAME + 20
    parts.append(
        _el("text", f"On roll: pips {pips[0]}, off {off[0]}", x=FRAME, y=y, font_size=14, fill="#111")
    )
    for k, v in ids:
        y += 18
        parts.append(_el("text", f"{k}: {v}", x=FRAME, y=y, font_size=12, font_family="monospace",
                         fill="#333", class_="id"))  # fmt: skip
    for line in caption[:2]:
        y += 20
        parts.append(_el("text", line, x=FRAME, y=y, font_size=14, fill="#111", class_="caption"))
    return parts


def _anchor(
    point: int, top: float, bottom: float, mid: float, bar_x: float, tray_x: float
) -> tuple[float, float]:
    """Where an arrow starts or ends: a point's middle, the bar (25) or the tray (0, borne off)."""
    if point >= 25:
        return bar_x + BAR_W / 2, mid + GAP / 2 + 2 * CHECKER_R
    if point <= 0:
        return tray_x + TRAY_W / 2, bottom - 3 * CHECKER_R
    cx = _point_x(point) + POINT_W / 2
    return cx, (bottom - 2 * CHECKER_R if point <= 12 else top + 2 * CHECKER_R)


def arrows_of(notation: str) -> list[tuple[int, int]]:
    """The moves of a play's notation as ``(from, to)`` for :func:`board_svg` (``bar`` 25, ``off`` 0):
    ``"8/5 6/5"``, ``"24/21*/18"``, ``"13/7(2)"``, ``"bar/22"``; ValueError for anything else.

    >>> arrows_of("24/21*/18 6/off(2)")
    [(24, 21), (21, 18), (6, 0), (6, 0)]
    """
    import re

    out: list[tuple[int, int]] = []
    for part in notation.split():
        m = re.fullmatch(r"((?:bar|\d{1,2})\*?(?:/(?:off|\d{1,2})\*?)+)(?:\((\d)\))?", part.strip().lower())
        if m is None:
            raise ValueError(f"not a play's notation: {part!r}")
        steps = [
            25 if x == "bar" else 0 if x == "off" else int(x) for x in m.group(1).replace("*", "").split("/")
        ]
        if any(not 0 <= x <= 25 for x in steps):
            raise ValueError(f"no point {part!r}")
        for _ in range(int(m.group(2) or 1)):
            out += list(itertools.pairwise(steps))
    if not out:
        raise ValueError("an empty play")
    return out


def png(svg_text: str) -> bytes:
    """The SVG rendered to PNG by resvg (PyPI ``resvg-py``)."""
    import resvg_py

    return bytes(resvg_py.svg_to_bytes(svg_string=svg_text))


def card_svg(lines: Sequence[str], won: bool | None) -> str:
    """A result card: the brand, the lines (the first small, the second large), a band in the winner's
    colour (the player's light checkers, or the bot's red)."""
    width, height = 640, 90 + 34 * max(0, len(lines) - 1)
    band = MINE[1] if won is None else ("#2f6f3e" if won else THEIRS[0])
    parts = [
        _el("rect", x=0, y=0, width=width, height=height, rx=12, fill="#fffdf7", stroke="#d8ccb0"),
        _el("rect", x=0, y=0, width=12, height=height, fill=band),
        _el(
            "text",
            "pulvezar",
            x=width - 20,
            y=30,
            text_anchor="end",
            font_size=16,
            font_weight="bold",
            fill=WOOD,
        ),
    ]
    y = 34
    for i, line in enumerate(lines):
        size, weight = (14, "normal") if i == 0 else (26, "bold") if i == 1 else (18, "normal")
        y += 8 if i == 0 else size + 10
        parts.append(_el("text", line, x=32, y=y, font_size=size, font_weight=weight, fill="#1d1d1b"))
    body = "\n  ".join(parts)
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<svg xmlns="http://www.w3.org/2000/svg" {_attrs(width=width, height=height)} '
        f'viewBox="0 0 {width} {height}" role="img" font-family="sans-serif">\n  {body}\n</svg>\n'
    )
