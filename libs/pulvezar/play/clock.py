"""The match clock: remaining time per side, a delay per move, and who is on the clock.

Times are seconds as floats; ``now`` is whatever clock the caller uses (the
REST layer passes ``time.time()``), so a clock is deterministic and survives a
restart.  The side on the clock loses time from ``since`` on, after the
move's delay is used up; a new move gets the full delay again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(slots=True)
class Clock:
    """Remaining seconds of player 0 and 1, the running side, and the current move's delay."""

    budget: float
    delay: float
    remaining: list[float] = field(default_factory=list)
    running: int | None = None
    since: float | None = None
    delay_left: float = 0.0

    def __post_init__(self) -> None:
        if not self.remaining:
            self.remaining = [self.budget, self.budget]

    def _used(self, now: float) -> tuple[float, float]:
        """(time charged, delay used) for the running side from ``since`` to ``now``."""
        if self.running is None or self.since is None:
            return 0.0, 0.0
        elapsed = max(0.0, now - self.since)
        from_delay = min(elapsed, self.delay_left)
        return elapsed - from_delay, from_delay

    def remaining_at(self, now: float | None = None) -> list[float]:
        """Each side's remaining seconds at ``now`` (without ``now``: as last charged)."""
        out = list(self.remaining)
        if now is not None and self.running is not None:
            charged, _ = self._used(now)
            out[self.running] = max(0.0, out[self.running] - charged)
        return out

    def flagged(self, now: float) -> int | None:
        """The running side if its time has run out at ``now``."""
        if self.running is None:
            return None
        return self.running if self.remaining_at(now)[self.running] <= 0.0 else None

    def charge(self, now: float) -> None:
        """Book the running side's time up to ``now``."""
        if self.running is None:
            return
        charged, from_delay = self._used(now)
        self.remaining[self.running] = max(0.0, self.remaining[self.running] - charged)
        self.delay_left -= from_delay
        self.since = max(now, self.since or now)

    def start(self, player: int, now: float, *, new_move: bool) -> None:
        """Put ``player`` on the clock from ``now`` (a new move gets the whole delay)."""
        self.charge(now)
        if new_move or self.running != player:
            self.delay_left = self.delay
        self.running, self.since = player, now

    def stop(self, now: float) -> None:
        self.charge(now)
        self.running, self.since = None, None

    def reset(self) -> None:
        """A fresh budget for both sides (a new game under ``scope="game"``)."""
        self.remaining = [self.budget, self.budget]

    def to_dict(self) -> dict[str, Any]:
        return {
            "budget": self.budget,
            "delay": self.delay,
            "remaining": list(self.remaining),
            "running": self.running,
            "since": self.since,
            "delay_left": self.delay_left,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Clock:
        return cls(
            float(d["budget"]),
            float(d["delay"]),
            [float(x) for x in d["remaining"]],
            d["running"],
            None if d["since"] is None else float(d["since"]),
            float(d["delay_left"]),
        )
