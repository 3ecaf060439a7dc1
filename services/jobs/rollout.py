"""The rollout store's interface before the job kinds (:class:`JobStore`), over the two kinds that now hold
rollouts: :class:`~services.jobs.kinds.rollout.Rollouts` and
:class:`~services.jobs.kinds.batch.BatchRollouts`.

Nothing is computed or stored here: each method calls the kind (the same Redis keys, durable rows, chunk
task and report).  It remains for the callers not yet moved to the kinds (the gateway's
:class:`services.gateway.jobs.Jobs`, the book driver, benches and tests); a new caller uses the kinds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from services.jobs.errors import InvalidJob, JobNotFound, JobStateError
from services.jobs.kind import checked
from services.jobs.kinds.batch import BatchRollouts
from services.jobs.kinds.rollout import Admit, Rollouts
from services.jobs.rollout_items import item_cost
from services.jobs.rollout_report import Chunk
from services.jobs.settings import RolloutSettings

__all__ = ["InvalidJob", "JobNotFound", "JobStateError", "JobStore"]


class JobStore(Rollouts):
    """Rollout and batch jobs by the store's old calls; a job of either kind is read by either."""

    def __init__(
        self, redis_client: Any, app: Any = None, settings: RolloutSettings | None = None, records: Any = None
    ) -> None:
        super().__init__(redis_client, app, settings, records)
        self.batches = BatchRollouts(redis_client, app=self.app, settings=self.settings, records=records)
        self.chunk_size = self.settings.chunk_size

    def submit_rollout(
        self,
        params: Mapping[str, Any],
        priority: str = "interactive",
        owner: str | None = None,
        admit: Admit | None = None,
    ) -> str:
        """:meth:`Rollouts.submit` of one position's parameters
        (:func:`~services.jobs.rollout_items.normalise_item`)."""
        return self.submit({**params, "priority": priority}, owner, admit)

    def submit_batch(
        self,
        positions: list[dict[str, Any]],
        priority: str = "batch",
        defaults: dict[str, Any] | None = None,
        owner: str | None = None,
        admit: Admit | None = None,
    ) -> str:
        """:meth:`BatchRollouts.submit` of many positions' parameters, ``defaults`` filling the ones an
        entry leaves out."""
        body = {"positions": positions, "defaults": defaults, "priority": priority}
        return self.batches.submit(body, owner, admit)

    @staticmethod
    def estimate_items(items: Sequence[Mapping[str, Any]]) -> float:
        """The estimated core-seconds of a job of checked ``items``."""
        return sum(item_cost(item) for item in items)

    def estimate_rollout(self, params: Mapping[str, Any]) -> float:
        """What :meth:`submit_rollout` of ``params`` would be charged, in core-seconds."""
        return self.estimate_items(self.items(checked(self.Request, params)))

    def estimate_batch(
        self, positions: list[dict[str, Any]], defaults: dict[str, Any] | None = None
    ) -> float:
        """What :meth:`submit_batch` of ``positions`` would be charged, in core-seconds."""
        body = checked(self.batches.Request, {"positions": positions, "defaults": defaults})
        return self.estimate_items(self.batches.items(body))

    def extend(  # type: ignore[override]
        self, job_id: str, more_trials: int, admit: Admit | None = None
    ) -> int:
        """:meth:`Rollouts.extend` by ``more_trials`` trials per position."""
        return super().extend(job_id, {"more_trials": more_trials}, admit)

    def chunks(self, job_id: str) -> list[Chunk]:
        """The job's chunks, in order."""
        return [Chunk.of(n, c) for n, c in enumerate(self.spec(job_id)["chunks"])]
