"""Rollout jobs: one position (:meth:`JobStore.submit_rollout`) or many (:meth:`JobStore.submit_batch`).

Each position is an *item* (:mod:`services.jobs.rollout_items`), rolled out as a whole, as candidate
plays of a roll, or as its cube decision (``kind: "cube"``: no double and double/take, chunk values
``(2, trials, ...)``).  At submission every item's trials are cut into chunks on the fixed grid of
:func:`pulvezar.rollouts.chunks.plan_chunks`, cut further to about ``chunk_seconds`` of work
(:meth:`JobStore.plan`), and one chunk task per chunk goes to the queue of the job's priority.
The keys are :class:`~services.jobs.chunked.ChunkedJobs`' under ``job:{id}:``, and

``job:{id}:chunks``     list, entry ``n`` = JSON ``[item, first_trial, trials]`` of chunk ``n``, or
                        ``[item, first_trial, trials, c0, c1]`` when candidate plays are cut by
                        candidates too; ``first_trial`` off the grid where trials were cut
                        (a list, so that :meth:`JobStore.extend` appends chunks atomically)

A chunk's record holds its values (:mod:`services.jobs.rollout_report`); :meth:`JobStore.status` merges
the records that exist, so a chunk that ran twice is counted once, with the same numbers either time.
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from redis.exceptions import WatchError

from pulvezar.rollouts.chunks import plan_chunks
from pulvezar.rollouts.stats import RolloutResult
from services.jobs.broker import CHUNK_TASK
from services.jobs.chunked import ChunkedJobs, timing
from services.jobs.errors import InvalidJob, JobNotFound, JobStateError, text
from services.jobs.provenance import job_provenance
from services.jobs.rollout_items import PRIORITIES, chunk_cut, integer, item_cost, normalise_item
from services.jobs.rollout_report import Chunk, chunk_results, summarize
from services.jobs.settings import QUEUES, RolloutSettings
from services.jobs.states import JobState

__all__ = ["InvalidJob", "JobNotFound", "JobStateError", "JobStore"]

#: what a submission calls with the job's estimated core-seconds before anything is recorded (raising
#: refuses the job): the gateway's admission (:class:`services.gateway.security.Admission`)
Admit = Callable[[float], None]


def _work(c: Chunk) -> int:
    """A chunk's work: its trials times its candidates (1 when not cut by candidates)."""
    return c.trials * (c.candidates[1] - c.candidates[0] if c.candidates else 1)


