"""The one-sided bear-off database: determinism, brute-force checks and the gnubg oracle."""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Callable
from fractions import Fraction
from functools import cache
from pathlib import Path

import numpy as np
import pytest

from pulvezar.eval import _bearoff
from pulvezar.eval.bearoff import DEFAULT_PATH, OneSidedBearoff

ROLLS = [(d1, d2, Fraction(1 if d1 == d2 else 2, 36)) for d1 in range(1, 7) for d2 in range(1, d1 + 1)]


@pytest.fixture(scope="module")
def db() -> OneSidedBearoff:
    return OneSidedBearoff.build()


def test_build_is_deterministic(db: OneSidedBearoff) -> None:
    assert db.positions == 54264 and db.slots <= 32
    assert OneSidedBearoff.build().payload == db.payload
    assert len(db.payload) < 5_000_000


def test_recorded_checksums_match_a_fresh_build(db: OneSidedBearoff) -> None:
    """The JSON beside the (uncommitted, built on demand) file pins the database's checksums."""
    record = json.loads(DEFAULT_PATH.with_suffix(".json").read_text())
    assert hashlib.sha256(db.to_bytes()).hexdigest() == record["sha256"]
    assert db.sha256 == record["payload_sha256"]
    if DEFAULT_PATH.exists():  # written by `make bearoff`
        assert DEFAULT_PATH.read_bytes() == db.to_bytes()
    assert OneSidedBearoff.default().sha256 == db.sha256


def test_save_load_and_checksum(db: OneSidedBearoff, tmp_path: Path) -> None:
    path = tmp_path / "bo.bin"
    db.save(path)
    assert OneSidedBearoff.load(path).payload == db.payload
    data = bytearray(path.read_bytes())
    data[-1] ^= 1
    with pytest.raises(ValueError, match="checksum"):
        OneSidedBearoff.from_bytes(bytes(data))


def test_index_is_a_bijection(db: OneSidedBearoff) -> None:
    small = OneSidedBearoff.build(4, 6)
    for i in range(small.positions):
        c = small.checkers(i)
        assert small.index(c) == i == _bearoff.position_index(c)
    big = db
    rng = random.Random(7)
    for i in rng.sample(range(big.positions), 500):
        assert big.index(big.checkers(i)) == i == _bearoff.position_index(big.checkers(i))
    assert big.index([0] * 6) == 0 and big.checkers(big.positions - 1) == (0, 0, 0, 0, 0, 15)


def test_small_table_is_a_prefix(db: OneSidedBearoff) -> None:
    small = OneSidedBearoff.build(5, 6)
    for i in range(small.positions):
        assert np.array_equal(small.off_distribution(i), db.off_distribution(i)[: small.slots])
        assert np.array_equal(small.first_off_distribution(i), db.first_off_distribution(i)[: small.slots])


def test_hand_checked_positions(db: OneSidedBearoff) -> None:
    assert db.off_distribution(())[0] == 1.0 and db.mean_rolls(()) == 0.0
    assert db.mean_rolls((1,)) == 1.0
    six = db.off_distribution((0, 0, 0, 0, 0, 1))
    assert six[1] == pytest.approx(27 / 36) and six[2] == pytest.approx(9 / 36)
    two = db.off_distribution((0, 0, 0, 0, 0, 2))  # 33, 44, 55, 66 bear both off at once
    assert two[1] == pytest.approx(4 / 36)
    # a first checker off the 6 point, the other still there: a 6 (11), 51, 42, 22, 33, 44, 55
    assert db.first_off_distribution((0, 0, 0, 0, 0, 2))[1] == pytest.approx(19 / 36)


def test_distributions_sum_to_one(db: OneSidedBearoff) -> None:
    q = db._q.astype(np.float64) / 2**31
    sums = np.bincount(np.repeat(np.arange(2 * db.positions), db._len.ravel()), weights=q)
    assert np.abs(sums - 1).max() < 1e-8


def test_adding_a_checker_never_reduces_mean_rolls(db: OneSidedBearoff) -> None:
    means = db.mean_rolls_all()
    for i in range(db.positions):
        c = db.checkers(i)
        if sum(c) == db.max_checkers:
            continue
        for p in range(6):
            more = list(c)
            more[p] += 1
            assert means[db.index(more)] >= means[i] - 1e-12


# --- an independent brute force: exact fractions, hand-written bear-off moves -----------


def _plays(pos: tuple[int, ...], dice: tuple[int, ...]) -> set[tuple[int, ...]]:
    """Positions after playing all dice in this order (or until no checker is left)."""
    if not dice or not any(pos):
        return {pos}
    d, out = dice[0], set()
    top = max(p for p in range(6) if pos[p])  # 0-based point of the highest checker
    for p in range(6):
        if not pos[p]:
            continue
        if p - d >= 0:
            nxt = list(pos)
            nxt[p] -= 1
            nxt[p - d] += 1
        elif p - d == -1 or p == top:
            nxt = list(pos)
            nxt[p] -= 1
        else:
            continue
        out |= _plays(tuple(nxt), dice[1:])
    return out


