"""A book beside published opening rollouts, and two books (rule sets) beside each other.

Published figures live in a JSON file (``data/book/published/international.json``)::

    {"sources": {"rice-2006": {"program": "GNU Backgammon", "kind": "rollout", "cube": "cubeless",
                               "trials": 46656, "date": "2006-02-26", "url": "https://..."}},
     "figures": [{"roll": "51", "source": "rice-2006",
                  "plays": [{"play": "24/23 13/8", "equity": 0.0069, "se": 0.0007},
                            {"play": "13/8 6/5", "equity": -0.0058, "se": 0.0008}]},
                 {"roll": "62", "source": "woolsey-1995", "order": ["24/18 13/11", "24/16", "13/5"]}]}

A figure gives either ``plays`` with an ``equity`` (or a ``loss`` against its best) and, where
published, an ``se``; or only the ``order`` of the plays.  Plays are matched by the position they
leave, so ``13/8 24/23`` is ``24/23 13/8``.

For each figure, :func:`compare` sets the book's rollout gap between the published best and each
other play beside the published gap.  The combined noise is the book's gap noise (same dice:
``rollout_diff_se`` where the published best is the book's best, else the two ``rollout_se``
combined) and the published one (the two ``se`` combined as independent, since publications do not
give the paired error).  A gap further apart than ``z`` combined noises is a disagreement beyond
the noise, which the document reporting it has to explain.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pulvezar.book.model import BOOK_DIR, Book, BookCandidate, BookError, BookRoll, parse_roll, roll_name
from pulvezar.errors import NotationError
from pulvezar.rules.position import Position
from pulvezar.rules.rules import Rules

#: The shipped table of published opening rollouts of other programs.
PUBLISHED = BOOK_DIR / "published" / "international.json"


@dataclass(frozen=True)
class PublishedPlay:
    play: str
    position_id: str
    equity: float | None  # None in an order-only figure
    se: float | None


@dataclass(frozen=True)
class Figure:
    """One source's published plays of one opening roll, best first."""

    roll: str
    source: str
    plays: tuple[PublishedPlay, ...]
    ordered_only: bool


@dataclass(frozen=True)
class Gap:
    """The published best against one other published play, in the publication and in the book."""

    play: str
    published: float | None  # published best's equity minus this play's (None: order only)
    published_se: float | None
    book: float | None  # the same gap in the book's rollouts (None: not a candidate of the book)
    book_se: float | None
    z: float | None  # (book - published) / combined noise

    @property
    def noise(self) -> float | None:
        if self.book_se is None:
            return None
        return math.hypot(self.book_se, self.published_se or 0.0)


@dataclass(frozen=True)
class Comparison:
    roll: str
    source: str
    published_order: tuple[str, ...]
    book_order: tuple[str, ...]  # the published plays the book holds, in the book's order
    missing: tuple[str, ...]  # published plays that are not candidates of the book
    same_best: bool
    gaps: tuple[Gap, ...]

    def beyond(self, z: float = 2.0) -> list[Gap]:
        """The gaps further apart than ``z`` combined noises."""
        return [g for g in self.gaps if g.z is not None and abs(g.z) > z]


def _position_id(rules: Rules, dice: tuple[int, int], play: str, field: str) -> str:
    try:
        return rules.legal_plays(Position.start(), dice).find(play).position.position_id
    except NotationError as e:
        raise BookError(f"{play!r} is not a play of {roll_name(dice)}: {e}", field=field) from None


