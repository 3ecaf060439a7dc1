"""Where a worker evaluates (pure logic: the service's answer is given, not asked)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from services.jobs.settings import RolloutSettings
from services.rollout.evaluators import Route, choose_route

SHA = "ab" * 32


@dataclass
class Info:
    model: str = SHA
    device: str = "cpu"
    accelerator: bool = False


def route(info: Info | None, local: str = SHA, **settings: str) -> Route:
    def ask() -> Info:
        if info is None:
            raise AssertionError("the service must not be asked")
        return info

    return choose_route(RolloutSettings(**settings), ask, lambda: local)  # type: ignore[arg-type]


GRPC = "grpc://evaluator:50052"


def test_a_cpu_service_with_the_workers_model_is_not_called() -> None:
    r = route(Info(), evaluator=GRPC)
    assert (r.path, r.device, r.model) == ("inprocess", "cpu", SHA)
    assert "nothing to gain" in r.reason


def test_a_service_on_an_accelerator_is_called() -> None:
    r = route(Info(device="cuda:0", accelerator=True), evaluator=GRPC)
    assert (r.path, r.device) == ("service", "cuda:0") and "cuda:0" in r.reason


def test_a_service_with_another_model_is_called() -> None:
    r = route(Info(model="cd" * 32), evaluator=GRPC)
    assert r.path == "service" and r.model == "cd" * 32
    assert "cdcdcdcdcdcd is not this worker's abababababab" in r.reason


@pytest.mark.parametrize(
    ("settings", "path"),
    [
        ({"evaluator": "inprocess"}, "inprocess"),
        ({"evaluator": "inprocess", "evaluator_mode": "service"}, "inprocess"),
        ({"evaluator": GRPC, "evaluator_mode": "service"}, "service"),
        ({"evaluator": GRPC, "evaluator_mode": "inprocess"}, "inprocess"),
    ],
)
def test_settings_that_decide_without_asking(settings: dict[str, str], path: str) -> None:
    assert route(None, **settings).path == path


def test_an_unknown_mode_is_refused() -> None:
    with pytest.raises(ValueError, match="evaluator_mode"):
        RolloutSettings(evaluator=GRPC, evaluator_mode="sometimes")  # type: ignore[arg-type]


class _Inner:
    """An evaluator with nets of its own for one rule set (as NetEvaluator.for_rules gives)."""

    def __init__(self, own: _Inner | None = None) -> None:
        self.own = own
        self.calls = 0

    def for_rules(self, rules: object) -> _Inner:
        return self.own if self.own is not None and getattr(rules, "must_bear_off", False) else self

    def evaluate_boards(self, boards: object) -> str:
        self.calls += 1
        return "own" if self.own is None else "base"


def test_a_checked_evaluator_follows_the_inner_evaluators_rule_sets() -> None:
    """A worker's cancellable wrapper gives the inner evaluator's evaluator for a rule set, still checked
    for cancellation, made once per rule set; a rule set without own nets keeps the wrapper itself."""
    from pulvezar import Rules
    from pulvezar.eval.evaluator import for_rules
    from services.rollout.evaluators import Cancelled, CheckedEvaluator

    cancelled = [False]
    own = _Inner()
    base = _Inner(own)
    checked = CheckedEvaluator(base, lambda: cancelled[0], check_every_s=0.0)  # type: ignore[arg-type]
    mb = Rules.tavla(must_bear_off=True)
    view = for_rules(checked, mb)
    assert isinstance(view, CheckedEvaluator) and view.inner is own and for_rules(checked, mb) is view
    assert for_rules(checked, Rules.tavla()) is checked
    assert view.evaluate_boards(None) == "own" and checked.evaluate_boards(None) == "base"  # type: ignore[arg-type]
    cancelled[0] = True
    with pytest.raises(Cancelled):
        view.evaluate_boards(None)  # type: ignore[arg-type]


def test_a_workers_trials_end_where_its_models_race_table_begins() -> None:
    """Issue 43: a worker's wrappers pass on the model's race table, so a job's trials end where the
    library's do (``exact_races``): within nine points for ``pulvezar-v7``, the home boards for an
    evaluator that names none."""
    import numpy as np

    from pulvezar import Position
    from pulvezar.eval.evaluator import default_evaluator, exact_races
    from pulvezar.search.cache import CachedEvaluator
    from services.rollout.evaluators import CheckedEvaluator

    inside = Position.from_points({9: 3, 6: 12}, {8: 2, 5: 13})  # both sides within nine points
    home = Position.from_points({6: 3, 5: 12}, {4: 2, 3: 13})
    boards = np.stack([np.frombuffer(p.board, dtype=np.uint8) for p in (inside, home, Position.start())])
    net = default_evaluator()
    checked = CheckedEvaluator(net, lambda: False)
    for ev in (net, checked, CachedEvaluator(checked)):
        assert exact_races(ev, boards).tolist() == [True, True, False]
    assert exact_races(_Inner(), boards).tolist() == [False, True, False]  # type: ignore[arg-type]
