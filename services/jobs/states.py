"""The states of a job (:class:`JobState`): every kind's status names one of these five.

A ``StrEnum``: a state is its string wherever JSON is written (``"queued"``, ...), so the wire format and the
durable store's ``state`` column are the same strings as before the enum.  A book's status also names
its stage (``searching``, ``rolling out``, ``replying``: :mod:`services.jobs.kinds.book`); its job is in one
of these.
"""

from __future__ import annotations

from enum import StrEnum


class JobState(StrEnum):
    """queued (no chunk started yet), running, done, failed or cancelled."""

    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"
    CANCELLED = "cancelled"

    @property
    def ended(self) -> bool:
        """Nothing more happens to the job (until it is resumed or extended)."""
        return self in ENDED


#: states after which nothing more happens to a job (until it is resumed or extended)
ENDED: frozenset[JobState] = frozenset({JobState.DONE, JobState.FAILED, JobState.CANCELLED})
#: states in which a job stopped without its full result
STOPPED: frozenset[JobState] = frozenset({JobState.FAILED, JobState.CANCELLED})
