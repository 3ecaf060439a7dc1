"""Generating the opening book: search, rollouts, replies; resumable, deterministic per seed.

For every opening roll of the rule set (:func:`~pulvezar.book.model.opening_rolls`):

1. **search**: all legal plays from the start position are ranked by an N-ply search
   (:meth:`~pulvezar.search.Search.rank`, default 3 plies) with the book's move filter: 0-ply
   screen ``1 / 16 / 0.32``, none at 1 ply, and the ``candidates`` best kept at 2 plies; of the
   plays valued at the full depth, the best and those within ``threshold`` of it (at most
   ``candidates``) are the roll's candidates;
2. **rollout**: the candidates are rolled out together, every candidate with the same dice
   (:func:`~pulvezar.rollouts.rollout_plays`, variance reduction, stratified first rolls), in the
   chunks of :func:`~pulvezar.rollouts.chunks.plan_chunks` (``chunk_size`` trials each);
3. each candidate's **value** is the mean of its search equity and its rollout equity; its
   probabilities are the rollout's; the best value is the roll's best play;
4. **replies**: for the best play, the opponent's best reply to each of its 21 rolls by a
   ``reply_ply`` search (normal move filter).

Every step of every roll is a *work item* whose result is saved in the work directory (written
to a temporary file and renamed) as soon as it is done.  A run that is interrupted continues
where it stopped when started again on the same work directory; a run with more ``trials``
reuses the chunks it has (the chunk grid is fixed, so a rollout extended from ``T`` to ``T + M``
trials equals a run of ``T + M`` trials when ``T`` is a multiple of the chunk size).  Each item
is computed from scratch (its own search cache), so its numbers do not depend on what ran before
it in the process: an interrupted and resumed run gives the same book, bit for bit, as one run.

The work directory holds ``manifest.json`` (the settings except ``trials``, and the engine); a
directory made with other settings or another net is refused (:class:`BookError`, field
``workdir``).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field, fields, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from pulvezar.book.model import (
    Book,
    BookCandidate,
    BookError,
    BookReplies,
    BookReply,
    BookRoll,
    opening_rolls,
    parse_roll,
    probs_json,
    read_book,
    roll_name,
)
from pulvezar.errors import PulvezarError
from pulvezar.eval import provenance
from pulvezar.eval.evaluator import Evaluator, default_evaluator
from pulvezar.rollouts.chunks import check_chunk_size, plan_chunks
from pulvezar.rollouts.engine import rollout_plays
from pulvezar.rollouts.lockstep import LUCK
from pulvezar.rollouts.stats import RolloutResult, difference_noise
from pulvezar.rules.position import Position
from pulvezar.rules.rules import Play, Rules
from pulvezar.search.filters import FilterStage, MoveFilter
from pulvezar.search.plies import MAX_PLY, PRUNE_KEEP, ROLLS, Search

Dice = tuple[int, int]

#: The issue's settings ("3-ply evaluation and a 5,184-trial rollout"): the command's defaults.
FULL_TRIALS = 5184

#: The work directory's layout: 2 = one file per candidate and chunk (a search's candidates may
#: change with its settings and their trials stay reusable); 1 (before 2026-12-03) = one per chunk.
WORK_LAYOUT = 2


@dataclass(frozen=True)
class BookSettings:
    """Everything that decides a book's numbers (recorded in the book as ``settings``)."""

    variant: str = "international"
    hit_and_stop: bool = False
    must_bear_off: bool = False
    #: the rolls to generate; None: every opening roll of the rule set (15 or 21)
    rolls: tuple[Dice, ...] | None = None
    #: search depth of the candidates (gnubg numbering: 0 = the net)
    ply: int = 3
    #: at most this many candidates per roll ...
    candidates: int = 5
    #: ... within this much equity of the best at ``ply``
    threshold: float = 0.16
    trials: int = FULL_TRIALS
    seed: int = 1
    #: half-moves before a rollout trial stops with the net's value; None: played to the end
    truncate: int | None = None
    variance_reduction: bool = True
    #: how variance reduction values the 21 rolls (``pulvezar.rollouts.lockstep.LUCK``); books made
    #: before the screen have no such setting and read as ``"full"``
    luck: str = "screened"
    #: how the rollout trials choose their plays (0 = the net)
    rollout_ply: int = 0
    #: search depth of the opponent's replies
    reply_ply: int = 3
    #: the replies after the best play only (``"best"``), or after every candidate (``"all"``)
    replies_to: str = "best"
    chunk_size: int = 72
    #: the searches (candidates and replies) prune their replies (``pulvezar.search.default_prune``);
    #: books made before pruning was the default have no such setting and read as ``False``.  The
    #: rollouts (0-ply move choice) are not pruned, so their work files do not depend on it.
    prune: bool = True

    def __post_init__(self) -> None:
        if self.variant not in ("international", "tavla"):
            raise BookError(f"'international' or 'tavla', got {self.variant!r}", field="rules")
        if self.variant == "international" and (self.hit_and_stop or self.must_bear_off):
            raise BookError("hit_and_stop and must_bear_off are Tavla options", field="rules")
        for name, lo, hi in (
            ("ply", 0, MAX_PLY),
            ("reply_ply", 0, MAX_PLY),
            ("rollout_ply", 0, 2),
            ("candidates", 1, 32),
            ("trials", 1, 10_000_000),
            ("seed", 0, 2**63 - 1),
        ):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
                raise BookError(f"an integer {lo}..{hi} is required, got {v!r}", field=name)
        if self.replies_to not in ("best", "all"):
            raise BookError(f"'best' or 'all', got {self.replies_to!r}", field="replies_to")
        if self.luck not in LUCK:
            raise BookError(f"one of {', '.join(LUCK)}, got {self.luck!r}", field="luck")
        if not isinstance(self.threshold, int | float) or not 0 <= self.threshold <= 2:
            raise BookError(f"a number 0..2 is required, got {self.threshold!r}", field="threshold")
        if self.truncate is not None and (
            isinstance(self.truncate, bool) or not isinstance(self.truncate, int) or self.truncate < 1
        ):
            reason = f"a positive number of half-moves or none, got {self.truncate!r}"
            raise BookError(reason, field="truncate")
        try:
            check_chunk_size(self.chunk_size)
        except ValueError as e:
            raise BookError(str(e), field="chunk_size") from None
        if self.rolls is not None:
            allowed = opening_rolls(self.variant)
            norm = []
            for d in self.rolls:
                r = (max(d), min(d))
                if r not in allowed:
                    raise BookError(f"{roll_name(r)} is not an opening roll of {self.variant}", field="rolls")
                if r not in norm:
                    norm.append(r)
            object.__setattr__(self, "rolls", tuple(sorted(norm, key=allowed.index)))

    @property
    def rules(self) -> Rules:
        if self.variant == "international":
            return Rules.international()
        return Rules.tavla(self.hit_and_stop, self.must_bear_off)

    @property
    def roll_list(self) -> tuple[Dice, ...]:
        return self.rolls if self.rolls is not None else opening_rolls(self.variant)

    def rules_json(self) -> dict[str, Any]:
        return self.rules.to_dict()

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["rolls"] = [roll_name(r) for r in self.roll_list]
        for k in ("variant", "hit_and_stop", "must_bear_off"):
            out.pop(k)
        out["candidate_filter"] = {
            "screen_0ply": [1, 16, 0.32],
            "keep_at_2ply": self.candidates,
            "select": f"at most {self.candidates} within {self.threshold} of the best at {self.ply} ply",
        }
        out["value"] = "mean of the search equity and the rollout equity; probabilities from the rollout"
        return out

    @classmethod
    def from_json(cls, rules: dict[str, Any], data: dict[str, Any]) -> BookSettings:
        keys = {f for f in cls.__dataclass_fields__ if f not in ("variant", "hit_and_stop", "must_bear_off")}
        kw = {k: v for k, v in data.items() if k in keys}
        kw.setdefault("luck", "full")  # written before the screen existed
        kw.setdefault("prune", False)  # written before pruned search was the default
        if kw.get("rolls") is not None:
            kw["rolls"] = tuple((int(r[0]), int(r[1])) for r in kw["rolls"])
        try:
            r = Rules.from_dict(rules)
        except PulvezarError as e:
            raise BookError(str(e), field=e.field) from None
        return cls(variant=r.variant, hit_and_stop=r.hit_and_stop, must_bear_off=r.must_bear_off, **kw)

    # ---- from arguments: the one definition of the book's options ------------------------------
    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser, *, chunk_size: bool = True) -> None:
        """The book's options on ``parser`` (``pulvezar book``, the platform's book command):
        ``--rules`` (required), the Tavla options, every setting with its default, ``--rolls 31,42``
        and ``--no-variance-reduction``; ``--chunk-size`` unless the caller fixes it."""
        d = cls()
        parser.add_argument("--rules", choices=("international", "tavla"), required=True)
        parser.add_argument("--hit-and-stop", action="store_true", help="Tavla: 'Nach Schlag Halt'")
        parser.add_argument("--must-bear-off", action="store_true", help="Tavla: 'Auswürfelpflicht'")
        parser.add_argument("--trials", type=int, default=FULL_TRIALS, help="rollout trials per candidate")
        parser.add_argument("--candidates", type=int, default=d.candidates)
        parser.add_argument("--threshold", type=float, default=d.threshold)
        parser.add_argument("--ply", type=int, default=d.ply, help="search depth of the candidates")
        parser.add_argument("--reply-ply", type=int, default=d.reply_ply)
        parser.add_argument(
            "--replies-to", choices=("best", "all"), default=d.replies_to,
            help="the replies after the best play only, or after every candidate",
        )  # fmt: skip
        parser.add_argument("--rollout-ply", type=int, default=d.rollout_ply)
        parser.add_argument("--luck", choices=LUCK, default=d.luck, help="variance reduction's 21 rolls")
        parser.add_argument("--truncate", type=int, default=d.truncate)
        parser.add_argument("--seed", type=int, default=d.seed)
        if chunk_size:
            parser.add_argument("--chunk-size", type=int, default=d.chunk_size)
        parser.add_argument("--rolls", help="only these rolls, e.g. 31,42 (default: every opening roll)")
        parser.add_argument("--no-variance-reduction", action="store_true")
        parser.add_argument(
            "--no-prune", action="store_true", help="the unpruned search for the candidates and replies"
        )

    @classmethod
    def from_args(cls, args: Any, **overrides: Any) -> BookSettings:
        """The settings of parsed :meth:`add_arguments` options, or of any object with those
        attributes (a request body): ``rules`` (or ``variant``), the settings by name (a missing or
        ``None`` one takes its default), ``rolls`` as ``"31,42"`` or roll pairs, and
        ``no_variance_reduction`` and ``no_prune``.  ``overrides`` win (e.g. the workers' ``chunk_size``).

        >>> BookSettings.from_args(argparse.Namespace(rules="tavla", rolls="31,65", trials=36)).rolls
        ((3, 1), (6, 5))
        """
        names = {f.name for f in fields(cls)} - {"variant", "rolls"}
        kw: dict[str, Any] = {n: getattr(args, n) for n in names if getattr(args, n, None) is not None}
        variant = getattr(args, "rules", None) or getattr(args, "variant", None)
        if variant is not None:
            kw["variant"] = variant
        rolls = getattr(args, "rolls", None)
        if isinstance(rolls, str):
            rolls = tuple(parse_roll(r, "rolls") for r in rolls.split(",") if r.strip())
        if rolls is not None:
            kw["rolls"] = tuple((int(r[0]), int(r[1])) for r in rolls) or None
        if getattr(args, "no_variance_reduction", False):
            kw["variance_reduction"] = False
        if getattr(args, "no_prune", False):
            kw["prune"] = False
        kw.update(overrides)
        return cls(**kw)

    def move_filter(self) -> MoveFilter:
        """0-ply screen 1/16/0.32, none at 1 ply, the ``candidates`` best at 2 plies."""
        return MoveFilter("book", (FilterStage(1, 16, 0.32), None, FilterStage(self.candidates, 0, 0.0)))

    def work_key(self) -> dict[str, Any]:
        """What a work directory must agree on: what decides a trial's numbers.  The trials, the
        rolls, the search (``ply``, ``candidates``, ``threshold``) and the replies (``reply_ply``,
        ``replies_to``) are left out:
        their items are named by them, so a directory serves books of other such settings and
        reuses every trial of every candidate they share.  ``prune`` is in it only where it decides
        the trials (``rollout_ply >= 1``) and is on: 0-ply and unpruned directories keep the manifest
        they always had.

        >>> "prune" in BookSettings().work_key(), BookSettings(rollout_ply=1).work_key()["prune"]
        (False, True)
        """
        key: dict[str, Any] = {
            "layout": WORK_LAYOUT,
            "rules": self.rules_json(),
            "seed": self.seed,
            "truncate": self.truncate,
            "variance_reduction": self.variance_reduction,
            "luck": self.luck,
            "rollout_ply": self.rollout_ply,
            "chunk_size": self.chunk_size,
        }
        if self.rollout_ply > 0 and self.prune:
            key["prune"] = True
        return key

    def search_tag(self) -> str:
        """The search settings, as a search item's file names them (a pruned search's with
        :meth:`prune_tag`, so that it is never taken for an unpruned one's).

        >>> BookSettings().search_tag(), BookSettings(prune=False).search_tag()
        ('p3-c5-t0.16-prune4', 'p3-c5-t0.16')
        """
        return f"p{self.ply}-c{self.candidates}-t{self.threshold!r}{self.prune_tag()}"

    def prune_tag(self) -> str:
        """``"-prune4"`` (the pruning's keep) for a pruned search's files, ``""`` for an unpruned one's
        (the names of the files written before pruning existed)."""
        return f"-prune{PRUNE_KEEP}" if self.prune else ""


