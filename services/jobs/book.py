"""The command that generates an opening book on the platform's workers: it submits a job of the kind
:class:`~services.jobs.kinds.book.BookKind` (the same settings find the same job, so running it again
continues one that stopped) and waits for the workers to finish it, then writes the book.

Command (one command regenerates a shipped book on the platform's workers)::

    python -m services.jobs.book --rules tavla --out data/book/tavla.json
        [--trials 5184] [--candidates 5] [--threshold 0.16] [--ply 3] [--reply-ply 3] [...]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from pulvezar.book.generate import BookSettings, write_book
from pulvezar.book.model import Book, BookError, roll_name
from services.common.redis_url import connect as connect_redis
from services.jobs.errors import InvalidJob
from services.jobs.kind import checked
from services.jobs.kinds.book import BookKind


def request_of(settings: BookSettings) -> dict[str, Any]:
    """The kind's request of the command's settings."""
    return {
        "rules": settings.variant,
        "rolls": None if settings.rolls is None else [roll_name(r) for r in settings.rolls],
        "trials": settings.trials,
        "candidates": settings.candidates,
        "threshold": settings.threshold,
        "ply": settings.ply,
        "reply_ply": settings.reply_ply,
        "rollout_ply": settings.rollout_ply,
        "truncate": settings.truncate,
        "seed": settings.seed,
    }


def _main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m services.jobs.book",
        description="Generate an opening book on the rollout workers (resumable: run it again to continue).",
    )
    BookSettings.add_arguments(ap, chunk_size=False)  # the workers' chunk size is the store's
    ap.add_argument("--out", required=True)
    ap.add_argument("--redis-url", default=None, help="default: PULVEZAR_ROLLOUT_REDIS_URL")
    args = ap.parse_args(argv)

    from services.jobs.settings import RolloutSettings
    from services.store.db import StoreRequired, required_url
    from services.store.jobs import JobRecords

    rs = RolloutSettings(**({"redis_url": args.redis_url} if args.redis_url else {}))
    try:  # the durable store, as the gateway's (PULVEZAR_DATABASE_URL)
        records = JobRecords(required_url("python -m services.jobs.book"))
    except StoreRequired as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    jobs = BookKind(connect_redis(rs.redis_url, decode_responses=True), settings=rs, records=records)
    try:
        settings = BookSettings.from_args(args, chunk_size=rs.chunk_size)
        if jobs.book_settings(checked(BookKind.Request, request_of(settings))) != settings:
            raise BookError("the workers' books take the API's settings only", field="settings")
        book_id = jobs.submit(request_of(settings))
    except (BookError, InvalidJob) as e:
        print(f"error: {getattr(e, 'field', None)}: {e}", file=sys.stderr)
        return 2
    print(f"book job {book_id}", file=sys.stderr)
    while True:
        st = jobs.book_status(book_id)
        print(
            f"{time.strftime('%H:%M:%S')} {st['state']}: "
            f"searched {st['rolls_searched']}/{st['rolls_total']}, "
            f"trials {st['trials_done']}/{st['trials_total']}, "
            f"replies {st['rolls_replied']}/{st['rolls_total']}, "
            f"{100 * st['progress']:.1f}%, eta {st['eta_s']}",
            file=sys.stderr,
            flush=True,
        )
        if st["state"] in ("done", "failed"):
            break
        time.sleep(5)
    if st["state"] == "failed":
        print(f"failed: {st['error']}", file=sys.stderr)
        return 1
    book = Book.from_json(json.loads(json.dumps(st["book"])))
    write_book(book, args.out)
    print(f"wrote {args.out}: {len(book.rolls)} rolls")
    return 0


if __name__ == "__main__":
    sys.exit(_main())
