"""Why the better play is better: the largest board differences in its favour.

:func:`explain` compares the positions two plays of one roll leave and names at
most the two largest differences in the better play's favour, each a
:class:`Reason` with a code and the numbers of both plays, and renders them as
one sentence in each language of the library's message catalogs (:meth:`Explanation.text`,
:mod:`pulvezar.i18n`).

Differences are ranked by a fixed weight per unit of difference, in cubeless
equity-like units (a rough value of one unit, not a measurement); the
gammon reasons use the evaluator's probabilities, whose difference *is* equity:

==================  ============================================  ======
code                numbers (better, other)                       weight
==================  ============================================  ======
``hits``            blots hit by the play                         0.12
``fewer_shots``     opponent's hitting rolls out of 36 (exact)    0.008
``makes_point``     holds the new point ``point`` (1 / 0)         0.08
``makes_anchor``    holds the new anchor ``point`` (19..24)       0.10
``home_points``     home-board points made                        0.06
``longer_prime``    longest run of made points (at least 3)       0.05
``escapes``         back checkers left (on 19..24 or the bar)     0.06
``contains``        points made among the 6 in front of the       0.03
                    opponent's rearmost checker
``bears_off``       checkers borne off by the play                0.08
``gammon_chances``  P(win gammon or backgammon)                   1.0
``gammon_risk``     P(lose gammon or backgammon)                  1.0
==================  ============================================  ======

A new home-board point counts once: as ``makes_point``, while ``home_points``
then weighs one point less.  Contact reasons (hits, shots, anchors, escapes,
containment) apply only while the start position has contact; gammon
differences under one percentage point are ignored.  Equal scores keep the
table's order.  The probabilities are the evaluator's at 0 plies.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pulvezar import i18n
from pulvezar.analysis.shots import shots
from pulvezar.eval.evaluator import Evaluator, Probs
from pulvezar.rules.position import Position
from pulvezar.rules.rules import Play, Rules
from pulvezar.search.hint import searcher

tr_suffix = i18n.tr_suffix

Lang = str
"""A language code of :data:`LANGUAGES`."""
LANGUAGES: tuple[Lang, ...] = i18n.LANGUAGES
"""The languages of the explanations: those of the library's catalogs (:mod:`pulvezar.i18n`)."""

WEIGHTS: dict[str, float] = {
    "hits": 0.12,
    "fewer_shots": 0.008,
    "makes_point": 0.08,
    "makes_anchor": 0.10,
    "home_points": 0.06,
    "longer_prime": 0.05,
    "escapes": 0.06,
    "contains": 0.03,
    "bears_off": 0.08,
    "gammon_chances": 1.0,
    "gammon_risk": 1.0,
}
"""Equity-like value of one unit of difference, per reason code (see the module)."""

MAX_REASONS = 2
GAMMON_MIN = 0.01


@dataclass(frozen=True, slots=True)
class Reason:
    """One difference in the better play's favour.

    ``better`` and ``other`` are the two plays' numbers (counts, or
    probabilities for the gammon codes); ``point`` names the point of
    ``makes_point``/``makes_anchor``; ``score`` is the ranking value.
    """

    code: str
    better: float
    other: float
    score: float
    point: int | None = None

    def as_dict(self) -> dict[str, float | int | str]:
        """``{"code": ..., "better": ..., "other": ...}`` (plus ``"point"`` when it has one)."""
        d: dict[str, float | int | str] = {"code": self.code, "better": self.better, "other": self.other}
        if self.point is not None:
            d["point"] = self.point
        return d


@dataclass(frozen=True, slots=True)
class Explanation:
    """The reasons (largest first) why ``better`` beats ``other``, in notation."""

    better: str
    other: str
    reasons: tuple[Reason, ...]

    @property
    def codes(self) -> list[str]:
        return [r.code for r in self.reasons]

    def as_dicts(self) -> list[dict[str, float | int | str]]:
        return [r.as_dict() for r in self.reasons]

    def text(self, lang: Lang = "en") -> str:
        """One sentence in ``lang``, from the catalogs' ``explain.*`` messages (:mod:`pulvezar.i18n`)."""
        if lang not in LANGUAGES:
            raise ValueError(f"unknown language {lang!r}; languages: {', '.join(LANGUAGES)}")
        better, other = self.better or "—", self.other or "—"
        if not self.reasons:
            return i18n.t("explain.none", lang, better=better, other=other)
        reasons = i18n.t("explain.conj", lang).join(_phrase(r, lang) for r in self.reasons)
        return i18n.t("explain.sentence", lang, better=better, other=other, reasons=reasons)


# ---- board features ------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class _Features:
    hits: int
    shots: int
    made: frozenset[int]
    home: int
    prime: int
    back: int
    contains: int
    off: int
    gammon: float
    gammon_risk: float


def _longest_run(mine: tuple[int, ...]) -> int:
    best = run = 0
    for p in range(24):
        run = run + 1 if mine[p] >= 2 else 0
        best = max(best, run)
    return best


def _containment(pos: Position) -> int:
    """Points made among the 6 in front of the opponent's rearmost checker."""
    theirs = pos.theirs
    rear = max((i for i in range(25) if theirs[i]), default=-1)
    if rear < 0:
        return 0
    start = 25 - (rear + 1)  # their point p is the mover's 25 - p (the bar: 0)
    return sum(1 for q in range(start + 1, min(start + 6, 24) + 1) if pos.mine[q - 1] >= 2)


