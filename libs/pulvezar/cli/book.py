"""``pulvezar book``: generate, continue and show opening books.

::

    pulvezar book generate --rules international --out data/book/international.json
        [--trials 5184] [--candidates 5] [--threshold 0.16] [--ply 3] [--reply-ply 3]
        [--truncate N] [--seed 1] [--rolls 31,42] [--workdir DIR] [--threads 1] [--quiet] [--log]
    pulvezar book show data/book/international.json [--roll 31] [--json]
    pulvezar book status --rules tavla --out data/book/tavla.json [--workdir DIR] [...]
    pulvezar book pack --workdir DIR --archive data/book/work/international
    pulvezar book unpack --archive data/book/work/international --workdir DIR

The defaults are the issue's full settings (3-ply search, 5,184 rollout trials played to the end,
3-ply replies).  ``generate`` saves every finished step in the work directory (default
``$XDG_CACHE_HOME/pulvezar/book/<name of --out>``) and writes ``--out`` after every finished
roll; run the same command again to continue an interrupted run, or with more ``--trials`` to
extend it.  A progress bar with the time left is drawn on stderr when it is a terminal (not with
``--quiet``); ``--log`` writes a line per finished step instead, e.g. into a log file.
``pack`` and ``unpack`` move a work directory as checksummed ``.tar.xz`` parts, a new part holding
what earlier ones do not (:mod:`pulvezar.book.archive`): the shipped books' work is committed that
way, so a fresh machine continues or extends it without rolling out a trial twice.
``compare`` and ``contrast`` print a book beside published rollouts, or two books beside each other.
``python -m pulvezar.book ...`` still runs the same command (deprecated: use ``pulvezar book``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from pulvezar.book.generate import (
    BookGenerator,
    BookSettings,
    Progress,
    generate_book,
    read_book,
)
from pulvezar.book.model import Book, BookCandidate, BookError
from pulvezar.cli.common import add_lang_argument, fixed, lang_of
from pulvezar.cli.progress import progress_bar
from pulvezar.i18n import t

__all__ = ["add_parser", "default_workdir", "main", "run", "show"]


def default_workdir(out: Path) -> Path:
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache / "pulvezar" / "book" / out.stem


def _hms(s: float | None) -> str:
    if s is None:
        return "?"
    s = int(s)
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}"


def _print_progress(p: Progress) -> None:
    what = p.item.describe() if p.item else ""
    print(
        f"{time.strftime('%H:%M:%S')} [{p.items_done}/{p.items_total}] {what} {p.seconds:.1f}s; "
        f"trials {p.trials_done}/{p.trials_total}, rolls {p.rolls_done}/{p.rolls_total}, "
        f"elapsed {_hms(p.elapsed_s)}, eta {_hms(p.eta_s)}",
        file=sys.stderr,
        flush=True,
    )


def show(book: Book, roll: str | None, lang: str = "en") -> str:
    """``book show``: the book's header and settings, then each roll's candidates (and, for one roll, the
    replies to its best play), in ``lang``."""

    def f(x: float, spec: str = "+.4f") -> str:
        return fixed(x, lang, spec)

    engine = f"{book.engine['name']} {book.engine['version']} {book.engine['model']}"
    lines = [
        t("cli.book.heading", lang, variant=book.variant, n=len(book.rolls), engine=engine,
          state=t("cli.book.complete" if book.complete else "cli.book.incomplete", lang),
          sha=str(book.engine["model_sha256"])[:12], date=book.generated),
        t("cli.book.settings", lang, settings=", ".join(
            f"{k}={book.settings[k]}"
            for k in ("ply", "candidates", "threshold", "trials", "truncate", "seed", "reply_ply")
            if k in book.settings
        )),
    ]  # fmt: skip
    rolls = [book.roll(roll)] if roll else list(book.rolls)

    def _gap(best: BookCandidate, c: BookCandidate) -> str:
        if c is best or c.rollout_diff_se is None:
            return ""
        gap = f"{f(best.rollout_equity - c.rollout_equity)} +- {f(c.rollout_diff_se, '.4f')}"
        return t("cli.book.gap", lang, gap=gap)

    for r in rolls:
        lines.append(f"{r.roll}:")
        for c in r.candidates:
            p = c.probabilities
            rollout = f"{f(c.rollout_equity)} +- {f(c.rollout_se, '.4f')}{_gap(r.best, c)}"
            lines.append(f"  {c.play:<16} {f(c.equity)} " + t(
                "cli.book.candidate", lang, loss=f(c.loss, ".4f"), search=f(c.search_equity), rollout=rollout,
                n=c.trials, win=f(p["win"], ".3f"), gammon=f(p["win_gammon"], ".3f"),
                lose_gammon=f(p["lose_gammon"], ".3f"),
            ))  # fmt: skip
        if roll and r.replies is not None:
            lines.append(f"  {t('cli.book.replies', lang, play=r.replies.play, ply=r.replies.ply)}")
            for x in r.replies.replies:
                lines.append(f"    {x.roll}: {x.play:<20} {f(x.equity)}")
    return "\n".join(lines)


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add ``book generate``, ``status``, ``pack``, ``unpack``, ``show``, ``compare`` and ``contrast``."""
    ap: argparse.ArgumentParser = subparsers.add_parser(
        "book",
        help="generate, continue and show opening books",
        description=(__doc__ or "").split("\n")[0].replace("``", ""),
    )
    sub = ap.add_subparsers(dest="book_command", required=True)
    for name in ("generate", "status"):
        g = sub.add_parser(name)
        BookSettings.add_arguments(g)
        g.add_argument("--out", type=Path, required=True)
        g.add_argument("--workdir", type=Path)
        g.add_argument("--threads", type=int, default=1, help="torch threads (default 1)")
        g.add_argument("--max-items", type=int, default=None, help="stop after this many work items")
        g.add_argument("--quiet", action="store_true", help="no progress bar (else drawn on a terminal)")
        g.add_argument("--log", action="store_true", help="a line on stderr for each finished work item")
    pk = sub.add_parser("pack", help="the files no part holds yet, as the archive folder's next part")
    pk.add_argument("--workdir", type=Path, required=True)
    pk.add_argument("--archive", type=Path, required=True, help="the archive folder (part-NNNN.tar.xz)")
    up = sub.add_parser("unpack", help="check every part's .sha256 and put the files into a work directory")
    up.add_argument("--archive", type=Path, required=True)
    up.add_argument("--workdir", type=Path, required=True)
    s = sub.add_parser("show")
    s.add_argument("book", type=Path)
    s.add_argument("--roll")
    s.add_argument("--json", action="store_true")
    add_lang_argument(s)
    cp = sub.add_parser("compare", help="a book beside published rollouts of other programs (Markdown)")
    cp.add_argument("book", type=Path)
    cp.add_argument("--published", type=Path, default=None, help="default: data/book/published/...")
    cp.add_argument("--z", type=float, default=2.0, help="flag gaps further apart than z combined noises")
    ct = sub.add_parser("contrast", help="two books' best plays beside each other (Markdown)")
    ct.add_argument("a", type=Path)
    ct.add_argument("b", type=Path)
    ap.set_defaults(func=run)
    return ap


