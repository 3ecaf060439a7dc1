"""Frozen copies of stored rows, made by field name."""

from __future__ import annotations

import dataclasses
from typing import Any, Self


class Snapshot:
    """Mixed into a frozen dataclass of a table's columns: :meth:`of` copies a row into it."""

    @classmethod
    def of(cls, row: Any) -> Self:
        """The row's attributes named as this dataclass's fields (JSON objects copied, not shared)."""
        values = {f.name: getattr(row, f.name) for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
        return cls(**{k: dict(v) if isinstance(v, dict) else v for k, v in values.items()})