def read_published(path: str | Path = PUBLISHED) -> tuple[dict[str, Any], list[Figure]]:
    """The sources and figures of a published-rollouts file (:class:`BookError` naming the field)."""
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, ValueError) as e:
        raise BookError(f"{path}: {e}", field="published") from None
    if not isinstance(data, Mapping) or not isinstance(data.get("sources"), Mapping):
        raise BookError("an object with 'sources' and 'figures' is required", field="sources")
    sources = dict(data["sources"])
    rules = Rules.international()
    figures = []
    for i, f in enumerate(data.get("figures") or []):
        at = f"figures[{i}]"
        if f.get("source") not in sources:
            raise BookError(f"unknown source {f.get('source')!r}", field=f"{at}.source")
        dice = parse_roll(str(f.get("roll")), field=f"{at}.roll")
        if "order" in f:
            plays = tuple(
                PublishedPlay(p, _position_id(rules, dice, p, f"{at}.order[{j}]"), None, None)
                for j, p in enumerate(f["order"])
            )
        else:
            items = f.get("plays") or []
            if not items:
                raise BookError("one or more plays are required", field=f"{at}.plays")
            out = []
            for j, p in enumerate(items):
                name = str(p.get("play"))
                if "equity" in p:
                    eq = float(p["equity"])
                elif "loss" in p:
                    eq = -float(p["loss"])
                else:
                    raise BookError("an 'equity' or a 'loss' is required", field=f"{at}.plays[{j}]")
                se = None if p.get("se") is None else float(p["se"])
                out.append(PublishedPlay(name, _position_id(rules, dice, name, f"{at}.plays[{j}]"), eq, se))
            plays = tuple(sorted(out, key=lambda p: -(p.equity or 0.0)))
        figures.append(Figure(roll_name(dice), str(f["source"]), plays, "order" in f))
    return sources, figures


def _gap_se(entry: BookRoll, a: BookCandidate, b: BookCandidate) -> float:
    """Noise of ``a.rollout_equity - b.rollout_equity`` in the book."""
    best = entry.best
    if a is best and b.rollout_diff_se is not None:
        return b.rollout_diff_se
    if b is best and a.rollout_diff_se is not None:
        return a.rollout_diff_se
    return math.hypot(a.rollout_se, b.rollout_se)


def compare_figure(book: Book, fig: Figure) -> Comparison:
    """The book's rollouts beside one published figure."""
    entry = book.roll(fig.roll)
    by_id = {c.position_id: c for c in entry.candidates}
    held = [p for p in fig.plays if p.position_id in by_id]
    book_order = tuple(p.play for p in sorted(held, key=lambda p: -by_id[p.position_id].rollout_equity))
    top = fig.plays[0]
    gaps = []
    for p in fig.plays[1:]:
        pub = pub_se = None
        if not fig.ordered_only:
            assert top.equity is not None and p.equity is not None
            pub = top.equity - p.equity
            if top.se is not None and p.se is not None:
                pub_se = math.hypot(top.se, p.se)
        ours = ours_se = z = None
        if top.position_id in by_id and p.position_id in by_id:
            a, b = by_id[top.position_id], by_id[p.position_id]
            ours = a.rollout_equity - b.rollout_equity
            ours_se = _gap_se(entry, a, b)
            if pub is not None:
                noise = math.hypot(ours_se, pub_se or 0.0)
                z = (ours - pub) / noise if noise > 0 else None
        gaps.append(Gap(p.play, pub, pub_se, ours, ours_se, z))
    return Comparison(
        roll=fig.roll,
        source=fig.source,
        published_order=tuple(p.play for p in fig.plays),
        book_order=book_order,
        missing=tuple(p.play for p in fig.plays if p.position_id not in by_id),
        same_best=entry.best.position_id == top.position_id,
        gaps=tuple(gaps),
    )


def compare(book: Book, figures: list[Figure]) -> list[Comparison]:
    """Every figure of a book's rolls, in the book's roll order."""
    order = {r.roll: i for i, r in enumerate(book.rolls)}
    return [compare_figure(book, f) for f in sorted(figures, key=lambda f: order.get(f.roll, 99))]


def _num(x: float | None, sign: bool = True) -> str:
    if x is None:
        return "-"
    return f"{x:+.4f}" if sign else f"{x:.4f}"


