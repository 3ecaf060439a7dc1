"""ASCII diagrams of positions (the player on roll is X, moving from 24 down to 1); the labels from the
catalogs' ``diagram.*`` (:mod:`pulvezar.i18n`), English by default."""

from __future__ import annotations

from pulvezar.i18n import t
from pulvezar.rules.position import Position

_ROWS = 5


def _column(count: int, mark: str, row: int) -> str:
    """The character of one point at ``row`` (0 = nearest the edge)."""
    if count > _ROWS and row == _ROWS - 1:
        return str(count) if count < 10 else "+"
    return mark if count > row else " "


def ascii_board(position: Position, lang: str = "en") -> str:
    """A gnubg-like text diagram with bar, borne-off checkers and pip counts, labelled in ``lang``.

    >>> print(ascii_board(Position.start()))
     +13-14-15-16-17-18------19-20-21-22-23-24-+     O: pips 167, off 0
     | X           O    |   | O              X |
     | X           O    |   | O              X |
     | X           O    |   | O                |
     | X                |   | O                |
     | X                |   | O                |
    v|                  |BAR|                  |
     | O                |   | X                |
     | O                |   | X                |
     | O           X    |   | X                |
     | O           X    |   | X              O |
     | O           X    |   | X              O |
     +12-11-10--9--8--7-------6--5--4--3--2--1-+     X: pips 167, off 0 (on roll)
    """
    mine, theirs = position.mine, position.theirs
    # per point of the mover's numbering: (count, mark)
    cells: dict[int, tuple[int, str]] = {}
    for p in range(1, 25):
        if mine[p - 1]:
            cells[p] = (mine[p - 1], "X")
        elif theirs[24 - p]:
            cells[p] = (theirs[24 - p], "O")
        else:
            cells[p] = (0, " ")

    def half(points: list[int], row: int) -> str:
        return " ".join(f" {_column(*cells[p], row)}" for p in points)[1:]

    top_l, top_r = list(range(13, 19)), list(range(19, 25))
    bot_l, bot_r = list(range(12, 6, -1)), list(range(6, 0, -1))
    pips = position.pips()
    off = position.off()
    bar_x, bar_o = position.bar()
    top = t("diagram.side", lang, side="O", pips=pips[1], off=off[1])
    lines = [f" +13-14-15-16-17-18------19-20-21-22-23-24-+     {top}"]
    for row in range(_ROWS):
        bar = f" {_column(bar_o, 'O', row)} " if bar_o else "   "
        lines.append(f" | {half(top_l, row)} |{bar}| {half(top_r, row)} |")
    lines.append("v|                  |BAR|                  |")
    for row in reversed(range(_ROWS)):
        bar = f" {_column(bar_x, 'X', row)} " if bar_x else "   "
        lines.append(f" | {half(bot_l, row)} |{bar}| {half(bot_r, row)} |")
    bottom = t("diagram.side", lang, side="X", pips=pips[0], off=off[0])
    lines.append(f" +12-11-10--9--8--7-------6--5--4--3--2--1-+     {bottom} {t('diagram.on_roll', lang)}")
    return "\n".join(lines)
