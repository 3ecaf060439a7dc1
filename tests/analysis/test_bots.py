"""Bots: styles within the margin, levels weaker by design, seeds, the adaptive level."""

from __future__ import annotations

import numpy as np
import pytest

from pulvezar import Position, Rules
from pulvezar.analysis import shots
from pulvezar.analysis.bots import (
    LEVEL_ORDER,
    MARGINS,
    STYLES,
    Bot,
    elo_from_pr,
    level_for_rating,
)
from pulvezar.analysis.decisions import OPENING_ROLLS
from pulvezar.eval.evaluator import Boards, Probs
from pulvezar.rules.rules import Play
from pulvezar.search import hint

INTL = Rules.international()
START = Position.start()
# the opponent slotted its 5-point (the mover's 20); 4-1 can hit, stay safe or run
HIT_POS = Position.from_points({24: 2, 13: 5, 8: 3, 6: 5}, {24: 2, 13: 4, 8: 3, 6: 5, 5: 1})


class Flat:
    """A stub evaluator for which every play is equal: the style alone decides."""

    def evaluate_boards(self, boards: Boards) -> Probs:
        out = np.zeros((len(np.asarray(boards).reshape(-1, 50)), 5))
        out[:, 0] = 0.5
        return out


def _back_pips(play: Play) -> int:
    """Pips run in the opponent's half (points 13..24 and the bar counted from 12)."""

    def half(side: tuple[int, ...]) -> int:
        return sum((i - 11) * side[i] for i in range(12, 25))

    return half(play.start.mine) - half(play.position.mine)


@pytest.fixture(scope="module")
def sample() -> list[tuple[Position, tuple[int, int]]]:
    """24 contact positions with at least 4 plays, from hard-level self-play."""
    rng = np.random.default_rng(7)
    out: list[tuple[Position, tuple[int, int]]] = []
    pos, bot = START, Bot("hard")
    while len(out) < 24:
        dice = (int(rng.integers(1, 7)), int(rng.integers(1, 7)))
        if len(INTL.legal_plays(pos, dice)) > 3:
            out.append((pos, dice))
        pos = bot.choose(pos, dice).position.swap()
        if INTL.game_result(pos) or not pos.is_contact():
            pos = START
    return out


def test_styles_follow_their_inclination_when_plays_tie() -> None:
    ev = Flat()
    plays = list(INTL.legal_plays(HIT_POS, (4, 1)))
    chosen = {s: Bot("hard", s, evaluator=ev).choose(HIT_POS, (4, 1)) for s in STYLES}
    assert chosen["aggressive"].hits == 1
    fewest = min(shots(p.position).total for p in plays)
    assert shots(chosen["cautious"].position).total == fewest
    assert _back_pips(chosen["runner"]) == max(_back_pips(p) for p in plays)
    assert chosen["cautious"].position != chosen["aggressive"].position


def test_styles_differ_on_close_opening_plays() -> None:
    differ = dict.fromkeys(STYLES, 0)
    for roll in OPENING_ROLLS:
        by_style = {s: Bot("hard", s).choose(START, roll) for s in STYLES}
        base = by_style["balanced"]
        assert base.position == hint(START, roll, level="hard")[0].play.position
        window = {c.play.position: c for c in Bot("hard").candidates(START, roll)}
        for s, play in by_style.items():
            assert play.position in window  # never outside the margin
            differ[s] += play.position != base.position
        assert shots(by_style["cautious"].position).total <= shots(base.position).total
        assert _back_pips(by_style["runner"]) >= _back_pips(base)
    assert differ["balanced"] == 0
    assert differ["cautious"] >= 1 and differ["runner"] >= 1


def test_aggressive_hits_at_least_as_often(sample: list[tuple[Position, tuple[int, int]]]) -> None:
    for pos, dice in sample[:12]:
        assert Bot("hard", "aggressive").choose(pos, dice).hits >= Bot("hard").choose(pos, dice).hits


def test_levels_are_weaker_by_design(sample: list[tuple[Position, tuple[int, int]]]) -> None:
    """Average loss against the master ranking (the deepest search): easy loses clearly more."""
    losses: dict[str, list[float]] = {lv: [] for lv in ("easy", "master")}
    for pos, dice in sample:
        ref = {c.play.position: c.equity for c in hint(pos, dice, level="master")}
        best = max(ref.values())
        for lv in losses:
            losses[lv].append(best - ref[Bot(lv, seed=3).choose(pos, dice).position])
    easy, master = np.mean(losses["easy"]), np.mean(losses["master"])
    assert master == pytest.approx(0.0)
    assert easy > master + 0.005


def test_same_seed_same_play_other_seeds_vary(sample: list[tuple[Position, tuple[int, int]]]) -> None:
    a = [Bot("easy", seed=5).choose(p, d).position for p, d in sample]
    b = [Bot("easy", seed=5).choose(p, d).position for p, d in sample]
    c = [Bot("easy", seed=6).choose(p, d).position for p, d in sample]
    assert a == b
    assert a != c


def test_adaptive_level_is_monotone() -> None:
    last_level, last_margin = -1, 1.0
    for elo in range(800, 2601, 25):
        bot = Bot.for_rating(elo)
        idx = LEVEL_ORDER.index(bot.level)
        assert idx >= last_level and bot.window <= last_margin
        last_level, last_margin = idx, bot.window
    assert Bot.for_rating(1000).level == "easy" and Bot.for_rating(2200).level == "master"
    assert level_for_rating(1200)[1] == pytest.approx(0.10) and level_for_rating(2500)[1] == 0.01
    prs = [Bot.for_rating(pr, kind="pr") for pr in range(40, -1, -1)]  # weaker to stronger
    levels = [LEVEL_ORDER.index(b.level) for b in prs]
    assert levels == sorted(levels) and levels[0] == 0 and levels[-1] == 3
    assert elo_from_pr(4.0) == 2000.0
    assert Bot.for_rating(1700, style="runner", seed=2) == Bot("hard", "runner", 2, 0.05)


def test_defaults_and_errors() -> None:
    assert Bot().level == "hard" and Bot().window == MARGINS["hard"]
    assert MARGINS["easy"] > MARGINS["medium"] > MARGINS["hard"] == MARGINS["master"]
    with pytest.raises(ValueError, match="level"):
        Bot("grandmaster")
    with pytest.raises(ValueError, match="style"):
        Bot("easy", "reckless")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="margin"):
        Bot(margin=-0.1)
    with pytest.raises(ValueError, match="kind"):
        Bot.for_rating(10, kind="fibs")  # type: ignore[arg-type]