def main(argv: list[str] | None = None) -> int:
    """``pulvezar book ARGS``: the command with ``argv`` (None: the process's own arguments)."""
    from pulvezar.cli import main as cli_main

    return cli_main(["book", *(sys.argv[1:] if argv is None else argv)])


def run(args: argparse.Namespace) -> int:
    """Run a parsed ``pulvezar book`` command: ``show`` in the user's language (``--lang``), the developer
    tools (``generate``, ``status``, ``pack``, ``unpack``, ``compare``, ``contrast``) in English."""
    command = args.book_command
    lang = lang_of(args) if command == "show" else "en"
    try:
        if command == "show":
            book = read_book(args.book)
            if args.json:
                data = book.to_json()
                if args.roll:
                    data = next(r for r in data["rolls"] if r["roll"] == book.roll(args.roll).roll)
                print(json.dumps(data, indent=1, ensure_ascii=False))
            else:
                print(show(book, args.roll, lang))
            return 0
        return _developer_tool(args)
    except BookError as e:
        print(t("cli.book.error_field", lang, field=e.field, error=e), file=sys.stderr)
        return 2
    except ValueError as e:
        print(t("cli.book.error", lang, error=e), file=sys.stderr)
        return 2


def _developer_tool(args: argparse.Namespace) -> int:
    """``book generate``, ``status``, ``pack``, ``unpack``, ``compare`` and ``contrast`` (English)."""
    command = args.book_command
    if command in ("compare", "contrast"):
        from pulvezar.book import compare as cmp

        if command == "compare":
            _, figures = cmp.read_published(args.published or cmp.PUBLISHED)
            rows = cmp.compare(read_book(args.book), figures)
            print(cmp.comparison_markdown(rows, args.z))
        else:
            a, b = read_book(args.a), read_book(args.b)
            print(cmp.contrast_markdown(a, b, cmp.contrast(a, b)))
        return 0
    if command == "pack":
        from pulvezar.book.archive import pack

        part = pack(args.workdir, args.archive)
        done = f"{args.archive}: every file of {args.workdir} is packed already"
        print(f"wrote {part}" if part else done)
        return 0
    if command == "unpack":
        from pulvezar.book.archive import unpack

        print(f"{args.workdir}: {unpack(args.archive, args.workdir)} files added from {args.archive}")
        return 0
    import torch

    torch.set_num_threads(max(1, args.threads))
    settings = BookSettings.from_args(args)
    workdir = args.workdir or default_workdir(args.out)
    if command == "status":
        gen = BookGenerator(settings, workdir)
        items_done, items_total, trials_done, trials_total, rolls_done = gen._status()
        print(
            f"{workdir}: items {items_done}/{items_total}, trials {trials_done}/{trials_total}, "
            f"rolls {rolls_done}/{len(settings.roll_list)}"
        )
        return 0
    print(f"work directory {workdir}", file=sys.stderr)
    with progress_bar("book", "steps", quiet=args.quiet) as bar:

        def progress(p: Progress) -> None:
            bar(p.items_done, p.items_total)
            if args.log:
                _print_progress(p)

        book = generate_book(settings, workdir, args.out, progress=progress, max_items=args.max_items)
    print(f"wrote {args.out}: {len(book.rolls)} rolls, {'complete' if book.complete else 'incomplete'}")
    return 0 if book.complete or args.max_items is not None else 1
