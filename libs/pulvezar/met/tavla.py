"""The Tavla match equity table: cubeless matches where a game is worth 1 or 2 points.

Method (also in ``METHOD.md``).  Tavla matches have no doubling cube, so a game
is worth 1 point, or 2 for a *mars* (the loser has borne off no checker; there
is no 3-point backgammon).  Both players are taken as equally strong and the
mars rate ``g`` as the same for both, independent of the score (cubeless, no
one plays for or against a mars at a score).  Each game is then won single
with probability ``(1 - g) / 2`` and with a mars with probability ``g / 2`` by
each side, and the match-winning chance of the side ``a`` away against ``b``
away is::

    M(a, b) = (1-g)/2 * M(a-1, b) + g/2 * M(a-2, b)
            + (1-g)/2 * M(a, b-1) + g/2 * M(a, b-2)
    M(a, b) = 1 if a <= 0 < b,   0 if b <= 0 < a

filled in increasing ``a + b``.  ``M(a, b) + M(b, a) = 1`` and ``M(a, a) = 1/2``
follow from the symmetry.  There is no Crawford rule without a cube.

The default rate, ``DEFAULT_GAMMON_RATE = 0.275``, is an engine estimate:
GNU Backgammon's neural net (the ``gnubg-nn`` package, 2-ply, cubeless)
gives the side on roll at the starting position (``4HPwATDgc/ABMA``) a
gammon-or-backgammon win of 0.1495 and loss of 0.1254 (0-ply: 0.1542 /
0.1297), i.e. 27.5 % of games end with a gammon or worse (28.4 % at 0-ply).
Checker play in Tavla is backgammon's (no cube), and a backgammon counts as
a mars, so the rate carries over; Tavla's optional
rules (hit-and-stop, must-bear-off) are assumed not to move it much.  Pass
another ``gammon_rate`` to :meth:`pulvezar.met.MatchEquity.tavla` to change it.

>>> t = tavla_table(3, 0.0)
>>> [round(x, 4) for x in t[0]]   # no mars: binomial race to the points
[0.5, 0.75, 0.875]
"""

from __future__ import annotations

from pulvezar.errors import PulvezarError

DEFAULT_GAMMON_RATE = 0.275


def tavla_table(length: int, gammon_rate: float = DEFAULT_GAMMON_RATE) -> list[list[float]]:
    """``table[i][j]`` = MWC of the side ``i + 1`` away against ``j + 1`` away.

    >>> t = tavla_table(2, 1.0)       # every game a mars: one game decides
    >>> t
    [[0.5, 0.5], [0.5, 0.5]]
    """
    if not 1 <= length <= 64:
        raise PulvezarError(f"Tavla tables cover 1..64 points, got {length}", field="length")
    if not 0.0 <= gammon_rate <= 1.0:
        raise PulvezarError(f"the mars rate is a probability, got {gammon_rate}", field="gammon_rate")
    single = (1.0 - gammon_rate) / 2.0
    mars = gammon_rate / 2.0
    m = [[0.0] * (length + 1) for _ in range(length + 1)]  # m[a][b], a, b >= 1

    def get(a: int, b: int) -> float:
        if a <= 0:
            return 1.0
        if b <= 0:
            return 0.0
        return m[a][b]

    for total in range(2, 2 * length + 1):
        for a in range(max(1, total - length), min(length, total - 1) + 1):
            b = total - a
            m[a][b] = single * (get(a - 1, b) + get(a, b - 1)) + mars * (get(a - 2, b) + get(a, b - 2))
    return [[m[a][b] for b in range(1, length + 1)] for a in range(1, length + 1)]
