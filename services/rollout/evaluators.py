"""The evaluator a worker process uses: the net in its own process, or the Evaluator service over gRPC.

``PULVEZAR_ROLLOUT_EVALUATOR=inprocess`` loads ``PULVEZAR_ROLLOUT_MODEL_PATH`` (default: the shipped
net) into every worker process.  ``grpc://host:port`` names the Evaluator service, and
``PULVEZAR_ROLLOUT_EVALUATOR_MODE`` says how to use it:

- ``auto`` (the default): ask the service (``ModelInfo``) where its nets run.  On an accelerator the
  boards go to the service (``EvaluatePacked``: one message of ``N x 50`` bytes, micro-batched with
  other workers' boards); on a CPU the worker evaluates in its own process, with the same model file,
  since a network hop buys nothing there.  A service whose model is not the worker's is always called.
- ``service``: always call the service; ``inprocess``: never.

The choice (:class:`Route`) is logged when a pool process starts and exported as the metric
``pulvezar_rollout_evaluator_processes{path,device}``.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol

import numpy as np
import numpy.typing as npt

from pulvezar.eval.evaluator import Boards, Evaluator, Probs, evaluate_plays, for_rules
from pulvezar.eval.provenance import file_sha256
from pulvezar.rules.rules import Rules
from services.common.remote_evaluator import GrpcEvaluator
from services.jobs.settings import RolloutSettings


class Cancelled(Exception):
    """The job was cancelled while its chunk ran."""


class CheckedEvaluator:
    """Wraps an evaluator: before each call, checks for cancellation (at most every
    ``check_every_s``) and, for tests, waits ``delay_s`` and, while the file ``hold_path`` exists, holds
    (touching ``<hold_path>.<pid>`` so that a test knows this process is inside a chunk's work).  The
    numbers are the inner evaluator's."""

    def __init__(
        self,
        inner: Evaluator,
        cancelled: Callable[[], bool],
        delay_s: float = 0.0,
        check_every_s: float = 0.2,
        hold_path: Path | None = None,
    ) -> None:
        self.inner = inner
        self.cancelled = cancelled
        self.delay_s = delay_s
        self.check_every_s = check_every_s
        self.hold_path = hold_path
        self._next_check = 0.0
        self._views: dict[str, CheckedEvaluator] = {}

    def for_rules(self, rules: Rules) -> Evaluator:
        """The inner evaluator's for ``rules`` (:func:`~pulvezar.eval.evaluator.for_rules`), checked alike."""
        inner = for_rules(self.inner, rules)
        if inner is self.inner:
            return self
        view = self._views.get(rules.name)
        if view is None or view.inner is not inner:
            view = self._views[rules.name] = CheckedEvaluator(
                inner, self.cancelled, self.delay_s, self.check_every_s, self.hold_path
            )
        return view

    @property
    def race_table_points(self) -> int:
        """The inner evaluator's (:func:`~pulvezar.eval.evaluator.exact_races`: where trials end)."""
        return int(getattr(self.inner, "race_table_points", 6))

    def check(self) -> None:
        now = time.monotonic()
        if now >= self._next_check:
            self._next_check = now + self.check_every_s
            if self.cancelled():
                raise Cancelled

    def evaluate_boards(self, boards: Boards) -> Probs:
        self._wait()
        return self.inner.evaluate_boards(boards)

    def evaluate_plays(self, parents: Boards, index: npt.NDArray[np.intp], after: Boards) -> Probs:
        """The inner evaluator's plays (:func:`~pulvezar.eval.evaluator.evaluate_plays`): the quantised
        kernel updates each play from its parent, as in the library (without this method a worker's
        searches valued every play from scratch: the same numbers, at more cost)."""
        self._wait()
        return evaluate_plays(self.inner, parents, index, after)

    def _wait(self) -> None:
        self.check()
        if self.delay_s:
            time.sleep(self.delay_s)
            self.check()
        if self.hold_path is not None and self.hold_path.exists():
            self._hold(self.hold_path)

    @staticmethod
    def _hold(path: Path) -> None:
        """Wait while ``path`` exists, with ``<path>.<pid>`` present meanwhile (tests only)."""
        marker = path.with_name(f"{path.name}.{os.getpid()}")
        marker.touch()
        try:
            while path.exists():
                time.sleep(0.01)
        finally:
            marker.unlink(missing_ok=True)


EvalPath = Literal["inprocess", "service"]


@dataclass(frozen=True)
class Route:
    """Where a worker process evaluates, and why."""

    path: EvalPath
    reason: str
    device: str = ""  # the service's device, where it was asked
    model: str = ""  # the SHA-256 of the model that evaluates


class ModelInfoLike(Protocol):
    model: str
    device: str
    accelerator: bool


def local_model(settings: RolloutSettings) -> Path:
    """The model file an in-process evaluator of these settings loads."""
    from pulvezar.eval.evaluator import default_model_path

    return settings.model_path or default_model_path()


def choose_route(
    settings: RolloutSettings, ask: Callable[[], ModelInfoLike], local_sha256: Callable[[], str]
) -> Route:
    """The path of :data:`RolloutSettings.evaluator` and ``evaluator_mode`` (pure: ``ask`` queries the
    service's ``ModelInfo``, ``local_sha256`` hashes the worker's own model file)."""
    if settings.evaluator == "inprocess":
        return Route("inprocess", "PULVEZAR_ROLLOUT_EVALUATOR=inprocess", model=local_sha256())
    if settings.evaluator_mode == "service":
        return Route("service", "PULVEZAR_ROLLOUT_EVALUATOR_MODE=service")
    if settings.evaluator_mode == "inprocess":
        return Route("inprocess", "PULVEZAR_ROLLOUT_EVALUATOR_MODE=inprocess", model=local_sha256())
    info = ask()
    if info.accelerator:
        return Route("service", f"the evaluator service runs on {info.device}", info.device, info.model)
    mine = local_sha256()
    if mine != info.model:
        return Route(
            "service",
            f"the evaluator service's model {info.model[:12]} is not this worker's {mine[:12]}",
            info.device,
            info.model,
        )
    return Route(
        "inprocess",
        f"the evaluator service runs on {info.device or 'cpu'} with this worker's model: nothing to gain",
        info.device,
        info.model,
    )


def _inprocess(settings: RolloutSettings) -> Evaluator:
    from pulvezar.eval.evaluator import NetEvaluator, default_evaluator

    device = None if settings.device == "auto" else settings.device
    if settings.model_path is None and device is None:
        return default_evaluator()
    return NetEvaluator.load(local_model(settings), device=device)


def make_evaluator(settings: RolloutSettings) -> tuple[Evaluator, Route]:
    """The worker process's evaluator and its :class:`Route`, as the settings say."""
    client: GrpcEvaluator | None = None
    if settings.evaluator.startswith("grpc://"):
        client = GrpcEvaluator(settings.evaluator.removeprefix("grpc://"))

    def ask() -> ModelInfoLike:
        assert client is not None
        info: ModelInfoLike = client.info(settings.evaluator_probe_timeout_s)
        return info

    route = choose_route(settings, ask, lambda: file_sha256(local_model(settings)))
    if route.path == "service":
        assert client is not None
        return client, route
    if client is not None:
        client.close()
    return _inprocess(settings), route


class LazyEvaluator:
    """The process's evaluator, made once on first use (thread-safe), with its route."""

    def __init__(self, factory: Callable[[], tuple[Evaluator, Route]]) -> None:
        self._factory = factory
        self._lock = threading.Lock()
        self._made: tuple[Evaluator, Route] | None = None

    def get(self) -> tuple[Evaluator, Route]:
        with self._lock:
            if self._made is None:
                self._made = self._factory()
            return self._made

    def reset(self) -> None:
        with self._lock:
            self._made = None
