"""The job kinds that plug into the framework: one module each, setting ``KIND`` to its
:class:`~services.jobs.kind.JobKind` subclass (:func:`kinds` finds them; nothing else lists them).

The workers run their chunks (:mod:`services.rollout.kind_tasks`), the gateway mounts their routes
(:mod:`services.gateway.routers.kinds`) and the reconciler keeps their durable copies.  See
``docs/architecture.md`` ("Adding a job kind").

Kinds outside this package: ``PULVEZAR_JOB_KINDS``, a comma-separated list of importable module paths
(``mypkg.echo_kind,other.kinds``), each setting ``KIND`` as above; read once per process, so the gateway,
the workers and the reconciler must all have the same value (and the modules on their ``PYTHONPATH``).
"""

from __future__ import annotations

import importlib
import os
import pkgutil
from functools import cache
from types import ModuleType

from services.jobs.kind import JobKind


@cache
def kinds() -> dict[str, type[JobKind]]:
    """Every kind of this package and of ``PULVEZAR_JOB_KINDS``' modules by name (imported once)."""
    found: dict[str, type[JobKind]] = {}
    for module in modules():
        kind = getattr(module, "KIND", None)
        if kind is None:
            continue
        if not (isinstance(kind, type) and issubclass(kind, JobKind)):
            raise TypeError(f"{module.__name__}.KIND is not a JobKind subclass")
        if kind.name in found:
            raise TypeError(f"two job kinds are named {kind.name!r}")
        found[kind.name] = kind
    return found


#: the environment variable naming extra kind modules (comma-separated import paths)
EXTRA_KINDS_ENV = "PULVEZAR_JOB_KINDS"


def modules() -> list[ModuleType]:
    """This package's modules (by name), then those of ``PULVEZAR_JOB_KINDS`` (in its order)."""
    own = [f"{__name__}.{i.name}" for i in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name)]
    extra = [m.strip() for m in os.environ.get(EXTRA_KINDS_ENV, "").split(",") if m.strip()]
    return [importlib.import_module(name) for name in own + extra]
