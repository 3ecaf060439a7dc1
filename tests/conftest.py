"""Shared by every test folder: the bear-off tables built once per test session.

Without ``make bearoff`` (``data/bearoff/*.bin`` are not committed) every :class:`NetEvaluator` builds the
one-sided table again: a second or more each time, and the training and evaluation tests make dozens of
evaluators.  The tables are immutable and every build is the same bytes (``tests/eval/test_bearoff.py``
checks that, with :meth:`OneSidedBearoff.build` itself), so the tests' processes build each one once.
Processes that tests start (services, workers, ``make run``) are untouched.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pulvezar.eval import bearoff


def _once(default: Callable[[], Any], path: Any) -> Callable[[], Any]:
    tables: dict[tuple[str, bool], Any] = {}

    def cached() -> Any:
        key = (str(path), path.exists())  # `make bearoff` meanwhile: the file is read
        if key not in tables:
            tables[key] = default()
        return tables[key]

    return cached


bearoff.OneSidedBearoff.default = staticmethod(  # type: ignore[method-assign,assignment]
    _once(bearoff.OneSidedBearoff.default, bearoff.DEFAULT_PATH)
)
bearoff.TwoSidedBearoff.default = staticmethod(  # type: ignore[method-assign,assignment]
    _once(bearoff.TwoSidedBearoff.default, bearoff.DEFAULT_TWO_SIDED_PATH)
)
