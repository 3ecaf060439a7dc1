"""Batch rollouts as a job kind (``batch``, ``POST /v1/batch-rollouts``): many positions rolled out as one
job, each an item of :class:`~services.jobs.kinds.rollout.Rollouts` (the same chunks, records, report
and ``extend``); only the request differs, a list of positions with defaults.
"""

from __future__ import annotations

from typing import Any

from services.jobs.kinds.rollout import BatchParams, RolloutParams, Rollouts
from services.jobs.rollout_items import StoredItem, normalise_item


class BatchRollouts(Rollouts):
    """Rollouts of many positions as one job (``POST /v1/batch-rollouts``); results come per position,
    in order."""

    name = "batch"
    route = "batch-rollouts"
    summary = "rollouts of many positions as one job"
    # the rollout kind's keys, noun and readable kinds (JobKind sets each from a subclass's own dict)
    noun, namespace, kinds = Rollouts.noun, Rollouts.namespace, Rollouts.kinds
    Request = BatchParams

    def items(self, request: RolloutParams | BatchParams) -> list[StoredItem]:
        """The positions' checked items (each over the defaults, pydantic's already: ``BatchParams``)."""
        assert isinstance(request, BatchParams)
        return [normalise_item(p, f"positions[{i}].") for i, p in enumerate(request.positions)]

    @classmethod
    def example(cls) -> dict[str, Any]:
        return {
            "positions": [{"position": "cHfuAAC4ezcAAA"}, {"position": "cHfuAAC4ezcAAA", "kind": "cube"}],
            "defaults": {"trials": 36, "truncate": 6},
        }


KIND = BatchRollouts
