"""The similarity metric's properties and the archive index (queries, add/remove, files)."""

from __future__ import annotations

import io
import itertools
from pathlib import Path

import numpy as np
import pytest

from pulvezar import Position, PulvezarError, Rules
from pulvezar.archive.similar import (
    WEIGHTS,
    ArchiveEntry,
    ArchiveIndex,
    check_date,
    rules_of,
    similarities,
    similarity,
    similarity_terms,
)

START = Position.start()


def random_positions(n: int, seed: int) -> list[Position]:
    """Positions along random-play games (every legal position the kernel gives is valid)."""
    rng = np.random.default_rng(seed)
    rules = Rules.international()
    out: list[Position] = []
    p = START
    while len(out) < n:
        if rules.game_result(p) is not None:
            p = START
        out.append(p)
        plays = rules.legal_plays(p, (int(rng.integers(1, 7)), int(rng.integers(1, 7))))
        p = plays[int(rng.integers(len(plays)))].position.swap()
    return out


POSITIONS = random_positions(120, seed=3)


def entry(i: int, p: Position, **kw: object) -> ArchiveEntry:
    return ArchiveEntry(f"e{i}", p.position_id, **kw)  # type: ignore[arg-type]


# ---- the metric ---------------------------------------------------------------------------------


def test_weights_sum_to_one() -> None:
    assert sum(WEIGHTS.values()) == pytest.approx(1.0)


def test_identical_is_one_and_only_identical() -> None:
    for p in POSITIONS[:40]:
        assert similarity(p, p) == 1.0
    boards = np.frombuffer(b"".join(p.board for p in POSITIONS), dtype=np.uint8).reshape(-1, 50)
    for p in POSITIONS[:20]:
        s = similarities(p, boards)
        same = np.array([q == p for q in POSITIONS])
        assert (s[same] == 1.0).all()
        assert (s[~same] < 1.0).all()


def test_symmetric_and_in_range() -> None:
    for a, b in zip(POSITIONS[:60], POSITIONS[60:], strict=True):
        s = similarity(a, b)
        assert 0.0 <= s <= 1.0
        assert s == pytest.approx(similarity(b, a), abs=1e-12)
        terms = similarity_terms(a, b)
        assert set(terms) == set(WEIGHTS)
        assert all(0.0 <= v <= 1.0 for v in terms.values())
        assert s == pytest.approx(sum(WEIGHTS[k] * v for k, v in terms.items()))


def documented_terms(a: Position, b: Position) -> dict[str, float]:
    """The terms exactly as the module documents them, in plain Python."""
    from pulvezar.analysis import classify

    def bins(side: tuple[int, ...]) -> list[int]:
        return [15 - sum(side), *side]  # off, points 1..24, bar

    def cdf(xs: list[int]) -> list[int]:
        return [sum(xs[: i + 1]) for i in range(len(xs))]

    sides = [(bins(a.mine), bins(b.mine)), (bins(a.theirs), bins(b.theirs))]
    overlap = sum(min(x, y) for sa, sb in sides for x, y in zip(sa, sb, strict=True)) / 30
    emd = sum(abs(x - y) for sa, sb in sides for x, y in zip(cdf(sa), cdf(sb), strict=True))
    made_a = {(k, p) for k, side in enumerate((a.mine, a.theirs)) for p in range(24) if side[p] >= 2}
    made_b = {(k, p) for k, side in enumerate((b.mine, b.theirs)) for p in range(24) if side[p] >= 2}
    points = len(made_a & made_b) / len(made_a | made_b) if made_a | made_b else 1.0
    (pa, oa), (pb, ob) = a.pips(), b.pips()
    ta, tb = classify(a), classify(b)
    typ = 0.0 if ta.kind != tb.kind else (1.0 if ta.side == tb.side else 0.5)
    return {
        "overlap": overlap,
        "shape": max(0.0, 1 - emd / 80),
        "points": points,
        "pips": max(0.0, 1 - (abs(pa - pb) + abs(oa - ob)) / 60),
        "type": typ,
    }


def test_terms_follow_the_documented_definitions() -> None:
    extreme = [
        START,
        Position.from_points({25: 15}, {25: 15}),  # everything on the bar
        Position.from_points({}, {6: 15}),  # the player has borne everything off
        Position.from_points({1: 15}, {1: 15}),
        Position.from_points({24: 15}, {24: 15}),
    ]
    pool = extreme + POSITIONS[:40]
    for a, b in zip(pool, pool[7:] + pool[:7], strict=True):
        assert similarity_terms(a, b) == pytest.approx(documented_terms(a, b), abs=1e-12)


def test_vectorised_equals_pairwise() -> None:
    boards = np.frombuffer(b"".join(p.board for p in POSITIONS), dtype=np.uint8).reshape(-1, 50)
    q = POSITIONS[7]
    vec = similarities(q, boards)
    assert vec == pytest.approx([similarity(q, p) for p in POSITIONS], abs=1e-12)


