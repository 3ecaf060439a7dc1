"""Uploaded files are read in parser processes (:mod:`services.common.sandbox`), never in the gateway's;
downloads name their file as RFC 6266 says.

A reader that runs away (a pattern that backtracks, an archive that inflates without end) costs a parser
process its CPU or memory limit and the client a 422 naming ``file``; the gateway keeps answering.  Too
many parses at once: 503 with ``Retry-After``.  The limits are ``PULVEZAR_GATEWAY_PARSE_*``
(:class:`~services.common.sandbox.ParseSettings`).
"""

from __future__ import annotations

import contextlib
import re
import unicodedata
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import quote

from fastapi import Request
from prometheus_client.core import CounterMetricFamily

from services.common.sandbox import (
    FAILURE_REASONS,
    Isolation,
    ParseBusy,
    ParseFailed,
    ParsePool,
    ParseRejected,
    isolated,
    shared_pool,
)
from services.gateway.problems import ProblemError, invalid

RETRY_AFTER_S = 2


class ParseFailures:
    """A Prometheus collector: ``pulvezar_gateway_parse_failures_total{reason}``, the uploaded files whose
    read failed (too_slow, too_large, busy, rejected, crashed) in the pool ``pool()`` gives."""

    def __init__(self, pool: Callable[[], ParsePool]) -> None:
        self.pool = pool

    def collect(self) -> Iterator[CounterMetricFamily]:
        family = CounterMetricFamily(
            "pulvezar_gateway_parse_failures",
            "uploaded files whose read failed, by reason",
            labels=["reason"],
        )
        counts = self.pool().failures
        for reason in FAILURE_REASONS:
            family.add_metric([reason], float(counts.get(reason, 0)))
        yield family


def parse_pool(request: Request) -> ParsePool:
    """The app's parser pool (``app.state.parse_pool``, else this process's shared one)."""
    pool: ParsePool | None = getattr(request.app.state, "parse_pool", None)
    return pool or shared_pool()


def problem(e: ParseFailed, field: str) -> ProblemError:
    """A parse's failure as the client sees it: 503 + Retry-After when busy, else 422 naming the field."""
    if isinstance(e, ParseBusy):
        return ProblemError(
            503,
            e.reason,
            kind="parsers-busy",
            errors=[(field, e.reason)],
            headers={"Retry-After": str(RETRY_AFTER_S)},
        )
    if isinstance(e, ParseRejected):
        return invalid(e.field or field, e.reason)
    return invalid(field, e.reason)


async def parse(request: Request, target: str, *args: Any, field: str = "file") -> Any:
    """``target(*args)`` in a parser process; its failure a problem naming ``field``."""
    return await parse_in(parse_pool(request), target, *args, field=field)


async def parse_in(pool: ParsePool, target: str, *args: Any, field: str = "file") -> Any:
    """``target(*args)`` in one of ``pool``'s parser processes; its failure a problem naming ``field``."""
    try:
        return await pool.run_async(target, *args)
    except ParseFailed as e:
        raise problem(e, field) from None


@contextlib.contextmanager
def parsing_isolated(request: Request) -> Iterator[Isolation]:
    """Within this block the job stores read match files in the app's parser pool
    (:func:`services.common.sandbox.run`); a failed read is a problem naming the file's field."""
    with isolated(parse_pool(request), problem) as iso:
        yield iso


async def read_ahead(iso: Isolation, matches: list[dict[str, Any]], single: bool, limits: Any = None) -> None:
    """Read an analysis job's files in the pool now, before the job store plans the job in a thread and
    takes these results (so that no thread of the default executor waits on a parser); an entry the store
    will refuse anyway is left to it."""
    from services.jobs.analysis_files import SUMMARY_TARGET, AnalysisJobSettings, entry_prefix, file_call
    from services.jobs.errors import InvalidJob

    limits = limits or AnalysisJobSettings()
    if len(matches) > limits.max_matches:
        return
    for m, entry in enumerate(matches):
        try:
            data, fmt, field, _ = file_call(entry, entry_prefix(m, single), limits)
        except InvalidJob:
            continue
        await iso.read_ahead(SUMMARY_TARGET, data, fmt, field)


# ---- downloads ---------------------------------------------------------------------------------------
_UNSAFE = re.compile(r'[\x00-\x1f\x7f"\\/;%]+')


def content_disposition(filename: str, disposition: str = "attachment") -> str:
    """``attachment; filename="<ASCII fallback>"; filename*=UTF-8''<percent-encoded>`` (RFC 6266 and
    RFC 5987): any name, whatever its characters, is a valid Latin-1 header value."""
    name = _UNSAFE.sub("_", filename).strip() or "download"
    decomposed = unicodedata.normalize("NFKD", name)
    fallback = "".join(
        c if c.isascii() else "_" for c in decomposed if not unicodedata.combining(c)
    )  # "maç-ğ.mat" -> "mac-g.mat"
    return f"{disposition}; filename=\"{fallback}\"; filename*=UTF-8''{quote(name, safe='')}"
