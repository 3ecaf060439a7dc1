"""Rollout jobs as a job kind: one position (:class:`Rollouts`, ``rollout``); many positions as one job are
its subclass :class:`~services.jobs.kinds.batch.BatchRollouts` (``batch``).

Each position is an *item* (:mod:`services.jobs.rollout_items`), rolled out as a whole, as candidate
plays of a roll, or as its cube decision (``kind: "cube"``: no double and double/take, chunk values
``(2, trials, ...)``).  At submission every item's trials are cut into chunks on the fixed grid of
:func:`pulvezar.rollouts.chunks.plan_chunks`, cut further to about ``chunk_seconds`` of work
(:meth:`Rollouts.plan_item`); chunk ``n`` of the spec's ``chunks`` is ``[item, first_trial, trials]``, or
``[item, first_trial, trials, c0, c1]`` when candidate plays are cut by candidates too.  ``extend`` (the
``Extension`` hook) appends the chunks of more trials, continuing each item's trial numbers.

Both kinds keep the Redis keys (``job:{id}:``), the durable store's row kinds and the wire format of the
rollout service before the job framework: their routes are written by hand
(:mod:`services.gateway.routers.rollouts`), and either kind's store reads a job of the other.  A chunk's
record holds its values (:mod:`services.jobs.rollout_report`); a chunk that fails after its retries fails
the job at once (``fail_fast``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Annotated, Any, ClassVar

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, StrictInt, model_validator

from pulvezar.eval.evaluator import Evaluator
from pulvezar.rollouts import rollout, rollout_cube, rollout_plays
from pulvezar.rollouts.chunks import plan_chunks
from pulvezar.rollouts.stats import RolloutResult
from pulvezar.search.hint import searcher
from services.common.schemas import MAX_BATCH_POSITIONS, MAX_TRIALS, Priority
from services.jobs.chunked import timing
from services.jobs.errors import InvalidJob, text
from services.jobs.kind import JobKind, JobRequest
from services.jobs.provenance import job_provenance
from services.jobs.rollout_items import (
    Item,
    ItemParams,
    StoredItem,
    chunk_cut,
    item_cost,
    normalise_item,
    trial_seconds,
)
from services.jobs.rollout_models import RolloutReport
from services.jobs.rollout_report import Chunk, chunk_results, encode_values, summarize
from services.jobs.states import JobState

Record = Mapping[str, Any]
#: what a submission calls with the job's estimated core-seconds before anything is recorded (raising
#: refuses the job): the gateway's admission (:class:`services.gateway.security.Admission`)
Admit = Callable[[float], None]


# ---- the requests the kinds take: the gateway's bodies (services.common.schemas, validated there) as
# services.gateway.services.rollouts translates them, and the services' own jobs (a book's batch) ----


class RolloutParams(ItemParams, JobRequest):
    """One position's rollout as the kind takes it: the item's parameters, checked by pydantic
    (:class:`~services.jobs.rollout_items.ItemParams`; the library reads the position, plays, rules and
    cube: :func:`~services.jobs.rollout_items.normalise_item`), and the priority."""

    priority: Priority = "interactive"


_POSITION_KEYS = ("position", "position_id", "xgid")


class BatchParams(JobRequest):
    """Many positions' rollouts: each entry takes :class:`RolloutParams`' parameters; ``defaults`` fills
    the ones an entry leaves out (e.g. ``{"trials": 1296, "truncate": 11}``)."""

    positions: Annotated[list[ItemParams], Field(min_length=1, max_length=MAX_BATCH_POSITIONS)] = Field(
        description="the positions' parameters"
    )
    defaults: dict[str, Any] | None = None
    priority: Priority = "batch"

    @model_validator(mode="before")
    @classmethod
    def _defaults(cls, data: Any) -> Any:
        """Each entry over the defaults (an entry that names its position drops the defaults' one), so
        that pydantic checks it once, naming ``positions[i].field``."""
        if not isinstance(data, Mapping) or not isinstance(data.get("defaults"), Mapping):
            return data
        base, positions = dict(data["defaults"]), data.get("positions")
        if not isinstance(positions, list):
            return data
        merged = []
        for p in positions:
            if isinstance(p, Mapping):
                drop = any(k in p for k in _POSITION_KEYS)
                p = {**{k: v for k, v in base.items() if not (drop and k in _POSITION_KEYS)}, **p}
            merged.append(p)
        return {**data, "positions": merged}


class MoreTrials(BaseModel):
    """What ``extend`` adds: trials to every position of the job (the schemas' limit)."""

    model_config = ConfigDict(extra="forbid")

    more_trials: Annotated[StrictInt, Field(ge=1, le=MAX_TRIALS)]


def compute_chunk(
    item: Item, first: int, trials: int, ev: Evaluator, candidates: tuple[int, int] | None = None
) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any] | None]:
    """Values of trials ``first .. first + trials - 1`` of ``item``: shape (candidates or 1, trials, 5),
    and, for a cubeful item, the cubeful equities, shape (candidates or 1, trials).  ``candidates``:
    only candidate plays ``c0 .. c1 - 1`` (a chunk cut by candidates).

    A cube item's chunk holds its branches in the first axis: no double, then double/take where
    the player on roll may double (:func:`~pulvezar.rollouts.rollout_cube`).

    A deeper than 0-ply chunk starts with an empty search cache (:func:`~pulvezar.search.hint.searcher`
    of ``ev``): the net's last bits depend on the batch a board is evaluated in, so values cached by
    another chunk would make a chunk's numbers depend on what its process ran before.  Its search prunes
    the replies as the item says (:attr:`~services.jobs.rollout_items.Item.prune`).
    """
    opts = item.options(ev)
    if item.ply > 0:
        searcher(ev, item.rules, item.prune).cache.clear()
    if item.kind == "cube":
        cr = rollout_cube(
            item.cube_state(), trials=trials, first_trial=first, seed=item.seed, ply=item.ply,
            variance_reduction=item.variance_reduction, truncate=item.truncate, evaluator=ev, luck=item.luck,
            prune=item.prune,
        )  # fmt: skip
        results = [cr.no_double] + ([cr.double_take] if cr.double_take is not None else [])
    elif item.plays is None:
        results = [rollout(item.position, trials=trials, first_trial=first, **opts)]
    else:
        assert item.dice is not None
        plays = list(item.plays) if candidates is None else list(item.plays)[candidates[0] : candidates[1]]
        results = rollout_plays(item.position, item.dice, plays, trials=trials, first_trial=first, **opts)
    values = np.stack([r.values for r in results])
    if results[0].cubeful is None:
        return values, None
    return values, np.stack([r.cubeful for r in results if r.cubeful is not None])


