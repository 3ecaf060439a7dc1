"""Rollouts fanned out over Celery workers through Redis (see README.md)."""
