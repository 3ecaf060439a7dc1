"""The older home of the book's cost estimate, kept while callers move (``BookStore`` is gone: books are
the job kind :mod:`services.jobs.kinds.book`).  Import :func:`~services.jobs.kinds.book.book_cost` from
there; this module goes once ``pyproject.toml``'s layers and ``tests/services/test_job_costs.py`` do."""

from __future__ import annotations

from services.jobs.kinds.book import PLAYS_PER_SEARCH, SEARCH_SECONDS, book_cost

__all__ = ["PLAYS_PER_SEARCH", "SEARCH_SECONDS", "book_cost"]
