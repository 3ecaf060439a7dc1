"""Match equity: the match-winning chance at every score, take points and gammon prices.

Scores are given as points *away* (points still needed): ``away_me`` for the
player whose view the answer takes, ``away_opp`` for the opponent.  A side at
``away <= 0`` has won, so ``mwc(0, 3) == 1`` and ``mwc(3, 0) == 0``.

>>> met = MatchEquity.kazaross_xg2()
>>> met.mwc(2, 4)
0.6687
>>> round(met.take_point(4, 2), 4)  # 4-away takes a 2-away's initial double
0.3713
>>> money_take_point(), money_gammon_price()
(0.25, 0.5)

Simplifications, stated once for every method here:

* **Take points are dead-cube and gammonless.** After taking, the taker's
  recube is ignored and every game ends single: ``TP = (D - L) / (W - L)``
  with ``D`` the taker's MWC after dropping, ``W``/``L`` after winning/losing
  the doubled cube.  The real take point is lower by the value of the recube.
* **Gammon price** at a cube value ``c`` in play, seen from one side:
  ``(MWC(win gammon) - MWC(win single)) / (MWC(win single) - MWC(lose single))``,
  i.e. what an extra gammon is worth in units of the single-game swing.  The
  opponent's price uses the same swing: ``(MWC(lose single) - MWC(lose
  gammon)) / swing`` from our side.  Money play gives ``0.5`` to both.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources

from pulvezar.errors import PulvezarError

MONEY_TAKE_POINT = 0.25
MONEY_GAMMON_PRICE = 0.5


def money_take_point() -> float:
    """Gammonless, dead-cube take point in money play: risk 1 to win 3, ``1/4``.

    >>> money_take_point()
    0.25
    """
    return MONEY_TAKE_POINT


def money_gammon_price() -> float:
    """Gammon price in money play: a gammon adds 1 point to a swing of 2, ``1/2``.

    >>> money_gammon_price()
    0.5
    """
    return MONEY_GAMMON_PRICE


@dataclass(frozen=True, slots=True)
class GammonPrice:
    """Gammon prices at one score and cube value; ``me`` is the side asked about."""

    me: float  # value of my gammon win, in units of the single-game swing
    opp: float  # value of the opponent's gammon win, same units


@dataclass(frozen=True, slots=True)
class ScoreSummary:
    """What the app's "Match-Equity" card shows for one score ("Dieser Spielstand")."""

    length: int  # 0 = money
    away_me: int
    away_opp: int
    cube_value: int
    crawford: bool
    post_crawford: bool
    mwc: float | None  # match-winning chance at the start of a game; None for money
    take_point: float | None  # my gammonless take point of a double to 2 * cube_value
    gammon_price: GammonPrice | None  # gammon prices with the cube at 2 * cube_value (1 when no cube)
    notes: tuple[str, ...]


