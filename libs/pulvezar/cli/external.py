"""``pulvezar external``: pulvezar as a GNU Backgammon external player.

``pulvezar external --port 8080 [--host 127.0.0.1] [--level hard] [--style balanced]`` listens for
gnubg; in gnubg, ``set player 1 external localhost:8080`` hands that player's decisions to pulvezar
(:mod:`pulvezar.external`).  ``--transcript FILE`` appends each board and answer as a JSON line.
SIGINT and SIGTERM end the server cleanly.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
from types import FrameType
from typing import Any, TextIO

from pulvezar.play.settings import BOT_LEVELS, STYLES

__all__ = ["add_parser", "cmd_external"]


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``external`` sub-command to ``parser.add_subparsers()``'s result."""
    p: argparse.ArgumentParser = subparsers.add_parser(
        "external", help="play for GNU Backgammon as its external player (a socket gnubg connects to)"
    )
    p.add_argument("--port", type=int, required=True, help="TCP port to listen on (0: any free port)")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--level", choices=BOT_LEVELS, default="hard", help="bot level (easy/medium: 0-ply)")
    p.add_argument("--style", choices=STYLES, default="balanced")
    p.add_argument("--seed", type=int, default=0, help="the bot's noise seed (easy, medium)")
    p.add_argument("--jacoby", action="store_true", help="money play under the Jacoby rule (as set in gnubg)")
    p.add_argument("--beaver", action="store_true", help="money play with beavers (as set in gnubg)")
    p.add_argument(
        "--idle-timeout", type=float, default=3600.0, help="seconds before an idle connection closes"
    )
    p.add_argument("--transcript", metavar="FILE", help="append each board and answer to FILE (JSON lines)")
    p.set_defaults(func=cmd_external)
    return p


def _recorder(out: TextIO) -> Any:
    from pulvezar.external.player import Exchange

    def record(e: Exchange) -> None:
        row: dict[str, Any] = {"board": e.line, "answer": e.answer}
        if e.request is not None:
            row |= {"ask": e.request.ask, "position_id": e.request.position.position_id}
            if e.request.dice is not None:
                row["dice"] = list(e.request.dice)
        out.write(json.dumps(row) + "\n")
        out.flush()

    return record


def cmd_external(args: argparse.Namespace) -> int:
    from pulvezar.eval.evaluator import default_evaluator
    from pulvezar.external import ExternalPlayer, ExternalServer

    transcript = open(args.transcript, "a", encoding="utf-8") if args.transcript else None  # noqa: SIM115
    try:
        player = ExternalPlayer(
            default_evaluator(), args.level, args.style, args.seed, jacoby=args.jacoby, beaver=args.beaver,
            on_exchange=_recorder(transcript) if transcript else None,
        )  # fmt: skip
        server = ExternalServer(player.answer, args.host, args.port, args.idle_timeout)

        def stop(signum: int, frame: FrameType | None) -> None:
            server.shutdown()

        previous = {s: signal.signal(s, stop) for s in (signal.SIGINT, signal.SIGTERM)}
        try:
            print(
                f"pulvezar external: listening on {server.host}:{server.port} ({args.level})", file=sys.stderr
            )
            sys.stderr.flush()
            server.serve_forever()
        finally:
            for s, h in previous.items():
                signal.signal(s, h)
        print("pulvezar external: stopped", file=sys.stderr)
        return 0
    finally:
        if transcript is not None:
            transcript.close()
