"""The book beside published rollouts, and two books beside each other (pure logic on small books)."""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from pulvezar.book import Book, BookError, BookSettings, generate_book
from pulvezar.book.compare import (
    PUBLISHED,
    compare,
    comparison_markdown,
    contrast,
    contrast_markdown,
    read_published,
    scored,
)
from pulvezar.cli.book import main

#: two rolls with several candidates each, seconds to make (1-ply search, short truncated rollouts)
SMALL = BookSettings(
    variant="international",
    rolls=((4, 3), (2, 1)),
    ply=1,
    candidates=3,
    threshold=0.3,
    trials=72,
    truncate=4,
    reply_ply=0,
    chunk_size=36,
)


@pytest.fixture(scope="module")
def book(tmp_path_factory: pytest.TempPathFactory) -> Book:
    b = generate_book(SMALL, tmp_path_factory.mktemp("small"))
    assert all(len(r.candidates) >= 2 for r in b.rolls), "the test needs two candidates per roll"
    return b


def published_like(book: Book, shift: float = 0.0, se: float | None = 0.01) -> dict[str, Any]:
    """A published file whose figures are the book's own rollouts (the second play moved by ``shift``)."""
    figures = []
    for r in book.rolls:
        plays = []
        for i, c in enumerate(r.candidates[:2]):
            eq = c.rollout_equity - (shift if i == 1 else 0.0)
            plays.append({"play": c.play, "equity": eq, **({} if se is None else {"se": se})})
        figures.append({"roll": r.roll, "source": "self", "plays": plays})
    return {"sources": {"self": {"program": "pulvezar"}}, "figures": figures}


def write(tmp_path: Path, data: dict[str, Any]) -> Path:
    p = tmp_path / "published.json"
    p.write_text(json.dumps(data))
    return p


def test_the_book_agrees_with_its_own_figures_and_a_shifted_gap_is_flagged(
    book: Book, tmp_path: Path
) -> None:
    _, figures = read_published(write(tmp_path, published_like(book)))
    rows = compare(book, figures)
    assert [c.roll for c in rows] == [r.roll for r in book.rolls]
    for c in rows:
        entry = book.roll(c.roll)
        assert c.same_best == (entry.best.play == c.published_order[0])
        (g,) = c.gaps
        assert g.book == pytest.approx(g.published, abs=1e-9) and g.z == pytest.approx(0.0, abs=1e-6)
        assert g.noise is not None and g.book_se is not None and g.published_se is not None
        assert g.noise == pytest.approx(math.hypot(g.book_se, g.published_se))
        assert not c.beyond()
    # move the published second play down by 10 combined noises: every roll is flagged, with its sign
    far = 10 * max(g.noise or 0.0 for c in rows for g in c.gaps)
    _, figures = read_published(write(tmp_path, published_like(book, shift=far)))
    for c in compare(book, figures):
        (g,) = c.beyond()
        assert g.z is not None and g.z < -2
    assert "**beyond**" in comparison_markdown(compare(book, figures))


def test_the_gap_noise_of_the_books_best_is_the_paired_one(book: Book, tmp_path: Path) -> None:
    _, figures = read_published(write(tmp_path, published_like(book, se=None)))
    for c in compare(book, figures):
        entry = book.roll(c.roll)
        (g,) = c.gaps
        second = entry.candidates[1]
        if c.same_best:
            assert g.book_se == second.rollout_diff_se  # the same dice: the paired difference's noise
        assert g.published_se is None and g.noise == g.book_se  # an SE not published adds nothing


def test_order_only_figures_and_plays_the_book_lacks(book: Book, tmp_path: Path) -> None:
    entry = book.roll("43")
    held = [c.play for c in entry.candidates]
    legal_elsewhere = "6/3 6/2"  # a legal 43 no small book keeps as a candidate
    assert legal_elsewhere not in held
    data = {
        "sources": {"w": {"program": "people"}},
        "figures": [{"roll": "34", "source": "w", "order": [held[1], held[0], legal_elsewhere]}],
    }
    _, figures = read_published(write(tmp_path, data))
    (c,) = compare(book, figures)
    assert c.roll == "43" and c.missing == (legal_elsewhere,)
    assert c.book_order == tuple(held[:2])  # the book's own order of the plays it holds
    assert all(g.published is None and g.z is None for g in c.gaps)
    assert not c.same_best


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda d: d["figures"][0].update(source="nobody"), "figures[0].source"),
        (lambda d: d["figures"][0].update(roll="77"), "figures[0].roll"),
        (lambda d: d["figures"][0]["plays"][1].update(play="24/10"), "figures[0].plays[1]"),
        (lambda d: d["figures"][0]["plays"][1].pop("equity"), "figures[0].plays[1]"),
        (lambda d: d["figures"][0].update(plays=[]), "figures[0].plays"),
        (lambda d: d.pop("sources"), "sources"),
    ],
)
def test_bad_published_files_name_the_field(book: Book, tmp_path: Path, change: Any, field: str) -> None:
    data = published_like(book)
    change(data)
    with pytest.raises(BookError) as e:
        read_published(write(tmp_path, data))
    assert e.value.field == field


def test_the_shipped_published_table_reads_and_names_its_sources() -> None:
    sources, figures = read_published(PUBLISHED)
    assert figures
    for f in figures:
        assert str(sources[f.source].get("url", "")).startswith("http"), f.source
    rolls = {f.roll for f in figures}
    assert len(rolls) == 15, sorted(rolls)  # every opening roll has at least one published figure


def test_contrast_finds_the_rolls_whose_best_differs(book: Book) -> None:
    assert all(r.same for r in contrast(book, book))
    first_roll = book.rolls[0]
    flipped = replace(first_roll, candidates=first_roll.candidates[::-1])  # another best for one roll
    other = replace(book, rolls=(flipped, *book.rolls[1:]))
    rows = contrast(book, other)
    assert [r.same for r in rows] == [False] + [True] * (len(rows) - 1)
    first, entry = rows[0], book.rolls[0]
    assert first.best_a == entry.best.play and first.best_b == entry.candidates[-1].play
    assert first.gap_in_a is not None
    assert first.gap_in_a[0] == pytest.approx(entry.best.rollout_equity - entry.candidates[-1].rollout_equity)
    # scored as the same rule set, the gap is the rollout gap (up to the clipping of rare outcomes)
    assert first.gap_in_a_as_b == pytest.approx(first.gap_in_a[0], abs=2e-4)
    assert "| " + entry.roll + " |" in contrast_markdown(book, other, rows)


def test_tavla_scoring_counts_a_backgammon_as_a_mars(book: Book) -> None:
    for c in book.rolls[0].candidates:
        p = c.probabilities
        assert scored(c, "international") == pytest.approx(c.rollout_equity, abs=2e-4)
        assert scored(c, "international") - scored(c, "tavla") == pytest.approx(
            p["win_backgammon"] - p["lose_backgammon"]
        )


def test_command_line_compare_and_contrast(
    book: Book, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "book.json"
    path.write_text(json.dumps(book.to_json()))
    assert main(["compare", str(path), "--published", str(write(tmp_path, published_like(book)))]) == 0
    out = capsys.readouterr().out
    assert out.startswith("| roll | source |") and all(f"| {r.roll} | self |" in out for r in book.rolls)
    assert main(["contrast", str(path), str(path)]) == 0
    assert "| 43 |" in capsys.readouterr().out
    assert main(["compare", str(path), "--published", str(tmp_path / "missing.json")]) == 2
    assert "published" in capsys.readouterr().err
