"""The job framework's errors, shared by every job kind, the gateway and the workers.

The gateway maps them once (:mod:`services.gateway.jobs`): :class:`InvalidJob` is a 422 naming its
``field``, :class:`JobNotFound` a 404, :class:`JobStateError` a 409.
"""

from __future__ import annotations


class JobError(Exception):
    """Base of the job store's errors."""


class InvalidJob(JobError, ValueError):
    """Bad job parameters; ``field`` names the parameter (``positions[2].dice``, ``trials``, ...)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


class JobNotFound(JobError, KeyError):
    """No job of this kind has this id (or it expired)."""

    def __init__(self, job_id: str, kind: str = "rollout") -> None:
        super().__init__(job_id)
        self.job_id = job_id
        self.kind = kind

    def __str__(self) -> str:
        return f"no {self.kind} job {self.job_id!r} (unknown or expired)"


class JobStateError(JobError, ValueError):
    """The job's state does not allow this (extending a cancelled job, ...); ``field`` is ``job_id``."""

    field = "job_id"


def text(value: bytes | str | None) -> str | None:
    """A Redis reply as text (clients with and without ``decode_responses``)."""
    return value.decode() if isinstance(value, bytes) else value