class JobStore(ChunkedJobs):
    """Rollout and batch jobs; chunks are run by the workers' chunk task (:mod:`services.rollout.tasks`)."""

    namespace = "job"
    task = CHUNK_TASK
    kinds = ("rollout", "batch")
    noun = "rollout"

    def __init__(
        self, redis_client: Any, app: Any = None, settings: RolloutSettings | None = None, records: Any = None
    ) -> None:
        super().__init__(redis_client, app, settings, records)
        self.chunk_size = self.settings.chunk_size

    @classmethod
    def chunks_key(cls, job_id: str) -> str:
        return cls.key(job_id, "chunks")

    # ---- submission ----------------------------------------------------
    def submit_rollout(
        self,
        params: dict[str, Any],
        priority: str = "interactive",
        owner: str | None = None,
        admit: Admit | None = None,
    ) -> str:
        """Queue a rollout of one position; returns the job id.

        ``params``: exactly one of ``position`` (Position ID or XGID), ``position_id``, ``xgid``;
        ``trials`` (required); optional ``seed`` (1), ``variance_reduction`` (true), ``luck``
        (``"screened"`` or ``"full"``: how variance reduction values the 21 rolls), ``truncate``
        (half-moves, none), ``rules`` (``"international"``, ``"tavla"`` or
        ``{"variant": "tavla", "hit_and_stop": bool, "must_bear_off": bool}``), ``dice`` ([3, 1] or
        "31"; an XGID's own dice count when absent) and ``plays`` (notation; with dice and no plays,
        every legal play is a candidate), ``ply`` (0..2: how each trial's plays are chosen, 0) and
        ``cubeful`` (false; true plays the cube in the trials and reports ``cubeful_equity``, per
        cube normalised to the starting cube, EMG in a match) with ``cube`` (``{"value",
        "owner": centre|player|opponent, "match_length" (0 = money), "score", "opponent_score",
        "crawford", "jacoby", "beaver"}`` as the player on roll sees it; centred money by
        default).  ``kind: "cube"`` rolls out the cube decision of the position before the roll
        instead (no dice or plays; ``cube`` as above; always cubeful): the report gives the action,
        ``nd``, ``dt``, ``dp``, their noise and the costs.  ``admit``: called with the job's estimated
        core-seconds (:meth:`estimate`) before it is recorded.  Raises :class:`InvalidJob`.
        """
        item = normalise_item(params, self.settings)
        return self._submit("rollout", [item], priority, owner, admit)

    @staticmethod
    def estimate(items: Sequence[Mapping[str, Any]]) -> float:
        """The estimated core-seconds of a job of checked ``items`` (:func:`item_cost` of each)."""
        return sum(item_cost(item) for item in items)

    def estimate_rollout(self, params: dict[str, Any]) -> float:
        """What :meth:`submit_rollout` of ``params`` would be charged, in core-seconds."""
        return self.estimate([normalise_item(params, self.settings)])

    def estimate_batch(
        self, positions: list[dict[str, Any]], defaults: dict[str, Any] | None = None
    ) -> float:
        """What :meth:`submit_batch` of ``positions`` would be charged, in core-seconds."""
        return self.estimate(self._batch_items(positions, defaults))

    def submit_batch(
        self,
        positions: list[dict[str, Any]],
        priority: str = "batch",
        defaults: dict[str, Any] | None = None,
        owner: str | None = None,
        admit: Admit | None = None,
    ) -> str:
        """Queue rollouts of many positions as one job; results come per position, in order.

        Each entry of ``positions`` takes the parameters of :meth:`submit_rollout`; ``defaults``
        fills the ones an entry leaves out (e.g. ``{"trials": 1296, "truncate": 11}``).
        """
        return self._submit("batch", self._batch_items(positions, defaults), priority, owner, admit)

    def _batch_items(
        self, positions: list[dict[str, Any]], defaults: dict[str, Any] | None
    ) -> list[dict[str, Any]]:
        if not isinstance(positions, list | tuple) or not positions:
            raise InvalidJob("positions", "a non-empty list of positions is required")
        if len(positions) > self.settings.max_positions:
            raise InvalidJob("positions", f"at most {self.settings.max_positions} positions per batch")
        base = dict(defaults or {})
        items = []
        for i, p in enumerate(positions):
            if not isinstance(p, Mapping):
                raise InvalidJob(f"positions[{i}]", f"an object is required, got {type(p).__name__}")
            merged = {**base, **p}
            if any(k in p for k in ("position", "position_id", "xgid")):
                for k in ("position", "position_id", "xgid"):
                    if k not in p:
                        merged.pop(k, None)
            items.append(normalise_item(merged, self.settings, f"positions[{i}]."))
        return items

    def _submit(
        self,
        kind: str,
        items: list[dict[str, Any]],
        priority: str,
        owner: str | None = None,
        admit: Admit | None = None,
    ) -> str:
        if priority not in QUEUES:
            raise InvalidJob("priority", f"one of {', '.join(PRIORITIES)}, got {priority!r}")
        chunks = [
            c for i, item in enumerate(items) for c in self.plan(i, item, 0, item["trials"], self.chunk_size)
        ]
        if len(chunks) > self.settings.max_chunks:
            raise InvalidJob(
                "trials", f"the job would have {len(chunks)} chunks, at most {self.settings.max_chunks}"
            )
        if admit is not None:
            admit(self.estimate(items))
        job_id = secrets.token_hex(12)
        spec = {
            "id": job_id,
            "kind": kind,
            "priority": priority,
            "chunk_size": self.chunk_size,
            "created": time.time(),
            "items": items,
        }
        if self.records is not None:  # accepted once it is in the system of record (StoreUnavailable: 503)
            self.records.create(
                job_id, kind, spec, owner=owner, priority=priority, chunk_list=chunks, created=spec["created"]
            )
        self.write(job_id, spec, [Chunk.of(n, c) for n, c in enumerate(chunks)], {})
        self.enqueue(job_id, priority, range(len(chunks)), owner=owner)
        return job_id

    def plan(
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

    def write(
        self, job_id: str, spec: dict[str, Any], chunks: list[Chunk], records: Mapping[int, Mapping[str, Any]]
    ) -> None:
        """Write a job's keys to Redis: its spec, chunk list and the finished chunks' records (a new job,
        or one that Redis lost, from the durable store)."""
        ttl = self.settings.job_ttl_s
        pipe = self.redis.pipeline(transaction=True)
        pipe.set(self.spec_key(job_id), json.dumps(spec), ex=ttl)
        pipe.delete(self.chunks_key(job_id))
        pipe.rpush(self.chunks_key(job_id), *(json.dumps(c.stored()) for c in chunks))
        pipe.expire(self.chunks_key(job_id), ttl)
        self.write_once(pipe, job_id, records)
        pipe.execute()

    def restore(self, job_id: str, row: Any) -> None:
        chunks = [Chunk.of(n, c) for n, c in enumerate(row.chunk_list or [])]
        self.write(job_id, dict(row.spec), chunks, self.records.chunks(job_id))

    # ---- reading -------------------------------------------------------
    def chunks(self, job_id: str) -> list[Chunk]:
        raw = self.redis.lrange(self.chunks_key(job_id), 0, -1)
        return [Chunk.of(n, json.loads(text(r) or "null")) for n, r in enumerate(raw)]

    def chunk_count(self, job_id: str, spec: Mapping[str, Any]) -> int:
        """The length of the chunk list (Redis's, else the durable store's), without reading the records."""
        if self.redis.exists(self.spec_key(job_id)):
            return int(self.redis.llen(self.chunks_key(job_id)))
        row = self.row(job_id)
        if row is None:
            raise self.not_found(job_id)
        return len(row.chunk_list or [])

    def job_keys(self, job_id: str, spec: Mapping[str, Any]) -> list[str]:
        return [self.chunks_key(job_id)]

    def _gather(self, job_id: str) -> tuple[dict[str, Any], list[Chunk], list[dict[str, Any] | None]]:
        """The spec, the chunks and their records (None: not finished), from Redis or, when Redis lost
        the job, from the durable store."""
        raw = text(self.redis.get(self.spec_key(job_id)))
        if raw is None:
            row = self.row(job_id)
            if row is None:
                raise self.not_found(job_id)
            chunks = [Chunk.of(n, c) for n, c in enumerate(row.chunk_list or [])]
            stored = self.records.chunks(job_id)
            return dict(row.spec), chunks, [stored.get(c.n) for c in chunks]
        chunks = self.chunks(job_id)
        found = self.records_of(job_id, [c.n for c in chunks])
        return json.loads(raw), chunks, [found.get(c.n) for c in chunks]

    def rollout_results(self, job_id: str) -> list[list[RolloutResult]]:
        """The library's results of the finished chunks, per item: ``[result]`` or one per candidate."""
        spec, chunks, records = self._gather(job_id)
        return [
            chunk_results(item, [r for c, r in zip(chunks, records, strict=True) if r and c.item == i])
            for i, item in enumerate(spec["items"])
        ]

    def state(self, job_id: str) -> tuple[str, str | None]:
        _spec, chunks, records = self._gather(job_id)
        return self.state_of(job_id, sum(r is not None for r in records), 0, len(chunks))

    def status(self, job_id: str) -> dict[str, Any]:
        """State, progress, ETA and the results so far.

        ``{"job_id", "kind", "priority", "state": queued|running|done|cancelled|failed, "error",
        "trials_done", "trials_total", "chunks_done", "chunks_total", "progress" (0..1),
        "eta_s" (None until a chunk is done, 0 when finished), "elapsed_s", "results": [per
        position: {"position", "position_id", "trials", "equity", "se", "probabilities"} or, with
        dice, {..., "dice", "candidates": [{"play", "position_id", "trials", "equity", "se", ...}]}]}``
        """
        spec, chunks, records = self._gather(job_id)
        return self._report(job_id, spec, chunks, records, full=False)

    def result(self, job_id: str) -> dict[str, Any] | None:
        """The final report (as :meth:`status`, with halves, per-probability errors and, for
        candidate plays, each one's difference to the best with its noise and whether it is
        ``playable``), or None while the job is not done (also when cancelled or failed)."""
        spec, chunks, records = self._gather(job_id)
        if not chunks or any(r is None for r in records):
            return None
        report = self._report(job_id, spec, chunks, records, full=True)
        return report if report["state"] == JobState.DONE else None

    def _report(
        self,
        job_id: str,
        spec: dict[str, Any],
        chunks: list[Chunk],
        records: list[dict[str, Any] | None],
        full: bool,
    ) -> dict[str, Any]:
        finished = [(c, r) for c, r in zip(chunks, records, strict=True) if r is not None]
        # a range of trials counts once all of its candidate groups are done; progress and the ETA
        # count trial-candidates (a chunk's work)
        ranges: dict[tuple[int, int], list[bool]] = {}
        for c, r in zip(chunks, records, strict=True):
            ranges.setdefault((c.item, c.first), []).append(r is not None)
        trials_of = {(c.item, c.first): c.trials for c in chunks}
        trials_total = sum(trials_of.values())
        trials_done = sum(trials_of[k] for k, done in ranges.items() if all(done))
        work_total = sum(_work(c) for c in chunks)
        work_done = sum(_work(c) for c, _ in finished)
        state, error = self.state_of(job_id, len(finished), 0, len(chunks))
        eta, elapsed = timing([r for _, r in finished], work_done, work_total - work_done, state)
        results = []
        for i, item in enumerate(spec["items"]):
            mine = [r for c, r in finished if c.item == i]
            results.append(summarize(item, chunk_results(item, mine), full))
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
            **job_provenance(records),
            "results": results,
        }

    # ---- changing --------------------------------------------------------
    def extend(self, job_id: str, more_trials: int, admit: Admit | None = None) -> None:
        """Add ``more_trials`` trials to every position of the job, continuing its trial numbers
        (trial ``T`` onwards after ``T`` trials), and queue their chunks.  A finished job becomes
        running again; a cancelled or failed one cannot be extended (:class:`JobStateError`).
        ``admit``: called with the added trials' estimated core-seconds before anything changes."""
        more = integer(more_trials, "more_trials", 1, self.settings.max_trials)
        if self.records is not None and not self.redis.exists(self.spec_key(job_id)):
            self.rehydrate(job_id)  # Redis lost it: back first, so that the new chunks follow the old
        spec = self.spec(job_id)
        if self.redis.exists(self.cancel_key(job_id)) or self.redis.exists(self.error_key(job_id)):
            raise JobStateError(f"job {job_id} was cancelled or failed; it cannot be extended")
        if admit is not None:
            admit(sum(item_cost(item, more) for item in spec["items"]))
        key = self.chunks_key(job_id)
        with self.redis.pipeline(transaction=True) as pipe:
            while True:  # optimistic: retry if another extend changed the chunk list meanwhile
                try:
                    pipe.watch(key)
                    existing = [
                        Chunk.of(n, json.loads(text(r) or "null"))
                        for n, r in enumerate(pipe.lrange(key, 0, -1))
                    ]
                    ends = [0] * len(spec["items"])
                    for c in existing:
                        ends[c.item] = max(ends[c.item], c.first + c.trials)
                    if max(e for e in ends) + more > self.settings.max_trials:
                        raise InvalidJob(
                            "more_trials", f"a position has at most {self.settings.max_trials} trials"
                        )
                    new = [
                        c
                        for i, item in enumerate(spec["items"])
                        for c in self.plan(i, item, ends[i], more, spec["chunk_size"])
                    ]
                    if len(existing) + len(new) > self.settings.max_chunks:
                        raise InvalidJob(
                            "more_trials", f"the job would have more than {self.settings.max_chunks} chunks"
                        )
                    pipe.multi()
                    pipe.rpush(key, *(json.dumps(c) for c in new))
                    pipe.expire(key, self.settings.job_ttl_s)
                    pipe.expire(self.spec_key(job_id), self.settings.job_ttl_s)
                    pipe.execute()
                    break
                except WatchError:
                    continue
        if self.records is not None:  # the longer chunk list is accepted once it is stored
            self.records.reopen(job_id, [c.stored() for c in existing] + new)
        self.enqueue(job_id, spec["priority"], range(len(existing), len(existing) + len(new)))