def engine_info(evaluator: Evaluator, model_name: str | None = None) -> dict[str, Any]:
    """The engine of ``evaluator`` as a book stores it (:func:`pulvezar.eval.provenance.engine_info`
    in the book's shape: ``"model"`` the model file's name), with the run that trained the net."""
    out = provenance.engine_info(evaluator, model_name).book_json()
    info = getattr(evaluator, "info", None)
    if info is not None:
        run = getattr(info, "run", {}) or {}
        if "name" in run:
            out["model_run"] = f"{run['name']} after {run.get('games_done', '?')} games"
            if "averaged" in run:
                out["model_run"] += f" ({run.get('method', 'weight average')})"
    return out


def same_engine(have: dict[str, Any], want: dict[str, Any]) -> bool:
    """Whether two stored engines are the same net and pulvezar version (their other keys may differ)."""
    a, b = provenance.EngineInfo.from_json(have), provenance.EngineInfo.from_json(want)
    return (a.model_sha256, a.version) == (b.model_sha256, b.version)


# ---- work items -------------------------------------------------------------------


def position_tag(position_id: str) -> str:
    """A Position ID as a file name's part (URL-safe base64: ``/`` and ``+`` become ``_`` and ``-``).

    >>> position_tag("4HPwATDgc/ABMA")
    '4HPwATDgc_ABMA'
    """
    return position_id.replace("/", "_").replace("+", "-")