def _successors(pos: tuple[int, ...], d1: int, d2: int) -> set[tuple[int, ...]]:
    if d1 == d2:
        return _plays(pos, (d1,) * 4)
    return _plays(pos, (d1, d2)) | _plays(pos, (d2, d1))


Exact = Callable[[tuple[int, ...]], tuple[Fraction, tuple[Fraction, ...]]]


def _brute(db: OneSidedBearoff) -> tuple[Exact, Exact]:
    @cache
    def off(pos: tuple[int, ...]) -> tuple[Fraction, tuple[Fraction, ...]]:
        if not any(pos):
            return Fraction(0), (Fraction(1),) + (Fraction(0),) * 39
        mean, dist = Fraction(1), [Fraction(0)] * 40
        for d1, d2, w in ROLLS:
            best = min(_successors(pos, d1, d2), key=lambda s: (off(s)[0], db.index(s)))
            mean += w * off(best)[0]
            for n, p in enumerate(off(best)[1][:-1]):
                dist[n + 1] += w * p
        return mean, tuple(dist)

    @cache
    def first(pos: tuple[int, ...]) -> tuple[Fraction, tuple[Fraction, ...]]:
        if not any(pos):
            return Fraction(0), (Fraction(1),) + (Fraction(0),) * 39
        mean, dist = Fraction(1), [Fraction(0)] * 40

        def cost(s: tuple[int, ...]) -> tuple[Fraction, int]:
            return (Fraction(0) if sum(s) < sum(pos) else first(s)[0], db.index(s))

        for d1, d2, w in ROLLS:
            best = min(_successors(pos, d1, d2), key=cost)
            if sum(best) < sum(pos):
                dist[1] += w
                continue
            mean += w * first(best)[0]
            for n, p in enumerate(first(best)[1][:-1]):
                dist[n + 1] += w * p
        return mean, tuple(dist)

    return off, first


def test_matches_brute_force_up_to_four_checkers(db: OneSidedBearoff) -> None:
    off, first = _brute(db)
    for i in range(OneSidedBearoff.build(4, 6).positions):
        pos = db.checkers(i)
        for exact, got in ((off(pos), db.off_distribution(i)), (first(pos), db.first_off_distribution(i))):
            want = np.array([float(p) for p in exact[1]])[: db.slots]
            assert np.abs(want - got).max() < 1e-9, pos


# --- the oracle: GNU Backgammon's own one-sided database (via gnubg_nn) -------------------


def _random_side(rng: random.Random, n: int) -> tuple[int, ...]:
    c = [0] * 6
    for _ in range(n):
        c[rng.randrange(6)] += 1
    return tuple(c)


@pytest.mark.oracle
def test_off_distributions_match_gnubg(db: OneSidedBearoff) -> None:
    """gnubg stores uint16 fixed point (1/65535 per slot) and picks plays by those rounded
    means, so near ties (mean gaps of ~1e-5) can resolve differently: a few positions then
    differ by up to ~3e-3 in single slots while their means agree to ~1e-5."""
    gnubg_nn = pytest.importorskip("gnubg_nn")
    rng = random.Random(2024)
    slot_diffs, mean_diffs = [], []
    for _ in range(400):
        pos = _random_side(rng, rng.randint(1, 15))
        theirs = np.array(gnubg_nn.bearoff_probabilities(pos))
        ours = db.off_distribution(pos)
        assert ours[0] == 0 and ours[len(theirs) + 1 :].sum() < 2e-4
        slot_diffs.append(np.abs(ours[1 : len(theirs) + 1] - theirs).max())
        mean_diffs.append(db.mean_rolls(pos) - float(theirs @ np.arange(1, len(theirs) + 1)))
    assert max(abs(d) for d in mean_diffs) < 3e-4
    assert np.mean(np.array(slot_diffs) < 1e-4) > 0.95


@pytest.mark.oracle
def test_race_probabilities_match_gnubg(db: OneSidedBearoff) -> None:
    """Beyond 6 checkers a side gnubg combines its one-sided tables as we do (smaller races
    use its exact two-sided database, which plays to win rather than to race)."""
    gnubg_nn = pytest.importorskip("gnubg_nn")
    rng = random.Random(99)
    worst = [0.0, 0.0, 0.0]
    for k in range(300):
        mover = _random_side(rng, 15 if k % 3 == 0 else rng.randint(7, 15))
        opponent = _random_side(rng, 15 if k % 3 == 1 else rng.randint(7, 15))
        theirs = gnubg_nn.probabilities([[*opponent, *[0] * 19], [*mover, *[0] * 19]], 0)
        ours = db.race_probabilities(mover, opponent)
        for j, t in enumerate((theirs[0], theirs[1], theirs[3])):
            worst[j] = max(worst[j], abs(ours[j] - t))
    assert max(worst) < 1e-4, worst
