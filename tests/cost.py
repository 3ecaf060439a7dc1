"""CPU cost compared within one run, never against the clock: the machine is shared and noisy (the brief: no
absolute-time asserts). A test states its bound as a ratio to a reference computation made in the same process
at the same moment, each the best of a few repeats (the minimum is what load noise inflates least)."""

from __future__ import annotations

import time
from collections.abc import Callable


def cpu_seconds(work: Callable[[], object], *, repeats: int = 5, loops: int = 1) -> float:
    """This process's CPU seconds for `loops` calls of `work`, the best of `repeats` tries."""
    best = float("inf")
    for _ in range(repeats):
        start = time.process_time()
        for _ in range(loops):
            work()
        best = min(best, time.process_time() - start)
    return best


def cost_ratio(work: Callable[[], object], reference: Callable[[], object], *, loops: int = 1) -> float:
    """How many times the reference's CPU `work` costs (both the best of five; floored at a microsecond)."""
    ref = max(cpu_seconds(reference, loops=loops), 1e-6)
    return max(cpu_seconds(work, loops=loops), 1e-6) / ref