def _features(start: Position, play: Play, probs: Probs, rules: Rules) -> _Features:
    after = play.position
    mine = after.mine
    return _Features(
        hits=play.hits,
        shots=shots(after, rules).total if start.is_contact() else 0,
        made=frozenset(p for p in range(1, 25) if mine[p - 1] >= 2),
        home=sum(1 for p in range(6) if mine[p] >= 2),
        prime=_longest_run(mine),
        back=sum(mine[18:25]),
        contains=_containment(after),
        off=after.off()[0] - start.off()[0],
        gammon=float(probs[1]),
        gammon_risk=float(probs[3]),
    )


def _point_value(p: int) -> int:
    """Preference among several new points: 5, 4, 7, 6, 3, 8, 9, ... (lower is better)."""
    order = (5, 4, 7, 6, 3, 8, 9, 10, 11, 2, 1)
    return order.index(p) if p in order else 20 + p


def _reasons(start: Position, b: _Features, o: _Features) -> list[Reason]:
    out: list[Reason] = []

    def add(code: str, better: float, other: float, units: float, point: int | None = None) -> None:
        if units > 0:
            out.append(Reason(code, better, other, round(units * WEIGHTS[code], 6), point))

    contact = start.is_contact()
    before = frozenset(p for p in range(1, 25) if start.mine[p - 1] >= 2)
    new = sorted((b.made - o.made) - before, key=_point_value)
    new_points = [p for p in new if p <= 18]
    new_anchors = sorted((p for p in new if p >= 19), key=lambda p: p)  # the most advanced first
    if contact:
        add("hits", b.hits, o.hits, b.hits - o.hits)
        add("fewer_shots", b.shots, o.shots, o.shots - b.shots)
    if new_points:
        add("makes_point", 1, 0, 1, new_points[0])
    if contact and new_anchors:
        add("makes_anchor", 1, 0, 1, new_anchors[0])
    home_credit = 1 if new_points and new_points[0] <= 6 else 0
    add("home_points", b.home, o.home, b.home - o.home - home_credit)
    if b.prime >= 3:
        add("longer_prime", b.prime, o.prime, b.prime - o.prime)
    if contact:
        add("escapes", b.back, o.back, o.back - b.back)
        add("contains", b.contains, o.contains, b.contains - o.contains)
    add("bears_off", b.off, o.off, b.off - o.off)
    if b.gammon - o.gammon >= GAMMON_MIN:
        add("gammon_chances", round(b.gammon, 4), round(o.gammon, 4), b.gammon - o.gammon)
    if o.gammon_risk - b.gammon_risk >= GAMMON_MIN:
        add("gammon_risk", round(b.gammon_risk, 4), round(o.gammon_risk, 4), o.gammon_risk - b.gammon_risk)
    order = list(WEIGHTS)
    out.sort(key=lambda r: (-r.score, order.index(r.code)))
    return out[:MAX_REASONS]


def explain(
    position: Position,
    dice: tuple[int, int],
    better_play: Play | str,
    other_play: Play | str,
    rules: Rules | None = None,
    evaluator: Evaluator | None = None,
) -> Explanation:
    """Name at most two differences that make ``better_play`` better than ``other_play``.

    Plays are :class:`Play` objects of ``position`` and ``dice`` or notation.

    >>> e = explain(Position.start(), (3, 1), "8/5 6/5", "24/21 24/23")
    >>> e.reasons[0].as_dict()
    {'code': 'fewer_shots', 'better': 0, 'other': 33}
    >>> e.text("en").startswith("8/5 6/5 is better than 24/23 24/21: it leaves no shots instead of 33")
    True
    """
    rules = rules or Rules.international()
    if isinstance(better_play, str) or isinstance(other_play, str):
        legal = rules.legal_plays(position, dice)
        better_play = legal.find(better_play) if isinstance(better_play, str) else better_play
        other_play = legal.find(other_play) if isinstance(other_play, str) else other_play
    better, other = better_play, other_play
    boards = np.frombuffer(better.position.board + other.position.board, dtype=np.uint8).reshape(2, 50)
    probs = searcher(evaluator, rules).play_probabilities(boards, 0)
    if rules.variant == "international":
        probs = probs.copy()
        probs[:, 1] += probs[:, 2]  # a backgammon is worth one more point again
        probs[:, 3] += probs[:, 4]
    fb = _features(position, better, probs[0], rules)
    fo = _features(position, other, probs[1], rules)
    return Explanation(better.notation, other.notation, tuple(_reasons(position, fb, fo)))


# ---- sentences -----------------------------------------------------------------------------
def _n(x: float) -> int:
    return round(x)


def _pct(x: float) -> int:
    return round(100 * x)


def _phrase(r: Reason, lang: str) -> str:
    """One reason in ``lang``: the catalog's ``explain.<code>`` with the numbers ``n`` (the better play's)
    and ``o`` (the other's), in percent for the gammon codes; ``hits`` against a play that hit too is
    ``explain.hits_instead``."""
    pct = r.code in ("gammon_chances", "gammon_risk")
    n, o = (_pct(r.better), _pct(r.other)) if pct else (_n(r.better), _n(r.other))
    key = "explain.hits_instead" if r.code == "hits" and o else f"explain.{r.code}"
    return i18n.t(key, lang, n=n, o=o, point=r.point)