@dataclass(frozen=True)
class WorkItem:
    """One step of one roll: ``search``, ``chunk`` (trials ``first .. first + n - 1`` of every
    candidate; one file per candidate) or ``replies``."""

    kind: str
    roll: Dice
    first: int = 0
    n: int = 0

    @property
    def trials(self) -> int:
        return self.n

    def chunk_filename(self, position_id: str) -> str:
        """The file of this chunk's trials of the candidate whose play gives ``position_id``."""
        return f"rollout-{roll_name(self.roll)}-{position_tag(position_id)}-{self.first:08d}-{self.n}.npy"

    def describe(self) -> str:
        name = roll_name(self.roll)
        if self.kind == "chunk":
            return f"{name} rollout trials {self.first}..{self.first + self.n - 1}"
        return f"{name} {self.kind}"


@dataclass(frozen=True)
class Progress:
    """Where a run stands: items and trials done of the whole work list, and the item just done."""

    items_done: int
    items_total: int
    trials_done: int
    trials_total: int
    rolls_done: int
    rolls_total: int
    item: WorkItem | None = None
    seconds: float = 0.0
    elapsed_s: float = 0.0
    eta_s: float | None = None

    @property
    def fraction(self) -> float:
        return self.items_done / self.items_total if self.items_total else 1.0


