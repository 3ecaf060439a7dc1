"""The job kinds that plug into the framework: one module each, setting ``KIND`` to its
:class:`~services.jobs.kind.JobKind` subclass (:func:`kinds` finds them; nothing else lists them).

The workers run their chunks (:mod:`services.rollout.kind_tasks`), the gateway mounts their routes
(:mod:`services.gateway.routers.kinds`) and the reconciler keeps their durable copies.  See
``docs/architecture.md`` ("Adding a job kind").
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache

from services.jobs.kind import JobKind


@cache
def kinds() -> dict[str, type[JobKind]]:
    """Every kind of this package by name (its modules imported once)."""
    found: dict[str, type[JobKind]] = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        module = importlib.import_module(f"{__name__}.{info.name}")
        kind = getattr(module, "KIND", None)
        if kind is None:
            continue
        if not (isinstance(kind, type) and issubclass(kind, JobKind)):
            raise TypeError(f"{module.__name__}.KIND is not a JobKind subclass")
        if kind.name in found:
            raise TypeError(f"two job kinds are named {kind.name!r}")
        found[kind.name] = kind
    return found
