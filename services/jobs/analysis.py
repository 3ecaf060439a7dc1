"""Match analysis jobs: a compatibility layer over the ``analysis`` job kind
(:class:`services.jobs.kinds.analysis.Analyses`, where the keys, the chunk records and the report are
described).

:class:`AnalysisStore` is the kind with the call signature the analysis store had before the job framework:
:meth:`AnalysisStore.submit` takes the matches and options as arguments, :meth:`AnalysisStore.resume` is the
kind's :meth:`~services.jobs.kind.JobKind.resume_stopped`.  New code uses :class:`Analyses` (its ``submit``
takes an :class:`~services.jobs.kinds.analysis.AnalysisRequest` body).  The key helpers below name the
kind's keys.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from services.jobs.analysis_archive import archive_entries, archive_match
from services.jobs.analysis_files import (
    ANALYSIS_DEPTHS,
    FORMATS,
    AnalysisDepth,
    AnalysisJobSettings,
    detect_format,
    level_settings,
    plan_job,
    read_record,
)
from services.jobs.broker import ANALYSIS_TASK
from services.jobs.errors import InvalidJob, JobNotFound, JobStateError
from services.jobs.kinds.analysis import (
    Analyses,
    MatchNotReady,
    analysis_cost,
    record_chunk,
    repair_progress,
)

__all__ = [
    "ANALYSIS_DEPTHS",
    "ANALYSIS_TASK",
    "FORMATS",
    "Analyses",
    "AnalysisDepth",
    "AnalysisJobSettings",
    "AnalysisStore",
    "InvalidJob",
    "JobNotFound",
    "JobStateError",
    "MatchNotReady",
    "analysis_cost",
    "archive_entries",
    "archive_match",
    "detect_format",
    "level_settings",
    "read_record",
    "record_chunk",
    "repair_progress",
]


class AnalysisStore(Analyses):
    """The ``analysis`` kind with the analysis store's older call signature."""

    def submit(  # type: ignore[override]  # the older signature, kept for its callers
        self,
        matches: Sequence[Mapping[str, Any]],
        level: str | None = None,
        priority: str | None = None,
        *,
        single: bool = False,
        owner: str | None = None,
        learner: Mapping[str, Any] | None = None,
        admit: Callable[[float], None] | None = None,
        prune: bool = True,
    ) -> str:
        """Queue the analysis of one or more matches (each ``{"data", "format"?, "filename"?}``) at
        ``level``; the job id.  See :class:`~services.jobs.kinds.analysis.AnalysisRequest`."""
        body = {"matches": matches, "level": level, "priority": priority, "single": single,
                "learner": learner, "prune": prune}  # fmt: skip
        return Analyses.submit(self, body, owner=owner, admit=admit)

    def estimate(  # type: ignore[override]  # the older signature, kept for its callers
        self, matches: Sequence[Mapping[str, Any]], level: str | None = None, single: bool = False
    ) -> float:
        """What :meth:`submit` of ``matches`` at ``level`` would be charged, in core-seconds."""
        level, _, _, infos, _ = plan_job(matches, level, None, single, self.limits)
        return analysis_cost(level, infos)

    def resume(self, job_id: str) -> int:
        """A cancelled or failed job continues (:meth:`~services.jobs.kind.JobKind.resume_stopped`)."""
        return self.resume_stopped(job_id)


spec_key = Analyses.spec_key
chunk_key = Analyses.chunk_key
cancel_key = Analyses.cancel_key
started_key = Analyses.started_key
file_key = Analyses.file_key
summary_key = Analyses.summary_key
progress_key = Analyses.progress_key
