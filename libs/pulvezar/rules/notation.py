"""Play notation: canonical output, tolerant input.

Output joins the moves of one checker (``24/18 18/13`` -> ``24/13``), keeps
hits on the way (``24/18*/13``), counts repeats (``13/11(2)``), names the bar
and the tray (``bar/22``, ``6/off``) and lists moves from the highest point
down.  Input accepts any case, ``25`` for the bar, ``0`` for off, ``*`` or not,
moves in any order, commas or spaces.

>>> from pulvezar import Position, Rules
>>> plays = Rules.international().legal_plays(Position.start(), (6, 4))
>>> format_play(parse_play("24/18 18/14", Position.start(), (6, 4)))
'24/14'
>>> parse_play("13/7", Position.start(), (6, 4))
Traceback (most recent call last):
...
pulvezar.errors.IllegalPlayError: 13/7 is not a legal play of 64 here (it uses 1 of the 2 dice; a play must use all dice that can be used)
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from pulvezar.errors import AmbiguousPlayError, IllegalPlayError, InvalidPlayError

if TYPE_CHECKING:
    from pulvezar.rules.position import Position
    from pulvezar.rules.rules import LegalPlays, Move, Play, Rules

BAR_POINT = 25
OFF_POINT = 0


def _point_name(p: int) -> str:
    return "bar" if p == BAR_POINT else "off" if p == OFF_POINT else str(p)


def format_moves(moves: Iterable[Move]) -> str:
    """Canonical text of a sequence of single-die moves."""
    steps = sorted(moves, key=lambda m: (-m.src, -m.dst))
    used = [False] * len(steps)
    chains: list[tuple[tuple[int, bool], ...]] = []
    for i, m in enumerate(steps):
        if used[i]:
            continue
        used[i] = True
        chain: list[tuple[int, bool]] = [(m.src, False), (m.dst, m.hit)]
        while chain[-1][0] != OFF_POINT:
            end = chain[-1][0]
            nxt = next((j for j, s in enumerate(steps) if not used[j] and s.src == end), None)
            if nxt is None:
                break
            used[nxt] = True
            chain.append((steps[nxt].dst, steps[nxt].hit))
        # keep only the points a reader needs: start, hits on the way, end
        kept = [chain[0], *(c for c in chain[1:-1] if c[1]), chain[-1]]
        chains.append(tuple(kept))
    counts = Counter(chains)
    order = sorted(counts, key=lambda c: tuple(-p for p, _ in c))
    parts = []
    for c in order:
        text = "/".join(_point_name(p) + ("*" if hit else "") for p, hit in c)
        parts.append(text + (f"({counts[c]})" if counts[c] > 1 else ""))
    return " ".join(parts)


def format_play(play: Play) -> str:
    """Canonical text of a play (``""`` when nothing could move)."""
    return play.notation


_SEGMENT = re.compile(r"^((?:bar|b|\d{1,2})\*?)((?:/(?:off|o|\d{1,2})\*?)+)(?:\((\d)\))?$")


def parse_segments(text: str) -> list[list[int]]:
    """Split notation into checker paths (lists of points; 25 = bar, 0 = off).

    Raises :class:`InvalidPlayError` on text that is not notation.

    >>> parse_segments("bar/22* 13/11(2)")
    [[25, 22], [13, 11], [13, 11]]
    """
    if not isinstance(text, str):
        raise InvalidPlayError("a play is written as text", field="play")
    cleaned = text.strip().lower().replace(",", " ")
    if cleaned in ("", "-", "cannot move", "no move"):
        return []
    segments: list[list[int]] = []
    for token in cleaned.split():
        m = _SEGMENT.match(token)
        if not m:
            raise InvalidPlayError(f"cannot read {token!r} in {text!r} as a move", field="play")
        head, tail, rep = m.groups()
        names = [head.rstrip("*"), *(t.rstrip("*") for t in tail.strip("/").split("/"))]
        points = []
        for name in names:
            if name in ("bar", "b"):
                p = BAR_POINT
            elif name in ("off", "o"):
                p = OFF_POINT
            else:
                p = int(name)
                if p > 25:
                    raise InvalidPlayError(f"there is no point {p} (in {token!r})", field="play")
            points.append(p)
        for a, b in itertools.pairwise(points):
            if b >= a:
                raise InvalidPlayError(f"{token!r} moves backwards from {a} to {b}", field="play")
        if OFF_POINT in points[:-1] or BAR_POINT in points[1:]:
            raise InvalidPlayError(f"{token!r}: off ends a move and the bar starts one", field="play")
        n = int(rep) if rep else 1
        if not 1 <= n <= 4:
            raise InvalidPlayError(f"{token!r}: a move repeats 1 to 4 times", field="play")
        segments.extend([list(points) for _ in range(n)])
    if len(segments) > 4:
        raise InvalidPlayError(f"{text!r} moves more than four checkers", field="play")
    return segments


def _hops(board: bytearray, a: int, b: int, dice: list[int]) -> Iterable[tuple[bytearray, list[int]]]:
    """Every way to carry one checker from ``a`` to ``b`` with some of ``dice``."""
    dist = a - b
    for k in range(1, len(dice) + 1):
        for combo in set(itertools.permutations(dice, k)):
            total = sum(combo)
            if b == OFF_POINT:
                if not (total >= dist and total - combo[-1] < dist):
                    continue
            elif total != dist:
                continue
            nb = bytearray(board)
            pos = a
            ok = True
            for d in combo:
                if nb[pos - 1] == 0:
                    ok = False
                    break
                nb[pos - 1] -= 1
                nxt = max(pos - d, 0)
                if nxt > 0:
                    opp = 25 + 24 - nxt  # opponent's index of my point nxt
                    if nb[opp] >= 2:
                        ok = False
                        break
                    if nb[opp] == 1:
                        nb[opp] = 0
                        nb[49] += 1
                    nb[nxt - 1] += 1
                pos = nxt
            if ok:
                rest = list(dice)
                for d in combo:
                    rest.remove(d)
                yield nb, rest


def _results(board: bytearray, segments: Sequence[list[int]], dice: list[int]) -> set[bytes]:
    out: set[bytes] = set()

    def walk(b: bytearray, seg_i: int, hop_i: int, rest: list[int]) -> None:
        if seg_i == len(segments):
            out.add(bytes(b))
            return
        pts = segments[seg_i]
        if hop_i == len(pts) - 1:
            walk(b, seg_i + 1, 0, rest)
            return
        for nb, nrest in _hops(b, pts[hop_i], pts[hop_i + 1], rest):
            walk(nb, seg_i, hop_i + 1, nrest)

    walk(board, 0, 0, dice)
    return out


def match_play(text: str, plays: LegalPlays) -> Play:
    """The play among ``plays`` that ``text`` describes."""
    segments = parse_segments(text)
    d1, d2 = plays.dice
    dice = [d1] * 4 if d1 == d2 else [d1, d2]
    start = bytearray(plays.start.board)
    candidates: set[bytes] = set()
    for order in set(itertools.permutations(range(len(segments)))):
        candidates |= _results(start, [segments[i] for i in order], dice)
    boards = plays.boards()
    hits = [i for i, b in enumerate(boards) if b in candidates]
    if not hits:
        used = sum(len(s) - 1 for s in segments)
        most = max((len(p.moves) for p in plays), default=0)
        why = ""
        if candidates and used < most:
            why = f" (it uses {used} of the {most} dice; a play must use all dice that can be used)"
        raise IllegalPlayError(f"{text} is not a legal play of {d1}{d2} here{why}", field="play")
    if len(hits) > 1:
        options = ", ".join(plays[i].notation for i in hits)
        raise AmbiguousPlayError(f"{text!r} could mean {options}", field="play")
    return plays[hits[0]]


def parse_play(
    text: str, position: Position, dice: tuple[int, int], rules: Rules | None = None
) -> Play:
    """Parse notation into the legal play it names.

    Raises :class:`InvalidPlayError` (syntax), :class:`IllegalPlayError`
    (not legal here) or :class:`AmbiguousPlayError` (several plays match).
    """
    from pulvezar.rules.rules import Rules

    return match_play(text, (rules or Rules.international()).legal_plays(position, dice))