def test_moving_a_checker_farther_is_less_similar() -> None:
    # the player's checker from the 13 point to 11, 10, ... 7: similarity to the start falls
    values = []
    for dest in range(11, 6, -1):
        mine = {24: 2, 13: 4, 8: 3, 6: 5}
        mine[dest] = mine.get(dest, 0) + 1
        values.append(similarity(START, Position.from_points(mine, {24: 2, 13: 5, 8: 3, 6: 5})))
    assert all(a > b for a, b in itertools.pairwise(values)), values
    assert values[0] > 0.8  # one checker two pips away is very similar


def test_a_close_position_beats_a_distant_one() -> None:
    race = Position.from_points({6: 5, 5: 5, 4: 5}, {6: 3, 5: 3, 4: 3, 3: 3, 2: 3})
    near_race = Position.from_points({6: 4, 5: 5, 4: 5, 3: 1}, {6: 3, 5: 3, 4: 3, 3: 3, 2: 3})
    assert similarity(race, near_race) > 0.8
    assert similarity(race, START) < 0.3
    assert similarity(START, race) == similarity(race, START)


def test_the_view_matters() -> None:
    # a position with the other player on roll is another decision
    p = POSITIONS[30]
    if p != p.swap():
        assert similarity(p, p.swap()) < 1.0


# ---- entries ------------------------------------------------------------------------------------


def test_entry_round_trip_and_type() -> None:
    e = ArchiveEntry(
        "m:1:2:3", START.position_id, "match", match="m1", game=2, move=3, date="2026-11-29", play="8/5 6/5",
        dice=(3, 1), tags=("opening",),
    )  # fmt: skip
    assert e.kind == "opening" and e.side is None
    d = e.as_dict()
    assert d["dice"] == [3, 1] and "position" not in d
    assert ArchiveEntry.from_dict(d) == e
    t = ArchiveEntry.trusted(d)
    assert t == e and t.position == e.position and t.dice == (3, 1) and t.tags == ("opening",)
    assert ArchiveEntry.trusted({**d, "kind": None}) == e  # without a type: the checked path


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"position_id": "nonsense!!"}, "position_id"),
        ({"source": "elsewhere"}, "source"),
        ({"date": "2026-02-30"}, "date"),
        ({"date": "29.11.2026"}, "date"),
        ({"game": 0}, "game"),
        ({"dice": (7, 1)}, "dice"),
        ({"rules": "chess"}, "rules"),
        ({"id": ""}, "id"),
        ({"kind": "zugzwang"}, "kind"),
    ],
)
def test_bad_entries_name_the_field(kwargs: dict[str, object], field: str) -> None:
    args: dict[str, object] = {"id": "x", "position_id": START.position_id, **kwargs}
    with pytest.raises(PulvezarError) as err:
        ArchiveEntry(**args)  # type: ignore[arg-type]
    assert err.value.field == field


def test_from_dict_rejects_unknown_fields() -> None:
    with pytest.raises(PulvezarError) as err:
        ArchiveEntry.from_dict({"id": "x", "position_id": START.position_id, "colour": "red"})
    assert err.value.field == "colour"
    with pytest.raises(PulvezarError) as err:
        ArchiveEntry.from_dict({"id": "x"})
    assert err.value.field == "position_id"


def test_rules_and_dates() -> None:
    assert rules_of("tavla+hit_and_stop") == Rules.tavla(hit_and_stop=True)
    assert rules_of(Rules.tavla(True, True).name) == Rules.tavla(True, True)
    for bad in ("tavla+hit_and_stop+hit_and_stop", "international+must_bear_off", ""):
        with pytest.raises(PulvezarError):
            rules_of(bad)
    assert check_date("2024-02-29") == "2024-02-29"
    with pytest.raises(PulvezarError):
        check_date("2023-02-29")


# ---- the index ----------------------------------------------------------------------------------


@pytest.fixture
def index() -> ArchiveIndex:
    return ArchiveIndex(entry(i, p) for i, p in enumerate(POSITIONS))


def brute(q: Position, positions: list[Position], limit: int, floor: float) -> list[tuple[str, float]]:
    scored = [(f"e{i}", similarity(q, p)) for i, p in enumerate(positions)]
    keep = [(i, s) for i, s in scored if s >= floor]
    keep.sort(key=lambda t: (-t[1], t[0]))  # ties by id
    return keep[:limit]


