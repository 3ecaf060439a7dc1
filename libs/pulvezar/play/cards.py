"""Flash cards' spaced repetition: when a card is due again after an answer (:func:`schedule`).

The app manual's schedule (section 5.12): a card answered right comes back after 1 day, then after 6,
then after intervals that grow by the factor :data:`GROWTH` (15, 38, 95, ... days); a card answered wrong
comes back tomorrow and starts again.  A card is *learned* once its interval reaches :data:`LEARNED_DAYS`.

>>> schedule(0, 0, True), schedule(1, 1, True), schedule(6, 2, True), schedule(15, 3, True)
((1, 1), (6, 2), (15, 3), (38, 4))
>>> schedule(38, 4, False), schedule(1, 0, True)  # missed: tomorrow, then from the start
((1, 0), (1, 1))
>>> next_due("2026-12-31", 6)
'2027-01-06'
"""

from __future__ import annotations

import datetime as dt

GROWTH = 2.5
LEARNED_DAYS = 21


def schedule(interval: int, reps: int, correct: bool) -> tuple[int, int]:
    """``(interval, reps)`` after an answer: the days until the card is due again, and the answers in a row
    answered right (``reps``: before this answer)."""
    if not correct:
        return 1, 0
    if reps <= 0:
        return 1, 1
    if reps == 1:
        return 6, 2
    return round(max(interval, 1) * GROWTH), reps + 1


def next_due(today: str, interval: int) -> str:
    """The date (``YYYY-MM-DD``) ``interval`` days after ``today``."""
    return (dt.date.fromisoformat(today) + dt.timedelta(days=interval)).isoformat()