def _atomic_write(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def _probs(p: npt.ArrayLike) -> list[float]:
    return [float(x) for x in np.asarray(p, dtype=np.float64).reshape(5)]


@dataclass
class _Cache:
    search: dict[Dice, dict[str, Any]] = field(default_factory=dict)
    valued: dict[Dice, list[BookCandidate]] = field(default_factory=dict)


class BookGenerator:
    """The generation of one book in a work directory (see the module notes).

    >>> # BookGenerator(BookSettings(variant="tavla", trials=288), "work/tavla").run()
    """

    def __init__(
        self,
        settings: BookSettings,
        workdir: str | Path,
        evaluator: Evaluator | None = None,
        *,
        model_name: str | None = None,
        progress: Callable[[Progress], None] | None = None,
    ) -> None:
        self.settings = settings
        self.workdir = Path(workdir)
        self.evaluator: Evaluator = evaluator if evaluator is not None else default_evaluator()
        self.engine = engine_info(self.evaluator, model_name)
        self.rules = settings.rules
        self.start = Position.start()
        self.progress = progress
        self._cache = _Cache()
        self._manifest()

    # ---- the work directory ------------------------------------------------------
    def _manifest(self) -> None:
        self.workdir.mkdir(parents=True, exist_ok=True)
        path = self.workdir / "manifest.json"
        want: dict[str, Any] = {"settings": self.settings.work_key(), "engine": self.engine}
        if path.exists():
            try:
                have = json.loads(path.read_text())
            except (OSError, ValueError) as e:
                raise BookError(f"{path} is unreadable: {e}", field="workdir") from None
            if have.get("settings") != want["settings"] or not same_engine(
                have.get("engine") or {}, self.engine
            ):
                raise BookError(
                    f"{self.workdir} holds work with other settings or another engine; "
                    "use another work directory",
                    field="workdir",
                )
            self.created = str(have.get("created", ""))
        else:
            self.created = _now()
            want["created"] = self.created
            _atomic_write(path, (json.dumps(want, indent=2, sort_keys=True) + "\n").encode())

    def path(self, item: WorkItem) -> Path:
        """The file of a search item, or of a replies item (the replies to the best play, which must be
        known: its rollout is done)."""
        name = roll_name(item.roll)
        if item.kind == "search":
            return self.workdir / f"search-{name}-{self.settings.search_tag()}.json"
        if item.kind == "replies":
            best = self._best_position_id(item.roll)
            if best is None:
                raise BookError(f"the rollout of {name} is not done", field="roll")
            return self.reply_path(item.roll, best)
        raise ValueError(f"a {item.kind} item has one file per candidate (chunk_path)")

    def reply_path(self, roll: Dice, position_id: str) -> Path:
        """The file of the replies to one play of ``roll`` (by the position after it)."""
        tag = position_tag(position_id)
        prune = self.settings.prune_tag()
        return self.workdir / f"replies-{roll_name(roll)}-{tag}-p{self.settings.reply_ply}{prune}.json"

    def _replied(self, roll: Dice) -> list[str]:
        """The position IDs of the plays of ``roll`` whose replies the settings ask for (best first)."""
        valued = self.valued(roll)
        if valued is None:
            return []
        wanted = valued if self.settings.replies_to == "all" else valued[:1]
        return [c.position_id for c in wanted]

    def chunk_path(self, item: WorkItem, position_id: str) -> Path:
        return self.workdir / item.chunk_filename(position_id)

    def done(self, item: WorkItem) -> bool:
        if item.kind == "replies":
            replied = self._replied(item.roll)
            return bool(replied) and all(self.reply_path(item.roll, pid).exists() for pid in replied)
        if item.kind == "chunk":
            if not self.done(WorkItem("search", item.roll)):
                return False
            return all(self.chunk_path(item, c["position_id"]).exists() for c in self.candidates(item.roll))
        return self.path(item).exists()

    def _load_json(self, item: WorkItem) -> dict[str, Any] | None:
        if item.kind == "replies" and self._best_position_id(item.roll) is None:
            return None
        p = self.path(item)
        if not p.exists():
            return None
        data: dict[str, Any] = json.loads(p.read_text())
        return data

    # ---- the work list -------------------------------------------------------------
    def items(self, roll: Dice | None = None) -> Iterator[WorkItem]:
        """The work list in order: per roll its search, its rollout chunks, its replies."""
        s = self.settings
        for r in s.roll_list if roll is None else (roll,):
            yield WorkItem("search", r)
            for first, n in plan_chunks(s.trials, s.chunk_size):
                yield WorkItem("chunk", r, first, n)
            yield WorkItem("replies", r)

    def _status(self) -> tuple[int, int, int, int, int]:
        items = list(self.items())
        done_items = [i for i in items if i.kind != "replies" and self.done(i)]
        trials_total = sum(i.n for i in items if i.kind == "chunk")
        trials_done = sum(i.n for i in done_items if i.kind == "chunk")
        rolls_done = sum(self.roll_done(r) for r in self.settings.roll_list)
        replies_done = rolls_done  # a roll is done when its replies are
        return len(done_items) + replies_done, len(items), trials_done, trials_total, rolls_done

    def roll_done(self, roll: Dice) -> bool:
        return all(self.done(i) for i in self.items(roll))

    # ---- running -----------------------------------------------------------------------
    def run(self, max_items: int | None = None) -> Book:
        """Do the work that is not done yet (at most ``max_items`` items) and return the book
        (``complete`` when every roll is done; otherwise the rolls done so far)."""
        t0 = time.monotonic()
        budget = max_items
        done_now = 0
        busy = 0.0
        for item in self.items():
            if self.done(item):
                continue
            if budget is not None and done_now >= budget:
                break
            t = time.monotonic()
            self.compute(item)
            seconds = time.monotonic() - t
            done_now += 1
            busy += seconds
            if self.progress is not None:
                self.progress(self._progress(item, seconds, time.monotonic() - t0, busy, done_now))
        return self.book()

    def _progress(self, item: WorkItem, seconds: float, elapsed: float, busy: float, n: int) -> Progress:
        items_done, items_total, trials_done, trials_total, rolls_done = self._status()
        eta = None
        if items_done == items_total:
            eta = 0.0
        elif n:
            eta = busy / n * (items_total - items_done)
        return Progress(
            items_done, items_total, trials_done, trials_total, rolls_done, len(self.settings.roll_list),
            item, seconds, elapsed, eta,
        )  # fmt: skip

    def compute(self, item: WorkItem) -> None:
        """Compute one item and save it."""
        if item.kind == "search":
            data = self.search(item.roll)
            _atomic_write(self.path(item), json.dumps(data, indent=1).encode())
        elif item.kind == "chunk":
            cands = self.candidates(item.roll)
            todo = [i for i, c in enumerate(cands) if not self.chunk_path(item, c["position_id"]).exists()]
            values = self.rollout_chunk(item.roll, item.first, item.n, todo)
            for i, v in zip(todo, values, strict=True):
                buf = io.BytesIO()
                np.save(buf, v, allow_pickle=False)
                _atomic_write(self.chunk_path(item, cands[i]["position_id"]), buf.getvalue())
        elif item.kind == "replies":
            valued = {c.position_id: c for c in self.valued(item.roll) or []}
            for pid in self._replied(item.roll):  # each play's replies saved as they are done
                path = self.reply_path(item.roll, pid)
                if not path.exists():
                    data = best_replies(self.settings, valued[pid], self.evaluator)
                    _atomic_write(path, json.dumps(data, indent=1).encode())
        else:  # pragma: no cover - items() makes only these
            raise ValueError(item.kind)

    # ---- the three steps ----------------------------------------------------------------
    def search(self, roll: Dice) -> dict[str, Any]:
        """The candidates of ``roll`` by the book's search (:func:`search_candidates`)."""
        return search_candidates(self.settings, roll, self.evaluator)

    def candidates(self, roll: Dice) -> list[dict[str, Any]]:
        """The saved candidates of ``roll`` (its search item must be done)."""
        if roll not in self._cache.search:
            data = self._load_json(WorkItem("search", roll))
            if data is None:
                raise BookError(f"the search of {roll_name(roll)} is not done", field="roll")
            self._cache.search[roll] = data
        cands: list[dict[str, Any]] = self._cache.search[roll]["candidates"]
        return cands

    def plays(self, roll: Dice) -> list[Play]:
        return candidate_plays(self.settings, roll, self.candidates(roll))

    def rollout_chunk(
        self, roll: Dice, first: int, n: int, which: list[int] | None = None
    ) -> npt.NDArray[np.float64]:
        """Per-trial values of the candidates (those of index ``which``, default all), shape
        ``(candidates, n, 5)``.  A candidate's trials do not depend on which others roll with it
        (every candidate has the same dice, and each trial's numbers are its own)."""
        s = self.settings
        plays = self.plays(roll)
        if which is not None:
            plays = [plays[i] for i in which]
        results = rollout_plays(
            self.start, roll, plays, trials=n, ply=s.rollout_ply, seed=s.seed,
            variance_reduction=s.variance_reduction, truncate=s.truncate, evaluator=self.evaluator,
            rules=self.rules, first_trial=first, luck=s.luck, prune=s.prune,
        )  # fmt: skip
        return np.stack([r.values for r in results]).astype(np.float64)

    def rollout_results(self, roll: Dice) -> list[RolloutResult] | None:
        """The merged rollout of each candidate, or None while chunks are missing."""
        s = self.settings
        cands = self.candidates(roll)
        parts: list[list[RolloutResult]] = [[] for _ in cands]
        for item in self.items(roll):
            if item.kind != "chunk":
                continue
            ids = np.arange(item.first, item.first + item.n, dtype=np.int64)
            for c, cand in enumerate(cands):
                p = self.chunk_path(item, cand["position_id"])
                if not p.exists():
                    return None
                values = np.load(p, allow_pickle=False)
                parts[c].append(RolloutResult(ids, values, s.seed, self.rules, s.variance_reduction))
        return [RolloutResult.merge(p) for p in parts]

    def valued(self, roll: Dice) -> list[BookCandidate] | None:
        """The candidates of ``roll`` with their book values, best first (None until rolled out)."""
        if roll in self._cache.valued:
            return self._cache.valued[roll]
        if not self.done(WorkItem("search", roll)):
            return None
        results = self.rollout_results(roll)
        if results is None:
            return None
        out = value_candidates(self.candidates(roll), results)
        self._cache.valued[roll] = out
        return out

    def _best_position_id(self, roll: Dice) -> str | None:
        valued = self.valued(roll)
        return None if valued is None else valued[0].position_id

    def replies(self, roll: Dice) -> dict[str, Any]:
        """The opponent's best reply to each of its 21 rolls after the best play of ``roll``."""
        valued = self.valued(roll)
        if valued is None:
            raise BookError(f"the rollout of {roll_name(roll)} is not done", field="roll")
        return best_replies(self.settings, valued[0], self.evaluator)

    # ---- the book ------------------------------------------------------------------------
    def book_roll(self, roll: Dice) -> BookRoll | None:
        valued = self.valued(roll)
        if valued is None:
            return None
        cands = []
        for c in valued:  # each candidate with the replies to it, where they are done
            p = self.reply_path(roll, c.position_id)
            rep = json.loads(p.read_text()) if p.exists() else None
            ask = self.settings.replies_to == "all" or c is valued[0]
            if rep is not None and rep["position_id"] == c.position_id and ask:
                c = replace(c, replies=replies_of(rep))
            cands.append(c)
        return BookRoll(roll_name(roll), roll, tuple(cands), cands[0].replies)

    def book(self) -> Book:
        """The book of what is done: every roll whose rollout and replies are finished."""
        rolls = []
        for r in self.settings.roll_list:
            br = self.book_roll(r)
            if br is not None and br.replies is not None:
                rolls.append(br)
        return assemble(self.settings, self.engine, self.created, rolls)


# ---- the steps, shared by the in-process generator and the distributed job ----------------------


def search_candidates(settings: BookSettings, roll: Dice, evaluator: Evaluator) -> dict[str, Any]:
    """The candidates of ``roll`` by the book's search, as saved: ``{"roll", "ply", "legal_plays",
    "candidates": [{"play", "position_id", "equity", "probabilities"}], "seconds"}``.

    A fresh :class:`~pulvezar.search.Search` (and cache) each time, so that the numbers do not
    depend on what the process evaluated before.
    """
    s = settings
    t = time.monotonic()
    start = Position.start()
    ranked = Search(evaluator, s.rules, prune=s.prune).rank(start, roll, s.ply, s.move_filter())
    deepest = ranked[0].ply
    best = ranked[0].cubeless_equity
    chosen = [c for c in ranked if c.ply == deepest and best - c.cubeless_equity <= s.threshold + 1e-12]
    chosen = chosen[: s.candidates]
    return {
        "roll": roll_name(roll),
        "ply": deepest,
        "legal_plays": len(ranked),
        "candidates": [
            {
                "play": c.notation,
                "position_id": c.play.position.position_id,
                "equity": c.cubeless_equity,
                "probabilities": list(c.probs),
            }
            for c in chosen
        ],
        "seconds": round(time.monotonic() - t, 3),
    }


def candidate_plays(settings: BookSettings, roll: Dice, cands: list[dict[str, Any]]) -> list[Play]:
    """The legal plays of saved candidates (matched by their resulting Position ID)."""
    legal = settings.rules.legal_plays(Position.start(), roll)
    by_pos = {p.position.position_id: p for p in legal}
    try:
        return [by_pos[c["position_id"]] for c in cands]
    except KeyError as e:
        raise BookError(f"{e} is not a legal play of {roll_name(roll)}", field="candidates") from None


def value_candidates(cands: list[dict[str, Any]], results: list[RolloutResult]) -> list[BookCandidate]:
    """Book values of saved candidates and their rollouts, best first: equity = mean of the search
    equity and the rollout equity, probabilities from the rollout, loss against the best."""
    if len(cands) != len(results):
        raise BookError(f"{len(cands)} candidates but {len(results)} rollouts", field="candidates")
    values = [(c["equity"] + r.equity) / 2.0 for c, r in zip(cands, results, strict=True)]
    order = sorted(range(len(cands)), key=lambda i: (-values[i], i))
    best = values[order[0]]
    out = []
    for i in order:
        c, r = cands[i], results[i]
        out.append(
            BookCandidate(
                play=c["play"],
                position_id=c["position_id"],
                equity=round(values[i], 6),
                loss=round(best - values[i], 6),
                search_equity=round(float(c["equity"]), 6),
                rollout_equity=round(r.equity, 6),
                rollout_se=round(r.noise, 6),
                rollout_diff_se=round(difference_noise(results[order[0]], r), 6),
                trials=r.trials,
                probabilities=probs_json(_probs(r.probabilities)),
                search_probabilities=probs_json(c["probabilities"]),
            )
        )
    return out


def best_replies(
    settings: BookSettings,
    best: BookCandidate,
    evaluator: Evaluator,
    tick: Callable[[], None] | None = None,
) -> dict[str, Any]:
    """The opponent's best reply (``reply_ply`` search, normal filter, fresh cache) to each of its
    21 rolls after the play ``best``, as saved; ``tick`` is called after each roll."""
    t = time.monotonic()
    after = Position.from_position_id(best.position_id).swap()  # the opponent on roll
    search = Search(evaluator, settings.rules, prune=settings.prune)
    out = []
    for d in ROLLS:
        c = search.rank(after, d, settings.reply_ply, "normal")[0]
        out.append(
            {
                "roll": roll_name(d),
                "dice": [d[0], d[1]],
                "play": c.notation,
                "equity": round(c.cubeless_equity, 6),
                "probabilities": probs_json(c.probs),
            }
        )
        if tick is not None:
            tick()
    return {
        "play": best.play,
        "position_id": best.position_id,
        "ply": settings.reply_ply,
        "replies": out,
        "seconds": round(time.monotonic() - t, 3),
    }


def replies_of(rep: dict[str, Any]) -> BookReplies:
    """The :class:`BookReplies` of saved replies (:func:`best_replies`)."""
    return BookReplies(
        play=rep["play"],
        position_id=rep["position_id"],
        ply=int(rep["ply"]),
        replies=tuple(
            BookReply(x["roll"], tuple(x["dice"]), x["play"], x["equity"], x["probabilities"])
            for x in rep["replies"]
        ),
    )


def assemble(settings: BookSettings, engine: dict[str, Any], created: str, rolls: list[BookRoll]) -> Book:
    """The book of the finished ``rolls`` (in the settings' order); complete when all are there."""
    order = {r: i for i, r in enumerate(settings.roll_list)}
    done = sorted((r for r in rolls if r.replies is not None), key=lambda r: order[r.dice])
    return Book(
        rules=settings.rules_json(),
        engine=dict(engine),
        settings=settings.to_json(),
        generated=created,
        complete=len(done) == len(settings.roll_list),
        position_id=Position.start().position_id,
        rolls=tuple(done),
    )


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def write_book(book: Book, path: str | Path) -> None:
    """Write ``book`` as JSON (atomically: a reader never sees half a file)."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    _atomic_write(p, (json.dumps(book.to_json(), indent=1, ensure_ascii=False) + "\n").encode())


def generate_book(
    settings: BookSettings,
    workdir: str | Path,
    out: str | Path | None = None,
    *,
    evaluator: Evaluator | None = None,
    progress: Callable[[Progress], None] | None = None,
    max_items: int | None = None,
) -> Book:
    """Generate (or continue generating) a book in ``workdir``; write it to ``out`` after each
    finished roll (``complete: false`` until all are done) and return it."""
    gen = BookGenerator(settings, workdir, evaluator, progress=progress)
    if out is None:
        return gen.run(max_items)
    written = {r.roll for r in gen.book().rolls}

    def on_item(p: Progress) -> None:
        if progress is not None:
            progress(p)
        if p.item is not None and p.item.kind == "replies":
            book = gen.book()
            names = {r.roll for r in book.rolls}
            if names != written:
                write_book(book, out)
                written.clear()
                written.update(names)

    gen.progress = on_item
    book = gen.run(max_items)
    write_book(book, out)
    return book


__all__ = [
    "FULL_TRIALS",
    "BookGenerator",
    "BookSettings",
    "Progress",
    "WorkItem",
    "assemble",
    "best_replies",
    "candidate_plays",
    "engine_info",
    "generate_book",
    "read_book",
    "replies_of",
    "search_candidates",
    "value_candidates",
    "write_book",
]
