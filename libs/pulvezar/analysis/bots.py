"""Bots: a playing level, a style and an adaptive level from a rating.

A :class:`Bot` ranks the plays with :func:`~pulvezar.search.hint` at one of
search's :data:`~pulvezar.search.STRENGTHS` (easy and medium add seeded,
deterministic noise; hard is 1-ply, master 2-ply), then lets its **style**
choose among the plays within ``margin`` (equity) of the best-scored one:

===========  ==========================================================
style        prefers, within the margin (ties: the better-scored play)
===========  ==========================================================
balanced     the best-scored play (the margin is not used)
aggressive   more checkers hit, then more points made on 1..7 (attack)
cautious     fewer shots (hitting rolls out of 36, exact), then fewer blots
runner       fewer back checkers (on 19..24 or the bar), then more pips
             run in the opponent's half (points 13..25)
===========  ==========================================================

Default margins (:data:`MARGINS`): easy 0.08, medium 0.05, hard 0.03,
master 0.03.  Only plays valued at the deepest ply compete.  The same bot
(level, style, seed) always makes the same play in the same position.

**Adaptive level** (:meth:`Bot.for_rating`): an Elo-like rating (FIBS scale,
1500 = average club player) maps to a level by thresholds -- below 1400 easy,
below 1600 medium, below 1800 hard, else master -- and to a margin falling
linearly from 0.10 at 1200 to 0.01 at 2100 (clamped).  A PR (performance
rating, lower is stronger) is first converted with ``elo = 2100 - 25 * PR``
(PR 4 ~ 2000, PR 12 ~ 1800, PR 20 ~ 1600).  Both maps are monotone: a higher
rating never gives a weaker level or a larger margin.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from pulvezar.analysis.shots import shots
from pulvezar.eval.evaluator import Evaluator
from pulvezar.rules.position import Position
from pulvezar.rules.rules import Play, Rules
from pulvezar.search.hint import STRENGTHS, hint
from pulvezar.search.plies import Candidate

Style = Literal["balanced", "aggressive", "cautious", "runner"]
STYLES: tuple[Style, ...] = ("balanced", "aggressive", "cautious", "runner")
LEVEL_ORDER: tuple[str, ...] = ("easy", "medium", "hard", "master")
MARGINS: dict[str, float] = {"easy": 0.08, "medium": 0.05, "hard": 0.03, "master": 0.03}
"""Equity window, per level, in which a style may prefer its kind of play."""

ELO_LEVELS: tuple[tuple[float, str], ...] = ((1400.0, "easy"), (1600.0, "medium"), (1800.0, "hard"))
"""``(upper bound, level)``: an Elo below the bound plays that level; 1800 and up: master."""


def elo_from_pr(pr: float) -> float:
    """A rough Elo-like rating of a PR (error rate in millipoints per move, lower is better)."""
    return 2100.0 - 25.0 * pr


def level_for_rating(elo: float) -> tuple[str, float]:
    """``(level, margin)`` for an Elo-like rating (see the module)."""
    level = next((name for bound, name in ELO_LEVELS if elo < bound), "master")
    margin = min(0.10, max(0.01, 0.10 - (elo - 1200.0) * 0.0001))
    return level, round(margin, 4)


# ---- inclinations: larger keys are preferred ----------------------------------------------------
def _aggressive(play: Play, rules: Rules) -> tuple[float, ...]:
    mine = play.position.mine
    return (play.hits, sum(1 for p in range(7) if mine[p] >= 2))


def _cautious(play: Play, rules: Rules) -> tuple[float, ...]:
    pos = play.position
    blots = sum(1 for n in pos.mine[:24] if n == 1)
    n = shots(pos, rules).total if play.start.is_contact() else 0
    return (-n, -blots)


def _back(side: tuple[int, ...]) -> int:
    return sum(side[18:25])


def _half_pips(side: tuple[int, ...]) -> int:
    """Pips still to run in the opponent's half: points 13..24 and the bar count from 12."""
    return sum((i + 1 - 12) * side[i] for i in range(12, 25))


def _runner(play: Play, rules: Rules) -> tuple[float, ...]:
    before, after = play.start.mine, play.position.mine
    return (_back(before) - _back(after), _half_pips(before) - _half_pips(after))


_INCLINATIONS: dict[str, Callable[[Play, Rules], tuple[float, ...]]] = {
    "aggressive": _aggressive,
    "cautious": _cautious,
    "runner": _runner,
}


@dataclass(frozen=True, slots=True)
class Bot:
    """A computer player: ``Bot(level="hard", style="aggressive", seed=1).choose(position, dice)``.

    ``margin`` defaults to the level's :data:`MARGINS`; ``evaluator`` to the
    shipped net.
    """

    level: str = "hard"
    style: Style = "balanced"
    seed: int = 0
    margin: float | None = None
    evaluator: Evaluator | None = None
    prune: bool = True  # the hard and master levels' searches prune their replies (False: unpruned)

    def __post_init__(self) -> None:
        if self.level not in STRENGTHS:
            raise ValueError(f"unknown level {self.level!r}; levels: {', '.join(LEVEL_ORDER)}")
        if self.style not in STYLES:
            raise ValueError(f"unknown style {self.style!r}; styles: {', '.join(STYLES)}")
        if self.margin is not None and self.margin < 0:
            raise ValueError("margin must be >= 0")

    @property
    def window(self) -> float:
        """The margin in use."""
        return self.margin if self.margin is not None else MARGINS[self.level]

    @classmethod
    def for_rating(
        cls,
        rating: float,
        *,
        kind: Literal["elo", "pr"] = "elo",
        style: Style = "balanced",
        seed: int = 0,
        evaluator: Evaluator | None = None,
        prune: bool = True,
    ) -> Bot:
        """A bot matched to a player's rating (Elo-like, or PR with ``kind="pr"``).

        >>> Bot.for_rating(1500).level, Bot.for_rating(4.0, kind="pr").level
        ('medium', 'master')
        """
        if kind not in ("elo", "pr"):
            raise ValueError(f"unknown rating kind {kind!r}; kinds: elo, pr")
        elo = elo_from_pr(rating) if kind == "pr" else float(rating)
        level, margin = level_for_rating(elo)
        return cls(level, style, seed, margin, evaluator, prune)

    def candidates(
        self, position: Position, dice: tuple[int, int], rules: Rules | None = None
    ) -> list[Candidate]:
        """The candidates the style chooses among: deepest ply, within the margin of the best."""
        cands = hint(
            position, dice, level=self.level, rules=rules, evaluator=self.evaluator, seed=self.seed,
            prune=self.prune,
        )  # fmt: skip
        top = cands[0]
        return [c for c in cands if c.ply == top.ply and c.score >= top.score - self.window]

    def choose(self, position: Position, dice: tuple[int, int], rules: Rules | None = None) -> Play:
        """The bot's play of ``dice`` in ``position``."""
        rules = rules or Rules.international()
        window = self.candidates(position, dice, rules)
        if self.style == "balanced" or len(window) == 1:
            return window[0].play
        incline = _INCLINATIONS[self.style]
        # max() keeps the first of equal keys, and the window is ordered best-scored first
        return max(window, key=lambda c: incline(c.play, rules)).play
