"""Ranking decision groups by two teachers' disagreement (issue 46), and Open Sage 2-ply on a few of them."""

from __future__ import annotations

import numpy as np
import pytest

from pulvezar.train.corpus import CLASSES
from pulvezar.train.disagree import disagreement, rank

CONTACT, RACE = CLASSES.index("contact"), CLASSES.index("race")


def _probs(mover_equity: list[float]) -> np.ndarray:
    """Probabilities of the player on roll after the play whose mover's equity is the given one
    (no gammons: equity = 2 win - 1 for the player on roll, the mover's is its negative)."""
    p = np.zeros((len(mover_equity), 5))
    p[:, 0] = (1 - np.asarray(mover_equity)) / 2
    return p


def test_disagreement_is_each_teachers_loss_in_the_others_choice() -> None:
    group = np.array([7, 7, 7, 3, 3, 9, 9])
    a = np.array([0.10, 0.30, 0.20, 0.5, 0.4, 0.0, 0.1])
    b = np.array([0.25, 0.20, 0.10, 0.6, 0.1, 0.3, 0.3])
    ok = np.ones(7, bool)
    ids, score, differ = disagreement(group, a, b, ok)
    assert ids.tolist() == [3, 7, 9]
    # group 3: both choose row 3 -> 0; group 7: A picks 0.30 (B: 0.20), B picks 0.25 (A: 0.10)
    # -> 0.20 + 0.05; group 9: B's tie goes to the first row, A picks the second -> 0.1 + 0
    assert score == pytest.approx([0.0, 0.25, 0.1])
    assert differ.tolist() == [False, True, True]


def test_groups_with_an_unlabelled_play_or_a_single_play_are_left_out() -> None:
    group = np.array([1, 1, 2, 2, 4])
    e = np.array([0.1, 0.2, 0.3, 0.4, 0.5])
    ok = np.array([True, True, True, False, True])
    ids, score, _ = disagreement(group, e, e[::-1].copy(), ok)
    assert ids.tolist() == [1]
    assert score[0] > 0


def test_rank_keeps_contact_groups_largest_disagreement_first() -> None:
    corpus = {
        "group": np.array([5, 5, 6, 6, 8, 8, 2, 2]),
        "cls": np.array([CONTACT, CONTACT, CONTACT, CONTACT, CONTACT, RACE, CONTACT, CONTACT], np.uint8),
    }
    a = _probs([0.0, 0.1, 0.0, 0.5, 0.0, 0.9, 0.2, 0.1])
    b = _probs([0.1, 0.0, 0.3, 0.0, 0.9, 0.0, 0.2, 0.1])
    ids, score, differ = rank(corpus, a, b, np.ones(8, bool))
    assert ids.tolist() == [6, 5, 2]  # 8 has a race play; 6: 0.5 + 0.3, 5: 0.1 + 0.1, 2: agreement
    assert score == pytest.approx([0.8, 0.2, 0.0], abs=1e-9)
    assert differ.tolist() == [True, True, False]


def test_open_sage_2ply_labels_a_few_group_positions() -> None:
    pytest.importorskip("bgsage")
    from pulvezar import Position
    from pulvezar.eval.evaluator import boards_of
    from pulvezar.rules.rules import Rules
    from pulvezar.train.labels import PRESETS, teach

    assert PRESETS["sage2"].international == "bgsage-2ply"
    start = boards_of([Position.start()])
    p = teach("bgsage-2ply", start, Rules.international())
    assert p.shape == (1, 5)
    assert 0.45 < p[0, 0] < 0.55  # the opening position is close to even
    assert np.all(np.diff(p[0, :3]) <= 0) and np.all(p[0, 3:] <= 1 - p[0, 0] + 1e-6)


def test_committed_positions_are_ranked_and_their_shards_belong_to_them() -> None:
    from pathlib import Path

    from pulvezar.train.corpus import read_npz
    from pulvezar.train.labels import TEACHERS, read_labels, verify

    folder = Path(__file__).resolve().parents[2] / "data" / "groups-disagree"
    assert verify(folder) >= 4  # SHA256SUMS, and every shard against positions.npz
    c = read_npz(folder / "positions.npz")
    assert np.all(np.diff(c["score"]) <= 0) and np.all(c["cls"] == CONTACT)
    starts = np.r_[True, c["group"][1:] != c["group"][:-1]]
    assert len(np.unique(c["group"])) == starts.sum()  # a group's plays together
    _, teacher = read_labels(folder, "sage2", c)
    assert (teacher[:5000] == TEACHERS.index("bgsage-2ply")).all()
