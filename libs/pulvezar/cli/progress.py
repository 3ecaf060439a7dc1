"""Progress bars of the long commands (``rollout``, ``match analyse``, book generation, training).

A bar with the time left is drawn on stderr with ``rich`` when stderr is a
terminal; when it is not (a pipe, a file, a CI log) or with ``--quiet`` the
command stays quiet.  The library reports progress through plain callbacks
``progress(done, total)``; this module turns them into bars, so only the
command line depends on ``rich``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import IO

from pulvezar.i18n import t

__all__ = ["Report", "progress_bar", "wants_bar"]

#: ``report(done, total)``: ``done`` of ``total`` units finished.
Report = Callable[[int, int], None]


def wants_bar(quiet: bool = False, stream: IO[str] | None = None) -> bool:
    """Whether to draw a bar: not ``quiet`` and ``stream`` (default stderr) is a terminal."""
    stream = sys.stderr if stream is None else stream
    if quiet:
        return False
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # closed or not a real stream
        return False


def _quiet(done: int, total: int) -> None:
    return None


@contextmanager
def progress_bar(
    description: str,
    unit: str = "",
    *,
    quiet: bool = False,
    stream: IO[str] | None = None,
    lang: str = "en",
) -> Iterator[Report]:
    """A ``report(done, total)`` callback that draws a bar while the ``with`` block runs (``description``
    and ``unit`` as the caller words them; "left" in ``lang``).

    Quiet (a callback that does nothing) unless :func:`wants_bar`.  The bar is
    removed when the block ends, so the command's output follows on a clean line.
    """
    stream = sys.stderr if stream is None else stream
    if not wants_bar(quiet, stream):
        yield _quiet
        return
    from rich.console import Console
    from rich.markup import escape
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    columns = [
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn(escape(unit)),
        TimeElapsedColumn(),
        TextColumn(escape(t("cli.progress.left", lang))),
        TimeRemainingColumn(),
    ]
    with Progress(*columns, console=Console(file=stream), transient=True) as bar:
        task = bar.add_task(description, total=None)

        def report(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        yield report
