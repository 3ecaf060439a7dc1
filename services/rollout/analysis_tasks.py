"""Empty: the older match-analysis task (``pulvezar.analysis.game``) is gone (issue 42); match analyses run
as the ``analysis`` job kind through :data:`~services.jobs.broker.KIND_CHUNK_TASK`.

Kept importable only while the worker's include list (:mod:`services.rollout.celery_app`) still names it;
delete this module with that line.
"""
