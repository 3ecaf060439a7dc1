"""The ``pulvezar`` command line.

``pulvezar show ID`` draws a position and gives its Position ID and OGID; ``pulvezar
moves ID --dice 31`` lists its legal plays; ``hint``, ``eval``, ``cube`` and
``rollout`` analyse it.  ``ID`` is a Position ID, ``PositionID:MatchID`` (gnubg), an
XGID or an OGID (OpenGammon).  ``pulvezar match show|convert|analyse`` reads, writes
and analyses match files (OGXM files and ``.ogxms(.zst)`` streams included, docs/formats.md);
``pulvezar met`` shows match equities; ``pulvezar play`` plays against the bots (in
process, or on a platform's Play API with ``--api``); ``pulvezar book`` generates and
shows opening books; ``pulvezar train`` trains the nets; ``pulvezar cards export``
writes flash cards as an Anki deck; ``pulvezar external`` plays for GNU Backgammon
as its external player.

The command line sits on top of the library: one module per command group
(:mod:`~pulvezar.cli.board`, :mod:`~pulvezar.cli.engine`, :mod:`~pulvezar.cli.rollout`,
:mod:`~pulvezar.cli.match`, :mod:`~pulvezar.cli.met`, :mod:`~pulvezar.cli.play`,
:mod:`~pulvezar.cli.book`, :mod:`~pulvezar.cli.train`, :mod:`~pulvezar.cli.cards`,
:mod:`~pulvezar.cli.external`), sharing
:mod:`~pulvezar.cli.common` (the position argument and the language of the messages, ``--lang``) and
:mod:`~pulvezar.cli.progress` (progress bars).
"""

from __future__ import annotations

import argparse
import signal
import sys
from collections.abc import Sequence

from pulvezar.cli import board, book, cards, engine, external, match, met, play, rollout, train
from pulvezar.cli.common import lang_of, parse_any_id, parse_dice, parse_position
from pulvezar.errors import PulvezarError
from pulvezar.i18n import t

__all__ = ["build_parser", "main", "parse_any_id", "parse_dice", "parse_position", "version_line"]


def version_line() -> str:
    """``pulvezar 0.1.0, model pulvezar-v4 (4f5ab800c13df9cd...)``: the version and the net the
    commands load by default (``PULVEZAR_MODEL`` when set), hashed, not loaded."""
    from pulvezar import __version__
    from pulvezar.eval.evaluator import default_model_path
    from pulvezar.eval.provenance import file_sha256

    path = default_model_path()  # that file alone: the other models need not be hashed
    return f"pulvezar {__version__}, model {path.stem} ({file_sha256(path)[:16]}...)"


class _Version(argparse.Action):
    """``--version``: :func:`version_line`, computed only when asked."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS, **kw: object) -> None:
        super().__init__(
            option_strings, dest, nargs=0, default=argparse.SUPPRESS, help="print the version and net"
        )

    def __call__(self, parser: argparse.ArgumentParser, *args: object) -> None:
        print(version_line())
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="pulvezar", description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--version", action=_Version)
    sub = parser.add_subparsers(dest="command", required=True)
    board.add_parsers(sub)
    engine.add_parsers(sub)
    rollout.add_parser(sub)
    match.add_parser(sub)
    met.add_parser(sub)
    play.add_parser(sub)
    book.add_parser(sub)
    train.add_parser(sub)
    cards.add_parser(sub)
    external.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """The command line; ``argv`` None: the process's own arguments (the console script)."""
    if argv is None and hasattr(signal, "SIGPIPE"):
        # a command's output piped into `head` ends it quietly; only for the process's own command
        # line, never in a process that calls main([...]) (a test runner would die of its next EPIPE)
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except PulvezarError as e:
        print(t("cli.common.error", lang_of(args), error=e), file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
