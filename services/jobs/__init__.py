"""The job framework: one set of mechanics (:mod:`~services.jobs.chunked`) under every job kind.

Below both the gateway and the workers: the gateway submits and reads jobs through a kind's store,
which sends chunk tasks by name (:mod:`~services.jobs.broker`); the workers run those tasks with the
kind's own computation.  Every job is a kind of :mod:`~services.jobs.kinds`
(:class:`~services.jobs.kind.JobKind`: rollouts, batch and cube rollouts, evaluations, deep analyses, match
analyses, opening books, daily puzzles).  Job states: :mod:`~services.jobs.states`.  See
docs/architecture.md, "Jobs".
"""
