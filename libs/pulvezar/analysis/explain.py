"""Why the better play is better: the largest board differences in its favour.

:func:`explain` compares the positions two plays of one roll leave and names at
most the two largest differences in the better play's favour, each a
:class:`Reason` with a code and the numbers of both plays, and renders them as
one sentence in English, German or Turkish (:meth:`Explanation.text`).

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

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import numpy as np

from pulvezar.analysis.shots import shots
from pulvezar.eval.evaluator import Evaluator, Probs
from pulvezar.rules.position import Position
from pulvezar.rules.rules import Play, Rules
from pulvezar.search.hint import searcher

Lang = Literal["en", "de", "tr"]
LANGUAGES: tuple[Lang, ...] = ("en", "de", "tr")

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
        """One sentence in ``"en"``, ``"de"`` or ``"tr"``."""
        if lang not in _TEMPLATES:
            raise ValueError(f"unknown language {lang!r}; languages: {', '.join(LANGUAGES)}")
        t = _TEMPLATES[lang]
        better, other = self.better or "—", self.other or "—"
        if not self.reasons:
            return t.none.format(better=better, other=other)
        parts = [t.phrases[r.code](r) for r in self.reasons]
        return t.sentence.format(better=better, other=other, reasons=t.conj.join(parts))


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
Phrase = Callable[[Reason], str]


@dataclass(frozen=True, slots=True)
class _Templates:
    sentence: str
    none: str
    conj: str
    phrases: dict[str, Phrase]


def _n(x: float) -> int:
    return round(x)


def _pct(x: float) -> int:
    return round(100 * x)


# English ---------------------------------------------------------------------------------------
def _en_hits(r: Reason) -> str:
    b, o = _n(r.better), _n(r.other)
    if o == 0:
        return "hits a blot" if b == 1 else f"hits {b} blots"
    return f"hits {b} blots instead of {o}"


def _en_shots(r: Reason) -> str:
    b, o = _n(r.better), _n(r.other)
    first = "no shots" if b == 0 else f"{b} shot" if b == 1 else f"{b} shots"
    return f"leaves {first} instead of {o} (out of 36)"


def _en_back(r: Reason) -> str:
    b, o = _n(r.better), _n(r.other)
    if b == 0:
        return "gets all its back checkers out"
    return f"leaves {b} back checker{'s' if b != 1 else ''} behind instead of {o}"


def _en_off(r: Reason) -> str:
    b, o = _n(r.better), _n(r.other)
    return f"bears off {b} checker{'s' if b != 1 else ''} instead of {o}"


EN = _Templates(
    sentence="{better} is better than {other}: it {reasons}.",
    none="{better} is better than {other}, but no single feature of the board stands out; "
    "the difference lies in the overall evaluation.",
    conj=" and ",
    phrases={
        "hits": _en_hits,
        "fewer_shots": _en_shots,
        "makes_point": lambda r: f"makes the {r.point}-point",
        "makes_anchor": lambda r: f"makes an anchor on the {r.point}-point",
        "home_points": lambda r: f"has {_n(r.better)} home-board points instead of {_n(r.other)}",
        "longer_prime": lambda r: f"builds a {_n(r.better)}-point prime instead of {_n(r.other)}",
        "escapes": _en_back,
        "contains": lambda r: (
            f"blocks {_n(r.better)} of the 6 points in front of the opponent's "
            f"rearmost checker instead of {_n(r.other)}"
        ),
        "bears_off": _en_off,
        "gammon_chances": lambda r: f"raises the gammon chances to {_pct(r.better)}% (from {_pct(r.other)}%)",
        "gammon_risk": lambda r: f"lowers the gammon risk to {_pct(r.better)}% (from {_pct(r.other)}%)",
    },
)


# German ------------------------------------------------------------------------------------------
def _de_hits(r: Reason) -> str:
    b, o = _n(r.better), _n(r.other)
    first = "einen Blot" if b == 1 else f"{b} Blots"
    return f"schlägt {first}" + (f" (statt {o})" if o else "")


def _de_shots(r: Reason) -> str:
    b, o = _n(r.better), _n(r.other)
    first = "keinen Schuss" if b == 0 else "nur einen Schuss" if b == 1 else f"nur {b} Schüsse"
    return f"lässt dem Gegner {first} von 36 Würfen (statt {o})"


def _de_back(r: Reason) -> str:
    b, o = _n(r.better), _n(r.other)
    if b == 0:
        return "bringt alle hinteren Steine heraus"
    first = "nur noch einen hinteren Stein" if b == 1 else f"nur noch {b} hintere Steine"
    return f"hat {first} (statt {o})"


def _de_off(r: Reason) -> str:
    b, o = _n(r.better), _n(r.other)
    return f"trägt {'einen Stein' if b == 1 else f'{b} Steine'} ab (statt {o})"


DE = _Templates(
    sentence="{better} ist besser als {other}: Der Zug {reasons}.",
    none="{better} ist besser als {other}, aber kein einzelnes Merkmal des Bretts sticht heraus; "
    "der Unterschied liegt in der Gesamtbewertung.",
    conj=" und ",
    phrases={
        "hits": _de_hits,
        "fewer_shots": _de_shots,
        "makes_point": lambda r: f"baut den {r.point}er-Punkt",
        "makes_anchor": lambda r: f"baut einen Anker auf dem {r.point}er-Punkt",
        "home_points": lambda r: f"hat {_n(r.better)} Punkte im Heimfeld (statt {_n(r.other)})",
        "longer_prime": lambda r: (
            f"baut eine Blockade aus {_n(r.better)} Punkten in Folge (statt {_n(r.other)})"
        ),
        "escapes": _de_back,
        "contains": lambda r: (
            f"blockiert {_n(r.better)} der 6 Punkte vor dem hintersten gegnerischen "
            f"Stein (statt {_n(r.other)})"
        ),
        "bears_off": _de_off,
        "gammon_chances": lambda r: (
            f"erhöht die Gammon-Chancen auf {_pct(r.better)} % (statt {_pct(r.other)} %)"
        ),
        "gammon_risk": lambda r: f"senkt das Gammon-Risiko auf {_pct(r.better)} % (statt {_pct(r.other)} %)",
    },
)


# Turkish -----------------------------------------------------------------------------------------
_TR_LAST_WORD = {
    0: "sıfır",
    1: "bir",
    2: "iki",
    3: "üç",
    4: "dört",
    5: "beş",
    6: "altı",
    7: "yedi",
    8: "sekiz",
    9: "dokuz",
    10: "on",
    20: "yirmi",
    30: "otuz",
    40: "kırk",
    50: "elli",
    60: "altmış",
    70: "yetmiş",
    80: "seksen",
    90: "doksan",
    100: "yüz",
}
_BACK_VOWELS = "aıou"
_VOWELS = "aıoueiöü"
_VOICELESS = "fstkçşhp"


def _tr_word(n: int) -> str:
    """The last spoken word of ``n >= 0``, which the suffix harmonises with."""
    n = abs(n)
    if n == 0:
        return "sıfır"
    if n % 10:
        return _TR_LAST_WORD[n % 10]
    if n % 100:
        return _TR_LAST_WORD[n % 100]
    if n % 1000:
        return "yüz"
    return "bin" if n % 1_000_000 else "milyon"


def tr_suffix(n: int, case: Literal["dat", "abl"]) -> str:
    """``n`` with the Turkish dative (``'e``, ``'ye``...) or ablative (``'den``, ``'tan``...).

    >>> tr_suffix(17, "abl"), tr_suffix(3, "dat"), tr_suffix(6, "dat"), tr_suffix(40, "abl")
    ("17'den", "3'e", "6'ya", "40'tan")
    """
    word = _tr_word(n)
    vowel = next(c for c in reversed(word) if c in _VOWELS)
    a = "a" if vowel in _BACK_VOWELS else "e"
    last = word[-1]
    if case == "dat":
        return f"{n}'{'y' if last in _VOWELS else ''}{a}"
    return f"{n}'{'t' if last in _VOICELESS else 'd'}{a}n"


def _tr_hits(r: Reason) -> str:
    b, o = _n(r.better), _n(r.other)
    if o == 0:
        return "bir açık pul kırar" if b == 1 else f"{b} açık pul kırar"
    return f"{o} yerine {b} açık pul kırar"


def _tr_shots(r: Reason) -> str:
    b, o = _n(r.better), _n(r.other)
    if b == 0:
        return f"rakibe hiç vuruş zarı bırakmaz (diğer hamlede 36 zardan {o})"
    return f"rakibe 36 zardan {o} yerine yalnızca {b} vuruş zarı bırakır"


def _tr_back(r: Reason) -> str:
    b, o = _n(r.better), _n(r.other)
    if b == 0:
        return "geride kalan bütün pulları kurtarır"
    return f"geride {o} yerine yalnızca {b} pul bırakır"


TR = _Templates(
    sentence="{better} hamlesi {other} hamlesinden daha iyidir: {reasons}.",
    none="{better} hamlesi {other} hamlesinden daha iyidir, ancak tahtada öne çıkan tek bir fark yok; "
    "fark genel değerlendirmeden geliyor.",
    conj=" ve ",
    phrases={
        "hits": _tr_hits,
        "fewer_shots": _tr_shots,
        "makes_point": lambda r: f"{r.point} numaralı hanede kapı yapar",
        "makes_anchor": lambda r: f"rakibin evinde, {r.point} numaralı hanede kapı kurar",
        "home_points": lambda r: f"evinde {_n(r.other)} yerine {_n(r.better)} kapı tutar",
        "longer_prime": lambda r: f"{_n(r.other)} yerine {_n(r.better)} kapılık bir blok kurar",
        "escapes": _tr_back,
        "contains": lambda r: (
            f"rakibin en gerideki pulunun önündeki 6 haneden {_n(r.other)} yerine "
            f"{_n(r.better)} tanesini kapatır"
        ),
        "bears_off": lambda r: f"{_n(r.other)} yerine {_n(r.better)} pul toplar",
        "gammon_chances": lambda r: (
            f"mars şansını %{tr_suffix(_pct(r.other), 'abl')} %{tr_suffix(_pct(r.better), 'dat')} çıkarır"
        ),
        "gammon_risk": lambda r: (
            f"mars olma riskini %{tr_suffix(_pct(r.other), 'abl')} "
            f"%{tr_suffix(_pct(r.better), 'dat')} indirir"
        ),
    },
)

_TEMPLATES: dict[str, _Templates] = {"en": EN, "de": DE, "tr": TR}
