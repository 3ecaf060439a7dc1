"""pulvezar as a GNU Backgammon external player (``pulvezar external --port N``).

gnubg's ``set player N external HOST:PORT`` makes gnubg send each decision of player ``N`` to a
socket as a FIBS board line and play the answer.  :mod:`~pulvezar.external.board` decodes the line
into a position, dice and cube state, :mod:`~pulvezar.external.player` answers it with a pulvezar
bot, :mod:`~pulvezar.external.server` is the socket.
"""

from __future__ import annotations

from pulvezar.external.board import BoardLineError, GnubgBoard, Request, decode, parse_board
from pulvezar.external.player import ExternalPlayer, gnubg_moves
from pulvezar.external.server import ExternalServer

__all__ = [
    "BoardLineError",
    "ExternalPlayer",
    "ExternalServer",
    "GnubgBoard",
    "Request",
    "decode",
    "gnubg_moves",
    "parse_board",
]