def _work(c: Chunk) -> int:
    """A chunk's work: its trials times its candidates (1 when not cut by candidates)."""
    return c.trials * (c.candidates[1] - c.candidates[0] if c.candidates else 1)


def _finished(record: Record | None) -> bool:
    return record is not None and "error" not in record


#: a chunk: ``[item, first, trials]`` or ``[item, first, trials, c0, c1]`` (:class:`Chunk`)
RolloutChunk = list[int]


class Rollouts(JobKind[RolloutParams | BatchParams, RolloutChunk, dict[str, Any], dict[str, Any]]):
    """A rollout of one position (``POST /v1/rollouts``)."""

    name = "rollout"
    route = "rollouts"
    summary = "a rollout of one position, its candidate plays or its cube decision"
    noun = "rollout"
    namespace = "job"
    kinds: ClassVar[tuple[str, ...]] = ("rollout", "batch")
    Request: type[RolloutParams | BatchParams] = RolloutParams
    Report = RolloutReport
    Extension = MoreTrials
    fail_fast = True
    own_routes = True
    # a job over the chunk cap has too many trials (as before the kinds: the public API's field)
    chunk_cap_field, extension_cap_field = "trials", "more_trials"

    # ---- planning -----------------------------------------------------------------
    def items(self, request: RolloutParams | BatchParams) -> list[StoredItem]:
        """The request's checked items (:class:`InvalidJob` naming the field)."""
        assert isinstance(request, RolloutParams)
        return [normalise_item(request)]

    def plan(self, request: RolloutParams | BatchParams) -> tuple[dict[str, Any], list[RolloutChunk]]:
        items = self.items(request)
        size = self.settings.chunk_size
        chunks = [c for i, item in enumerate(items) for c in self.plan_item(i, item, 0, item["trials"], size)]
        return {"chunk_size": size, "items": items}, chunks

    def plan_item(
        self, i: int, item: Mapping[str, Any], first_trial: int, trials: int, chunk_size: int
    ) -> list[list[int]]:
        """Item ``i``'s chunks for trials ``first_trial ..``: on the fixed grid of trials, and cut further
        where a grid chunk would take much longer than ``chunk_seconds`` (:func:`chunk_cut`): candidate
        plays by groups (each run of trials' groups together, so that the candidates advance side by
        side), and a candidate or position that alone is too slow (1 ply) by shorter runs of trials.  A
        trial's values depend on neither the other candidates nor the other trials of its chunk (the C
        evaluator values each board on its own; dice follow ``(seed, trial)``), so no cut changes a bit."""
        out: list[list[int]] = []
        for first, n in plan_chunks(trials, chunk_size, first_trial):
            step, groups = chunk_cut(item, n, self.settings.chunk_seconds)
            for start in range(first, first + n, step):
                length = min(step, first + n - start)
                if groups is None:
                    out.append([i, start, length])
                else:
                    out += [[i, start, length, c0, c1] for c0, c1 in groups]
        return out

    def chunk_limit(self) -> int:
        """The settings' cap, the one place it is checked (:meth:`JobKind.submit`, :meth:`JobKind.extend`)."""
        return self.settings.max_chunks

    @classmethod
    def cost(cls, spec: Mapping[str, Any]) -> float:
        """The items' estimated core-seconds (:func:`~services.jobs.rollout_items.item_cost` of each)."""
        return sum(item_cost(item) for item in spec["items"])

    @classmethod
    def chunk_cost(cls, spec: Mapping[str, Any], chunk: RolloutChunk) -> float:
        item, c = spec["items"][chunk[0]], Chunk.of(0, chunk)
        if c.candidates is None:
            return item_cost(item, c.trials)
        return trial_seconds(item) * c.trials * (c.candidates[1] - c.candidates[0])

    @classmethod
    def work(cls, spec: Mapping[str, Any], chunk: RolloutChunk) -> float:
        return float(_work(Chunk.of(0, chunk)))

    def extension(self, spec: Mapping[str, Any], extension: Any) -> tuple[list[RolloutChunk], float]:
        """``more_trials`` more trials for every position, continuing its trial numbers (trial ``T``
        onwards after ``T`` trials)."""
        more = extension.more_trials
        chunks = [Chunk.of(n, c) for n, c in enumerate(spec["chunks"])]
        ends = [0] * len(spec["items"])
        for c in chunks:
            ends[c.item] = max(ends[c.item], c.first + c.trials)
        if max(ends) + more > MAX_TRIALS:
            raise InvalidJob("more_trials", f"a position has at most {MAX_TRIALS} trials")
        new = [
            c
            for i, item in enumerate(spec["items"])
            for c in self.plan_item(i, item, ends[i], more, spec["chunk_size"])
        ]
        return new, sum(item_cost(item, more) for item in spec["items"])

    @classmethod
    def example(cls) -> dict[str, Any]:
        # a race (88 pips against 111): its trials end in a few rolls
        return {"position": "cHfuAAC4ezcAAA", "trials": 72, "dice": [6, 4], "plays": ["8/4 8/2", "8/2 6/2"]}

    # ---- the worker's side ----------------------------------------------------------
    @classmethod
    def compute(cls, spec: Mapping[str, Any], chunk: RolloutChunk, evaluator: Any) -> dict[str, Any]:
        index, first, trials, *cut = chunk
        candidates = (cut[0], cut[1]) if cut else None
        values, cubeful = compute_chunk(Item.of(spec["items"][index]), first, trials, evaluator, candidates)
        return {
            "item": index,
            "first": first,
            "trials": trials,
            **({"candidates": list(candidates)} if candidates else {}),
            **encode_values(values),
            **({"cubeful": encode_values(cubeful)} if cubeful is not None else {}),
        }

    @classmethod
    def log_fields(cls, spec: Mapping[str, Any], chunk: RolloutChunk) -> dict[str, Any]:
        return {"first": chunk[1], "trials": chunk[2]}

    @classmethod
    def trials_of(cls, record: Mapping[str, Any]) -> int:
        return int(record.get("trials", 0))

    # ---- jobs written before rollouts were a kind --------------------------------------
    @classmethod
    def legacy_chunks_key(cls, job_id: str) -> str:
        """Where a job written before rollouts were a kind keeps its chunk list (a Redis list)."""
        return cls.key(job_id, "chunks")

    @classmethod
    def stored_spec(cls, r: Any, job_id: str, raw: str) -> dict[str, Any]:
        spec = super().stored_spec(r, job_id, raw)
        if "chunks" not in spec:  # written by the rollout store before the kinds: its list key
            spec["chunks"] = [
                json.loads(text(c) or "null") for c in r.lrange(cls.legacy_chunks_key(job_id), 0, -1)
            ]
        return spec

    def job_keys(self, job_id: str, spec: Mapping[str, Any]) -> list[str]:
        return [self.legacy_chunks_key(job_id)]

    # ---- reading ----------------------------------------------------------------------
    def state(self, job_id: str) -> tuple[JobState, str | None]:
        _spec, records = self.gather(job_id)
        done = sum(_finished(r) for r in records)
        return self.state_of(job_id, done, sum(r is not None for r in records) - done, len(records))

    def rollout_results(self, job_id: str) -> list[list[RolloutResult]]:
        """The library's results of the finished chunks, per item: ``[result]`` or one per candidate."""
        spec, records = self.gather(job_id)
        chunks = [Chunk.of(n, c) for n, c in enumerate(spec["chunks"])]
        done = [(c, r) for c, r in zip(chunks, records, strict=True) if r is not None and "error" not in r]
        return [
            chunk_results(item, [r for c, r in done if c.item == i]) for i, item in enumerate(spec["items"])
        ]

    def status(self, job_id: str) -> dict[str, Any]:
        """State, progress, ETA and the results so far (:class:`~services.jobs.rollout_models.RolloutReport`:
        per position its trials, equity, noise and probabilities, with candidate plays or the cube
        decision where the item has them)."""
        spec, records = self.gather(job_id)
        return self._report(job_id, spec, records, full=False)

    def result(self, job_id: str) -> dict[str, Any] | None:
        """The final report (as :meth:`status`, with halves, per-probability errors and, for candidate
        plays, each one's difference to the best with its noise and whether it is ``playable``), or None
        while the job is not done (also when cancelled or failed)."""
        spec, records = self.gather(job_id)
        if not records or not all(_finished(r) for r in records):
            return None
        report = self._report(job_id, spec, records, full=True)
        return report if report["state"] == JobState.DONE else None

    def _report(
        self, job_id: str, spec: Mapping[str, Any], records: Sequence[Record | None], full: bool
    ) -> dict[str, Any]:
        chunks = [Chunk.of(n, c) for n, c in enumerate(spec["chunks"])]
        finished = [(c, r) for c, r in zip(chunks, records, strict=True) if r is not None and _finished(r)]
        # a range of trials counts once all of its candidate groups are done; progress and the ETA
        # count trial-candidates (a chunk's work)
        ranges: dict[tuple[int, int], list[bool]] = {}
        for c, r in zip(chunks, records, strict=True):
            ranges.setdefault((c.item, c.first), []).append(_finished(r))
        trials_of = {(c.item, c.first): c.trials for c in chunks}
        trials_total = sum(trials_of.values())
        trials_done = sum(trials_of[k] for k, done in ranges.items() if all(done))
        work_total = sum(_work(c) for c in chunks)
        work_done = sum(_work(c) for c, _ in finished)
        failed = sum(r is not None for r in records) - len(finished)
        state, error = self.state_of(job_id, len(finished), failed, len(chunks))
        eta, elapsed = timing([r for _, r in finished], work_done, work_total - work_done, state)
        results = [
            summarize(item, chunk_results(item, [r for c, r in finished if c.item == i]), full)
            for i, item in enumerate(spec["items"])
        ]
        return {
            "job_id": job_id,
            "kind": spec["kind"],
            "priority": spec["priority"],
            "state": state,
            "error": error,
            "trials_done": trials_done,
            "trials_total": trials_total,
            "chunks_done": len(finished),
            "chunks_total": len(chunks),
            "progress": work_done / work_total if work_total else 0.0,
            "eta_s": eta,
            "elapsed_s": elapsed,
            "positions": len(spec["items"]),
            "created": spec["created"],
            **job_provenance(list(records)),
            "results": results,
        }

    @classmethod
    def report(cls, spec: Mapping[str, Any], records: Sequence[Record | None]) -> dict[str, Any]:
        """Unused: a rollout's status is its own (:meth:`status`), not the route factory's."""
        raise NotImplementedError("a rollout job's status is Rollouts.status")


KIND = Rollouts