class MatchEquity:
    """A match equity table with its derived quantities.

    ``pre[i][j]`` is the MWC of the side needing ``i + 1`` points against
    ``j + 1`` (where exactly one side is 1-away this is the Crawford game);
    ``post[n]`` is the post-Crawford MWC of the trailer needing ``n + 1``.
    ``has_cube`` is False for cubeless tables (Tavla): no take points then.
    """

    def __init__(
        self,
        name: str,
        pre: Sequence[Sequence[float]],
        post: Sequence[float],
        *,
        has_cube: bool = True,
        description: str = "",
    ) -> None:
        n = len(pre)
        if n < 1 or any(len(r) != n for r in pre) or len(post) != n:
            raise PulvezarError(f"a table of {n} rows needs {n} columns and {n} post-Crawford values")
        self.name = name
        self.description = description
        self.has_cube = has_cube
        self._pre = tuple(tuple(float(x) for x in r) for r in pre)
        self._post = tuple(float(x) for x in post)

    def __repr__(self) -> str:
        return f"MatchEquity({self.name!r}, length={self.length})"

    @property
    def length(self) -> int:
        """The longest match the table covers (points away on each side)."""
        return len(self._pre)

    @classmethod
    def kazaross_xg2(cls) -> MatchEquity:
        """Neil Kazaross's Kazaross-XG2 table (25 points); provenance in ``data/SOURCES.md``.

        >>> met = MatchEquity.kazaross_xg2()
        >>> met.length, met.mwc(1, 2), met.mwc(2, 1, post_crawford=True)
        (25, 0.67736, 0.48803)
        """
        return _kazaross_xg2()

    @classmethod
    def tavla(cls, gammon_rate: float | None = None, length: int = 25) -> MatchEquity:
        """Cubeless Tavla table (mars = 2 points), computed; see :mod:`pulvezar.met.tavla`.

        >>> t = MatchEquity.tavla()
        >>> t.mwc(1, 1), t.has_cube, round(t.mwc(2, 1), 4)
        (0.5, False, 0.3187)
        """
        from pulvezar.met.tavla import DEFAULT_GAMMON_RATE, tavla_table

        rate = DEFAULT_GAMMON_RATE if gammon_rate is None else gammon_rate
        pre = tavla_table(length, rate)
        return cls(
            f"Tavla cubeless, mars rate {rate:g}",
            pre,
            [1.0 - pre[0][n] for n in range(length)],
            has_cube=False,
            description=f"computed by pulvezar: equal players, each game a mars with probability {rate:g}",
        )

    # -- match-winning chance --------------------------------------------------

    def mwc(
        self, away_me: int, away_opp: int, *, crawford: bool = False, post_crawford: bool = False
    ) -> float:
        """Probability that the side ``away_me`` points away wins the match.

        ``post_crawford`` selects the post-Crawford value where one side is
        1-away; otherwise such a score is the Crawford game (``crawford`` may
        say so explicitly; it changes nothing in the lookup).  Cubeless tables
        ignore both flags.

        >>> met = MatchEquity.kazaross_xg2()
        >>> met.mwc(0, 5), met.mwc(5, 0), met.mwc(1, 1)
        (1.0, 0.0, 0.5)
        >>> met.mwc(3, 1), met.mwc(3, 1, post_crawford=True)
        (0.24924, 0.32264)
        """
        if crawford and post_crawford:
            raise PulvezarError("a game cannot be both the Crawford game and post-Crawford", field="crawford")
        if away_me <= 0:
            return 1.0 if away_opp > 0 else _both_won(away_me, away_opp)
        if away_opp <= 0:
            return 0.0
        n = self.length
        if away_me > n or away_opp > n:
            raise PulvezarError(
                f"{self.name} covers scores up to {n} away, got {away_me}-{away_opp}", field="away"
            )
        if crawford and away_me != 1 and away_opp != 1:
            raise PulvezarError("the Crawford game needs one side 1-away", field="crawford")
        if post_crawford and self.has_cube:
            if away_me == 1:
                return 1.0 - self._post[away_opp - 1]
            if away_opp == 1:
                return self._post[away_me - 1]
            raise PulvezarError("post-Crawford needs one side 1-away", field="post_crawford")
        return self._pre[away_me - 1][away_opp - 1]

    def after(self, away_me: int, away_opp: int, *, crawford_or_later: bool) -> float:
        """MWC at a score reached *after* a game: a 1-away score reached from the
        Crawford game or a post-Crawford game is post-Crawford, else the Crawford game."""
        if away_me <= 0 or away_opp <= 0:
            return self.mwc(away_me, away_opp)
        one_away = away_me == 1 or away_opp == 1
        return self.mwc(away_me, away_opp, post_crawford=crawford_or_later and one_away)

    # -- cube quantities -------------------------------------------------------

    def take_point(
        self,
        away_me: int,
        away_opp: int,
        cube_value: int = 1,
        *,
        crawford: bool = False,
        post_crawford: bool = False,
    ) -> float | None:
        """My minimum winning chance to take the opponent's double from ``cube_value``
        to ``2 * cube_value`` (dead cube, no gammons); None where no double is possible.

        >>> met = MatchEquity.kazaross_xg2()
        >>> round(met.take_point(5, 5), 4), round(met.take_point(2, 4, 2), 4)
        (0.2387, 0.5)
        >>> met.take_point(3, 1)   # the Crawford game: no cube
        """
        self._check_cube(cube_value)
        if not self.has_cube or self._is_crawford(away_me, away_opp, crawford, post_crawford):
            return None
        later = crawford or post_crawford or away_me == 1 or away_opp == 1
        v = cube_value
        drop = self.after(away_me, away_opp - v, crawford_or_later=later)
        win = self.after(away_me - 2 * v, away_opp, crawford_or_later=later)
        lose = self.after(away_me, away_opp - 2 * v, crawford_or_later=later)
        if win == lose:
            return None
        return max(0.0, (drop - lose) / (win - lose))

    def gammon_price(
        self,
        away_me: int,
        away_opp: int,
        cube_value: int = 1,
        *,
        crawford: bool = False,
        post_crawford: bool = False,
    ) -> GammonPrice:
        """Gammon prices for both sides with ``cube_value`` in play (see the module notes).

        >>> met = MatchEquity.kazaross_xg2()
        >>> gp = met.gammon_price(5, 3, 2)     # 5-away vs 3-away, cube at 2
        >>> round(gp.me, 3), round(gp.opp, 3)
        (0.734, 0.463)
        >>> met.gammon_price(4, 2, 2)          # a single win on 2 leaves me 2-away, a gammon wins
        GammonPrice(me=1.0, opp=0.0)
        """
        self._check_cube(cube_value)
        if self.has_cube:
            self._is_crawford(away_me, away_opp, crawford, post_crawford)  # validates the flags
        later = crawford or post_crawford or away_me == 1 or away_opp == 1
        c = cube_value
        w1 = self.after(away_me - c, away_opp, crawford_or_later=later)
        w2 = self.after(away_me - 2 * c, away_opp, crawford_or_later=later)
        l1 = self.after(away_me, away_opp - c, crawford_or_later=later)
        l2 = self.after(away_me, away_opp - 2 * c, crawford_or_later=later)
        swing = w1 - l1
        if swing <= 0.0:
            return GammonPrice(0.0, 0.0)
        return GammonPrice((w2 - w1) / swing, (l1 - l2) / swing)

    def summary(
        self,
        length: int,
        score_me: int,
        score_opp: int,
        cube_value: int = 1,
        *,
        crawford: bool | None = None,
    ) -> ScoreSummary:
        """The card's "this score" block: MWC, take point and gammon price, with notes.

        ``crawford=None`` infers the state: a 1-away score is the Crawford game
        unless ``crawford=False`` says it was played already (post-Crawford).
        ``length=0`` answers for money play.

        >>> s = MatchEquity.kazaross_xg2().summary(7, 5, 3)
        >>> s.mwc, round(s.take_point, 3), s.notes
        (0.6687, 0.199, ())
        """
        self._check_cube(cube_value)
        if length == 0:
            return ScoreSummary(
                0, 0, 0, cube_value, False, False, None, MONEY_TAKE_POINT,
                GammonPrice(MONEY_GAMMON_PRICE, MONEY_GAMMON_PRICE),
                ("money play: take point 25 %, gammon price 0.5 for both sides",),
            )  # fmt: skip
        if length < 0 or not (0 <= score_me < length and 0 <= score_opp < length):
            raise PulvezarError(
                f"scores must lie in 0..{length - 1}, got {score_me}-{score_opp}", field="score"
            )
        a, b = length - score_me, length - score_opp
        one_away = (a == 1) != (b == 1) and self.has_cube
        is_crawford = one_away and crawford is not False
        is_post = one_away and crawford is False
        notes: list[str] = []
        if a == 1 and b == 1:
            notes.append("double match point: the cube is dead, the match is decided by this game")
        if not self.has_cube:
            notes.append("cubeless: no doubling; the gammon price is that of a mars (2 points)")
        elif is_crawford:
            notes.append("Crawford game: no doubling in this game")
        elif is_post:
            if b == 1:
                notes.append("post-Crawford: double at once; the leader may have a free drop")
            else:
                notes.append("post-Crawford: expect the trailer's immediate double")
        tp = self.take_point(a, b, cube_value, crawford=is_crawford, post_crawford=is_post)
        gp_cube = 2 * cube_value if tp is not None else cube_value
        gp = self.gammon_price(a, b, gp_cube, crawford=is_crawford, post_crawford=is_post)
        if tp is not None and a <= cube_value:
            notes.append("a double gives me enough points to win the match: my gammons count nothing")
        return ScoreSummary(
            length, a, b, cube_value, is_crawford, is_post,
            self.mwc(a, b, crawford=is_crawford, post_crawford=is_post),
            tp, gp, tuple(notes),
        )  # fmt: skip

    # -- helpers ---------------------------------------------------------------

    def _is_crawford(self, a: int, b: int, crawford: bool, post_crawford: bool) -> bool:
        if crawford and post_crawford:
            raise PulvezarError("a game cannot be both the Crawford game and post-Crawford", field="crawford")
        one_away = (a == 1) != (b == 1)
        if crawford and not one_away:
            raise PulvezarError("the Crawford game needs exactly one side 1-away", field="crawford")
        if post_crawford and not (a == 1 or b == 1):
            raise PulvezarError("post-Crawford needs one side 1-away", field="post_crawford")
        return one_away and not post_crawford

    @staticmethod
    def _check_cube(cube_value: int) -> None:
        if cube_value < 1 or cube_value & (cube_value - 1):
            raise PulvezarError(f"the cube value is a power of two, got {cube_value}", field="cube")


def _both_won(away_me: int, away_opp: int) -> float:
    raise PulvezarError(f"both sides cannot have won: {away_me}-{away_opp} away", field="away")


@cache
def _kazaross_xg2() -> MatchEquity:
    text = resources.files("pulvezar.met").joinpath("data/kazaross_xg2.json").read_text(encoding="utf-8")
    data = json.loads(text)
    return MatchEquity(
        "Kazaross-XG2",
        data["pre_crawford"],
        data["post_crawford"],
        description="Neil Kazaross, XG2 rollouts to 9 away, Rockwell-Kazaross beyond, extrapolated to 25",
    )
