"""Golden playthroughs (one seeded random game per rule set) and per-state invariants.

The files ``data/playthrough_*.txt`` are written by ``data/make_playthrough.py``;
this test regenerates the text and compares it line by line.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from pulvezar import Play, Position, Rules

_spec = importlib.util.spec_from_file_location(
    "make_playthrough", Path(__file__).with_name("data") / "make_playthrough.py"
)
assert _spec is not None and _spec.loader is not None
make_playthrough = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = make_playthrough
_spec.loader.exec_module(make_playthrough)

RULE_SETS: dict[str, tuple[Rules, int]] = make_playthrough.RULE_SETS
HOME = range(1, 7)


@pytest.mark.parametrize("name", sorted(RULE_SETS))
def test_playthrough_matches_golden_file(name: str) -> None:
    rules, seed = RULE_SETS[name]
    expected = make_playthrough.path_for(name).read_text().splitlines()
    got = make_playthrough.render(rules, seed).splitlines()
    for i, (a, b) in enumerate(zip(got, expected, strict=False)):
        assert a == b, f"{name} line {i + 1} differs (regenerate with data/make_playthrough.py if intended)"
    assert len(got) == len(expected)


def _check_position(p: Position) -> None:
    mine, theirs = p.mine, p.theirs
    assert sum(mine) + p.off()[0] == 15 and sum(mine) <= 15
    assert sum(theirs) + p.off()[1] == 15 and sum(theirs) <= 15
    assert all(not (mine[i] and theirs[23 - i]) for i in range(24)), "both colours on one point"
    assert Position.from_position_id(p.position_id) == p
    assert Position.from_board(p.board) == p


def _check_play(start: Position, play: Play) -> None:
    after = play.position
    _check_position(after)
    borne_off = sum(m.dst == 0 for m in play.moves)
    assert sum(after.mine) == sum(start.mine) - borne_off
    assert sum(after.theirs) == sum(start.theirs), "the opponent's checkers stay on the board"
    assert after.theirs[24] - start.theirs[24] == play.hits
    assert after.off()[1] == start.off()[1]


def _check_hit_and_stop(play: Play) -> None:
    """A checker that hits on a home-board point moves no further this turn."""
    stopped: dict[int, int] = {}  # point -> checkers there that may still move
    for m in play.moves:
        if m.src in stopped:
            assert stopped[m.src] > 0, f"{play.notation}: a hitter moved on from {m.src}"
            stopped[m.src] -= 1
        if m.hit and m.dst in HOME:
            stopped.setdefault(m.dst, 0)
        elif m.dst in stopped:
            stopped[m.dst] += 1


@pytest.mark.parametrize("name", sorted(RULE_SETS))
def test_playthrough_invariants(name: str) -> None:
    """Checkers conserved, no shared points, maximal dice, IDs round-trip, every play checked."""
    rules, seed = RULE_SETS[name]
    plain = Rules.tavla()
    turns = 0
    restricted = 0  # states where Tavla's options removed plays
    for t in make_playthrough.simulate(rules, seed):
        turns += 1
        _check_position(t.position)
        assert rules.game_result(t.position) is None
        boards = t.plays.boards()
        assert len(set(boards)) == len(boards), "plays must be distinct"
        used = {len(pl.moves) for pl in t.plays}
        assert len(used) == 1, f"turn {t.number}: plays use different numbers of dice {used}"
        assert used.pop() <= (4 if t.dice[0] == t.dice[1] else 2)
        if t.plays[0].moves == ():
            assert len(t.plays) == 1 and t.plays[0].position == t.position
        for play in t.plays:
            _check_play(t.position, play)
            if rules.hit_and_stop:
                _check_hit_and_stop(play)
        if rules.variant == "tavla" and not (rules.hit_and_stop or rules.must_bear_off):
            # plain Tavla moves exactly like international backgammon
            assert boards == Rules.international().legal_plays(t.position, t.dice).boards()
        if rules.hit_and_stop or rules.must_bear_off:
            everything = set(plain.legal_plays(t.position, t.dice).boards())
            restricted += set(boards) != everything
    assert turns > 50
    if rules.hit_and_stop or rules.must_bear_off:
        assert restricted > 0, "the game never exercised the Tavla options"
