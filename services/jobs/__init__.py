"""The job framework: one set of mechanics (:mod:`~services.jobs.chunked`) under every job kind.

Below both the gateway and the workers: the gateway submits and reads jobs through a kind's store,
which sends chunk tasks by name (:mod:`~services.jobs.broker`); the workers run those tasks with the
kind's own computation.  Kinds: rollouts (:mod:`~services.jobs.rollout`), match analyses
(:mod:`~services.jobs.analysis`).  See docs/architecture.md, "Jobs".
"""
