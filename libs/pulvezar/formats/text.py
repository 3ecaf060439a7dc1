"""A readable text export of a match: header, then each game's score, numbered moves and result.

>>> from pulvezar.formats import read_mat
>>> rec = read_mat('''
...  3 point match
...
...  Game 1
...  Ann : 0                        Bob : 0
...   1)                             31: 8/5 6/5
...   2) 64: 24/18 13/9               Doubles => 2
...   3)  Drops
...                                   Wins 1 point
... ''')
>>> print(write_text(rec))
Ann vs Bob, 3-point match
<BLANKLINE>
Game 1 -- Ann 0, Bob 0
  1. Bob  31  8/5 6/5
  2. Ann  64  24/18 13/9
  3. Bob  doubles to 2
     Ann  drops
  Bob wins 1 point
<BLANKLINE>
"""

from __future__ import annotations

from pulvezar.formats.record import GameRecord, MatchRecord, setup_gnubg_id
from pulvezar.rules.diagram import ascii_board

__all__ = ["write_text"]

_LEVEL = {1: "a single game", 2: "a gammon", 3: "a backgammon"}


def _points(n: int) -> str:
    return f"{n} point" + ("" if n == 1 else "s")


def write_text(record: MatchRecord, *, boards: bool = False) -> str:
    """The match as plain text; ``boards``: an ASCII board at the start of each game."""
    names = [p or f"Player {i}" for i, p in enumerate(record.players)]
    width = max(map(len, names))
    what = f"{record.length}-point match" if record.length else "money session"
    out = [f"{names[0]} vs {names[1]}, {what}"]
    out += [f"{k}: {v}" for k, v in record.tags.items() if k not in ("Player 1", "Player 2")]
    out += [f"; {c}" for c in record.comments]
    for rec in record.games:
        out += ["", *_game(record, rec, names, width, boards)]
    return "\n".join(out) + "\n"


def _game(record: MatchRecord, rec: GameRecord, names: list[str], width: int, boards: bool) -> list[str]:
    title = f"Game {rec.number} -- {names[0]} {rec.score[0]}, {names[1]} {rec.score[1]}"
    out = [title + (" (Crawford game)" if rec.crawford else "")]
    if rec.setup is not None:
        out.append(f"  from the position {setup_gnubg_id(record, rec)}")
    if boards:
        game = record.new_game(rec)
        out += ["  " + line for line in ascii_board(game.position).splitlines()]
        out.append(f"  X: {names[0]}, O: {names[1]}")
    number = 0
    for i, a in enumerate(rec.actions):
        name = names[a.player].ljust(width)
        if a.kind in ("roll", "double"):
            number += 1
            if a.kind == "double":
                text = f"doubles to {a.value}"
            else:
                assert a.dice is not None
                nxt = rec.actions[i + 1] if i + 1 < len(rec.actions) else None
                play = (
                    (nxt.notation or "(cannot move)")
                    if nxt is not None and nxt.kind == "play"
                    else "(not played)"
                )
                text = f"{a.dice[0]}{a.dice[1]}  {play}"
            out.append(f"{number:3d}. {name}  {text}")
        elif a.kind in ("take", "drop", "resign", "accept"):
            text = {"take": "takes", "drop": "drops", "accept": "accepts"}.get(a.kind, "")
            if a.kind == "resign":
                text = f"resigns {_LEVEL.get(a.value, f'at level {a.value}')}"
            out.append(f"{'':5}{name}  {text}")
        elif a.kind == "win":
            out.append("  " + _result(record, rec, names, a.player, a.value))
    if rec.cut_at is not None:
        out.append(f"  (the record stops making sense at {rec.cut_at})")
    elif rec.winner is None:
        out.append("  (the record ends before the game does)")
    return out


def _result(record: MatchRecord, rec: GameRecord, names: list[str], player: int, written: int) -> str:
    points = rec.points if rec.winner == player else written
    text = f"{names[player]} wins {_points(points)}"
    if record.length and rec.score[player] + points >= record.length:
        text += " and the match"
    notes = []
    if rec.winner == player and rec.credited(record.length) != points:
        notes.append(f"{rec.credited(record.length)} needed")
    if written != points:
        notes.append(f"the file writes {written}")
    return text + (f" ({'; '.join(notes)})" if notes else "")
