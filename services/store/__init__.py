"""The durable store: the system of record for jobs and their results (SQLAlchemy 2, Alembic).

PostgreSQL in deployment, SQLite in a file under ``runs/`` for ``make run`` (docs/adr/0007).  Redis stays
the broker, the cache and the live progress channel; a job is written here before its chunks are queued,
each chunk's result as it completes, and the job's end state, so a finished job survives anything that
happens to Redis, and an unfinished one can be queued again from here (:mod:`services.store.reconcile`).
"""