def comparison_markdown(comps: list[Comparison], z: float = 2.0) -> str:
    """The comparison as a Markdown table, a row per published gap (or per order-only figure)."""
    lines = [
        "| roll | source | published order | book order | gap | published | book | noise | z |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for c in comps:
        pub = " > ".join(c.published_order)
        ours = " > ".join(c.book_order) + (f" (not rolled out: {', '.join(c.missing)})" if c.missing else "")
        if not c.gaps:
            lines.append(f"| {c.roll} | {c.source} | {pub} | {ours} | | | | | |")
        for k, g in enumerate(c.gaps):
            flag = " **beyond**" if g.z is not None and abs(g.z) > z else ""
            zs = "-" if g.z is None else f"{g.z:+.1f}{flag}"
            pe = _num(g.published) + ("" if g.published_se is None else f" ± {g.published_se:.4f}")
            be = _num(g.book) + ("" if g.book_se is None else f" ± {g.book_se:.4f}")
            head = (c.roll, c.source, pub, ours) if k == 0 else ("", "", "", "")
            lines.append(
                f"| {' | '.join(head)} | {c.published_order[0]} − {g.play} | {pe} | {be} | "
                f"{_num(g.noise, False)} | {zs} |"
            )
    return "\n".join(lines)


# ---- two rule sets --------------------------------------------------------------------------


@dataclass(frozen=True)
class Contrast:
    """One opening roll in two books: each book's best, and each best's gap in the other book.

    ``gap_in_a_as_b`` is ``gap_in_a`` with ``a``'s rollout outcomes scored as in book ``b`` (for the
    international and the Tavla book: a backgammon counted as a mars, 2 points instead of 3), so it
    shows how much of a difference the scoring alone makes, on the same trials.
    """

    roll: str
    best_a: str | None  # None: the roll is not in book a (a double, in the international book)
    best_b: str
    gap_in_a: tuple[float, float] | None  # (a's rollout of its best minus b's best, noise); None: absent
    gap_in_b: tuple[float, float] | None  # (b's rollout of its best minus a's best, noise)
    gap_in_a_as_b: float | None = None

    @property
    def same(self) -> bool:
        return self.best_a is not None and self.best_a == self.best_b


def scored(c: BookCandidate, variant: str) -> float:
    """A candidate's rollout equity with its outcomes scored as in ``variant`` (Tavla: a mars is 2,
    there is no 3-point backgammon).  The book's probabilities are clipped into 0..1, so this can
    differ from ``rollout_equity`` by a rare outcome's clipping (about 1e-4 at most)."""
    p = c.probabilities
    e = 2.0 * p["win"] - 1.0 + p["win_gammon"] - p["lose_gammon"]
    if variant == "international":
        e += p["win_backgammon"] - p["lose_backgammon"]
    return e


def _candidate(entry: BookRoll, position_id: str) -> BookCandidate | None:
    return next((c for c in entry.candidates if c.position_id == position_id), None)


def _gap_of(entry: BookRoll, position_id: str) -> tuple[float, float] | None:
    c = _candidate(entry, position_id)
    if c is None:
        return None
    return entry.best.rollout_equity - c.rollout_equity, _gap_se(entry, entry.best, c)


def contrast(a: Book, b: Book) -> list[Contrast]:
    """Every roll of ``b`` (the Tavla book holds the 21, international the 15) beside ``a``."""
    out = []
    for rb in b.rolls:
        try:
            ra = a.roll(rb.roll)
        except BookError:
            out.append(Contrast(rb.roll, None, rb.best.play, None, None))
            continue
        same = ra.best.position_id == rb.best.position_id
        other = None if same else _candidate(ra, rb.best.position_id)
        as_b = None if other is None else scored(ra.best, b.variant) - scored(other, b.variant)
        out.append(
            Contrast(
                rb.roll,
                ra.best.play,
                rb.best.play,
                None if same else _gap_of(ra, rb.best.position_id),
                None if same else _gap_of(rb, ra.best.position_id),
                as_b,
            )
        )
    return out


def contrast_markdown(a: Book, b: Book, rows: list[Contrast]) -> str:
    """Two books' best plays per roll as a Markdown table, with each best's gap in the other book."""

    def gap(g: tuple[float, float] | None, skip: bool) -> str:
        if skip:
            return ""
        return "not a candidate" if g is None else f"{g[0]:+.4f} ± {g[1]:.4f}"

    lines = [
        f"| roll | {a.variant} best | {b.variant} best | {b.variant} best in the {a.variant} book "
        f"(scored as {b.variant}) | {a.variant} best in the {b.variant} book |",
        "|---|---|---|---|---|",
    ]
    for r in rows:
        skip = r.same or r.best_a is None
        as_b = "" if r.gap_in_a_as_b is None else f" ({r.gap_in_a_as_b:+.4f})"
        lines.append(
            f"| {r.roll} | {r.best_a or '(not an opening roll)'} | {r.best_b} | "
            f"{gap(r.gap_in_a, skip)}{as_b} | {gap(r.gap_in_b, skip)} |"
        )
    return "\n".join(lines)
