"""A page of one of the store's cursor-paginated lists, read as every list route reads it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from services.gateway.durable import store_call
from services.gateway.problems import invalid

T = TypeVar("T")


async def page(list_page: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """``list_page(*args, **kwargs)`` of the store (:func:`~services.gateway.durable.store_call`); a cursor
    it cannot read (its ``ValueError``) is a 422 naming ``cursor``."""
    try:
        return await store_call(list_page, *args, **kwargs)
    except ValueError as e:
        raise invalid("cursor", str(e)) from None
