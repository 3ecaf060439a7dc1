"""Play notation without a rule set: formatting plays and matching text against legal plays.

The piece of :mod:`pulvezar.rules.notation` that :class:`~pulvezar.rules.rules.Play`
and :class:`~pulvezar.rules.rules.LegalPlays` use (``Play.notation``,
``LegalPlays.find``); it only reads the moves and boards it is given, so it
needs nothing from the rule sets above it.  :mod:`pulvezar.rules.notation` is
the public module.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from pulvezar.errors import AmbiguousPlayError, IllegalPlayError, InvalidPlayError
from pulvezar.i18n import Message

if TYPE_CHECKING:  # types only: this module sits below pulvezar.rules.rules
    from pulvezar.rules.position import Position
    from pulvezar.rules.rules import LegalPlays, Move, Play

BAR_POINT = 25
OFF_POINT = 0


def _point_name(p: int) -> str:
    return "bar" if p == BAR_POINT else "off" if p == OFF_POINT else str(p)


def _chains(moves: Iterable[Move]) -> list[list[tuple[int, bool]]]:
    """Join single-die moves into checker paths: lists of (point, hit there)."""
    steps = sorted(moves, key=lambda m: (-m.src, -m.dst))
    used = [False] * len(steps)
    chains: list[list[tuple[int, bool]]] = []
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
        chains.append(chain)
    return chains


def _render(chains: Sequence[Sequence[tuple[int, bool]]], explicit: Sequence[bool]) -> str:
    """Text of the paths: start, hits on the way and end (every point when ``explicit``)."""
    kept: list[tuple[tuple[int, bool], ...]] = []
    for chain, full in zip(chains, explicit, strict=True):
        inner = chain[1:-1] if full else [c for c in chain[1:-1] if c[1]]
        kept.append((chain[0], *inner, chain[-1]))
    counts = Counter(kept)
    order = sorted(counts, key=lambda c: tuple(-p for p, _ in c))
    parts = []
    for c in order:
        text = "/".join(_point_name(p) + ("*" if hit else "") for p, hit in c)
        parts.append(text + (f"({counts[c]})" if counts[c] > 1 else ""))
    return " ".join(parts)


def format_moves(
    moves: Iterable[Move], start: Position | None = None, dice: tuple[int, int] | None = None
) -> str:
    """Canonical text of a sequence of single-die moves.

    Moves of one checker are joined (``24/18 18/13`` -> ``24/13``).  Given the
    ``start`` position and the ``dice``, a joined move whose dropped intermediate
    point would make the text ambiguous (``13/8`` with 32 when an opposing blot
    sits on 11 and 10 is open) keeps its intermediate points (``13/10/8``), so
    that :func:`parse_play` reads the text back as this very play.
    """
    moves = list(moves)
    chains = _chains(moves)
    explicit = [False] * len(chains)
    text = _render(chains, explicit)
    if start is None or dice is None:
        return text
    board = bytearray(start.board)
    die_list = _dice_list(dice)

    def unique(t: str) -> bool:
        return len(_candidates(board, parse_segments(t), die_list, len(moves))) <= 1

    if unique(text):
        return text
    joined = [i for i, c in enumerate(chains) if len(c) > 2]
    for i in joined:  # one chain spelled out is usually enough
        one = [j == i for j in range(len(chains))]
        if unique(t := _render(chains, one)):
            return t
    return _render(chains, [True] * len(chains))


def format_play(play: Play) -> str:
    """Canonical text of a play (``""`` when nothing could move).

    The text is never ambiguous: it keeps an intermediate point where dropping
    it would let the text describe another play of the same roll too.
    """
    return format_moves(play.moves, play.start, play.dice)


_POINT = r"(?:bar|b|off|o|\d{1,2})\*?"
_SEGMENT = re.compile(rf"^({_POINT})((?:/{_POINT})+)(?:\((\d)\))?$", re.ASCII)
_NO_MOVE = ("", "-", "--", "cannot move", "can't move", "no move", "no play", "pass")


def parse_segments(text: str) -> list[list[int]]:
    """Split notation into checker paths (lists of points; 25 = bar, 0 = off).

    Raises :class:`InvalidPlayError` on text that is not notation.

    >>> parse_segments("bar/22* 13/11(2)")
    [[25, 22], [13, 11], [13, 11]]
    """
    if not isinstance(text, str):
        raise InvalidPlayError("a play is written as text", field="play")
    if len(text) > 200:
        raise InvalidPlayError("a play is at most 200 characters long", field="play")
    cleaned = " ".join(text.strip().lower().replace(",", " ").split())
    if cleaned in _NO_MOVE:
        return []
    # tolerate "24 / 18", "13/11 (2)", "13/11( 2 )" and "24/18 */13"
    cleaned = re.sub(r"\s*/\s*", "/", cleaned)
    cleaned = re.sub(r"\s*\(\s*", "(", cleaned)
    cleaned = re.sub(r"\s+([*)])", r"\1", cleaned)
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
        if len(points) > 5:
            raise InvalidPlayError(f"{token!r}: a checker moves at most four times", field="play")
        n = int(rep) if rep else 1
        if not 1 <= n <= 4:
            raise InvalidPlayError(f"{token!r}: a move repeats 1 to 4 times", field="play")
        segments.extend([list(points) for _ in range(n)])
    if len(segments) > 4:
        raise InvalidPlayError(f"{text!r} moves more than four checkers", field="play")
    if sum(len(s) - 1 for s in segments) > 4:
        raise InvalidPlayError(f"{text!r} uses more than four dice", field="play")
    return segments


def _dice_list(dice: tuple[int, int]) -> list[int]:
    d1, d2 = dice
    return [d1] * 4 if d1 == d2 else [d1, d2]


def _hops(board: bytearray, a: int, b: int, dice: list[int]) -> Iterable[tuple[bytearray, list[int]]]:
    """Every way to carry one checker from ``a`` to ``b`` with some of ``dice``.

    Only the board is followed (checker there, landing points not blocked,
    blots hit); whether the rules allow the play is decided by matching the
    result against the legal plays.
    """
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
                    opp = 49 - nxt  # byte of the opponent's checkers on my point nxt
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


def _candidates(board: bytearray, segments: Sequence[list[int]], dice: list[int], ndice: int) -> set[bytes]:
    """Boards reachable by carrying the checkers along ``segments`` in some order.

    ``ndice`` >= 0 keeps only ways that use exactly that many dice (every legal
    play of a roll uses the same number of dice); -1 keeps all.
    """
    out: set[bytes] = set()

    def walk(b: bytearray, order: Sequence[list[int]], seg_i: int, hop_i: int, rest: list[int]) -> None:
        if seg_i == len(order):
            if ndice < 0 or len(dice) - len(rest) == ndice:
                out.add(bytes(b))
            return
        pts = order[seg_i]
        if hop_i == len(pts) - 1:
            walk(b, order, seg_i + 1, 0, rest)
            return
        for nb, nrest in _hops(b, pts[hop_i], pts[hop_i + 1], rest):
            walk(nb, order, seg_i, hop_i + 1, nrest)

    keyed = [tuple(s) for s in segments]
    for perm in set(itertools.permutations(keyed)):
        walk(board, [list(s) for s in perm], 0, 0, dice)
    return out


def match_play(text: str, plays: LegalPlays) -> Play:
    """The play among ``plays`` that ``text`` describes.

    Raises :class:`InvalidPlayError` (syntax), :class:`IllegalPlayError` (no
    legal play matches) or :class:`AmbiguousPlayError` (several do).
    """
    segments = parse_segments(text)
    d1, d2 = plays.dice
    candidates = _candidates(bytearray(plays.start.board), segments, _dice_list(plays.dice), -1)
    boards = plays.boards()
    hits = [i for i, b in enumerate(boards) if b in candidates]
    if not hits:
        used = sum(len(s) - 1 for s in segments)
        most = len(plays[0].moves) if len(plays) else 0
        said: dict[str, object] = {"play": repr(text), "roll": f"{d1}{d2}"}
        if candidates and used < most:
            said |= {"used": used, "n": most}
            raise IllegalPlayError(Message("play.illegal_unused", said), field="play")
        raise IllegalPlayError(Message("play.illegal", said), field="play")
    if len(hits) > 1:
        options = ", ".join(format_play(plays[i]) for i in hits)
        raise AmbiguousPlayError(
            Message("play.ambiguous", {"play": repr(text), "options": options}), field="play"
        )
    return plays[hits[0]]