@pytest.mark.parametrize("limit", [1, 5, 12, 200])
@pytest.mark.parametrize("floor", [0.0, 0.6, 0.9])
def test_query_equals_brute_force(index: ArchiveIndex, limit: int, floor: float) -> None:
    for q in (POSITIONS[5], POSITIONS[77], START):
        hits = index.query(q, limit=limit, min_similarity=floor)
        want = brute(q, POSITIONS, limit, floor)
        assert [h.entry.id for h in hits] == [i for i, _ in want]
        assert [h.similarity for h in hits] == pytest.approx([s for _, s in want], abs=1e-12)
        assert len(hits) <= limit and all(h.similarity >= floor for h in hits)


def test_query_defaults_are_twelve_and_sixty_percent(index: ArchiveIndex) -> None:
    # the start position many times: more than 12 identical hits, all at 100 %
    many = ArchiveIndex(entry(i, START) for i in range(20))
    hits = many.query(START)
    assert len(hits) == 12 and all(h.percent == 100 for h in hits)
    assert [h.entry.id for h in hits] == sorted(f"e{i}" for i in range(20))[:12]  # ties by id
    # the same entries added in another order answer the same
    backwards = ArchiveIndex(entry(i, START) for i in reversed(range(20)))
    assert [h.entry.id for h in backwards.query(START)] == [h.entry.id for h in hits]
    for q in POSITIONS[:10]:
        assert all(h.similarity >= 0.6 for h in index.query(q))


def test_rules_filter_and_exclude() -> None:
    idx = ArchiveIndex(
        [entry(0, START), entry(1, START, rules="tavla"), entry(2, START, rules="tavla+hit_and_stop")]
    )
    assert [h.entry.id for h in idx.query(START)] == ["e0", "e1", "e2"]
    assert [h.entry.id for h in idx.query(START, rules=Rules.tavla())] == ["e1"]
    assert [h.entry.id for h in idx.query(START, rules="tavla+hit_and_stop")] == ["e2"]
    assert idx.query(START, rules="tavla+must_bear_off") == []
    assert [h.entry.id for h in idx.query(START, exclude=["e0", "nope"])] == ["e1", "e2"]


def test_add_replaces_and_remove(index: ArchiveIndex) -> None:
    n = len(index)
    assert index.add([entry(3, START, source="library", name="renamed")]) == 1
    assert len(index) == n
    assert index.get("e3") is not None and index.get("e3").name == "renamed"  # type: ignore[union-attr]
    assert index.query(START, limit=1)[0].entry.id in {"e3", "e0"}
    assert index.remove(["e3", "e0", "unknown"]) == 2
    assert len(index) == n - 2 and "e3" not in index and index.get("e0") is None
    # what is left still answers like brute force over what is left
    rest = [(f"e{i}", p) for i, p in enumerate(POSITIONS) if i not in (0, 3)]
    q = POSITIONS[50]
    hits = index.query(q, limit=12, min_similarity=0.0)
    want = sorted(((i, similarity(q, p)) for i, p in rest), key=lambda t: (-t[1], t[0]))[:12]
    assert [h.entry.id for h in hits] == [i for i, _ in want]
    assert index.remove([]) == 0


def test_empty_index_and_bad_queries() -> None:
    idx = ArchiveIndex()
    assert idx.query(START) == []
    for kwargs, field in (
        ({"limit": 0}, "limit"),
        ({"limit": True}, "limit"),
        ({"min_similarity": 1.5}, "min_similarity"),
        ({"rules": "checkers"}, "rules"),
    ):
        with pytest.raises(PulvezarError) as err:
            ArchiveIndex([entry(0, START)]).query(START, **kwargs)  # type: ignore[arg-type]
        assert err.value.field == field
    with pytest.raises(PulvezarError) as err:
        idx.query("4HPwATDgc/ABMA")  # type: ignore[arg-type]
    assert err.value.field == "position"


def test_save_and_load(index: ArchiveIndex, tmp_path: Path) -> None:
    index.add([ArchiveEntry("lib:x", START.position_id, "library", name="Start", tags=("a", "b"), note="n")])
    path = tmp_path / "archive.npz"
    index.save(path)
    back = ArchiveIndex.load(path)
    assert back.entries == index.entries
    for q in (POSITIONS[9], START):
        assert [(h.entry, h.similarity) for h in back.query(q, min_similarity=0.3)] == [
            (h.entry, h.similarity) for h in index.query(q, min_similarity=0.3)
        ]
    buf = io.BytesIO()
    ArchiveIndex().save(buf)
    buf.seek(0)
    assert len(ArchiveIndex.load(buf)) == 0
    # compact: well under the size of the JSON text per entry
    assert path.stat().st_size < 200 * len(index)


def test_load_rejects_other_files(tmp_path: Path) -> None:
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a zip file")
    with pytest.raises(PulvezarError) as err:
        ArchiveIndex.load(bad)
    assert err.value.field == "path"
    other = tmp_path / "other.npz"
    np.savez(other, something=np.arange(3))
    with pytest.raises(PulvezarError):
        ArchiveIndex.load(other)
