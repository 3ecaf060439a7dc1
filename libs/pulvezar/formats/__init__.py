"""Match files: read and write match records (.mat, gnubg .sgf and text export, XG .xg, Gibbon .gmd, .txt)."""

from pulvezar.formats.gmd import read_gmd
from pulvezar.formats.gnubgtext import read_gnubg_text
from pulvezar.formats.limits import DEFAULT_LIMITS, FileTooLargeError, Limits
from pulvezar.formats.mat import read_mat, write_mat
from pulvezar.formats.record import Action, Decision, GameRecord, MatchFileError, MatchRecord
from pulvezar.formats.sgf import read_sgf, write_sgf
from pulvezar.formats.text import write_text
from pulvezar.formats.xg import read_xg

__all__ = [
    "DEFAULT_LIMITS",
    "Action",
    "Decision",
    "FileTooLargeError",
    "GameRecord",
    "Limits",
    "MatchFileError",
    "MatchRecord",
    "read_gmd",
    "read_gnubg_text",
    "read_mat",
    "read_sgf",
    "read_xg",
    "write_mat",
    "write_sgf",
    "write_text",
]
